"""The cut points of threshold items: the user's (clinical) cut-offs of a ``thresholds``
spec, parsed and checked, and the quantile (or median) cut points of a numeric column,
rounded and kept only where they split the training rows differently.

:class:`~riskexplore.data.binarize.Binarizer` makes its threshold items from them
(:mod:`riskexplore.data.items`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from riskexplore.data.items import plain_value, round_threshold
from riskexplore.data.round_cuts import round_cut_points
from riskexplore.data.validation import listing
from riskexplore.errors import InputError

__all__ = ["OPERATORS", "parse_thresholds", "threshold_cuts"]

#: The operators a ``thresholds`` spec may write -> their canonical form.
OPERATORS = {
    ">=": ">=",
    "≥": ">=",
    "=>": ">=",
    ">": ">",
    "<=": "<=",
    "≤": "<=",
    "=<": "<=",
    "<": "<",
}


def parse_thresholds(spec, columns) -> dict:
    """User cut-offs ``{col: [(op, value), ...]}`` of a ``thresholds`` spec (checked).

    Parameters
    ----------
    spec : dict
        ``{column: cut-offs}``: a number, an ``(operator, number)`` pair, or a list of them.
    columns : sequence of str
        The table's columns.

    Returns
    -------
    dict
        Column -> its ``(op, value)`` pairs, the operators canonical, no repeats.

    Raises
    ------
    InputError
        For an unknown column or operator, or a cut-off that is not a finite number.
    """
    if not isinstance(spec, dict):
        raise InputError(
            f"thresholds must be a dict {{column: [cut-offs]}}, not {type(spec).__name__}"
        )
    unknown = [c for c in spec if c not in columns]
    if unknown:
        raise InputError(
            f"thresholds name columns not in the data: {listing(unknown)}; "
            f"columns are {listing(columns)}"
        )
    out = {}
    for col, cuts in spec.items():
        if isinstance(cuts, (numbers.Real, tuple)) or (
            isinstance(cuts, list) and len(cuts) == 2 and isinstance(cuts[0], str)
        ):
            cuts = [cuts]
        parsed = []
        for cut in cuts:
            if isinstance(cut, (tuple, list)) and len(cut) == 2 and isinstance(cut[0], str):
                op, value = cut
                if op.strip() not in OPERATORS:
                    raise InputError(
                        f"thresholds for {col!r}: unknown operator {op!r}; "
                        "use one of ≥ (>=), >, ≤ (<=), <"
                    )
                op = OPERATORS[op.strip()]
            else:
                op, value = ">=", cut
            value = plain_value(value)
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not math.isfinite(value)
            ):
                raise InputError(
                    f"thresholds for {col!r}: cut-off {value!r} is not a finite number"
                )
            if (op, value) not in parsed:
                parsed.append((op, value))
        if not parsed:
            raise InputError(f"thresholds for {col!r} is empty; give at least one cut-off")
        out[col] = parsed
    return out


def threshold_cuts(numbers_: np.ndarray, levels: np.ndarray, method, n_quantiles, round_) -> list:
    """Threshold (op, value) pairs of a numeric column, deduplicated by training split.

    Parameters
    ----------
    numbers_ : ndarray
        The column's numbers (training rows, none missing).
    levels : ndarray
        Its distinct values.
    method : {"adaptive", "fixed"}
        Quantile cut points, or the median.
    n_quantiles : int
        Quantile bins of the adaptive method.
    round_ : bool
        Move the cut points to clinically round numbers nearby.

    Returns
    -------
    list of tuple
        ``(">=", v)`` (or ``(">", v)`` where ``≥`` splits nothing), each splitting the
        rows its own way.
    """
    if method == "fixed":
        raw = [float(np.median(numbers_))]
    else:
        qs = np.arange(1, n_quantiles) / n_quantiles
        raw = [float(v) for v in np.quantile(numbers_, qs)]
    integral = bool(np.all(np.mod(levels, 1) == 0))
    values = [float(math.ceil(v)) if integral else round_threshold(v) for v in raw]
    if round_:
        values = round_cut_points(numbers_, values, integral=integral)
    cuts, seen = [], set()
    for value in values:
        value = plain_value(value)
        for op in (">=", ">"):
            mask = numbers_ >= value if op == ">=" else numbers_ > value
            if mask.all() or not mask.any():
                continue
            key = np.packbits(mask).tobytes()
            if key not in seen:
                seen.add(key)
                cuts.append((op, value))
            break
    return cuts
