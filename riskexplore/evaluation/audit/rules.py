"""From a finding to the rule that limits it.

A :class:`~riskexplore.evaluation.audit.findings.Finding` says that a group does worse
than the rest beyond chance. :func:`rule_for_finding` turns it into a constraint of the
model's family that limits that gap when the model is searched again, so that the
comparison without and with the rule (:func:`riskexplore.evaluation.compare.compare`)
shows its certified price. The family says which rules it has
(:class:`~riskexplore.core.registry.AuditSpec`); this module works out their numbers:

* a **calibration** finding (the model under- or overestimates a group's risk; a risk
  score's rule is :class:`~riskexplore.risk_score.group_calibration.GroupCalibration`)
  gives a rule on the side of the finding. Its target is the average score (log-odds) at
  which the group's average risk would match its observed rate if every score of the
  group moved by the same amount ``c`` (found from the audited scores,
  :func:`calibrating_shift`); the rule lets the average score miss that target by at
  most ``shrink * |c|``, so it asks for at least half (by default) of the move. (An
  average of log-odds is not the log-odds of an average risk: aiming at the log-odds of
  the observed rate may not bind at all when the scores spread.)
* an **FNR** or **FPR** finding (a checklist's rules are
  :class:`~riskexplore.checklist.constraints.GroupRateGap`, the rate of any group minus
  that of any other, over the groups of the audited column(s), or with ``cap=True``
  :class:`~riskexplore.checklist.constraints.WorstGroupRate`, the rate of every group)
  gives a limit of the gap or of every group's rate. A numeric column the audit cut into
  ranges becomes a binned group column at the same cut points (``"age (ranges at 40,
  60)"``, :mod:`riskexplore.evaluation.audit.binned`), so the rule's groups are the
  audit's row for row; :meth:`SuggestedRule.groups` computes them for ``groups=``.

The other findings (a lower AUC or PPV, a risk score's error rates at a threshold) have
no linear rule; :func:`rule_available` says so in words and :func:`rule_for_finding`
refuses them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from riskexplore.core.registry import AuditSpec, ModelFamily, families, find_family
from riskexplore.errors import ConstraintError
from riskexplore.evaluation.audit.binned import (
    binned_column_name,
    group_data,
    parse_binned_column,
)
from riskexplore.evaluation.audit.findings import Finding
from riskexplore.evaluation.audit.groups import _bin_words

__all__ = [
    "SuggestedRule",
    "calibrating_shift",
    "group_conditions",
    "plain_rule",
    "rule_available",
    "rule_for_finding",
]

#: The least gap a suggested risk-score rule allows, in log-odds.
MIN_LOGIT_GAP = 0.01
#: The least gap (or margin) a suggested checklist rule allows, as a rate.
MIN_RATE_GAP = 0.01

#: The findings each kind of rule limits, and what such rules do in words.
_CALIBRATION = (("calibration",), "bring a group's predicted risk closer to what happened")
_RATES = (("fnr", "fpr"), "limit a group's missed cases (FNR) and false alarms (FPR)")


@dataclass(frozen=True)
class SuggestedRule:
    """The rule that limits a finding.

    Attributes
    ----------
    constraint : ReadableConstraint
        The constraint of the model's family.
    group_columns : tuple of str
        The group columns the rule's groups come from: the audited columns, a column the
        audit cut into ranges as its binned group column (``"age (ranges at 40, 60)"``).
        A checklist's problem needs them as ``groups=``
        (``fit_checklist(..., groups=rule.groups(X))``); a risk score finds them among
        its features or in ``groups=``.
    sentence : str
        The rule in plain words, with what it changes.
    """

    constraint: Any
    group_columns: tuple[str, ...]
    sentence: str

    def groups(self, X):
        """The rule's group columns on the rows of ``X`` (binned ones computed).

        Parameters
        ----------
        X : DataFrame
            The rows (holding the audited columns).

        Returns
        -------
        DataFrame
            One column per name of :attr:`group_columns`, with ``X``'s index.
        """
        return group_data(X, self.group_columns)


def _kind(result: Any) -> str:
    kind = getattr(result, "kind", None)
    if kind is None and isinstance(result, str):
        kind = result
    return str(kind)


def _rules(spec: AuditSpec) -> list[tuple[tuple[str, ...], str]]:
    """The family's kinds of rules: the findings each limits, and what it does in words."""
    out = []
    if spec.calibration_rule is not None:
        out.append(_CALIBRATION)
    if spec.rate_rule is not None:
        out.append(_RATES)
    return out


def _with_rules() -> str:
    """The families that have rules, in words ("risk scores and checklists")."""
    names = [f"{f.label.lower()}s" for f in families() if _rules(f.audit)]
    if len(names) > 1:
        return ", ".join(names[:-1]) + " and " + names[-1]
    return names[0] if names else "no family"


def rule_available(finding: Finding, result: Any) -> str | None:
    """Why a finding has no rule (plain words), or None when it has one.

    Parameters
    ----------
    finding : Finding
        A finding of the audit.
    result : AuditResult or str
        The audit (or its model's kind: a family's name, ``"model"``).

    Returns
    -------
    str or None
        The reason, or None.
    """
    family = find_family(_kind(result))
    rules = [] if family is None else _rules(family.audit)
    if not rules:
        return f"rules exist for {_with_rules()} only"
    if any(finding.metric in metrics for metrics, _words in rules):
        return None
    can = " and ".join(words for _metrics, words in rules)
    return f"the rules of a {family.noun} can {can}, not its {_metric_words(finding.metric)}"


def _metric_words(metric: str) -> str:
    return {
        "auc": "ranking of patients (AUC)",
        "ppv": "share of flagged patients with the outcome (PPV)",
        "fnr": "missed cases (FNR)",
        "fpr": "false alarms (FPR)",
        "calibration": "calibration",
    }.get(metric, metric)


def rule_for_finding(
    finding: Finding,
    result: Any,
    *,
    max_gap: float | None = None,
    shrink: float = 0.5,
    cap: bool = False,
) -> SuggestedRule:
    """The rule that limits a finding, for the audited model's family.

    Parameters
    ----------
    finding : Finding
        A finding of ``result``.
    result : AuditResult
        The audit it comes from (its model's kind, group columns and bins).
    max_gap : float, optional
        The gap the rule allows: log-odds for a risk score's calibration (around the
        target), a rate for a checklist's gap (or, with ``cap``, the cap on every
        group's rate). By default the finding's gap times ``shrink`` (for a risk score:
        the calibrating shift times ``shrink``).
    shrink : float, default 0.5
        The share of the finding's gap the default ``max_gap`` keeps, in ``[0, 1)``
        (0.5 halves it).
    cap : bool, default False
        For a checklist, cap every group's rate
        (:class:`~riskexplore.checklist.constraints.WorstGroupRate`, at the flagged group's
        rate minus the shrunk gap) instead of limiting the gap between groups.

    Returns
    -------
    SuggestedRule
        The constraint, the group columns it needs and a sentence.

    Raises
    ------
    ConstraintError
        When the finding has no rule (see :func:`rule_available`), or for a bad
        ``max_gap`` or ``shrink``.
    """
    reason = rule_available(finding, result)
    if reason is not None:
        raise ConstraintError(f"no rule limits this finding: {reason}")
    if isinstance(shrink, bool) or not 0.0 <= float(shrink) < 1.0:
        raise ConstraintError(f"shrink must be a number in [0, 1), got {shrink!r}")
    family = find_family(_kind(result))
    columns = tuple(str(c) for c in result.settings["by"])
    if finding.metric in _CALIBRATION[0]:
        return _calibration_rule(finding, result, columns, max_gap, float(shrink), family)
    cuts = result.settings.get("cuts") or {}
    binned = tuple(binned_column_name(c, cuts[c]) if cuts.get(c) else c for c in columns)
    return _rate_rule(finding, binned, max_gap, float(shrink), cap, family.audit)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p) - math.log1p(-p)


def calibrating_shift(table, observed: float) -> tuple[float, float]:
    """The group's average score and the shift of every score that calibrates it.

    Parameters
    ----------
    table : DataFrame
        The group's reliability table (``predicted_risk`` and ``count`` per score, as in
        :attr:`AuditResult.reliability`).
    observed : float
        The group's observed rate, in (0, 1).

    Returns
    -------
    (float, float)
        ``(mean, c)``: the group's average log-odds, and the ``c`` for which the average
        of ``sigma(logit_i + c)`` equals ``observed`` (found by bisection; the average is
        increasing in ``c``).
    """
    risk = np.clip(table["predicted_risk"].to_numpy(dtype=float), 1e-9, 1 - 1e-9)
    counts = table["count"].to_numpy(dtype=float)
    logits = np.log(risk) - np.log1p(-risk)
    weights = counts / counts.sum()
    mean = float(weights @ logits)

    def average(c: float) -> float:
        return float(weights @ (1.0 / (1.0 + np.exp(-(logits + c)))))

    low, high = -30.0, 30.0
    for _ in range(200):
        mid = (low + high) / 2
        if average(mid) < observed:
            low = mid
        else:
            high = mid
    return mean, (low + high) / 2


def _calibration_rule(
    finding: Finding,
    result: Any,
    columns: tuple[str, ...],
    max_gap,
    shrink: float,
    family: ModelFamily,
) -> SuggestedRule:
    observed, predicted = float(finding.value), float(finding.rest_value)
    under = observed > predicted  # the score underestimates the group's risk
    table = (getattr(result, "reliability", None) or {}).get(finding.group)
    target = None
    if table is not None and len(table) and 0.0 < observed < 1.0:
        mean, shift = calibrating_shift(table, observed)
        target = round(mean + shift, 4)
        gap = abs(shift) * shrink
    else:  # no scores to aim with: the log-odds of the observed rate
        gap = abs(_logit(observed) - _logit(predicted)) * shrink
    if max_gap is None:
        max_gap = max(MIN_LOGIT_GAP, round(gap, 2))
    where = group_conditions(finding.group, result)
    rule = family.audit.calibration_rule(
        where,
        max_gap=max_gap,
        limit="under" if under else "over",
        label=finding.group,
        target=target,
    )
    side = "underestimates" if under else "overestimates"
    sentence = (
        f"The {family.noun} {side} the risk of {finding.group} (observed {_pct(observed)}, "
        f"predicted {_pct(predicted)}). Rule: {rule.describe()}."
    )
    return SuggestedRule(rule, columns, sentence)


def _rate_rule(
    finding: Finding,
    columns: tuple[str, ...],
    max_gap,
    shrink: float,
    cap: bool,
    spec: AuditSpec,
) -> SuggestedRule:
    rate = finding.metric
    words = "missed cases (FNR)" if rate == "fnr" else "false alarms (FPR)"
    if max_gap is None:
        if cap:  # every group's rate at most the flagged one's minus the shrunk gap
            limit = finding.value - abs(finding.gap) * (1 - shrink)
        else:
            limit = abs(finding.gap) * shrink
        max_gap = max(MIN_RATE_GAP, round(limit, 2))
    rule = spec.rate_rule(rate, max_gap, by=columns, cap=cap)
    sentence = (
        f"The rate of {words} of {finding.group} is {_pct(finding.value)}, against "
        f"{_pct(finding.rest_value)} for the rest. Rule: {rule.describe()}."
    )
    return SuggestedRule(rule, columns, sentence)


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%"


def plain_rule(constraint: Any) -> str:
    """A rule in plain words, for pages read by clinicians.

    The constraints' own ``describe()`` is short and technical ("FPR gap between groups
    by age (ranges at 48, 56, 61) at most 12%"); a family's plain words
    (:attr:`~riskexplore.core.registry.AuditSpec.plain_rule`) say what the rule does
    ("false alarms may differ by at most 12 points between the groups by age ranges").

    Parameters
    ----------
    constraint : ReadableConstraint
        A rule (those without plain words fall back to ``describe()``).

    Returns
    -------
    str
        The sentence (without a final full stop).
    """
    for family in families():
        words = family.audit.plain_rule(constraint, _plain_groups)
        if words is not None:
            return words
    return constraint.describe()


def _plain_groups(by: tuple[str, ...] | None) -> str:
    if not by:
        return "the groups of patients"
    names = []
    for column in by:
        parsed = parse_binned_column(column)
        names.append(f"{parsed[0]} ranges" if parsed else str(column))
    return "the groups by " + " and ".join(names)


def group_conditions(label: str, result: Any) -> dict[str, Any]:
    """The conditions on the audited columns that pick out a group, from its label.

    Parameters
    ----------
    label : str
        A group label of the audit (``"age 60 and older"``, ``"sex = 1"``, or the cross
        ``"age 60 and older, sex = 1"``).
    result : AuditResult
        The audit (its columns and the cut points of binned columns).

    Returns
    -------
    dict
        Column -> a value, or a range ``(low, high)`` meaning ``low <= value < high``
        (``None`` for an open side), as a risk score's
        :class:`~riskexplore.risk_score.group_calibration.GroupCalibration` takes them.

    Raises
    ------
    ConstraintError
        For a label that is not one of the audit's groups, or the group of missing
        values.
    """
    settings = result.settings
    columns = [str(c) for c in settings["by"]]
    cuts: Mapping[str, list[float]] = settings.get("cuts") or {}
    conditions = _match(label, columns, cuts)
    if conditions is None:
        raise ConstraintError(
            f"{label!r} is not a group of the audit by {' x '.join(columns)}; "
            "take the label from its table or findings"
        )
    return conditions


def _match(text: str, columns: list[str], cuts: Mapping[str, list[float]]):
    """Conditions for ``text`` over ``columns`` (parts joined by ``", "``), or None."""
    if not columns:
        return {} if text == "" else None
    column, rest = columns[0], columns[1:]
    for part, condition in _parts(column, cuts.get(column)):
        if rest:
            if text.startswith(part + ", "):
                tail = _match(text[len(part) + 2 :], rest, cuts)
                if tail is not None:
                    return {column: condition, **tail}
        elif text == part:
            return {column: condition}
    if text.startswith(f"{column} missing"):
        raise ConstraintError(
            f"the group of missing {column} has no rule: a rule needs the values it limits"
        )
    prefix = f"{column} = "
    if cuts.get(column) is None and text.startswith(prefix):
        value = text[len(prefix) :].split(", ")[0] if rest else text[len(prefix) :]
        condition = _value(value)
        if rest:
            tail = _match(text[len(prefix) + len(value) + 2 :], rest, cuts)
            return None if tail is None else {column: condition, **tail}
        return {column: condition}
    return None


def _parts(column: str, cuts: list[float] | None):
    """The labels of a binned column's bins and their ranges (both wordings)."""
    if not cuts:
        return []
    bounds = [None, *cuts, None]
    out = []
    for integer in (True, False):
        words = _bin_words(column, list(cuts), integer)
        out += [(w, (bounds[i], bounds[i + 1])) for i, w in enumerate(words)]
    return out


def _value(text: str) -> Any:
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text
