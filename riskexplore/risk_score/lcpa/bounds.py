"""Bounds on the objective terms (Section 4.3): initial values and ChainedUpdates.

All bounds here are about an *optimal* model ``lam*``: ``V(lam*) in [V_min, V_max]``,
``l(lam*) in [L_min, L_max]`` and ``||lam*||_0 in [R_min, R_max]``. With per-feature
penalties the l0 term becomes a penalty ``P``; ``P`` lies between the sum of the ``R``
smallest and the ``R`` largest penalties.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from riskexplore.risk_score.problem import RiskScoreProblem

_EPS = 1e-12


@dataclass
class ObjectiveBounds:
    """The six bounds of ChainedUpdates, kept mutually consistent by :meth:`chain`."""

    c0_sorted: np.ndarray
    V_min: float
    V_max: float
    L_min: float
    L_max: float
    R_min: int
    R_max: int

    def penalty_min(self, r: int) -> float:
        """The least penalty of a model with ``r`` features (the ``r`` smallest ``c0_j``).

        Parameters
        ----------
        r : int
            The number of features.

        Returns
        -------
        float
            The penalty.
        """
        return float(self.c0_sorted[:r].sum())

    def penalty_max(self, r: int) -> float:
        """The largest penalty of a model with ``r`` features (the ``r`` largest ``c0_j``).

        Parameters
        ----------
        r : int
            The number of features.

        Returns
        -------
        float
            The penalty.
        """
        return float(self.c0_sorted[len(self.c0_sorted) - r :].sum()) if r > 0 else 0.0

    def chain(self) -> bool:
        """Apply Propositions 5-7 until nothing changes; return True if anything did."""
        changed = False
        for _ in range(50):
            before = (self.V_min, self.V_max, self.L_min, self.L_max, self.R_max)
            self.V_min = max(self.V_min, self.L_min + self.penalty_min(self.R_min))
            self.V_max = min(self.V_max, self.L_max + self.penalty_max(self.R_max))
            self.L_min = max(self.L_min, self.V_min - self.penalty_max(self.R_max))
            self.L_max = min(self.L_max, self.V_max - self.penalty_min(self.R_min) + _EPS)
            if math.isfinite(self.V_max):
                budget = self.V_max - self.L_min + _EPS
                cumulative = np.cumsum(self.c0_sorted)
                self.R_max = min(self.R_max, int(np.searchsorted(cumulative, budget, "right")))
            if (self.V_min, self.V_max, self.L_min, self.L_max, self.R_max) == before:
                break
            changed = True
        return changed


def initial_bounds(problem: RiskScoreProblem, intercept: tuple[float, float]) -> ObjectiveBounds:
    """Proposition 4 with size-aware score ranges, and the model-size bounds.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.
    intercept : (float, float)
        Bounds on the intercept.

    Returns
    -------
    ObjectiveBounds
        Bounds on the loss, the penalty, the objective and the model size.
    """
    L_min, L_max = loss_bounds(problem, intercept)
    c0 = np.sort(problem.c0)
    b = ObjectiveBounds(c0, 0.0, math.inf, L_min, L_max, problem.min_size, problem.max_size)
    b.chain()
    return b


def feature_score_range(problem: RiskScoreProblem, X: np.ndarray):
    """Smallest and largest ``<lam_{1..d}, x_i>`` over the box and at most R_max features.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.
    X : ndarray of shape (n, d)
        Rows of features.

    Returns
    -------
    tuple of ndarray
        The smallest and largest score of each row.
    """
    lo, hi = problem.lam_bounds()
    lo, hi = lo[1:], hi[1:]
    t_min = np.minimum(X * lo, X * hi)
    t_max = np.maximum(X * lo, X * hi)
    forced = (lo > 0) | (hi < 0)
    free = max(0, problem.max_size - int(forced.sum()))
    s_min = t_min[:, forced].sum(axis=1) + _sum_extreme(np.minimum(t_min[:, ~forced], 0), free)
    s_max = t_max[:, forced].sum(axis=1) - _sum_extreme(-np.maximum(t_max[:, ~forced], 0), free)
    return s_min, s_max


def _sum_extreme(T: np.ndarray, k: int) -> np.ndarray:
    """Sum of the ``k`` smallest entries of each row of ``T``."""
    if T.shape[1] == 0 or k <= 0:
        return np.zeros(T.shape[0])
    if k >= T.shape[1]:
        return T.sum(axis=1)
    return np.partition(T, k - 1, axis=1)[:, :k].sum(axis=1)


def loss_bounds(problem: RiskScoreProblem, intercept: tuple[float, float]):
    """``[L_min, L_max]`` over every model in the box (Proposition 4).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.
    intercept : (float, float)
        Bounds on the intercept.

    Returns
    -------
    tuple of float
        ``(L_min, L_max)``.
    """
    Z = problem.loss.Z
    y = Z[:, 0]  # first column of z = y * [1, x] is the label
    X = Z[:, 1:] * y[:, None]
    s_min, s_max = feature_score_range(problem, X)
    lo0, hi0 = intercept
    best = np.where(y > 0, lo0 + s_min, -(hi0 + s_max))  # smallest margin y*score
    worst_margin = best
    best_margin = np.where(y > 0, hi0 + s_max, -(lo0 + s_min))
    w = problem.loss.weights
    L_min = float(w @ np.logaddexp(0.0, -best_margin))
    L_max = float(w @ np.logaddexp(0.0, -worst_margin))
    return L_min, L_max


def intercept_bounds(problem: RiskScoreProblem) -> tuple[float, float]:
    """Valid bounds on an optimal intercept derived from the data.

    For fixed points, the loss is convex in the intercept. If every score exceeds
    ``logit(pi)`` (``pi`` the weighted share of positives) at both ``b`` and ``b - 1``,
    the loss strictly decreases from ``b`` to ``b - 1``; so an optimal intercept obeys
    ``b <= logit(pi) + 1 - min_i s_i`` (and symmetrically from below). The argument
    needs the intercept to be free of constraint rows, otherwise the user's bounds stay.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    tuple of float
        ``(lower, upper)`` within the problem's own intercept bounds.
    """
    lo0, hi0 = problem.lam_bounds()[0][0], problem.lam_bounds()[1][0]
    if problem.intercept_in_rows():
        return lo0, hi0
    w = problem.sample_weight
    pi = float(w[problem.y > 0].sum() / w.sum())
    if not 0.0 < pi < 1.0:
        return lo0, hi0
    X = np.unique(problem.X, axis=0)
    s_min, s_max = feature_score_range(problem, X)
    logit = math.log(pi / (1.0 - pi))
    upper = math.floor(logit + 1.0 - s_min.min() + 1e-9)
    lower = math.ceil(logit - 1.0 - s_max.max() - 1e-9)
    new_hi = min(hi0, max(upper, lo0))
    new_lo = max(lo0, min(lower, hi0))
    return float(new_lo), float(new_hi)
