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

from riskexplore.core.distinct_rows import distinct_rows
from riskexplore.risk_score.loss import box_score_range
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
    return box_score_range(X, lo[1:], hi[1:], problem.max_size)


def loss_bounds(problem: RiskScoreProblem, intercept: tuple[float, float]):
    """``[L_min, L_max]`` over every model in the box, from the problem's datafit
    (``problem.loss.loss_bounds``: Proposition 4 for the logistic loss).

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
    lo, hi = problem.lam_bounds()
    lo, hi = lo.copy(), hi.copy()
    lo[0], hi[0] = intercept
    return problem.loss.loss_bounds(lo, hi, problem.max_size)


def intercept_bounds(problem: RiskScoreProblem) -> tuple[float, float]:
    """Valid bounds on an optimal intercept derived from the data.

    For fixed points, the loss is convex in the intercept. If every score exceeds
    ``logit(pi)`` (``pi`` the weighted share of positives) at both ``b`` and ``b - 1``,
    the loss strictly decreases from ``b`` to ``b - 1``; so an optimal intercept obeys
    ``b <= logit(pi) + 1 - min_i s_i`` (and symmetrically from below). The argument
    needs the intercept to be free of constraint rows, otherwise the user's bounds stay
    (as they do for a datafit without an intercept, such as the Cox loss).

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
    if not problem.loss.has_intercept or problem.intercept_in_rows():
        return lo0, hi0
    w = problem.sample_weight
    pi = float(w[problem.y > 0].sum() / w.sum())
    if not 0.0 < pi < 1.0:
        return lo0, hi0
    X = distinct_rows(problem.X)[0]
    s_min, s_max = feature_score_range(problem, X)
    logit = math.log(pi / (1.0 - pi))
    upper = math.floor(logit + 1.0 - s_min.min() + 1e-9)
    lower = math.ceil(logit - 1.0 - s_max.max() - 1e-9)
    new_hi = min(hi0, max(upper, lo0))
    new_lo = max(lo0, min(lower, hi0))
    return float(new_lo), float(new_hi)
