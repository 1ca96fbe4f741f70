"""A survival score's card as HTML: the items with their points, then the risk of the event
by each horizon for each total score (what a report or a notebook shows)."""

from __future__ import annotations

import html
from typing import Any

from riskexplore.risk_score.card_rows import card_rows, points_table_html

__all__ = ["survival_card_html"]

_CELL = 'style="padding:2px 6px;border:1px solid #ddd;text-align:right"'


def _risk_table_html(model: Any) -> str:
    """TOTAL SCORE | risk by h1 | risk by h2 ... (one row per score seen in training)."""
    if model.baseline is None or not model.horizons:
        return ""
    table = model.risk_table()
    head = "".join(
        f"<th {_CELL}>risk by {html.escape(model.horizon_words(h))}</th>" for h in model.horizons
    )
    rows = "".join(
        f"<tr><td {_CELL}>{int(row[0])}</td>"
        + "".join(f"<td {_CELL}>{r:.1f}%</td>" for r in row[1:])
        + "</tr>"
        for row in table.itertuples(index=False)
    )
    return (
        '<table class="rx-risk-table" style="border-collapse:collapse;margin-top:8px">'
        f"<tr><th {_CELL}>total score</th>{head}</tr>{rows}</table>"
    )


def survival_card_html(model: Any) -> str:
    """The card of a survival score as self-contained HTML (inline CSS, no scripts).

    Parameters
    ----------
    model : SurvivalScore
        The model.

    Returns
    -------
    str
        The items and points, the risk table at the model's horizons (when it has a
        baseline and horizons) and its certificate line.
    """
    rows = card_rows(model.points, None, model.binarizer)
    items = (
        points_table_html(rows, by_variable=model.binarizer is not None)
        if rows
        else "<p>No item: everyone scores 0.</p>"
    )
    note = "; ".join(p for p in (model.certificate_line(), model.recalibrated_line()) if p)
    return (
        '<div class="rx-card" style="font-family:system-ui,sans-serif;display:inline-block;'
        'border:1px solid #bbb;border-radius:6px;padding:10px 14px">'
        f"{items}{_risk_table_html(model)}"
        '<div style="margin-top:6px;color:#555;font-size:90%">'
        f"risk by a time = the chance of the event by then (Breslow baseline hazard); "
        f"{html.escape(note)}</div></div>"
    )
