"""The subgroup audit of a model of a time to event (a survival score), group by group.

:func:`~riskexplore.evaluation.audit.run.audit` routes here on the model's family's outcome
(``outcome == "survival"``, never its name). Each group's figures are those of
:func:`~riskexplore.evaluation.survival.validation.validate_survival` on the group's rows
(its censoring weighed on all rows): Harrell's C with its bootstrap interval, the observed
risk by the horizon (Kaplan-Meier, log(-log) interval) against the mean predicted risk,
and their ratio O/E with its interval; with the rows and events. A group with too few rows,
no event, or no row followed up to the horizon gets no figures and a note in words that
says why. A finding is a group whose observed risk interval excludes its predicted risk.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from riskexplore.errors import InputError
from riskexplore.evaluation.audit.findings import Finding
from riskexplore.evaluation.survival.result import horizon_words
from riskexplore.evaluation.survival.validation import DEFAULT_N_BOOT, validate_survival

__all__ = ["SURVIVAL_COLUMNS", "survival_audit_parts", "survival_audit_text"]

#: The figures of a group's row, each estimate with ``_low`` and ``_high``.
SURVIVAL_COLUMNS = (
    "c_index",
    "c_index_low",
    "c_index_high",
    "observed_risk",
    "observed_risk_low",
    "observed_risk_high",
    "predicted_risk",
    "observed_expected",
    "observed_expected_low",
    "observed_expected_high",
)

#: The note of a group without an event.
NO_EVENT = "no event in this group: its C-index and observed risk cannot be judged"


def _figures(validation) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, estimate in (
        ("c_index", validation.harrell_c),
        ("observed_risk", validation.observed_risk),
        ("observed_expected", validation.observed_expected),
    ):
        out[name] = float(estimate.estimate)
        out[f"{name}_low"], out[f"{name}_high"] = float(estimate.lower), float(estimate.upper)
    out["predicted_risk"] = float(validation.predicted_risk)
    return out


def _group(scores, risk, time, event, horizon, options, seed) -> tuple[dict[str, Any], str]:
    """The figures of one group's rows, or none and the reason in words."""
    if not event.any():
        return {}, NO_EVENT
    try:
        validation = validate_survival(
            scores, risk, time, event, horizon, random_state=seed, **options
        )
    except InputError as exc:  # e.g. no row followed up to the horizon
        return {}, f"cannot be judged: {exc}"
    return _figures(validation), ""


def survival_audit_parts(
    scores,
    risk,
    time,
    event,
    labels,
    order,
    *,
    horizon: float,
    min_size: int,
    confidence: float,
    n_boot: int,
    seed: int,
    subject: str,
    time_unit: str | None = None,
) -> tuple[pd.DataFrame, list[Finding], dict[str, Any]]:
    """The table, findings and overall figures of a survival audit.

    Parameters
    ----------
    scores, risk : ndarray
        Each row's total points and predicted risk by ``horizon``.
    time, event : ndarray
        The rows' checked survival outcome.
    labels : ndarray
        Each row's group label.
    order : sequence
        The groups, in display order.
    horizon : float
        The time the risks are predicted for.
    min_size : int
        Groups with fewer rows are marked too few to judge.
    confidence : float
        The level of every interval.
    n_boot : int
        Bootstrap resamples of Harrell's C interval (0: the validation's default, 200).
    seed : int
        The seed of the bootstrap.
    subject : str
        Who the rows are, in the findings' sentences.
    time_unit : str, optional
        The unit of the times in words (``"days"``), for the sentences.

    Returns
    -------
    tuple
        ``(table, findings, overall)``.
    """
    options = {"train_time": time, "train_event": event, "level": confidence}
    options["n_boot"] = n_boot or DEFAULT_N_BOOT
    rows = []
    for i, label in enumerate(order):
        mask = labels == label
        row: dict[str, Any] = {"group": label, "n": int(mask.sum())}
        row["events"] = int(event[mask].sum())
        row["events_by_horizon"] = int((event[mask] & (time[mask] <= horizon)).sum())
        row["too_few"] = row["n"] < min_size
        figures, note = {}, f"too few to judge (n < {min_size})" if row["too_few"] else ""
        if not row["too_few"]:
            parts = (scores[mask], risk[mask], time[mask], event[mask])
            figures, note = _group(*parts, horizon, options, seed + i + 1)
        row["note"] = note
        row.update({k: figures.get(k, math.nan) for k in SURVIVAL_COLUMNS})
        rows.append(row)
    table = pd.DataFrame(rows)
    overall, note = _group(scores, risk, time, event, horizon, options, seed)
    overall = {"n": len(time), "events": int(event.sum()), **overall, "note": note}
    when = horizon_words(horizon, time_unit)
    return table, _findings(table, when, confidence, subject), overall


def _findings(table: pd.DataFrame, when: str, confidence: float, subject: str):
    findings = []
    level = f"{100 * confidence:g}%"
    for row in table.itertuples(index=False):
        low, high, predicted = row.observed_risk_low, row.observed_risk_high, row.predicted_risk
        if not (math.isfinite(low) and math.isfinite(predicted)):
            continue
        if low <= predicted <= high:
            continue
        more = "more" if low > predicted else "fewer"
        sentence = (
            f"For {subject} with {row.group}, {_percent(row.observed_risk)} had the event by "
            f"{when} ({level} interval {_percent(low)} to {_percent(high)}): "
            f"{more} than the {_percent(predicted)} the score predicts."
        )
        gap = row.observed_risk - predicted
        findings.append(
            Finding(
                str(row.group),
                "calibration",
                float(row.observed_risk),
                float(predicted),
                float(gap),
                float(low - predicted),
                float(high - predicted),
                sentence,
            )  # fmt: skip
        )
    return findings


def _percent(value: float) -> str:
    return "-" if not math.isfinite(value) else f"{100 * value:.0f}%"


def _interval(row, name: str, fmt) -> str:
    value = getattr(row, name)
    if not math.isfinite(value):
        return "-"
    low, high = getattr(row, f"{name}_low"), getattr(row, f"{name}_high")
    if not (math.isfinite(low) and math.isfinite(high)):
        return fmt(value)
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def survival_audit_text(result) -> str:
    """A survival audit as a plain-text table, then its findings (for the command line).

    Parameters
    ----------
    result : AuditResult
        The audit (``settings["outcome"] == "survival"``).

    Returns
    -------
    str
        The text.
    """
    settings = result.settings
    horizon = horizon_words(settings["horizon"], settings.get("time_unit"))
    head = ["group", "n", "events", "C-index", f"observed by {horizon}", "predicted", "O/E"]
    lines = [head]
    for row in result.table.itertuples(index=False):
        cells = [str(row.group), str(row.n), str(row.events)]
        if row.note:
            lines.append([*cells, row.note])
            continue
        cells += [
            _interval(row, "c_index", lambda v: f"{v:.2f}"),
            _interval(row, "observed_risk", _percent),
            _percent(row.predicted_risk),
            _interval(row, "observed_expected", lambda v: f"{v:.2f}"),
        ]
        lines.append(cells)
    widths = [
        max(len(r[j]) for r in lines if len(r) == len(head) or j < 3) for j in range(len(head))
    ]
    level = f"{100 * settings['confidence']:g}%"
    out = [f"Audit by {' x '.join(settings['by'])} ({level} intervals, risk by {horizon})"]
    for r in lines:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    out.append("")
    if result.findings:
        out.append("Findings:")
        out += [f"- {f.sentence}" for f in result.findings]
    else:
        out.append("No finding: in every group judged, the observed risk agrees with the score's.")
    return "\n".join(out)
