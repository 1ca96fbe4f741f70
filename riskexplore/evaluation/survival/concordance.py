"""Concordance of scores with survival: Harrell's C and Uno's C, in O(n log n).

A higher score means a higher risk. A pair ``(i, j)`` is *comparable* when ``i`` had the
event first: ``delta_i = 1`` and ``t_j > t_i``, or ``t_j = t_i`` with ``j`` censored (events
at one time are not compared with each other). It is concordant when ``s_i > s_j``, tied
when the scores are equal (within ``tied_tol``; counted one half, which matters for
integer scores). Harrell's ``C = (concordant + tied / 2) / comparable``, as
scikit-survival's ``concordance_index_censored``.

Uno's C weights each pair by ``1 / G(t_i)^2``, ``G`` the Kaplan-Meier estimate of the
censoring distribution on the training rows, and keeps pairs with ``t_i < tau``: it does
not depend on the censoring of the evaluation rows (scikit-survival's
``concordance_index_ipcw``).

Both are one pass over the rows in decreasing time with a Fenwick tree over the score
ranks: each row's comparable partners are the rows already in the tree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.product_limit import censoring_kaplan_meier
from riskexplore.evaluation.validation.estimate import json_number

__all__ = ["Concordance", "harrell_c", "inverse_censoring_weights", "score_ranks", "uno_c"]


@dataclass(frozen=True)
class Concordance:
    """A concordance index and its pair counts (weighted for Uno's C).

    Attributes
    ----------
    estimate : float
        ``(concordant + tied / 2) / (concordant + discordant + tied)``; ``nan`` without
        comparable pairs.
    concordant, discordant, tied : float
        The (weighted) pairs of each kind.
    """

    estimate: float
    concordant: float
    discordant: float
    tied: float

    @property
    def pairs(self) -> float:
        """The (weighted) comparable pairs."""
        return self.concordant + self.discordant + self.tied

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values (``nan`` as None).

        Returns
        -------
        dict
            ``estimate``, ``concordant``, ``discordant``, ``tied``, ``pairs``.
        """
        names = ("estimate", "concordant", "discordant", "tied", "pairs")
        return {name: json_number(getattr(self, name)) for name in names}


def score_ranks(score, n: int, tied_tol: float = 1e-8) -> np.ndarray:
    """Dense ranks of the scores, scores within ``tied_tol`` of their neighbour sharing one.

    Parameters
    ----------
    score : array-like
        One finite score per row.
    n : int
        The number of rows.
    tied_tol : float
        Sorted scores closer than this to the previous one get its rank (so float noise in
        ``X @ points`` does not break ties of integer scores).

    Returns
    -------
    ndarray of int
        Ranks ``0 .. r-1``.

    Raises
    ------
    InputError
        If the scores are not ``n`` finite numbers.
    """
    s = np.asarray(score, dtype=float)
    if s.shape != (n,) or not np.isfinite(s).all():
        raise InputError(f"scores must be {n} finite numbers, one per row, got shape {s.shape}")
    distinct, inverse = np.unique(s, return_inverse=True)
    new = np.ones(len(distinct), dtype=np.int64)
    new[1:] = np.diff(distinct) > tied_tol
    return (np.cumsum(new) - 1)[inverse.ravel()]


@njit(cache=True)
def _pair_counts(time, event, rank, weight, n_ranks):
    """Weighted concordant, discordant and tied pairs; rows sorted by time ascending."""
    tree = np.zeros(n_ranks + 1)
    concordant = discordant = tied = 0.0
    inserted = 0.0
    end = time.shape[0]
    while end > 0:
        start = end - 1
        while start > 0 and time[start - 1] == time[end - 1]:
            start -= 1
        for pass_events in (False, True):  # censored of the group first: they are partners
            for i in range(start, end):
                if event[i] != pass_events:
                    continue
                if pass_events and weight[i] > 0.0:
                    less = equal = 0.0
                    k = rank[i]  # Fenwick prefix sums: ranks < rank[i], and <= rank[i]
                    while k > 0:
                        less += tree[k]
                        k -= k & -k
                    k = rank[i] + 1
                    while k > 0:
                        equal += tree[k]
                        k -= k & -k
                    equal -= less
                    concordant += weight[i] * less
                    tied += weight[i] * equal
                    discordant += weight[i] * (inserted - less - equal)
            for i in range(start, end):
                if event[i] == pass_events:
                    k = rank[i] + 1
                    while k <= n_ranks:
                        tree[k] += 1.0
                        k += k & -k
                    inserted += 1.0
        end = start
    return concordant, discordant, tied


def _concordance(time, event, rank, weight) -> Concordance:
    order = np.argsort(time, kind="stable")
    c, d, t = _pair_counts(
        np.ascontiguousarray(time[order]),
        np.ascontiguousarray(event[order]),
        np.ascontiguousarray(rank[order], dtype=np.int64),
        np.ascontiguousarray(weight[order], dtype=float),
        int(rank.max()) + 1,
    )
    pairs = c + d + t
    return Concordance((c + 0.5 * t) / pairs if pairs > 0 else math.nan, c, d, t)


def harrell_c(time, event, score, tied_tol: float = 1e-8) -> Concordance:
    """Harrell's concordance index of scores (higher score, higher risk).

    Parameters
    ----------
    time, event : array-like
        The survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`).
    score : array-like
        One score per row.
    tied_tol : float
        Scores this close count as tied.

    Returns
    -------
    Concordance
        The index and its pair counts.
    """
    time, event = check_survival_outcome(time, event)
    rank = score_ranks(score, len(time), tied_tol)
    return _concordance(time, event, rank, event.astype(float))


def inverse_censoring_weights(train, time, event, below: float = math.inf) -> np.ndarray:
    """``1 / G(t_i)`` for the events with ``t_i < below``, 0 for the other rows.

    Parameters
    ----------
    train : outcome or None
        The rows ``G`` is estimated on, in any form
        :func:`~riskexplore.data.survival.check_survival_outcome` takes alone (a structured
        array, a ``(time, event)`` pair); None: the evaluation rows themselves.
    time, event : ndarray
        The checked evaluation outcome.
    below : float
        Only events before this time get a weight.

    Returns
    -------
    ndarray
        The weights.

    Raises
    ------
    InputError
        If ``G`` is 0 at a weighted event time (every training row followed that long was
        censored).
    """
    censoring = censoring_kaplan_meier(*((time, event) if train is None else (train,)))
    used = event & (time < below)
    g = censoring.survival_at(time[used])
    if (g <= 0).any():
        t = float(time[used][g <= 0].min())
        raise InputError(
            f"the censoring survival of the training rows is 0 at time {t:g}: no training "
            "row was still followed after it; use a horizon or tau below that time"
        )
    weights = np.zeros(len(time))
    weights[used] = 1.0 / g
    return weights


def uno_c(time, event, score, train=None, tau: float | None = None, tied_tol: float = 1e-8):
    """Uno's concordance index: Harrell's pairs weighted by ``1 / G(t_i)^2``, ``t_i < tau``.

    Parameters
    ----------
    time, event : array-like
        The evaluation rows' outcome.
    score : array-like
        One score per evaluation row.
    train : outcome, optional
        The training rows' outcome, whose censoring distribution ``G`` weighs the pairs
        (a structured array or a ``(time, event)`` pair); default: the evaluation rows.
    tau : float, optional
        Only pairs whose first event is before ``tau`` (default: all).
    tied_tol : float
        Scores this close count as tied.

    Returns
    -------
    Concordance
        The index and its weighted pair counts.
    """
    time, event = check_survival_outcome(time, event)
    rank = score_ranks(score, len(time), tied_tol)
    below = math.inf if tau is None else float(tau)
    weight = inverse_censoring_weights(train, time, event, below) ** 2
    return _concordance(time, event, rank, weight)
