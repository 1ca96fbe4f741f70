"""Colours, pixel sizes and text helpers shared by the figures (no plotly imports)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from riskexplore.core.plain_numbers import plain_number

__all__ = [
    "plain_number",
    "BOX_ROW_PX",
    "HEADER_PX",
    "LEGEND_PX",
    "METRIC_WIDTHS",
    "MODEL_COLORS",
    "ROW_PX",
    "SPLIT_COLORS",
    "SUBTITLE_PX",
    "TITLE_LINE_PX",
    "WRAP_PX",
    "XAXIS_PX",
    "bottom_legend",
    "column_kind",
    "domain",
    "fmt",
    "place_subplot_titles",
    "table_px",
    "text_lines",
    "wrap_words",
]

SPLIT_COLORS = {"train": "#1f77b4", "test": "#ff7f0e"}
MODEL_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")

# --- layout (pixels) -------------------------------------------------------------------
#: Height of a table's header and of each of its rows (set on the tables, so a table's
#: domain can be given the height of all its rows: plotly scrolls a table that does not
#: fit, and a clipped table in a saved figure hides rows for good).
HEADER_PX = 30
ROW_PX = 22
#: Rows of a checklist card: its box glyph comes from a taller fallback font.
BOX_ROW_PX = 30
#: Room for each further line of a cell or header whose text wraps.
WRAP_PX = 24
#: Relative column widths of the metrics table: the model names, AUC, CAL and loss
#: (train/test), size, gap, status (``"time_limit"``, ``"infeasible"``).
METRIC_WIDTHS = [2.4, 1, 1, 1, 1, 1, 1, 0.7, 0.9, 1.4]
#: A subplot title above its plot (plotly puts it just above the domain).
SUBTITLE_PX = 30
#: Below an x axis: tick labels and the axis title.
XAXIS_PX = 50
#: A one-line horizontal legend.
LEGEND_PX = 30
#: A line of a title's subtitle.
TITLE_LINE_PX = 22


def bottom_legend() -> dict[str, Any]:
    """A horizontal legend at the bottom of the figure (as the monitor's
    :func:`~riskexplore.figures.progress.bounds_figure`): the top holds the title and the
    first subplot's title; plotly keeps the plots and axis titles above the legend and
    widens the bottom margin when it wraps.

    Returns
    -------
    dict
        The legend's layout.
    """
    return {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "yref": "container",
        "y": 0,
        "yanchor": "bottom",
    }


def text_lines(text, chars: int) -> int:
    """Lines that ``text`` takes in a table column about ``chars`` characters wide.

    Parameters
    ----------
    text : Any
        The text (``str()`` of it).
    chars : int
        The column's width in characters.

    Returns
    -------
    int
        The lines (at least 1).
    """
    return max(1, math.ceil(len(str(text)) / chars))


def table_px(
    n_rows: int, *, row_px: int = ROW_PX, header_lines: int = 1, wrapped_lines: int = 0
) -> int:
    """The height a table needs to show its header and all ``n_rows`` rows (with
    ``wrapped_lines`` further lines of wrapped text in all) without scrolling.

    Parameters
    ----------
    n_rows : int
        Rows (at least one row's height is kept).
    row_px : int
        Height of a row.
    header_lines : int
        Lines of the header.
    wrapped_lines : int
        Further lines of wrapped cells in all.

    Returns
    -------
    int
        Pixels.
    """
    lines = (header_lines - 1) + wrapped_lines
    return HEADER_PX + max(n_rows, 1) * row_px + lines * WRAP_PX + 6


def domain(top_px: float, height_px: float, total_px: float) -> list[float]:
    """``[bottom, top]`` in paper fractions of a band ``height_px`` high whose top is
    ``top_px`` below the top of a plot area ``total_px`` high.

    Parameters
    ----------
    top_px : float
        Pixels from the top of the plot area to the band's top.
    height_px : float
        The band's height.
    total_px : float
        The plot area's height.

    Returns
    -------
    list of float
        ``[bottom, top]``, clipped to ``[0, 1]``.
    """
    top = 1.0 - top_px / total_px
    bottom = 1.0 - (top_px + height_px) / total_px
    return [max(0.0, round(bottom, 6)), min(1.0, round(top, 6))]


def place_subplot_titles(
    fig, titles: Sequence[str], positions: Sequence[tuple[float, float]]
) -> None:
    """Put the ``subplot_titles`` given to make_subplots (which makes an annotation of
    each non-empty one, in order) at ``(x, y)`` paper positions: just above the domains
    that replaced make_subplots' own.

    Parameters
    ----------
    fig : Figure
        A figure of ``make_subplots``.
    titles : sequence of str
        The subplot titles given to it.
    positions : sequence of (float, float)
        The ``(x, y)`` of each title.
    """
    shown = [p for t, p in zip(titles, positions, strict=True) if t]
    for annotation, (x, y) in zip(fig.layout.annotations, shown, strict=True):
        annotation.update(x=x, y=y, xanchor="center", yanchor="bottom")


def wrap_words(text: str, width: int = 100, sep: str = "; ") -> list[str]:
    """``text`` cut at ``sep`` into lines of about ``width`` characters.

    Parameters
    ----------
    text : str
        The text.
    width : int
        Characters per line, about.
    sep : str
        Where lines may break.

    Returns
    -------
    list of str
        The lines.
    """
    lines: list[str] = []
    for part in text.split(sep):
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return lines


def fmt(value, kind: str = "num") -> str:
    """A number in a figure: ``—`` for None or NaN, ``∞``, a percentage or an integer.

    Parameters
    ----------
    value : Any
        The value (text is shown as is).
    kind : {"num", "pct", "int"}
        How to show it.

    Returns
    -------
    str
        The text.
    """
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(v):
        return "—" if math.isnan(v) else ("∞" if v > 0 else "−∞")
    if kind == "pct":
        return f"{100 * v:.1f}%"
    if kind == "int":
        return str(int(round(v)))
    return plain_number(v)


def column_kind(column: str) -> str:
    """How a metrics-table column is formatted (see :func:`fmt`).

    Parameters
    ----------
    column : str
        The column.

    Returns
    -------
    str
        ``"pct"`` for CAL and gap, ``"int"`` for the size, else ``"num"``.
    """
    if "CAL" in column or column == "gap":
        return "pct"
    if column == "size":
        return "int"
    return "num"
