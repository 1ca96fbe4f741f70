"""The state of the "By group" view: which audit to show, the audit, and its rules.

Plain Python (no Jupyter): :class:`AuditState` keeps the audit's settings (the group
column or the two crossed, the run, training or held-out rows, the metric of the forest
plot, the least group size), runs :func:`~riskexplore.evaluation.audit.run.audit` on the
chosen model and rows, and pairs each finding with the rule that limits it
(:func:`~riskexplore.evaluation.audit.rules.rule_for_finding`) or the reason there is
none. The view (:mod:`riskexplore.widgets.audit.view`) draws it; study files keep its
settings (:meth:`AuditState.settings_dict`) and the audit is computed again on opening.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from riskexplore.core.registry import DEFAULT_FAMILY, AuditSpec, find_family
from riskexplore.errors import InputError, RiskExploreError
from riskexplore.evaluation.audit.findings import Finding
from riskexplore.evaluation.audit.rules import SuggestedRule, rule_available, rule_for_finding
from riskexplore.evaluation.audit.run import AuditResult, audit

__all__ = ["AUDIT_DEFAULTS", "AuditState", "FindingRule", "METRIC_WORDS"]

#: The settings of the view and their defaults.
AUDIT_DEFAULTS: dict[str, Any] = {
    "by": (),
    "run": "unconstrained",
    "data": "train",
    "metric": "",
    "min_size": 30,
}

#: The forest plot's metrics in plain words (the audited model's family chooses them and
#: their order: :attr:`~riskexplore.core.registry.AuditSpec.metrics`).
METRIC_WORDS: dict[str, str] = {
    "calibration": "calibration: observed minus predicted risk",
    "auc": "telling patients apart (AUC)",
    "fnr": "missed cases (false negative rate)",
    "fpr": "false alarms (false positive rate)",
    "ppv": "right when flagged (positive predictive value)",
    "observed_expected": "observed against predicted risk (1: as predicted)",
    "c_index": "telling patients apart (C-index)",
}

_RUNS = ("unconstrained", "constrained")
_DATA = ("train", "test")


@dataclass(frozen=True)
class FindingRule:
    """A finding, and the rule that limits it or why there is none.

    Attributes
    ----------
    finding : Finding
        The finding.
    rule : SuggestedRule or None
        Its rule.
    reason : str or None
        Why there is no rule (plain words), when ``rule`` is None.
    """

    finding: Finding
    rule: SuggestedRule | None
    reason: str | None


class AuditState:
    """Settings, result and rules of the "By group" view.

    Parameters
    ----------
    **settings
        Keys of :data:`AUDIT_DEFAULTS`.

    Attributes
    ----------
    settings : dict
        The current settings.
    result : AuditResult or None
        The audit shown, if any.
    message : str
        Why there is no audit (plain words), or ``""``.

    Examples
    --------
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> from riskexplore.widgets import AuditState
    >>> heart = load_dataset("heart")
    >>> model = fit_risk_score(heart.X, heart.y, max_size=3, time_limit=10)
    >>> state = AuditState(by=("sex",))
    >>> result = state.compute({"unconstrained": model}, heart.X, heart.y)
    >>> [f.group for f in result.findings if f.metric == "calibration"]  # doctest: +SKIP
    ['sex = 0', 'sex = 1']
    """

    def __init__(self, **settings: Any) -> None:
        self.settings: dict[str, Any] = dict(AUDIT_DEFAULTS)
        self.result: AuditResult | None = None
        self.message = ""
        self.update(**settings)

    # --- settings --------------------------------------------------------------------
    def update(self, **settings: Any) -> None:
        """Change settings (all checked first; nothing changes on an error).

        Parameters
        ----------
        **settings
            Keys of :data:`AUDIT_DEFAULTS`.

        Raises
        ------
        InputError
            For an unknown key or a value out of range.
        """
        new = dict(self.settings)
        for key, value in settings.items():
            if key not in AUDIT_DEFAULTS:
                known = ", ".join(AUDIT_DEFAULTS)
                raise InputError(f"unknown audit setting {key!r}; the settings are {known}")
            new[key] = value
        new["by"] = _columns(new["by"])
        if new["run"] not in _RUNS:
            raise InputError(f"run must be one of {', '.join(_RUNS)}, got {new['run']!r}")
        if new["data"] not in _DATA:
            raise InputError(f"data must be 'train' or 'test', got {new['data']!r}")
        metrics = set(METRIC_WORDS) | {""}
        if new["metric"] not in metrics:
            raise InputError(f"metric must be one of {', '.join(sorted(metrics))}")
        size = new["min_size"]
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise InputError(f"min_size must be a whole number >= 1, got {size!r}")
        self.settings = new

    def settings_dict(self) -> dict[str, Any]:
        """The settings as JSON data (lists for tuples), for study files.

        Returns
        -------
        dict
            The settings.
        """
        return {**self.settings, "by": list(self.settings["by"])}

    # --- the audit -------------------------------------------------------------------
    def clear(self, message: str = "") -> None:
        """Forget the audit shown.

        Parameters
        ----------
        message : str
            Why there is none (plain words).
        """
        self.result = None
        self.message = message

    def compute(
        self, models: Mapping[str, Any], X, y, X_test=None, y_test=None
    ) -> AuditResult | None:
        """Audit the chosen run's model on the chosen rows by the chosen column(s).

        Parameters
        ----------
        models : mapping
            ``"unconstrained"`` / ``"constrained"`` -> fitted model.
        X, y
            The training rows (a DataFrame holding the group columns) and the outcome the
            model's family takes (a survival score's: the structured time and event).
        X_test, y_test : optional
            The held-out rows.

        Returns
        -------
        AuditResult or None
            The audit; None (and :attr:`message` says why in words) without columns, a
            model of the run or held-out rows, or when the audit cannot be computed.
        """
        s = self.settings
        if not s["by"]:
            self.clear("Choose a column to see the groups.")
            return None
        model = models.get(s["run"])
        if model is None:
            which = "without" if s["run"] == "unconstrained" else "with"
            self.clear(f"No model {which} your rules yet: run that search first.")
            return None
        if s["data"] == "test":
            if X_test is None or y_test is None or len(y_test) == 0:
                self.clear("No patients were kept aside: choose the training patients.")
                return None
            X, y = X_test, y_test
        if X is None or y is None:
            self.clear("Load the data first.")
            return None
        missing = [c for c in s["by"] if c not in X.columns]
        if missing:
            self.clear(f"The data have no column {missing[0]!r}; choose another column.")
            return None
        try:
            self.result = audit(model, X, y, list(s["by"]), min_size=int(s["min_size"]))
        except RiskExploreError as exc:
            self.clear(str(exc))
            return None
        self.message = ""
        return self.result

    def findings(self) -> list[FindingRule]:
        """Each finding of the audit with its rule (or why there is none).

        Returns
        -------
        list of FindingRule
            In the audit's order; empty without an audit.
        """
        if self.result is None:
            return []
        out = []
        for finding in self.result.findings:
            reason = rule_available(finding, self.result)
            rule = None
            if reason is None:
                try:
                    rule = rule_for_finding(finding, self.result)
                except RiskExploreError as exc:
                    reason = str(exc)
            out.append(FindingRule(finding, rule, reason))
        return out

    def metric(self) -> str:
        """The forest plot's metric: the one chosen, else that of the first finding, else
        the first of :meth:`metric_options`.

        Returns
        -------
        str
            The metric.
        """
        values = [v for _label, v in self.metric_options()]
        if self.settings["metric"] in values:
            return self.settings["metric"]
        flagged = [f.metric for f in self.result.findings] if self.result is not None else []
        return next((m for m in flagged if m in values), values[0])

    def metric_options(self) -> list[tuple[str, str]]:
        """The forest plot's metrics for the audited model (plain words, name).

        Returns
        -------
        list of (str, str)
            The options.
        """
        family = find_family(self.result.kind if self.result is not None else DEFAULT_FAMILY)
        spec = family.audit if family is not None else AuditSpec()  # (a model of no family)
        return [(METRIC_WORDS[m], m) for m in spec.metrics]


def _columns(by: Any) -> tuple[str, ...]:
    if by is None or by == "":
        return ()
    if isinstance(by, str):
        by = (by,)
    if not isinstance(by, Sequence):
        raise InputError(f"by must be one column name or two, got {by!r}")
    columns = tuple(str(c) for c in by if c not in (None, ""))
    if len(columns) > 2:
        raise InputError(f"by names one column or two (their cross), got {len(columns)}")
    if len(columns) == 2 and columns[0] == columns[1]:
        return columns[:1]
    return columns
