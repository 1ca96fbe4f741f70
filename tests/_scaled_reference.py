"""Brute force for risk scores with a learned multiplier, written apart from the solver.

For every integer model ``[intercept, points]`` in the coefficient box that meets the
bounds, the model size and every row on points and indicators, the least objective over
the multiplier ``m`` is found by SciPy's bounded Brent method on ``t = 1/m`` (plus both
ends of the interval), where ``t`` ranges over ``[1/m_max, 1/m_min]`` intersected with the
interval in which every predicted-risk row ``logit_lo <= score * t <= logit_hi`` holds.
The loss is the weighted mean of ``log(1 + exp(-y * score * t))`` on the raw data.
(The ``m = 1`` brute force is ``enumerate_optimum`` of ``test_lcpa``.)
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from _small_problems import box_problem, constraint_pool, pick_constraints
from scipy.optimize import minimize_scalar

from riskexplore.risk_score.problem import RiskScoreProblem


def region_models(problem: RiskScoreProblem, lower=None, upper=None):
    """Integer models in the box (optionally a node's ``[lambda, alpha]`` bounds) whose
    indicators fit the node and that meet size bounds and non-risk rows."""
    d = problem.n_features
    lo, hi = problem.lam_bounds()
    if lower is not None:
        lo, hi = np.maximum(lo, lower[: d + 1]), np.minimum(hi, upper[: d + 1])
    ranges = [range(int(math.ceil(a)), int(math.floor(b)) + 1) for a, b in zip(lo, hi, strict=True)]
    rows = [i for i, r in enumerate(problem.rows) if r.logit_bounds is None]
    rm = problem.row_matrix
    for lam in itertools.product(*ranges):
        lam = np.array(lam, dtype=float)
        alpha = (lam[1:] != 0).astype(float)
        if lower is not None and (np.any(alpha < lower[d + 1 :]) or np.any(alpha > upper[d + 1 :])):
            continue
        if not problem.min_size <= alpha.sum() <= problem.max_size:
            continue
        x = np.concatenate([lam, alpha])
        act = rm.A[rows] @ x
        if np.any(act < rm.lower[rows] - 1e-9) or np.any(act > rm.upper[rows] + 1e-9):
            continue
        yield lam


def t_range(problem: RiskScoreProblem, lam: np.ndarray, m_range) -> tuple[float, float] | None:
    """Where ``t = 1/m`` may lie for ``lam`` given the range and the predicted-risk rows."""
    a, b = 1.0 / m_range[1], 1.0 / m_range[0]
    d = problem.n_features
    for i, row in enumerate(problem.rows):
        if row.logit_bounds is None:
            continue
        lo, hi = row.logit_bounds
        score = float(problem.row_matrix.A[i, : d + 1] @ lam)
        if score == 0:
            if not lo <= 0 <= hi:
                return None
            continue
        ends = sorted([lo / score, hi / score])
        a, b = max(a, ends[0]), min(b, ends[1])
    return (a, b) if a <= b else None


def scaled_value(problem: RiskScoreProblem, lam: np.ndarray, m_range) -> tuple[float, float]:
    """Least objective of the points ``lam`` over the multiplier, and that multiplier."""
    interval = t_range(problem, lam, m_range)
    if interval is None:
        return math.inf, math.nan
    y = np.where(problem.y > 0, 1.0, -1.0)
    w = problem.sample_weight / problem.sample_weight.sum()
    margin = y * (lam[0] + problem.X @ lam[1:])

    def loss(t: float) -> float:
        return float(w @ np.logaddexp(0.0, -t * margin))

    a, b = interval
    candidates = [(loss(a), a), (loss(b), b)]
    if b > a:
        res = minimize_scalar(loss, bounds=(a, b), method="bounded", options={"xatol": 1e-12})
        candidates.append((float(res.fun), float(res.x)))
    value, t = min(candidates)
    return value + float(problem.c0 @ (lam[1:] != 0)), 1.0 / t


def scaled_optimum(problem: RiskScoreProblem, m_range, lower=None, upper=None) -> float:
    """Least objective over every model of the class (optionally in a node's region)."""
    best = math.inf
    for lam in region_models(problem, lower, upper):
        best = min(best, scaled_value(problem, lam, m_range)[0])
    return best


def random_scaled_problem(seed: int, with_constraints: bool) -> RiskScoreProblem:
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(60, 300)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, d)).astype(float)
    if rng.random() < 0.3:  # an ordinal feature
        X[:, 0] = rng.integers(0, 4, n)
    beta = rng.normal(size=d) * 2
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    names = [f"f{j}" for j in range(d)]
    pool = constraint_pool(names, scaled=True)
    constraints = pick_constraints(rng, pool) if with_constraints else []
    return box_problem(rng, X, y, constraints)
