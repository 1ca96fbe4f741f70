"""Valid bounds ``[L_min, L_max]`` on the Cox loss over a box of points.

Every model ``lam`` with ``lower <= lam <= upper`` and at most ``max_size`` non-zero
points (the intercept ``lam[0]`` is ignored) has ``L_min <= L(lam) <= L_max``; the
engine starts its loss column from these (as ``lcpa/bounds.py`` does for the logistic
loss with its Proposition 4). A point forced in by the box (``lower > 0`` or
``upper < 0``) counts against ``max_size`` whatever its value.

Three lower bounds, the largest kept:

* **floor**: :meth:`CoxLoss.loss_floor` (each event's own feature pattern in its risk set);
* **tangent at 0**: the loss is convex, so ``L(lam) >= L(0) + g0 . lam``, least over the box;
* **per event**: ``term_i = log sum_{j in R_i} w_j exp((x_j - x_i) . lam)`` is at least
  ``log sum_q n_i(q) exp(m(p_i, q))``, with ``n_i(q)`` the weight of feature pattern ``q``
  in ``i``'s risk set and ``m(p, q)`` the least ``(x_q - x_p) . lam`` over the box (0 for
  the same pattern). Its largest values give ``L_max``. It needs a table of
  ``patterns x patterns`` and is skipped when that is too large; ``L_max`` then comes from
  each row's own score range.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import logsumexp

from riskexplore.risk_score.survival.risk_sets import log_risk_sums

__all__ = ["cox_loss_bounds"]

#: Largest ``patterns^2 x features`` (and ``events x patterns``) table of the per-event bound.
_MAX_TABLE = 4_000_000


def _least_sums(T: np.ndarray, forced: np.ndarray, max_size: int) -> np.ndarray:
    """Least ``sum_k T[..., k]`` choosing every forced ``k`` and at most ``max_size`` in all.

    ``T[..., k]`` is the least contribution of feature ``k`` when non-zero; a free feature
    may also be 0 (contribution 0).
    """
    fixed = T[..., forced].sum(axis=-1)
    free = np.minimum(T[..., ~forced], 0.0)
    k = max(max_size - int(forced.sum()), 0)
    if k == 0 or free.shape[-1] == 0:
        return fixed
    if k < free.shape[-1]:
        free = np.partition(free, k - 1, axis=-1)[..., :k]
    return fixed + free.sum(axis=-1)


def _ranges(loss: Any, lower, upper, max_size: int):
    lo = np.asarray(lower, dtype=float)[1:]
    hi = np.asarray(upper, dtype=float)[1:]
    forced = (lo > 0) | (hi < 0)
    return lo, hi, forced, max_size


def _tangent_bound(loss: Any, lo, hi, forced, max_size) -> float:
    value, g = loss.value_and_grad_scores(np.zeros(loss.n_rows))
    gp = g @ loss.X
    least = np.minimum(gp * lo, gp * hi)
    return float(value + _least_sums(least[None, :], forced, max_size)[0])


def _score_range_bounds(loss: Any, lo, hi, forced, max_size) -> tuple[float, float]:
    """Each row's score in ``[s_min, s_max]``: terms between two risk-set sums."""
    X = loss.X
    s_min = _least_sums(np.minimum(X * lo, X * hi), forced, max_size)
    s_max = -_least_sums(-np.maximum(X * lo, X * hi), forced, max_size)
    r = loss.rows
    events = r.event_weights > 0
    low = log_risk_sums(np.ascontiguousarray(s_min), r.weights)[r.first] - s_max
    high = log_risk_sums(np.ascontiguousarray(s_max), r.weights)[r.first] - s_min
    w = r.event_weights[events]
    return float(w @ low[events]) / r.total_weight, float(w @ high[events]) / r.total_weight


def _pattern_bounds(loss: Any, lo, hi, forced, max_size):
    """The per-event bounds over feature patterns; None when the tables are too large."""
    patterns, pid = np.unique(loss.X, axis=0, return_inverse=True)
    pid = pid.ravel()
    P, d = patterns.shape
    r = loss.rows
    events = np.flatnonzero(r.event_weights > 0)
    if P * P * max(d, 1) > _MAX_TABLE or len(events) * P > _MAX_TABLE:
        return None
    delta = patterns[None, :, :] - patterns[:, None, :]  # delta[p, q] = x_q - x_p
    m_min = _least_sums(np.minimum(delta * lo, delta * hi), forced, max_size)
    m_max = -_least_sums(-np.maximum(delta * lo, delta * hi), forced, max_size)
    np.fill_diagonal(m_min, 0.0)  # same pattern, same score: exactly 0
    np.fill_diagonal(m_max, 0.0)
    # weight of each pattern in the risk set of each event (a reverse cumulative sum)
    weight = np.zeros((r.n_rows, P))
    weight[np.arange(r.n_rows), pid] = r.weights
    in_risk = np.cumsum(weight[::-1], axis=0)[::-1][r.first[events]]
    with np.errstate(divide="ignore"):
        log_n = np.log(in_risk)
    low = logsumexp(log_n + m_min[pid[events]], axis=1)
    high = logsumexp(log_n + m_max[pid[events]], axis=1)
    w = r.event_weights[events]
    return float(w @ low) / r.total_weight, float(w @ high) / r.total_weight


def cox_loss_bounds(
    loss: Any, lower: np.ndarray, upper: np.ndarray, max_size: int | None = None
) -> tuple[float, float]:
    """Bounds on the loss of every model in a box with at most ``max_size`` points.

    Parameters
    ----------
    loss : CoxLoss
        The loss.
    lower, upper : ndarray of shape (d+1,)
        The box, in the engine's convention (``[intercept, points...]``; the intercept
        is ignored). Real or integer models alike are covered.
    max_size : int, optional
        The most non-zero points (default: every feature).

    Returns
    -------
    tuple of float
        ``(L_min, L_max)``.
    """
    args = _ranges(loss, lower, upper, loss.n_features if max_size is None else int(max_size))
    range_low, range_high = _score_range_bounds(loss, *args)
    lows = [loss.loss_floor(), _tangent_bound(loss, *args), range_low]
    high = range_high
    by_pattern = _pattern_bounds(loss, *args)
    if by_pattern is not None:
        lows.append(by_pattern[0])
        high = min(high, by_pattern[1])
    return max(lows), high
