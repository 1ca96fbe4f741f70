"""Gaps of each group to the rest of the rows, and the findings they support.

For each group and metric the *gap* is the group's value minus the value of all other
rows (the rest), with a confidence interval:

* rates (``prevalence``, ``fnr``, ``fpr``, ``ppv``): Newcombe's interval for the
  difference of two independent proportions;
* ``auc``: the difference of two AUCs on disjoint rows, whose DeLong variances add (or
  the percentile interval of the differences of independent bootstrap AUCs);
* ``calibration``: the group's observed risk minus its mean predicted risk (risk models
  only; the reference is the model's own prediction, not the rest), with the Wilson
  interval of the observed risk shifted by the prediction.

A :class:`Finding` is a gap whose interval excludes zero **in the direction that makes
the group worse off**: a higher FNR or FPR, a lower AUC or PPV, or a calibration gap of
either sign (the model under- or overestimates the group's risk). A difference in
prevalence is reported in the table but is not a finding: it describes the data, not the
model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from riskexplore.core.registry import find_family
from riskexplore.evaluation.audit.metrics import RATES
from riskexplore.evaluation.intervals import (
    newcombe_interval,
    normal_interval,
    percentile_interval,
    wilson_interval,
)

__all__ = [
    "FINDING_METRICS",
    "GAP_METRICS",
    "Finding",
    "audit_text",
    "auc_gap",
    "calibration_gap",
    "find",
    "gap_columns",
    "rate_gap",
]

#: Metrics with a gap column (``<metric>_gap``, ``_gap_low``, ``_gap_high``).
GAP_METRICS = ("prevalence", "auc", "fnr", "fpr", "ppv", "calibration")
#: Which way is worse for the group: ``+1`` higher, ``-1`` lower, ``0`` either.
FINDING_METRICS = {"fnr": 1, "fpr": 1, "auc": -1, "ppv": -1, "calibration": 0}

_NAN3 = (math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class Finding:
    """A group for which the model does worse than for the rest, beyond chance.

    Attributes
    ----------
    group : str
        The group's label (``"age 60 and older"``).
    metric : str
        ``"auc"``, ``"fnr"``, ``"fpr"``, ``"ppv"`` or ``"calibration"``.
    value : float
        The group's value (for ``"calibration"``: its observed risk).
    rest_value : float
        The reference: the rest's value (for ``"calibration"``: the group's mean
        predicted risk).
    gap : float
        ``value - rest_value``.
    low, high : float
        The confidence interval of the gap (it excludes zero).
    sentence : str
        The finding in plain words.
    """

    group: str
    metric: str
    value: float
    rest_value: float
    gap: float
    low: float
    high: float
    sentence: str


def rate_gap(
    k: int, n: int, k_rest: int, n_rest: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """A group's rate minus the rest's, with Newcombe's interval.

    Parameters
    ----------
    k, n : int
        The group's numerator and denominator.
    k_rest, n_rest : int
        The rest's.
    confidence : float
        The level.

    Returns
    -------
    tuple of float
        ``(gap, low, high)``.
    """
    return newcombe_interval(k, n, k_rest, n_rest, confidence)


def auc_gap(
    group: dict[str, Any], rest: dict[str, Any], confidence: float = 0.95
) -> tuple[float, float, float]:
    """A group's AUC minus the rest's, with an interval.

    Parameters
    ----------
    group, rest : dict
        Metrics of :func:`~riskexplore.evaluation.audit.metrics.group_metrics` (with
        ``auc_samples`` when bootstrapped; otherwise DeLong's ``auc_var``).
    confidence : float
        The level.

    Returns
    -------
    tuple of float
        ``(gap, low, high)``: the normal interval with the two DeLong variances added, or
        the percentile interval of the differences of the bootstrap AUCs.
    """
    gap = group["auc"] - rest["auc"]
    if not math.isfinite(gap):
        return _NAN3
    if "auc_samples" in group and "auc_samples" in rest:
        low, high = percentile_interval(group["auc_samples"] - rest["auc_samples"], confidence)
    else:
        low, high = normal_interval(gap, group["auc_var"] + rest["auc_var"], confidence, (-1, 1))
    return gap, low, high


def calibration_gap(
    n_pos: int, n: int, predicted: float, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Observed minus mean predicted risk of a group, with the shifted Wilson interval.

    Parameters
    ----------
    n_pos, n : int
        The group's positives and rows.
    predicted : float
        The group's mean predicted risk.
    confidence : float
        The level.

    Returns
    -------
    tuple of float
        ``(gap, low, high)``; ``nan`` without rows or risks.
    """
    if n <= 0 or not math.isfinite(predicted):
        return _NAN3
    low, high = wilson_interval(n_pos, n, confidence)
    return n_pos / n - predicted, low - predicted, high - predicted


def gap_columns(
    group: dict[str, Any], rest: dict[str, Any], confidence: float = 0.95
) -> dict[str, float]:
    """``<metric>_rest``, ``<metric>_gap``, ``_gap_low``, ``_gap_high`` of one group.

    Parameters
    ----------
    group, rest : dict
        Metrics of the group and of the other rows.
    confidence : float
        The level.

    Returns
    -------
    dict
        The columns, for every metric of :data:`GAP_METRICS`.
    """
    out: dict[str, float] = {}
    for metric in GAP_METRICS:
        if metric == "auc":
            values = auc_gap(group, rest, confidence)
            out["auc_rest"] = rest["auc"]
        elif metric == "calibration":
            values = calibration_gap(
                group["n_pos"], group["n"], group["predicted_risk"], confidence
            )
        else:
            num, den = RATES[metric]
            values = rate_gap(group[num], group[den], rest[num], rest[den], confidence)
            out[f"{metric}_rest"] = rest[metric]
        for suffix, v in zip(("_gap", "_gap_low", "_gap_high"), values, strict=True):
            out[f"{metric}{suffix}"] = float(v)
    return out


def _pct(v: float) -> str:
    return f"{100 * v:.0f}%"


def _points(v: float) -> str:
    return f"{100 * v:+.1f}"


_WHAT = {
    "fnr": ("misses more of the positive cases", "false negative rate"),
    "fpr": ("raises more false alarms", "false positive rate"),
    "ppv": ("is less often right when it predicts positive", "positive predictive value"),
    "auc": ("ranks cases less well", "AUC"),
}


def _model_word(kind: str) -> str:
    """What the model is called in the sentences: its family's noun, else "model"."""
    family = find_family(kind)
    return "model" if family is None else family.noun


def _sentence(row: pd.Series, metric: str, kind: str, subject: str, confidence: float) -> str:
    who = f"for {subject} with {row['group']}"
    model = _model_word(kind)
    level = f"{100 * confidence:g}% CI"
    gap, low, high = row[f"{metric}_gap"], row[f"{metric}_gap_low"], row[f"{metric}_gap_high"]
    if metric == "calibration":
        verb = "underestimates" if gap > 0 else "overestimates"
        return (
            f"{who} the {model} {verb} risk: observed {_pct(row['observed_risk'])}, "
            f"predicted {_pct(row['predicted_risk'])} (difference {_points(gap)} points, "
            f"{level} {_points(low)} to {_points(high)})"
        )
    doing, name = _WHAT[metric]
    if metric == "auc":
        value, rest = f"{row['auc']:.2f}", f"{row['auc_rest']:.2f}"
        diff = f"difference {gap:+.2f}, {level} {low:+.2f} to {high:+.2f}"
    else:
        value, rest = _pct(row[metric]), _pct(row[f"{metric}_rest"])
        diff = f"difference {_points(gap)} points, {level} {_points(low)} to {_points(high)}"
    return f"{who} the {model} {doing}: {name} {value} against {rest} for the rest ({diff})"


def _is_finding(row: pd.Series, metric: str) -> bool:
    low, high = row[f"{metric}_gap_low"], row[f"{metric}_gap_high"]
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    direction = FINDING_METRICS[metric]
    if direction > 0:
        return low > 0
    if direction < 0:
        return high < 0
    return low > 0 or high < 0


def find(
    table: pd.DataFrame, *, kind: str, confidence: float = 0.95, subject: str = "patients"
) -> list[Finding]:
    """The findings of an audit table, group by group in the table's order.

    Parameters
    ----------
    table : DataFrame
        The audit's table (one row per group, with the gap columns).
    kind : str
        The model's kind (``"risk_score"``, ``"checklist"``, ``"model"``).
    confidence : float
        The level of the intervals (for the sentences).
    subject : str
        Who the rows are, in the sentences (``"for patients with age 60 and older"``).

    Returns
    -------
    list of Finding
        One per group and metric whose gap interval excludes zero on the worse side;
        groups with too few rows give none.
    """
    out: list[Finding] = []
    for _, row in table.iterrows():
        if row["too_few"]:
            continue
        for metric in FINDING_METRICS:
            if not _is_finding(row, metric):
                continue
            if metric == "calibration":
                value, reference = row["observed_risk"], row["predicted_risk"]
            else:
                value, reference = row[metric], row[f"{metric}_rest"]
            out.append(
                Finding(
                    group=str(row["group"]),
                    metric=metric,
                    value=float(value),
                    rest_value=float(reference),
                    gap=float(row[f"{metric}_gap"]),
                    low=float(row[f"{metric}_gap_low"]),
                    high=float(row[f"{metric}_gap_high"]),
                    sentence=_sentence(row, metric, kind, subject, confidence),
                )
            )
    return out


def audit_text(
    title: str,
    rows: Sequence[Sequence[str]],
    widths: Sequence[int],
    findings: Sequence[Finding],
    no_finding: str,
) -> str:
    """An audit as plain text (for the command line): its title, its table's rows in
    columns, then its findings.

    Parameters
    ----------
    title : str
        The first line.
    rows : sequence of sequence of str
        The table's rows, the header first (a short row leaves its last columns out).
    widths : sequence of int
        Each column's width.
    findings : sequence of Finding
        The findings, one line each.
    no_finding : str
        The line when there is none.

    Returns
    -------
    str
        The text.
    """
    out = [title]
    for r in rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    out.append("")
    if findings:
        out.append("Findings:")
        out += [f"- {f.sentence}" for f in findings]
    else:
        out.append(no_finding)
    return "\n".join(out)
