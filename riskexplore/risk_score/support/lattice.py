"""The integer models of one support, searched with the kernel's bound alone (numba).

A node of the search whose indicators are all fixed holds the models on one support ``S``:
integer ``[lambda_0, lambda_S]`` in a box, with ``lambda_j != 0`` for every ``j`` in ``S``.
With the multiplier fixed at 1 and no row on the points, the best of them is found without
an LP, by a depth-first branch-and-bound over boxes of integers:

* a box is bounded by the kernel (``fit_support`` of
  :mod:`riskexplore.risk_score.support.kernel`): the least loss over the box, from a
  gradient at Newton's last iterate, valid whether or not Newton converged (less
  ``1e-9 (1 + |bound|)`` for rounding); on rows that do not merge (real-valued
  features), first on the rows grouped by bins
  (:mod:`~riskexplore.risk_score.support.binned`), a weaker bound for a Newton method on
  a few rows, and on the rows themselves only when that one leaves room;
* a box whose bound reaches the incumbent is dropped (or, within the gap tolerance, dropped
  with its bound kept as a floor of the certificate);
* a box is split at zero when a feature of ``S`` may still be zero there and its continuous
  minimiser rounds to zero (0 is no model of ``S``: the parts below and above), else at the
  floor of the most fractional coordinate of the minimiser (the nearer part first);
* when the minimiser is an integer point its loss is exact; the box is solved when the
  bound meets that loss (to ``1e-9``) or the box is that point, and split in the middle of
  its widest side otherwise (Newton stopped early).

Every split makes the sum of the box's side lengths smaller, so the search ends, and every
integer model of the node lies in exactly one box of each generation; hence the node's
least objective is at least the least of the values found, the floors and the bounds of
the boxes still open when the node budget runs out (which :func:`search_support` returns).
On features with many values (the ten levels of breastcancer's) the kernel's bound on a
box is far closer to the integer optimum than the LP's, and a node costs one Newton method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.binned import grouped_rows
from riskexplore.risk_score.support.kernel import _evaluate, fit_support
from riskexplore.risk_score.support.merge import gather_rows
from riskexplore.risk_score.support.screen import SupportData

__all__ = ["LatticeResult", "lattice_fits", "search_support"]


def lattice_fits(problem: RiskScoreProblem) -> bool:
    """Whether the lattice search can take the problem's one-support nodes (with the
    multiplier 1): no row involves the points (rows on indicators only, or none).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    bool
        True when every row's coefficients on ``[lambda_0, lambda_1..lambda_d]`` are zero.
    """
    rows = problem.row_matrix
    return not np.any(rows.A[:, : problem.n_features + 1] != 0)


@njit(cache=True)
def _push(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, bound, a, new_lo, new_hi):
    """Push ``(lo, hi)`` with side ``a`` set to ``[new_lo, new_hi]``; the new top."""
    S_lo[top] = lo
    S_hi[top] = hi
    S_lo[top, a] = new_lo
    S_hi[top, a] = new_hi
    S_th[top] = theta
    S_b[top] = bound
    return top + 1


@njit(cache=True)
def _split(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, bound, a, left_hi, right_lo, near_right):
    """Push the parts ``[lo_a, left_hi]`` and ``[right_lo, hi_a]`` (when not empty) of the
    box on side ``a``; the one nearer the minimiser last, so it is explored first."""
    if near_right and lo[a] <= left_hi:
        top = _push(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, bound, a, lo[a], left_hi)
    if right_lo <= hi[a]:
        top = _push(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, bound, a, right_lo, hi[a])
    if not near_right and lo[a] <= left_hi:
        top = _push(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, bound, a, lo[a], left_hi)
    return top


@njit(cache=True, nogil=True)
def lattice_search(
    Xb, yb, wb, m, k, lo0, hi0, theta0, cutoff, penalty, gap, max_nodes, best, open_lo, open_hi,
    open_bound, Gb, gyb, gwb, gm,
):  # fmt: skip
    """Depth-first search of the integer points of a box on one support.

    Parameters
    ----------
    Xb, yb, wb : arrays
        The support's (merged) rows, as the kernel's ``fit_support`` reads them; the
        first ``m`` are used.
    m, k : int
        Number of rows, and of features of the support.
    lo0, hi0 : arrays (k+1,)
        Integer box of ``[lambda_0, lambda_S]``.
    theta0 : array (k+1,)
        Newton's start.
    cutoff : float
        Loss to beat (the incumbent's objective less the support's penalty).
    penalty : float
        The support's penalty (for the relative gap).
    gap : float
        Relative gap tolerance: a box whose bound is within ``gap`` of the incumbent's
        objective is dropped, its bound kept in the floor.
    max_nodes : int
        Boxes bounded before the search stops.
    best : array (k+1,)
        Output: the best point found (when its loss is below ``cutoff``).
    open_lo, open_hi : arrays (N, k+1), open_bound : array (N,)
        Output: the boxes left open and their bounds; ``N`` at least the sum of the box's
        side lengths plus 2.
    Gb, gyb, gwb : arrays, gm : int
        The rows grouped by bins (:mod:`~riskexplore.risk_score.support.binned`), ``gm``
        of them (0: none). A box is first bounded on them (a lower bound by Jensen's
        inequality, for a Newton method on a few rows) and on the rows themselves only
        when that bound leaves room below the incumbent.

    Returns
    -------
    nodes : int
        Boxes bounded.
    value : float
        The least loss found (``cutoff`` when none beat it).
    n_open : int
        Boxes left open (the first rows of the outputs).
    floor : float
        The least bound of the boxes dropped within the gap tolerance (inf when none).
    """
    p = k + 1
    cap = open_bound.shape[0]
    S_lo = np.empty((cap, p))
    S_hi = np.empty((cap, p))
    S_th = np.empty((cap, p))
    S_b = np.empty(cap)
    lo = np.empty(p)
    hi = np.empty(p)
    theta = np.empty(p)
    point = np.empty(p)
    g = np.empty(p)
    H = np.empty((p, p))
    top = _push(S_lo, S_hi, S_th, S_b, 0, lo0, hi0, theta0, -np.inf, 0, lo0[0], hi0[0])
    value = cutoff
    floor = np.inf
    nodes = 0
    while top > 0 and nodes < max_nodes:
        top -= 1
        lo[:] = S_lo[top]
        hi[:] = S_hi[top]
        parent = S_b[top]
        slack = gap * abs(value + penalty)
        if parent >= value:
            continue
        if parent >= value - slack:
            floor = min(floor, parent)
            continue
        nodes += 1
        for a in range(p):
            theta[a] = min(max(S_th[top, a], lo[a]), hi[a])
        b = -np.inf
        if gm > 0:
            _, b = fit_support(Gb, gyb, gwb, gm, k, lo, hi, theta, value)
            b = max(b - 1e-9 * (1.0 + abs(b)), parent)
        if b < value - slack:  # the rows themselves (Newton from the grouped fit)
            _, exact = fit_support(Xb, yb, wb, m, k, lo, hi, theta, value)
            b = max(exact - 1e-9 * (1.0 + abs(exact)), b)
        b = max(b, parent)
        if b >= value:
            continue
        if b >= value - slack:
            floor = min(floor, b)
            continue
        zero = -1  # a feature of the support whose minimiser rounds to the excluded 0
        for a in range(1, p):
            if lo[a] <= 0.0 <= hi[a] and abs(theta[a]) < 0.5:
                zero = a
                break
        if zero >= 0:
            top = _split(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, b, zero, -1.0, 1.0,
                         theta[zero] >= 0.0)  # fmt: skip
            continue
        frac = -1
        most = 1e-6
        for a in range(p):
            f = theta[a] - math.floor(theta[a])
            if min(f, 1.0 - f) > most:
                most = min(f, 1.0 - f)
                frac = a
        if frac >= 0:
            low = math.floor(theta[frac])
            top = _split(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, b, frac, low, low + 1.0,
                         theta[frac] - low > 0.5)  # fmt: skip
            continue
        widest = 0
        for a in range(p):
            point[a] = min(max(round(theta[a]), lo[a]), hi[a])
            if hi[a] - lo[a] > hi[widest] - lo[widest]:
                widest = a
        v = _evaluate(Xb, yb, wb, m, k, point, g, H, False)
        if v < value:
            value = v
            best[:p] = point
        if b >= v - 1e-9 * (1.0 + abs(v)) or hi[widest] == lo[widest]:
            # solved: no point of the box is below the bound, which meets v (the bound
            # stays in the floor, as LCPA keeps the bound of a node it solves)
            if b < value:
                floor = min(floor, b)
            continue
        mid = math.floor(0.5 * (lo[widest] + hi[widest]))
        top = _split(S_lo, S_hi, S_th, S_b, top, lo, hi, theta, b, widest, mid, mid + 1.0,
                     point[widest] > mid)  # fmt: skip
    n_open = 0
    for i in range(top):
        if S_b[i] < value:
            open_lo[n_open] = S_lo[i]
            open_hi[n_open] = S_hi[i]
            open_bound[n_open] = S_b[i]
            n_open += 1
    return nodes, value, n_open, floor


@dataclass
class LatticeResult:
    """What :func:`search_support` found in a box of one support.

    Attributes
    ----------
    nodes : int
        Boxes bounded.
    point : numpy.ndarray or None
        The best model found, ``[lambda_0, lambda_1..lambda_d]`` (zero off the support),
        when it beats the cutoff; else None.
    objective : float
        Its objective (loss plus the support's penalty); the cutoff when none was found.
    open_lower, open_upper : arrays (n_open, d+1)
        Boxes left open on ``[lambda_0, lambda_1..lambda_d]`` (zero off the support).
    open_bounds : array (n_open,)
        Lower bounds on the objective of the models in each open box.
    floor : float
        The least objective bound of the boxes dropped within the gap tolerance (inf when
        none); with ``objective`` and ``open_bounds`` it bounds every model of the box.
    """

    nodes: int
    point: np.ndarray | None
    objective: float
    open_lower: np.ndarray
    open_upper: np.ndarray
    open_bounds: np.ndarray
    floor: float


def search_support(
    data: SupportData,
    support,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    penalty: float,
    cutoff: float,
    gap: float = 0.0,
    max_nodes: int = 2000,
) -> LatticeResult:
    """Search the integer models on ``support`` in a box (the multiplier fixed at 1).

    Parameters
    ----------
    data : SupportData
        The loss's rows.
    support : sequence of int
        The support's features (0-based); each has nonzero points.
    lower, upper : arrays (d+1,)
        Integer bounds on ``[lambda_0, lambda_1..lambda_d]`` (only the intercept's and the
        support's are read).
    penalty : float
        The support's penalty (the sum of its features' ``c0``).
    cutoff : float
        The objective to beat (the incumbent's).
    gap : float
        Relative gap tolerance (see ``lattice_search``).
    max_nodes : int
        Boxes bounded before the search returns with boxes left open.

    Returns
    -------
    LatticeResult
        The best model found below ``cutoff``, the open boxes and the floor.
    """
    support = np.asarray(support, dtype=np.int64)
    k = support.size
    cols = np.concatenate([[0], support + 1])
    lo0 = np.ceil(np.asarray(lower, dtype=float)[cols] - 1e-9)
    hi0 = np.floor(np.asarray(upper, dtype=float)[cols] + 1e-9)
    d = data.d
    empty = np.zeros((0, d + 1))
    if np.any(lo0 > hi0) or not math.isfinite(cutoff):
        return LatticeResult(0, None, cutoff, empty, empty, np.zeros(0), math.inf)
    Xb, yb, wb, m = gather_rows(data, support)
    Gb, gyb, gwb, gm = Xb[:0], yb[:0], wb[:0], 0
    if not data.merges(support) and data.bins[0].shape[0] > 0:
        Gb, gyb, gwb, gm = grouped_rows(data, support, 0)
        gm = max(gm, 0)
    theta0 = np.zeros(k + 1)
    theta0[0] = data.prior
    cap = int(np.sum(hi0 - lo0)) + 2
    best = np.zeros(k + 1)
    open_lo, open_hi, open_b = np.zeros((cap, k + 1)), np.zeros((cap, k + 1)), np.zeros(cap)
    nodes, value, n_open, floor = lattice_search(
        Xb, yb, wb, m, k, lo0, hi0, theta0, float(cutoff) - penalty, float(penalty),
        float(gap), int(max_nodes), best, open_lo, open_hi, open_b, Gb, gyb, gwb, gm,
    )  # fmt: skip
    point = None
    if value < float(cutoff) - penalty:
        point = np.zeros(d + 1)
        point[cols] = best
    lows = np.repeat(np.asarray(lower, dtype=float)[None, :], n_open, axis=0)
    highs = np.repeat(np.asarray(upper, dtype=float)[None, :], n_open, axis=0)
    lows[:, cols], highs[:, cols] = open_lo[:n_open], open_hi[:n_open]
    return LatticeResult(
        nodes=int(nodes),
        point=point,
        objective=value + penalty if point is not None else float(cutoff),
        open_lower=lows,
        open_upper=highs,
        open_bounds=open_b[:n_open] + penalty,
        floor=floor + penalty,
    )
