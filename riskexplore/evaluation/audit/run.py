"""``audit(model, X, y, by)``: does a fitted model work for every group of rows?

The entry point of the subgroup audit. It checks its inputs, builds the groups
(:mod:`~riskexplore.evaluation.audit.groups`), computes each group's metrics and the
rest's (:mod:`~riskexplore.evaluation.audit.metrics`), their gaps and the findings
(:mod:`~riskexplore.evaluation.audit.findings`), and returns an :class:`AuditResult`:
a table, the findings in plain words, and the settings used.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.registry import family_of
from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.audit.findings import GAP_METRICS, Finding, find, gap_columns
from riskexplore.evaluation.audit.groups import make_groups
from riskexplore.evaluation.audit.metrics import group_metrics, model_predictions
from riskexplore.evaluation.audit.time_to_event import survival_audit_parts, survival_audit_text
from riskexplore.evaluation.intervals import z_value
from riskexplore.evaluation.metrics import as_binary_outcome, outcome_of, reliability_table

__all__ = ["TOO_FEW", "AuditResult", "audit", "check_by"]

#: The note of a group with fewer rows than ``min_size``.
TOO_FEW = "too few to judge"

#: The metric columns of the table, in order (each rate and the AUC with ``_low``,
#: ``_high``).
_METRIC_COLUMNS = (
    "prevalence",
    "prevalence_low",
    "prevalence_high",
    "auc",
    "auc_low",
    "auc_high",
    "cal",
    "observed_risk",
    "observed_risk_low",
    "observed_risk_high",
    "predicted_risk",
    "fnr",
    "fnr_low",
    "fnr_high",
    "fpr",
    "fpr_low",
    "fpr_high",
    "ppv",
    "ppv_low",
    "ppv_high",
)
_COUNT_COLUMNS = ("n_neg", "n_pred_pos", "tp", "fp", "fn")
_HIDDEN = ("auc_var", "auc_samples")


@dataclass(frozen=True)
class AuditResult:
    """A subgroup audit: one row per group, the findings, and the settings used.

    Attributes
    ----------
    table : DataFrame
        One row per group (display order): ``group``, ``n``, ``n_pos``, ``too_few``,
        ``note`` (``"too few to judge"`` or empty), ``prevalence``, ``auc``, ``cal``,
        ``observed_risk``, ``predicted_risk``, ``fnr``, ``fpr``, ``ppv`` (with ``_low``
        and ``_high`` intervals, except ``cal`` and ``predicted_risk``), the counts
        ``n_neg``, ``n_pred_pos``, ``tp``, ``fp``, ``fn``, and per metric the rest's
        value ``<metric>_rest`` and the gap ``<metric>_gap`` with ``_gap_low``,
        ``_gap_high`` (``calibration_gap``: observed minus predicted risk). A group
        with ``too_few`` has ``nan`` metrics.
    findings : list of Finding
        The gaps whose interval excludes zero on the side where the group does worse.
    overall : dict
        The same metrics on all rows.
    settings : dict
        ``by``, ``min_size``, ``bins``, ``confidence``, ``n_boot``, ``seed``,
        ``subject``, ``kind`` (the model's kind) and ``cuts`` (the cut points of each
        binned column).
    reliability : dict
        For a risk model, the reliability table
        (:func:`~riskexplore.evaluation.metrics.reliability_table`) of each group with
        enough rows, by group label; empty for a model without risks.
    """

    table: pd.DataFrame
    findings: list[Finding]
    overall: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)
    reliability: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """The model's kind: ``"risk_score"``, ``"checklist"`` or ``"model"``."""
        return str(self.settings.get("kind", "model"))

    def to_dict(self) -> dict[str, Any]:
        """The audit as JSON-safe Python (``nan`` and infinities become None).

        Returns
        -------
        dict
            ``settings``, ``overall``, ``groups`` (one dict per table row),
            ``findings`` (one dict per finding) and ``reliability`` (group label -> the
            rows of its reliability table).
        """
        return _json_safe(
            {
                "settings": self.settings,
                "overall": self.overall,
                "groups": self.table.to_dict(orient="records"),
                "findings": [asdict(f) for f in self.findings],
                "reliability": {
                    g: t.to_dict(orient="records") for g, t in self.reliability.items()
                },
            }
        )

    def to_text(self) -> str:
        """The audit as a plain-text table, then its findings (for the command line).

        Returns
        -------
        str
            The text.
        """
        if self.settings.get("outcome") == "survival":
            return survival_audit_text(self)
        return _text(self)

    def __repr__(self) -> str:
        by = " x ".join(self.settings.get("by", ()))
        return f"AuditResult(by={by!r}, groups={len(self.table)}, findings={len(self.findings)})"


def _json_safe(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_json_safe(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    return str(value)


# --- checks ----------------------------------------------------------------------------
def check_by(X: pd.DataFrame, by: Any) -> tuple[str, ...]:
    """The group columns of ``by``, checked against ``X`` (before a long fit, say).

    Parameters
    ----------
    X : DataFrame
        The data.
    by : str or sequence of str
        One column name or two.

    Returns
    -------
    tuple of str
        The column names.

    Raises
    ------
    InputError
        For anything but one or two different names of columns of ``X``.
    """
    _check_frame(X)
    columns = (by,) if isinstance(by, str) else tuple(by) if isinstance(by, Sequence) else None
    if columns is None or not all(isinstance(c, str) for c in columns):
        raise InputError(f"by must be a column name or a list of one or two, got {by!r}")
    if not 1 <= len(columns) <= 2:
        raise InputError(f"by names one column or two (their cross), got {len(columns)}")
    if len(columns) == 2 and columns[0] == columns[1]:
        raise InputError(f"by names {columns[0]!r} twice; give two different columns")
    known = [str(c) for c in X.columns]
    for column in columns:
        if column not in known:
            shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
            raise InputError(
                f"unknown group column {column!r}; the data has the columns {shown} "
                "(a group column must be a column of the data)"
            )
    return columns


def _check_whole(value: Any, name: str, least: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be a whole number, got {value!r}")
    if value < least:
        raise InputError(f"{name} must be at least {least}, got {value}")
    return int(value)


def _check_frame(X: Any) -> None:
    if not isinstance(X, pd.DataFrame):
        raise InputError(
            f"X must be a pandas DataFrame holding the group column(s), got {type(X).__name__}"
        )


def _check_data(X: pd.DataFrame, y: Any) -> np.ndarray:
    yb = as_binary_outcome(y)
    if len(yb) != len(X):
        raise InputError(f"X has {len(X)} rows but y has {len(yb)}")
    if len(yb) == 0:
        raise InputError("X has no rows to audit")
    if yb.min() == yb.max():
        raise InputError("y has one class only; an audit needs positive and negative rows")
    return yb


# --- the audit -------------------------------------------------------------------------
def audit(
    model,
    X: pd.DataFrame,
    y,
    by: str | Sequence[str],
    *,
    min_size: int = 30,
    bins: Any = 4,
    confidence: float = 0.95,
    n_boot: int = 0,
    seed: int = 0,
    subject: str = "patients",
    horizon: float | None = None,
) -> AuditResult:
    """Audit a fitted model group by group: metrics, intervals, gaps to the rest, findings.

    A model of a time to event (a survival score, ``y`` its structured survival outcome)
    gets per group Harrell's C, the observed (Kaplan-Meier) against the predicted risk by
    ``horizon`` and their ratio O/E, each with its interval, and the rows and events (see
    :mod:`~riskexplore.evaluation.audit.time_to_event`); a group without an event says so
    and gets no figures.

    Parameters
    ----------
    model : object
        A fitted model: a :class:`~riskexplore.risk_score.model.RiskScore`, a
        :class:`~riskexplore.checklist.model.Checklist`, their scikit-learn estimators,
        or any classifier with ``predict`` (and ``decision_function`` or
        ``predict_proba`` for the AUC).
    X : DataFrame
        The data (training or held-out). The group columns must be among its columns;
        they need not be features of the model.
    y : array-like of shape (n,)
        The binary outcome (a survival model: the structured array ``[("event", bool),
        ("time", float)]`` or a ``(time, event)`` pair).
    by : str or list of str
        One group column, or two (their cross).
    min_size : int
        Groups with fewer rows are marked ``"too few to judge"`` and get no numbers.
    bins : int, list of float, or dict
        How numeric columns with more than 10 values are grouped: that many
        equal-frequency bins (cut at quantiles), or the cut points given (e.g.
        ``[40, 60]`` gives ``"age under 40"``, ``"age 40 to 59"``, ``"age 60 and
        older"``); a dict gives each column its own (and its cut points bin a column
        with few values too).
    confidence : float
        The level of every interval, in (0, 1).
    n_boot : int
        Bootstrap resamples for the AUC's intervals; 0 uses DeLong's variance.
    seed : int
        The seed of the bootstrap.
    subject : str
        Who the rows are, in the findings' sentences (``"for patients with ..."``).
    horizon : float, optional
        A survival model's horizon (default: its first); refused for other models.

    Returns
    -------
    AuditResult
        The table, the findings and the settings.

    Raises
    ------
    InputError
        For an unknown or one-group column, a non-binary outcome, lengths that differ, or
        settings out of range.
    """
    _check_frame(X)
    columns = check_by(X, by)
    if outcome_of(model) == "survival":
        yb = None
    else:
        yb = _check_data(X, y)
        if horizon is not None:
            raise InputError("horizon= is for a model of a time to event (a survival score)")
    min_size = _check_whole(min_size, "min_size", 1)
    n_boot = _check_whole(n_boot, "n_boot", 0)
    seed = _check_whole(seed, "seed", 0)
    z_value(confidence)
    grouping = make_groups(X, columns, bins)
    settings = {
        "by": list(columns),
        "min_size": min_size,
        "bins": bins if not isinstance(bins, Mapping) else dict(bins),
        "confidence": float(confidence),
        "n_boot": n_boot,
        "seed": seed,
        "subject": subject,
        "cuts": grouping.binned,
    }
    if yb is None:
        return _survival_audit(model, X, y, grouping, settings, horizon)
    predictions = model_predictions(model, X, yb)
    options = {"confidence": float(confidence), "n_boot": n_boot}
    rows = []
    for i, label in enumerate(grouping.order):
        mask = grouping.labels == label
        rows.append(_group_row(predictions, label, mask, min_size, options, seed, i))
    table = pd.DataFrame(rows)
    overall = group_metrics(predictions, np.ones(len(yb), bool), rng=_rng(seed), **options)
    settings["kind"] = predictions.kind
    findings = find(table, kind=predictions.kind, confidence=confidence, subject=subject)
    reliability = _reliability(predictions, grouping, table, float(confidence))
    return AuditResult(table, findings, _public(overall), settings, reliability)


def _survival_audit(model, X, y, grouping, settings: dict, horizon) -> AuditResult:
    """The audit of a survival model (see
    :mod:`~riskexplore.evaluation.audit.time_to_event`)."""
    time, event = check_survival_outcome(y)
    if len(time) != len(X):
        raise InputError(f"X has {len(X)} rows but y has {len(time)}")
    family = family_of(model)
    h = family.validation.horizon_of(model, horizon)
    scores = np.asarray(family.validation.card_score(model, X), dtype=float)
    risk = np.asarray(family.validation.risk_of(model, X, h), dtype=float)
    unit = getattr(model, "time_unit", None)  # "days": "had the event by 365 days"
    table, findings, overall = survival_audit_parts(
        scores,
        risk,
        time,
        event,
        grouping.labels,
        grouping.order,
        horizon=h,
        min_size=settings["min_size"],
        confidence=settings["confidence"],
        n_boot=settings["n_boot"],
        seed=settings["seed"],
        subject=settings["subject"],
        time_unit=unit,
    )
    settings.update(kind=family.name, outcome="survival", horizon=h, time_unit=unit)
    return AuditResult(table, findings, overall, settings)


def _reliability(p, grouping, table: pd.DataFrame, confidence: float) -> dict[str, pd.DataFrame]:
    if p.risk is None:
        return {}
    out = {}
    for label in table.loc[~table["too_few"], "group"]:
        mask = grouping.labels == label
        out[str(label)] = reliability_table(p.y[mask], p.risk[mask], p.scores[mask], confidence)
    return out


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(list(key))


def _public(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if k not in _HIDDEN}


def _group_row(
    p, label: str, mask: np.ndarray, min_size: int, options: dict, seed: int, i: int
) -> dict[str, Any]:
    n = int(mask.sum())
    row: dict[str, Any] = {
        "group": label,
        "n": n,
        "n_pos": int(p.y[mask].sum()),
        "too_few": n < min_size,
        "note": TOO_FEW if n < min_size else "",
    }
    if n < min_size:
        row.update(dict.fromkeys(_METRIC_COLUMNS, math.nan))
        row.update(dict.fromkeys(_COUNT_COLUMNS, math.nan))
        row.update(dict.fromkeys(_gap_names(), math.nan))
        return row
    group = group_metrics(p, mask, rng=_rng(seed, i, 0), **options)
    rest = group_metrics(p, ~mask, rng=_rng(seed, i, 1), **options)
    row.update({k: group[k] for k in _METRIC_COLUMNS})
    row.update({k: group[k] for k in _COUNT_COLUMNS})
    row.update(gap_columns(group, rest, options["confidence"]))
    return row


def _gap_names() -> list[str]:
    names = []
    for metric in GAP_METRICS:
        if metric != "calibration":
            names.append(f"{metric}_rest")
        names += [f"{metric}_gap", f"{metric}_gap_low", f"{metric}_gap_high"]
    return names


# --- text ------------------------------------------------------------------------------
def _cell(value: float, kind: str) -> str:
    if not isinstance(value, (int, float, np.number)) or not math.isfinite(value):
        return "-"
    return f"{value:.2f}" if kind == "auc" else f"{100 * value:.0f}%"


def _interval(row: pd.Series, metric: str) -> str:
    value = _cell(row[metric], metric)
    if value == "-":
        return value
    low, high = _cell(row[f"{metric}_low"], metric), _cell(row[f"{metric}_high"], metric)
    return f"{value} [{low}, {high}]"


def _text(result: AuditResult) -> str:
    # (a model without risks, a checklist say, predicts none)
    risk = result.table["predicted_risk"].notna().any()
    head = ["group", "n", "prevalence", "AUC"]
    head += ["CAL", "observed", "predicted"] if risk else []
    head += ["FNR", "FPR", "PPV"]
    lines: list[list[str] | tuple[str, str]] = []
    for _, row in result.table.iterrows():
        if row["too_few"]:
            lines.append((row["group"], str(row["n"])))
            continue
        cells = [row["group"], str(row["n"]), _cell(row["prevalence"], "rate")]
        cells.append(_interval(row, "auc"))
        if risk:
            cells += [
                _cell(row["cal"], "rate"),
                _interval(row, "observed_risk"),
                _cell(row["predicted_risk"], "rate"),
            ]
        cells += [_interval(row, m) for m in ("fnr", "fpr", "ppv")]
        lines.append(cells)
    full = [r for r in lines if isinstance(r, list)]
    widths = [max(len(r[j]) for r in [head, *full]) for j in range(len(head))]
    for r in lines:
        widths[0], widths[1] = max(widths[0], len(r[0])), max(widths[1], len(r[1]))
    limit = result.settings["min_size"]
    out = [f"Audit by {' x '.join(result.settings['by'])} ({_level(result)} intervals)"]
    for r in [head, *lines]:
        if isinstance(r, tuple):
            r = [*r, f"{TOO_FEW} (n < {limit})"]
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    out.append("")
    if result.findings:
        out.append("Findings:")
        out += [f"- {f.sentence}" for f in result.findings]
    else:
        out.append("No finding: no group does worse than the rest beyond chance.")
    return "\n".join(out)


def _level(result: AuditResult) -> str:
    return f"{100 * result.settings['confidence']:g}%"
