"""Point labels that never overlap: each label goes to the first side of its point where it
touches no other label, no marker and no error bar and stays inside the plot; a label with
no such place is left out (its point keeps its hover text).

Plotly draws a scatter's text beside the marker at ``textposition`` but never moves it out
of the way, so points close together (the low scores of a calibration plot, all near 0%)
write their labels over each other. The geometry here is plotly's in pixels: a label at
``"middle right"`` starts ``radius / 0.8 + 1`` px right of the marker's centre
(``Drawing.textPointPosition``), and a character of the figure's sans-serif font is at
most about 0.62 font sizes wide.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["POSITIONS", "Canvas", "label_positions"]

#: The sides tried, in order of preference (plotly ``textposition`` values).
POSITIONS = (
    "middle right",
    "middle left",
    "top right",
    "bottom right",
    "top left",
    "bottom left",
)
#: Width of one character and height of a line, in font sizes (digits and a minus sign
#: in the figures' sans-serif font, rounded up).
CHAR_WIDTH = 0.62
LINE_HEIGHT = 1.25
#: Pixels kept free around every label.
GAP = 2.0
#: Half the width of an error bar's cross-bar (plotly's default ``width`` is 4 px).
CAP_HALF_WIDTH = 4.0


@dataclass(frozen=True)
class Canvas:
    """The plot area in pixels and the data ranges it shows.

    Attributes
    ----------
    width, height : float
        The plot area (the figure less its margins), in pixels.
    x_range, y_range : tuple of float
        The axes' ranges.
    """

    width: float
    height: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]

    def x(self, values) -> np.ndarray:
        """Data x to pixels from the left of the plot area."""
        low, high = self.x_range
        return (np.asarray(values, dtype=float) - low) / (high - low) * self.width

    def y(self, values) -> np.ndarray:
        """Data y to pixels from the top of the plot area."""
        low, high = self.y_range
        return (high - np.asarray(values, dtype=float)) / (high - low) * self.height


def _box(cx: float, cy: float, offset: float, size: tuple[float, float], where: str):
    """The (x0, y0, x1, y1) pixel box of a label of ``size`` at ``where`` of a point."""
    w, h = size
    vertical, horizontal = where.split()
    x0 = cx + offset if horizontal == "right" else cx - offset - w
    if vertical == "middle":
        y0 = cy - h / 2
    else:
        y0 = cy - offset - h if vertical == "top" else cy + offset
    return x0, y0, x0 + w, y0 + h


def _hits_circle(box, cx: float, cy: float, r: float) -> bool:
    x0, y0, x1, y1 = box
    nx, ny = min(max(cx, x0), x1), min(max(cy, y0), y1)
    return (nx - cx) ** 2 + (ny - cy) ** 2 < (r + GAP) ** 2


def _hits_bar(box, x: float, low: float, high: float) -> bool:
    """Whether a box touches an error bar at ``x`` from pixel ``high`` (top) to ``low``,
    with its two cross-bars."""
    x0, y0, x1, y1 = box
    stem = x0 - GAP < x < x1 + GAP and y0 - GAP < low and high < y1 + GAP
    caps = x0 - GAP < x + CAP_HALF_WIDTH and x - CAP_HALF_WIDTH < x1 + GAP
    return stem or (caps and any(y0 - GAP < y < y1 + GAP for y in (low, high)))


def _overlaps(a, b) -> bool:
    return a[0] < b[2] + GAP and b[0] < a[2] + GAP and a[1] < b[3] + GAP and b[1] < a[3] + GAP


def _free(box, i: int, canvas: Canvas, points, placed) -> bool:
    """Whether label ``i``'s box is inside the plot and clear of everything drawn."""
    x0, y0, x1, y1 = box
    if x0 < 0 or y0 < 0 or x1 > canvas.width or y1 > canvas.height:
        return False
    cx, cy, radius, low, high = points
    if any(_hits_circle(box, cx[j], cy[j], radius[j]) for j in range(len(cx)) if j != i):
        return False
    # its own bar cannot meet its label: the label sits beside or beyond the marker
    if any(_hits_bar(box, cx[j], low[j], high[j]) for j in range(len(cx)) if j != i):
        return False
    return not any(_overlaps(box, other) for other in placed)


def label_positions(
    x,
    y,
    size,
    texts: Sequence[str],
    canvas: Canvas,
    *,
    lower=None,
    upper=None,
    font_size: float = 10.0,
    order: Sequence[int] | None = None,
) -> list[str | None]:
    """Where to write each point's label so that no two labels, markers or error bars meet.

    Parameters
    ----------
    x, y : array-like (n,)
        The points, in data units.
    size : array-like (n,)
        The markers' diameters in pixels (plotly's ``marker.size``).
    texts : sequence of str
        The labels.
    canvas : Canvas
        The plot area and its ranges.
    lower, upper : array-like (n,), optional
        The ends of the points' error bars, in data units (none: no bars).
    font_size : float
        The labels' font size in pixels.
    order : sequence of int, optional
        The points in the order they choose a place (default: as given); put the points
        whose label matters most first.

    Returns
    -------
    list of str or None
        Per point, a plotly ``textposition`` (one of :data:`POSITIONS`), or None: no place
        is free, leave the label out.
    """
    radius = np.asarray(size, dtype=float) / 2
    cx, cy = canvas.x(x), canvas.y(y)
    low = cy if lower is None else canvas.y(lower)
    high = cy if upper is None else canvas.y(upper)
    points = (cx, cy, radius, low, high)
    out: list[str | None] = [None] * len(texts)
    placed: list[tuple[float, float, float, float]] = []
    for i in range(len(texts)) if order is None else order:
        label = (CHAR_WIDTH * font_size * len(texts[i]), LINE_HEIGHT * font_size)
        offset = radius[i] / 0.8 + 1
        for where in POSITIONS:
            box = _box(cx[i], cy[i], offset, label, where)
            if _free(box, i, canvas, points, placed):
                out[i] = where
                placed.append(box)
                break
    return out
