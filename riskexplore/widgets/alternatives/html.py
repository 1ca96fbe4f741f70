"""The HTML of the "Alternatives" view: a model's certified distance to the best one, a
near-optimal set in plain words, the price of each feature as a table, and the text of
a model's card.

Plain strings (no ipywidgets): :class:`~riskexplore.widgets.alternatives.view.AlternativesView`
shows them in its ``HTML`` widgets, and pages may use them on their own. The blocks carry
the CSS classes ``rx-alt-distance-text``, ``rx-alt-summary`` and ``rx-price-table``.

Examples
--------
>>> from riskexplore.widgets.alternatives.html import card_text, strip_tags
>>> card_text({"coefficients": {"Age_geq_60": 2, "IrregularShape": 3}})
'Age_geq_60 +2, IrregularShape +3'
>>> strip_tags("<b>3 scores</b> within 1%")
'3 scores within 1%'
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

from riskexplore.core.distance import percent
from riskexplore.figures.alternatives import price_words

__all__ = [
    "FONT",
    "STYLE",
    "card_text",
    "distance_html",
    "grey_html",
    "prices_html",
    "set_summary_html",
    "strip_tags",
]

#: The font of every block.
FONT = "font-family:system-ui,sans-serif"

#: Cards look like cards: the buttons' text wraps and reads from the left.
STYLE = """<style>
.rx-alt-cards .widget-button, .rx-alt-cards button {
  white-space: normal; height: auto; text-align: left; line-height: 1.35;
  padding: 6px 10px; margin: 2px 0; }
.rx-alt-edit .widget-button, .rx-alt-edit button { padding: 0; }
</style>"""


def distance_html(model, noun: str = "model") -> str:
    """The certified distance of a model to the best one, in plain words.

    Parameters
    ----------
    model : RiskScore or Checklist
        The model (its ``distance``).
    noun : str
        What the model is (``"score"``, ``"checklist"``).

    Returns
    -------
    str
        HTML (class ``rx-alt-distance``).
    """
    d = model.distance
    esc = html.escape
    if d is None:
        text = "No proven bound: the distance to the best is not known."
    else:
        mistakes = d.unit == "mistakes"
        tol = 1e-8 * max(1.0, abs(d.lower_bound))
        if d.absolute <= tol:
            text = f"<b>As good as the best possible {esc(noun)}</b> (proven)."
        elif mistakes:
            text = (
                f"<b>At most {d.absolute:g} more mistake{'s' if d.absolute != 1 else ''} than "
                f"the best possible {esc(noun)}</b> (proven): {d.objective:g} against at least "
                f"{d.lower_bound:g}."
            )
        else:
            rel = percent(d.relative) if d.relative == d.relative else "?"
            text = (
                f"<b>At most {rel} worse than the best possible {esc(noun)}</b> (proven): "
                f"objective {d.objective:.5g}, proven best at least {d.lower_bound:.5g} "
                f"(+{d.absolute:.3g})."
            )
        if d.breaks:
            text += (
                '<div style="color:#8a6d00;margin-top:4px">⚠ Outside the settings of the '
                f"search: {esc('; '.join(d.breaks))}. It is compared with the best {esc(noun)} "
                "that keeps to them.</div>"
            )
        for note in d.notes:
            text += f'<div style="color:#555">{esc(note)}</div>'
    return (
        f'<div class="rx-alt-distance-text" style="{FONT};font-size:15px;padding:8px 10px;'
        f'background:#f3f7fb;border-left:4px solid #1976d2;margin:6px 0">{text}</div>'
    )


def set_summary_html(found, noun: str = "model") -> str:
    """A near-optimal set in plain words: how many models, how close, and whether the
    list is complete (proven) or what cut it short.

    Parameters
    ----------
    found : NearOptimalSet
        The set.
    noun : str
        What a model is (``"score"``, ``"checklist"``).

    Returns
    -------
    str
        HTML.
    """
    n = len(found)
    many = f"{n} {noun}{'s' if n != 1 else ''}"
    if found.tolerance_unit == "relative":
        head = f"{many} within {100 * found.tolerance:g}% of the best {noun}"
    else:
        head = f"{many} with at most {found.tolerance:g} more mistakes than the best {noun}"
    reasons = {
        "max_models": f"more {noun}s are that close than shown (show more to see them)",
        "time_limit": f"the search reached its time limit, so other {noun}s may be that close",
        "stopped": f"the search was stopped, so other {noun}s may be that close",
        "optimum_not_certified": f"the best {noun} itself was not proven in time",
    }
    if found.complete:
        tail, color = f"The list is complete: no other {noun} is that close (proven).", "#1b5e20"
    else:
        why = reasons.get(found.reason or "", f"the search ended early ({found.reason})")
        tail, color = f"The list may be incomplete: {why}.", "#8a6d00"
    return (
        f'<div class="rx-alt-summary" style="{FONT};margin:4px 0"><b>{html.escape(head)}.</b> '
        f'<span style="color:{color}">{html.escape(tail)}</span></div>'
    )


def prices_html(prices, running: bool = False, best=None) -> str:
    """The price of each feature as an HTML table.

    Parameters
    ----------
    prices : FeaturePrices or list of FeaturePrice
        The prices (a list while they arrive).
    running : bool
        Whether more are coming.
    best : fitted model, optional
        The best model (risk-score prices are also given as a share of its objective).

    Returns
    -------
    str
        HTML (a ``rx-price-table`` table).
    """
    esc = html.escape
    rows = getattr(prices, "prices", prices)
    best = getattr(prices, "best", None) if best is None else best
    unit = getattr(prices, "unit", None)
    if unit is None:
        unit = next((p.model.distance.unit for p in rows if p.model is not None), "objective")
    unit_words = "more mistakes" if unit == "mistakes" else "how much worse"
    scale = None
    if unit != "mistakes" and best is not None and best.distance is not None:
        scale = best.distance.lower_bound if best.distance.lower_bound > 0 else None

    def amount(p) -> str:
        if scale is None or not math.isfinite(p.high):
            return esc(price_words(p))
        low, high = percent(p.low / scale), percent(p.high / scale)
        return esc(high if low == high else f"{low} to {high}")

    td = 'style="padding:3px 10px;border-bottom:1px solid #eee"'
    body = "".join(
        f"<tr><td {td}>{esc(p.feature)}</td>"
        f"<td {td}>{'used by the best: leave it out' if p.in_best else 'not used: force it in'}"
        f"</td><td {td} align='right'>{amount(p)}</td>"
        f"<td {td}>{'proven' if p.certified else 'not proven in time: a range'}</td></tr>"
        for p in rows
    )
    more = (
        f'<div style="{FONT};color:#777;margin-top:4px">computing the other features…</div>'
        if running
        else ""
    )
    if not getattr(prices, "complete", True):
        more = (
            f'<div style="{FONT};color:#8a6d00;margin-top:4px">Stopped before every feature '
            "was priced.</div>"
        )
    return (
        f'<table class="rx-price-table" style="{FONT};border-collapse:collapse;font-size:14px">'
        f"<tr><th {td} align='left'>feature</th><th {td} align='left'>change</th>"
        f"<th {td} align='right'>price ({unit_words})</th><th {td} align='left'></th></tr>"
        f"{body}</table>{more}"
    )


def strip_tags(text: str) -> str:
    """``text`` without its HTML tags.

    Parameters
    ----------
    text : str
        HTML.

    Returns
    -------
    str
        The text (entities kept: ``html.unescape`` them).
    """
    return re.sub(r"<[^>]+>", "", text)


def grey_html(text: str) -> str:
    """``text`` (escaped) in grey: a status line.

    Parameters
    ----------
    text : str
        Plain text.

    Returns
    -------
    str
        HTML.
    """
    return f'<span style="{FONT};color:#555">{html.escape(text)}</span>'


def card_text(fields: dict[str, Any]) -> str:
    """A model's fields in a few words for its card.

    Parameters
    ----------
    fields : dict
        What the family's ``describe_model`` gives: ``coefficients`` (feature -> points),
        ``items`` and ``M``.

    Returns
    -------
    str
        Plain text.
    """
    parts = []
    for key, value in fields.items():
        if key == "coefficients":
            parts.append(", ".join(f"{n} {int(p):+d}" for n, p in value.items()))
        elif key == "items":
            parts.append(", ".join(value))
        elif key == "M":
            parts.append(f"{value}+ checked")
    return "; ".join(parts)
