"""Clinically round cut points: a quantile cut point moved to a round number nearby.

A quantile of a measured column is rarely a number a clinician would write: a score reads
``age ≥ 55`` or ``chol ≥ 250``, not ``age ≥ 57.3``. :func:`round_cut_points` moves each
cut point to the roundest number near it. It tries the grids ``10^k`` and ``5 × 10^k``
from the coarsest down (``100, 50, 10, 5, 1, 0.5, 0.1, ...``; these hold the
``2 × 10^k`` and ``2.5 × 10^k`` numbers too: ``20``, ``25``, ``0.25``), and takes the first
grid number (of the two around the cut point) whose split of the training rows stays close
to the quantile's:

- the share of rows below it differs from the share below the quantile cut point by at
  most ``tolerance`` (:data:`ROUND_TOLERANCE`, 5 percentage points);
- that share stays strictly between the shares of the neighbouring cut points, so two cut
  points never merge and their order is kept.

Only a number rounder than the cut point itself is taken (:func:`roundness`: ``60`` is
rounder than ``58``, ``55`` than ``54``, ``1.2`` than ``1.12``; ``54`` is no rounder than
``53``, nor ``225`` than ``230``); a cut point without one is kept as it was. On a column
of whole numbers only whole numbers are tried. A cut point at or below the smallest value
(it becomes ``col > min``) is not moved.

>>> import numpy as np
>>> ages = np.arange(30, 90)  # 60 patients aged 30..89
>>> round_cut_points(ages, [41.8, 53.6, 65.4, 77.2])
[40, 55, 65, 80]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

import numpy as np

__all__ = ["ROUND_TOLERANCE", "round_cut_points", "roundness"]

#: Largest change of the share of training rows below a cut point when it is rounded.
ROUND_TOLERANCE = 0.05

#: The grids tried within a power of ten, coarsest first.
_MANTISSAS = (1.0, 0.5)


def round_cut_points(
    values, cuts: Sequence[float], *, integral: bool = False, tolerance: float = ROUND_TOLERANCE
) -> list:
    """The cut points moved to round numbers that split ``values`` nearly as they did.

    Parameters
    ----------
    values : array-like of float
        The training values of the column (no missing values).
    cuts : sequence of float
        The cut points in increasing order; ``col ≥ cut`` is the item of each.
    integral : bool
        The column holds whole numbers: only whole numbers are tried.
    tolerance : float
        Largest change of the share of ``values`` below a cut point (0.05: 5 percentage
        points).

    Returns
    -------
    list
        The cut points, each rounded or as given (whole numbers as ``int``).
    """
    ordered = np.sort(np.asarray(values, dtype=float))
    if ordered.size == 0:
        return list(cuts)

    def share(cut: float) -> float:
        return float(np.searchsorted(ordered, cut, side="left")) / ordered.size

    top = float(max(abs(ordered[0]), abs(ordered[-1]), *(abs(c) for c in cuts)))
    out: list = []
    low = 0.0  # share below the previous (rounded) cut point
    for k, cut in enumerate(cuts):
        high = share(cuts[k + 1]) if k + 1 < len(cuts) else 1.0
        target = share(cut)
        moved = None
        if low < target < high:  # a duplicate or a cut at the minimum stays as it is
            moved = _roundest(cut, top, integral, share, target, low, high, tolerance)
        out.append(cut if moved is None else moved)
        low = max(low, share(out[-1]))
    return out


def _roundest(cut, top, integral, share, target, low, high, tolerance):
    """The number of the coarsest grid near ``cut`` whose share is within ``tolerance`` of
    ``target`` and strictly between ``low`` and ``high`` (None: none rounder than ``cut``)."""
    for step in _steps(top, roundness(cut), integral):
        around = (math.floor(cut / step), math.ceil(cut / step))
        candidates = {_on_grid(k, step) for k in around}
        fits = [
            (abs(share(c) - target), abs(c - cut), c)
            for c in candidates
            if low < share(c) < high and abs(share(c) - target) <= tolerance + 1e-12
        ]
        if fits:
            return min(fits)[2]
    return None


def _steps(top: float, floor: float, integral: bool):
    """Grid steps from the coarsest (a power of ten above ``top``) down to the last one
    rounder than ``floor`` (steps of at least 1 on whole numbers)."""
    if top == 0:
        return
    exponent = math.floor(math.log10(top)) + 1
    while True:
        for mantissa in _MANTISSAS:
            step = mantissa * 10.0**exponent
            if roundness(step) <= floor or (integral and step < 1):
                return
            yield step
        exponent -= 1


def _on_grid(multiple: int, step: float):
    """``multiple * step`` without floating-point noise (``3 * 0.1`` is ``0.3``); a whole
    number as ``int``."""
    digits = max(0, 1 - math.floor(math.log10(step)))
    value = round(multiple * step, digits)
    return int(value) if float(value).is_integer() else value


def roundness(value: float) -> float:
    """How round a number is: the power of ten of its last significant digit, plus one
    half when that digit is a 5 (``100``: 2, ``250``: 1.5, ``60``: 1, ``55``: 0.5,
    ``58``: 0, ``1.2``: -1, ``0.25``: -1.5; ``0``: infinite).

    Parameters
    ----------
    value : float
        The number.

    Returns
    -------
    float
        Its roundness (larger is rounder).
    """
    if value == 0:
        return math.inf
    digits = Decimal(f"{abs(value):.12g}").normalize().as_tuple()
    return digits.exponent + (0.5 if digits.digits[-1] == 5 else 0.0)
