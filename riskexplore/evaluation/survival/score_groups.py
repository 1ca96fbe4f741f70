"""Groups of adjacent scores with enough rows for a Kaplan-Meier curve, and their curves.

An integer score has many values, and the rarest (the highest and lowest totals) hold a
handful of patients each: their curves would be steps of a few rows with intervals from 0
to 1. Going up from the lowest score, adjacent scores are merged into one group until it
holds at least ``min_rows`` rows; a last group smaller than that joins the one below it.
Every group is a range of scores, named in plain words (``score 3``, ``score 0 to 1``,
``score −2 to 1``: "to", never a dash, which would read as a minus), and no two groups
share a score.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riskexplore.core.plain_numbers import plain_number
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.product_limit import kaplan_meier
from riskexplore.evaluation.validation.estimate import json_number

__all__ = ["DEFAULT_MIN_GROUP_ROWS", "group_label", "km_by_group", "score_groups"]

#: The fewest rows a score group holds (unless the rows are fewer).
DEFAULT_MIN_GROUP_ROWS = 30


def group_label(low: float, high: float) -> str:
    """A score range in plain words: ``score 3``, ``score 0 to 1``, ``score −2 to 1``.

    Parameters
    ----------
    low, high : float
        The lowest and highest score of the group.

    Returns
    -------
    str
        The label (minus signs as ``−``, so that a range never reads as a subtraction).
    """

    def show(v: float) -> str:
        return plain_number(float(v)).replace("-", "−")

    if low == high:
        return f"score {show(low)}"
    return f"score {show(low)} to {show(high)}"


def score_groups(score, min_rows: int = DEFAULT_MIN_GROUP_ROWS) -> tuple[np.ndarray, list]:
    """Merge adjacent scores into groups of at least ``min_rows`` rows.

    Parameters
    ----------
    score : array-like
        One finite score per row.
    min_rows : int
        The fewest rows of a group (``>= 1``); with fewer rows in all, one group.

    Returns
    -------
    group : ndarray of int
        Each row's group, ``0`` for the lowest scores.
    ranges : list of tuple
        ``(low, high)``: each group's lowest and highest score.

    Raises
    ------
    InputError
        For scores that are not finite numbers or ``min_rows < 1``.
    """
    s = np.asarray(score, dtype=float)
    if s.ndim != 1 or not np.isfinite(s).all():
        raise InputError("scores must be finite numbers, one per row")
    if not isinstance(min_rows, (int, np.integer)) or min_rows < 1:
        raise InputError(f"min_rows must be a whole number >= 1, got {min_rows!r}")
    values, counts = np.unique(s, return_counts=True)
    starts, filled = [0], 0
    for k, count in enumerate(counts):
        if filled >= min_rows:  # the open group is full: start the next one here
            starts.append(k)
            filled = 0
        filled += count
    if filled < min_rows and len(starts) > 1:  # a short last group joins the one below
        starts.pop()
    ends = [*starts[1:], len(values)]
    value_group = np.repeat(np.arange(len(starts)), np.diff([*starts, len(values)]))
    group = value_group[np.searchsorted(values, s)]
    ranges = [(values[a].item(), values[b - 1].item()) for a, b in zip(starts, ends, strict=True)]
    return group, ranges


def km_by_group(time, event, group, ranges, confidence: float = 0.95) -> list[dict[str, Any]]:
    """The Kaplan-Meier curve of each score group, JSON-ready.

    Parameters
    ----------
    time, event : ndarray
        The checked survival outcome.
    group : ndarray of int
        Each row's group (:func:`score_groups`).
    ranges : list of tuple
        Each group's ``(low, high)`` score.
    confidence : float
        The level of the pointwise log(-log) interval.

    Returns
    -------
    list of dict
        Per group: ``label``, ``low``, ``high``, ``patients``, ``events``, and the curve at
        its distinct times: ``time``, ``survival``, ``lower``, ``upper``, ``at_risk``.
    """
    out = []
    for g, (low, high) in enumerate(ranges):
        rows = group == g
        curve = kaplan_meier(time[rows], event[rows], confidence)
        out.append(
            {
                "label": group_label(low, high),
                "low": json_number(low),
                "high": json_number(high),
                "patients": int(rows.sum()),
                "events": int(event[rows].sum()),
                **{
                    key: [json_number(v) for v in values]
                    for key, values in (
                        ("time", curve.times),
                        ("survival", curve.survival),
                        ("lower", curve.lower),
                        ("upper", curve.upper),
                        ("at_risk", curve.at_risk.astype(int)),
                    )
                },
            }
        )
    return out
