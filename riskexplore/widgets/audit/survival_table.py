"""The "By group" table of a survival score's audit, in plain words.

One row per group (:mod:`~riskexplore.evaluation.audit.time_to_event`): its patients and
events, how well the score tells its patients apart (Harrell's C), the share who had the
event by the horizon (Kaplan-Meier) against the risk the score predicts, and their ratio;
intervals in brackets. A group too small, without an event or not followed up to the
horizon says why in words. Percentages and plain decimals only (no scientific notation).
"""

from __future__ import annotations

import html
import math

from riskexplore.evaluation.survival.result import horizon_words

__all__ = ["survival_table_html"]

_CELL = "padding:2px 8px"
_FLAG = ";color:#b71c1c;font-weight:bold"


def _pct(value: float) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{100 * value:.0f}%"


def _ratio(value: float) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{value:.2f}"


def _with_range(row, name: str, fmt) -> str:
    value = fmt(getattr(row, name))
    low, high = getattr(row, f"{name}_low"), getattr(row, f"{name}_high")
    if value == "–" or not (math.isfinite(low) and math.isfinite(high)):
        return value
    return f'{value} <span style="color:#777;font-size:12px">({fmt(low)} to {fmt(high)})</span>'


def _note(row, min_size: int) -> str:
    if row.too_few:
        return f"too few to judge (fewer than {min_size} patients)"
    return html.escape(row.note)


def survival_table_html(result, font: str) -> str:
    """The table of a survival audit, with a note on how to read it.

    Parameters
    ----------
    result : AuditResult
        The audit (``settings["outcome"] == "survival"``).
    font : str
        The CSS font of the page.

    Returns
    -------
    str
        An HTML table; the groups whose observed risk differs from the predicted one
        beyond chance in red.
    """
    settings = result.settings
    when = html.escape(horizon_words(settings["horizon"], settings.get("time_unit")))
    heads = [
        "group",
        "patients",
        "with the event",
        "telling apart (C-index)",
        f"had the event by {when}",
        "predicted risk",
        "observed / predicted",
    ]
    flagged = {f.group for f in result.findings if f.metric == "calibration"}
    cells = "".join(f'<th style="text-align:left;{_CELL}">{h}</th>' for h in heads)
    rows = [f"<tr>{cells}</tr>"]
    for row in result.table.itertuples(index=False):
        start = [html.escape(str(row.group)), str(int(row.n)), str(int(row.events))]
        tds = "".join(f'<td style="{_CELL}">{v}</td>' for v in start)
        if row.too_few or row.note:
            note = _note(row, int(settings["min_size"]))
            tds += f'<td colspan="{len(heads) - 3}" style="{_CELL};color:#777">{note}</td>'
            rows.append(f"<tr>{tds}</tr>")
            continue
        bad = _FLAG if row.group in flagged else ""
        values = [
            (_with_range(row, "c_index", _ratio), ""),
            (_with_range(row, "observed_risk", _pct), bad),
            (_pct(row.predicted_risk), bad),
            (_with_range(row, "observed_expected", _ratio), bad),
        ]
        tds += "".join(f'<td style="{_CELL}{style}">{v}</td>' for v, style in values)
        rows.append(f"<tr>{tds}</tr>")
    level = f"{100 * settings['confidence']:g}%"
    note = (
        f'<div style="color:#555;font-size:12px;margin-top:4px;max-width:760px">'
        f"C-index: the chance that of two patients, the one who had the event first has the "
        f"higher score (0.5 is guessing, 1 perfect). Had the event by {when}: counted with "
        "the patients who left the study before then (Kaplan-Meier). Observed / predicted: 1 "
        f"when the score's risk is right for the group. In brackets: the range that holds "
        f"the true value with {level} confidence. In red: where the group's risk differs from "
        "the predicted one beyond chance.</div>"
    )
    return (
        f'<div style="{font};overflow-x:auto"><table style="border-collapse:collapse;'
        f'font-size:13px">{"".join(rows)}</table>{note}</div>'
    )
