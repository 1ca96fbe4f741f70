"""Certified lower bounds of the Cox loss on one support, and the root's feature floors.

On a support ``S`` (``k`` features) the rows fall into ``P`` distinct value patterns; with
``G`` tie groups of event times the loss of points ``theta`` on ``S`` is

``f(theta) = (1/W) [sum_g D_g log sum_p R[g, p] exp(theta . x_p) - theta . sx]``

(``R[g, p]``: weight of pattern ``p`` at risk at event time ``g``; ``D_g``: event weight at
``g``; ``sx``: the event rows' weighted sum of ``x``). Projected Newton in the box, then the
convexity bound at the last iterate, ``f(theta) + sum_a min(g_a (lo_a - theta_a), g_a (hi_a
- theta_a))``: valid for every point of the box whether or not Newton converged, as the
logistic support kernel's (:mod:`riskexplore.risk_score.support.kernel`). Cost: O(n) to
build ``R``, then O(G P k^2) per Newton step.

:func:`cox_feature_floors` bounds every support of the root once; ``floor_j``, the least
bound (plus penalties) over the supports containing ``j``, bounds every model using ``j``,
so LCPA fixes ``j`` out once its incumbent is at most ``floor_j`` (root fixing, as
:mod:`riskexplore.risk_score.support.fixing` does for the logistic loss). On whas500's raw
table (32 items) this certified in 119 s what LCPA alone left at a 0.38% gap after 300 s.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from riskexplore.risk_score.support.screen import count_supports

if TYPE_CHECKING:  # cox.py imports this module (CoxLoss.feature_floors)
    from riskexplore.risk_score.rows import RowMatrix

__all__ = ["cox_feature_floors", "cox_support_bound"]

#: Newton steps per support.
_NEWTON_STEPS = 30


@njit(cache=True)
def _bit_patterns(X, support):
    """Each row's pattern on a support of 0/1 columns: ``sum_a x[support[a]] 2^a``."""
    n = X.shape[0]
    pid = np.zeros(n, dtype=np.int64)
    for i in range(n):
        code = 0
        for a in range(support.shape[0]):
            if X[i, support[a]] != 0.0:
                code |= 1 << a
        pid[i] = code
    return pid


def _all_patterns(k: int) -> np.ndarray:
    """Every 0/1 pattern of ``k`` columns, row ``p`` holding the bits of ``p``."""
    return ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1).astype(float)


@njit(cache=True)
def _risk_counts(Xs, pid, n_patterns, w, ev_w, first_event_row, G):
    """``R[g, p]``, ``D[g]`` and ``sx`` of one support (rows sorted by time)."""
    n, k = Xs.shape
    R = np.zeros((G, n_patterns))
    D = np.zeros(G)
    sx = np.zeros(k)
    running = np.zeros(n_patterns)
    g = G
    for i in range(n - 1, -1, -1):
        running[pid[i]] += w[i]
        if first_event_row[i]:  # first row of a tie group holding an event: its risk set
            g -= 1
            R[g, :] = running
    g = -1
    for i in range(n):
        if first_event_row[i]:
            g += 1
        if ev_w[i] > 0.0:
            D[g] += ev_w[i]
            for a in range(k):
                sx[a] += ev_w[i] * Xs[i, a]
    return R, D, sx


@njit(cache=True)
def _f_grad_hess(theta, R, D, pats, sx, W):
    """The loss on the support, its gradient and Hessian (loops: no temporary arrays)."""
    G, P = R.shape
    k = theta.shape[0]
    e = pats @ theta
    m = e.max()
    e = np.exp(e - m)
    f = 0.0
    g = np.zeros(k)
    H = np.zeros((k, k))
    mu = np.zeros(k)
    M2 = np.zeros((k, k))
    for gi in range(G):
        if D[gi] == 0.0:
            continue
        S = 0.0
        mu[:] = 0.0
        M2[:, :] = 0.0
        for p in range(P):
            r = R[gi, p] * e[p]
            if r == 0.0:
                continue
            S += r
            for a in range(k):
                ra = r * pats[p, a]
                if ra != 0.0:
                    mu[a] += ra
                    for b in range(a + 1):
                        M2[a, b] += ra * pats[p, b]
        f += D[gi] * (np.log(S) + m)
        w = D[gi] / S
        for a in range(k):
            g[a] += w * mu[a]
            for b in range(a + 1):
                h = w * (M2[a, b] - mu[a] * mu[b] / S)
                H[a, b] += h
                if b != a:
                    H[b, a] += h
    f -= theta @ sx
    g -= sx
    return f / W, g / W, H / W


@njit(cache=True)
def _projected_newton_bound(R, D, pats, sx, W, lo, hi, steps):
    k = lo.shape[0]
    theta = np.minimum(np.maximum(np.zeros(k), lo), hi)
    f, g, H = _f_grad_hess(theta, R, D, pats, sx, W)
    for _ in range(steps):
        free = ~(((theta <= lo) & (g > 0)) | ((theta >= hi) & (g < 0)))
        idx = np.flatnonzero(free)
        if idx.size == 0:
            break
        Hf = H[idx][:, idx] + 1e-10 * np.eye(idx.size)
        step = np.linalg.solve(Hf, g[idx])
        if np.max(np.abs(step)) < 1e-7:
            break
        t, improved = 1.0, False
        for _ls in range(12):
            cand = theta.copy()
            for j in range(idx.size):
                a = idx[j]
                cand[a] = min(max(theta[a] - t * step[j], lo[a]), hi[a])
            fc, gc, Hc = _f_grad_hess(cand, R, D, pats, sx, W)
            if fc <= f - 1e-14 * abs(f):
                theta, f, g, H = cand, fc, gc, Hc
                improved = True
                break
            t *= 0.5
        if not improved:
            break
    bound = f
    for a in range(k):
        bound += min(g[a] * (lo[a] - theta[a]), g[a] * (hi[a] - theta[a]))
    return bound - 1e-9 * (1.0 + abs(bound))


def _binary_columns(loss: Any) -> np.ndarray:
    """Whether each column of the loss's rows holds only 0 and 1."""
    return np.all((loss.X == 0.0) | (loss.X == 1.0), axis=0)


def _first_event_rows(loss: Any) -> tuple[np.ndarray, int]:
    """Whether each sorted row opens a tie group that holds an event; how many do."""
    r = loss.rows
    has_event = np.zeros(r.n_rows, dtype=bool)
    np.logical_or.at(has_event, r.first, r.event_weights > 0)
    opens = (np.arange(r.n_rows) == r.first) & has_event
    return opens, int(opens.sum())


def cox_support_bound(loss: Any, support, lower, upper, _events=None, _binary=None) -> float:
    """A certified lower bound on the Cox loss of every model on ``support`` in a box.

    Parameters
    ----------
    loss : CoxLoss
        The loss.
    support : sequence of int
        The features (0-based columns of ``loss.X``); every other point is 0.
    lower, upper : array-like (len(support),)
        The box of their points (real or integer models alike are covered).

    Returns
    -------
    float
        The bound (at most the least loss of the box).
    """
    S = np.asarray(support, dtype=np.int64)
    Xs = np.ascontiguousarray(loss.X[:, S])
    binary = _binary if _binary is not None else _binary_columns(loss)
    if binary[S].all():  # 0/1 items (a binarized table): patterns by bits, no sort
        pid, pats = _bit_patterns(loss.X, S), _all_patterns(len(S))
    else:
        pats, pid = np.unique(Xs, axis=0, return_inverse=True)
        pid = pid.ravel().astype(np.int64)
    opens, G = _events if _events is not None else _first_event_rows(loss)
    r = loss.rows
    R, D, sx = _risk_counts(Xs, pid, len(pats), r.weights, r.event_weights, opens, G)
    lo, hi = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    return float(_projected_newton_bound(R, D, pats, sx, r.total_weight, lo, hi, _NEWTON_STEPS))


def _supports(allowed, forced, k_min: int, k_max: int):
    """Every support holding ``forced`` with ``k_min..k_max`` features from ``allowed``."""
    free = [j for j in allowed if j not in set(forced)]
    for k in range(max(k_min, len(forced), 1), k_max + 1):
        for extra in itertools.combinations(free, k - len(forced)):
            yield tuple(sorted((*forced, *extra)))


def cox_feature_floors(
    loss: Any,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    c0: np.ndarray,
    k_min: int,
    k_max: int,
    max_supports: int,
    max_work: float = math.inf,
    alpha_rows: RowMatrix | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> np.ndarray | None:
    """Per feature, a certified floor on the objective of every model of the root using it.

    Parameters
    ----------
    loss : CoxLoss
        The loss.
    lower, upper : arrays (2d+1,)
        The root's bounds on ``[lambda_0..d, alpha_1..d]``.
    c0 : array (d,)
        Penalty of each feature.
    k_min, k_max : int
        Size range of the models.
    max_supports : int
        Give up (None) when the root has more supports than this.
    max_work : float
        Give up (None) when supports times rows exceeds this.
    alpha_rows : RowMatrix, optional
        Rows on the indicators only: a support that breaks one holds no model.
    should_stop : callable, optional
        Give up (None) when it returns True.

    Returns
    -------
    ndarray (d,) or None
        ``floor_j`` (``inf`` for a feature no model of the root uses), or None.
    """
    d = loss.n_features
    lo, hi = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    allowed = [j for j in range(d) if hi[d + 1 + j] > 0]
    forced = [j for j in range(d) if lo[d + 1 + j] > 0]
    # the supports of _supports: never the empty one (a floor is of a feature used)
    count = count_supports(len(forced), len(allowed) - len(forced), max(k_min, 1), k_max)
    if count > max_supports or count * loss.n_rows > max_work:
        return None
    events, binary = _first_event_rows(loss), _binary_columns(loss)
    floors = np.full(d, np.inf)
    for n, S in enumerate(_supports(allowed, forced, k_min, k_max)):
        if n % 256 == 0 and should_stop is not None and should_stop():
            return None
        if alpha_rows is not None and _breaks(alpha_rows, S, d):
            continue
        idx = np.asarray(S) + 1
        bound = cox_support_bound(loss, S, lo[idx], hi[idx], events, binary)
        bound += float(c0[list(S)].sum())
        floors[list(S)] = np.minimum(floors[list(S)], bound)
    return floors


def _breaks(rows: RowMatrix, support: tuple[int, ...], d: int) -> bool:
    alpha = np.zeros(rows.A.shape[1])
    alpha[[d + 1 + j for j in support]] = 1.0
    value = rows.A @ alpha
    return bool(np.any(value < rows.lower - 1e-9) or np.any(value > rows.upper + 1e-9))
