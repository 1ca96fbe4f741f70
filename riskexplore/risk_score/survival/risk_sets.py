"""Rows sorted by follow-up time once, with their tie groups: the risk sets of the Cox loss.

With rows sorted by time ascending, the risk set of a row ``i`` (every row still followed
at ``t_i``: ``t_j >= t_i``, tied rows included, as Breslow's method has it) is the suffix
that starts at the first row of ``i``'s tie group, ``first[i]``. So the sums over all risk
sets are one reverse cumulative pass, O(n) after the sort.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["RiskSets", "log_risk_sums"]


def _tie_bounds(sorted_time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last sorted index of each row's tie group."""
    n = len(sorted_time)
    new = np.ones(n, dtype=bool)
    new[1:] = sorted_time[1:] != sorted_time[:-1]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    first = np.repeat(starts, sizes)
    last = np.repeat(starts + sizes - 1, sizes)
    return first.astype(np.int64), last.astype(np.int64)


@dataclass(frozen=True)
class RiskSets:
    """Rows sorted by time (stable), with weights, event weights and tie groups.

    Attributes
    ----------
    order : ndarray of int
        ``order[k]`` is the input row at sorted position ``k``.
    time : ndarray
        Sorted times.
    weights : ndarray
        Sorted row weights.
    event_weights : ndarray
        ``weights`` where the row had the event, else 0.
    first, last : ndarray of int
        First and last sorted index of each row's tie group (equal times).
    total_weight : float
        Sum of the weights (the number of rows with unit weights).
    """

    order: np.ndarray
    time: np.ndarray
    weights: np.ndarray
    event_weights: np.ndarray
    first: np.ndarray
    last: np.ndarray
    total_weight: float

    @classmethod
    def build(cls, time: np.ndarray, event: np.ndarray, weights: np.ndarray) -> RiskSets:
        """Sort checked rows by time.

        Parameters
        ----------
        time : ndarray
            Follow-up times.
        event : ndarray of bool
            Event indicators.
        weights : ndarray
            Row weights.

        Returns
        -------
        RiskSets
            The sorted rows.
        """
        order = np.argsort(time, kind="stable")
        sorted_time = np.asarray(time, dtype=float)[order]
        w = np.ascontiguousarray(np.asarray(weights, dtype=float)[order])
        first, last = _tie_bounds(sorted_time)
        return cls(
            order=order,
            time=sorted_time,
            weights=w,
            event_weights=np.where(np.asarray(event, dtype=bool)[order], w, 0.0),
            first=first,
            last=last,
            total_weight=float(w.sum()),
        )

    @property
    def n_rows(self) -> int:
        """The number of rows."""
        return len(self.order)

    def sort(self, values: np.ndarray) -> np.ndarray:
        """Per-row values (input order) in sorted order, as a contiguous float array.

        Parameters
        ----------
        values : ndarray
            One value (or row) per input row.

        Returns
        -------
        ndarray
            The values in time order.
        """
        return np.ascontiguousarray(np.asarray(values, dtype=float)[self.order])


@njit(cache=True)
def log_risk_sums(s: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``log sum_{j >= k} w_j exp(s_j)`` for every sorted position ``k``.

    A reverse pass with a running maximum, so no ``exp`` overflows whatever the scale of
    the scores (``-inf`` where every later weight is 0).

    Parameters
    ----------
    s : ndarray
        Scores in time order.
    w : ndarray
        Weights in time order.

    Returns
    -------
    ndarray
        The log risk-set sums (index by ``first`` to get a row's risk set).
    """
    n = s.shape[0]
    out = np.empty(n)
    m = -np.inf
    acc = 0.0
    for k in range(n - 1, -1, -1):
        if w[k] > 0.0:
            if s[k] > m:
                acc = acc * np.exp(m - s[k]) + w[k]
                m = s[k]
            else:
                acc += w[k] * np.exp(s[k] - m)
        out[k] = m + np.log(acc) if acc > 0.0 else -np.inf
    return out
