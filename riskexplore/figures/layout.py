"""Colours, pixel sizes, the pixel arithmetic of the figures' vertical layouts, and text
and trace-argument helpers shared by the figures (no plotly imports: plain dicts)."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from riskexplore.core.plain_numbers import plain_number

__all__ = [
    "plain_number",
    "BAR_PX",
    "BOX_ROW_PX",
    "COMPARE_TITLE_TOP_PX",
    "HEADER_FILL",
    "HEADER_PX",
    "LEGEND_PX",
    "METRIC_WIDTHS",
    "MODEL_COLORS",
    "ROW_PX",
    "SPLIT_COLORS",
    "SUBTITLE_PX",
    "TITLE_LINE_PX",
    "TWO_LINE_TOP_PX",
    "WRAP_PX",
    "XAXIS_PX",
    "Stack",
    "bottom_legend",
    "column_kind",
    "compare_stack",
    "diagonal_line",
    "domain",
    "fmt",
    "frequency_stack",
    "grown_px",
    "header_lines",
    "metrics_stack",
    "place_subplot_titles",
    "risk_axis",
    "table_cells",
    "table_header",
    "table_px",
    "text_lines",
    "title_with_subtitle",
    "wrap_words",
    "wrapped_table_px",
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
#: The top margin of a title with one subtitle line.
TWO_LINE_TOP_PX = 2 * TITLE_LINE_PX + 40
#: Height of one bar of the horizontal bar charts.
BAR_PX = 26
#: The grey of a table's header.
HEADER_FILL = "#eeeeee"
#: :func:`compare_stack`: the title's top, below the figure's top.
COMPARE_TITLE_TOP_PX = 16


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


def header_lines(headers: Iterable[Any], chars: int) -> int:
    """Lines of a table's header whose columns are about ``chars`` characters wide.

    Parameters
    ----------
    headers : iterable
        The header's texts.
    chars : int
        A column's width in characters.

    Returns
    -------
    int
        The lines of the longest.
    """
    return max(text_lines(h, chars) for h in headers)


def wrapped_table_px(texts: Sequence[Any], chars: int, **kwargs: Any) -> int:
    """:func:`table_px` of a table with a row per text of ``texts``, each wrapping in a
    column about ``chars`` characters wide.

    Parameters
    ----------
    texts : sequence
        The texts of the column that wraps.
    chars : int
        That column's width in characters.
    **kwargs
        ``row_px``, ``header_lines`` of :func:`table_px`.

    Returns
    -------
    int
        Pixels.
    """
    wrapped = sum(text_lines(t, chars) - 1 for t in texts)
    return table_px(len(texts), wrapped_lines=wrapped, **kwargs)


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


def grown_px(height: int | None, fixed_px: int, *, least: int, default: int = 300) -> int:
    """The height of the one band that grows with a figure: ``default`` when no figure
    ``height`` is asked for, else what that height leaves after the ``fixed_px`` of all
    else, and at least ``least`` (a figure asked too short is made taller).

    Parameters
    ----------
    height : int, optional
        The figure's height asked for.
    fixed_px : int
        The height of everything else.
    least : int
        The band's least height.
    default : int
        Its height by default.

    Returns
    -------
    int
        Pixels.
    """
    if height is None:
        return default
    return max(least, int(height) - fixed_px)


@dataclass(frozen=True)
class Stack:
    """A figure's vertical layout in pixels: the top margin, the bands stacked top to
    bottom in the plot area, each after the gap above it, and the bottom margin.

    Parameters
    ----------
    top : int
        The top margin.
    bands : tuple of (int, int)
        ``(gap above, height)`` of each band, top to bottom.
    bottom : int
        The bottom margin.
    """

    top: int
    bands: tuple[tuple[int, int], ...]
    bottom: int

    @property
    def plot_px(self) -> int:
        """The plot area's height (between the margins)."""
        return sum(gap + px for gap, px in self.bands)

    @property
    def height(self) -> int:
        """The figure's height."""
        return self.top + self.plot_px + self.bottom

    def band_top(self, k: int) -> int:
        """Pixels from the plot area's top to band ``k``'s top."""
        return sum(gap + px for gap, px in self.bands[:k]) + self.bands[k][0]

    def domain(self, k: int) -> list[float]:
        """Band ``k``'s ``[bottom, top]`` in paper fractions (see :func:`domain`)."""
        return domain(self.band_top(k), self.bands[k][1], self.plot_px)

    def below(self, k: int, px: int) -> float:
        """The paper y ``px`` pixels below band ``k``'s bottom."""
        return domain(self.band_top(k) + self.bands[k][1] + px, 0, self.plot_px)[1]

    def container_y(self, px: int) -> float:
        """The container y (a fraction of the figure's height) ``px`` pixels below the
        figure's top."""
        return 1 - px / self.height


def compare_stack(
    card_px: int, metrics_px: int, subtitle_lines: int, height: int | None = None
) -> Stack:
    """The layout of :func:`~riskexplore.figures.compare.compare_figure`, top to bottom:
    the title and its subtitle lines and the cards' titles (top margin); the cards; the
    diagrams' titles; the diagrams (300 px, or what ``height`` leaves, at least 220); their
    x axes, the legend and the metrics table's title; the metrics table; the bottom margin.

    Parameters
    ----------
    card_px : int
        The taller card's height.
    metrics_px : int
        The metrics table's height.
    subtitle_lines : int
        Lines under the title.
    height : int, optional
        The figure's height asked for.

    Returns
    -------
    Stack
        Bands: the cards, the diagrams, the metrics table.
    """
    top = COMPARE_TITLE_TOP_PX + 18 + TITLE_LINE_PX * subtitle_lines + SUBTITLE_PX
    gap_cards = SUBTITLE_PX + 20
    gap_diagrams = XAXIS_PX + LEGEND_PX + SUBTITLE_PX + 10
    bottom = 20
    fixed = top + card_px + gap_cards + gap_diagrams + metrics_px + bottom
    diagram_px = grown_px(height, fixed, least=220)
    bands = ((0, card_px), (gap_cards, diagram_px), (gap_diagrams, metrics_px))
    return Stack(top, bands, bottom)


def metrics_stack(titled: bool, table_height: int, height: int | None = None) -> Stack:
    """The layout of :func:`~riskexplore.figures.metrics.metrics_figure`, top to bottom:
    the title and the ROC plot's title (top margin); the ROC plot (300 px, or what
    ``height`` leaves, at least 200); its x axis and the table's title; the table; the
    bottom margin.

    Parameters
    ----------
    titled : bool
        Whether the figure has a title.
    table_height : int
        The table's height.
    height : int, optional
        The figure's height asked for.

    Returns
    -------
    Stack
        Bands: the ROC plot, the table.
    """
    top = (60 if titled else 20) + SUBTITLE_PX
    gap = XAXIS_PX + SUBTITLE_PX
    bottom = 20
    roc_px = grown_px(height, top + gap + table_height + bottom, least=200)
    return Stack(top, ((0, roc_px), (gap, table_height)), bottom)


def frequency_stack(n_bars: int, n_groups: int) -> Stack:
    """The layout of
    :func:`~riskexplore.figures.alternatives.feature_frequency_figure`, top to bottom:
    the title and its subtitle (top margin); the bars' title; a bar per feature; their x
    axis and the table's title; the table (two lines a group); the legend (bottom margin).

    Parameters
    ----------
    n_bars : int
        Bars (features).
    n_groups : int
        Rows of the table.

    Returns
    -------
    Stack
        Bands: the bars, the table.
    """
    bars = (SUBTITLE_PX, max(n_bars, 1) * BAR_PX)
    table = (XAXIS_PX + SUBTITLE_PX, table_px(n_groups, row_px=2 * ROW_PX))
    return Stack(TWO_LINE_TOP_PX, (bars, table), LEGEND_PX)


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


def title_with_subtitle(heading: str, lines: Sequence[str] = ()) -> str:
    """A title's HTML: ``heading``, then the subtitle ``lines`` in small type (both
    escaped).

    Parameters
    ----------
    heading : str
        The title.
    lines : sequence of str
        The subtitle's lines (none: no subtitle).

    Returns
    -------
    str
        The HTML.
    """
    text = html.escape(heading)
    if lines:
        text += "<br><sup>" + "<br>".join(html.escape(line) for line in lines) + "</sup>"
    return text


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


# --- trace arguments (plain dicts, shared by the figures' traces) -----------------------
def table_header(values: Sequence[Any]) -> dict[str, Any]:
    """A table's header: grey, left-aligned, :data:`HEADER_PX` high.

    Parameters
    ----------
    values : sequence
        The column titles.

    Returns
    -------
    dict
        The ``header`` of a ``go.Table``.
    """
    return {"values": values, "fill_color": HEADER_FILL, "align": "left", "height": HEADER_PX}


def table_cells(values: Sequence[Any], row_px: int = ROW_PX) -> dict[str, Any]:
    """A table's cells: left-aligned, ``row_px`` high.

    Parameters
    ----------
    values : sequence
        The columns.
    row_px : int
        Height of a row.

    Returns
    -------
    dict
        The ``cells`` of a ``go.Table``.
    """
    return {"values": values, "align": "left", "height": row_px}


def diagonal_line(name: str) -> dict[str, Any]:
    """The dashed grey diagonal from (0, 0) to (1, 1) that a curve is read against
    (perfect calibration, a ROC curve's chance).

    Parameters
    ----------
    name : str
        The trace's name.

    Returns
    -------
    dict
        Arguments of a ``go.Scatter``.
    """
    return {
        "name": name,
        "x": np.array([0.0, 1.0]),
        "y": np.array([0.0, 1.0]),
        "mode": "lines",
        "line": {"dash": "dash", "color": "#999999"},
        "hoverinfo": "skip",
    }


def risk_axis(title: str | None = None) -> dict[str, Any]:
    """An axis of risks from 0% to 100% (a little room at both ends for the markers).

    Parameters
    ----------
    title : str, optional
        The axis title (none: left as it is).

    Returns
    -------
    dict
        Arguments of ``update_xaxes``/``update_yaxes``.
    """
    axis = {"range": [-0.02, 1.02], "tickformat": ".0%"}
    return axis if title is None else {"title_text": title, **axis}
