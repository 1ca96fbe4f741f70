"""Random small risk score problems for the brute-force tests (at most four features).

The tests draw their data themselves (sizes, signal and noise differ between them); the
constraint pool, the pick of one or two constraints and the problem's box, penalty, size
limit and weights are shared here. Draws happen in a fixed order, so a seed gives the
same problem as before this module existed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from riskexplore.risk_score.constraints import (
    AtMostKOf,
    Exclude,
    Implies,
    Include,
    LinearConstraint,
    MinFeatures,
    PredictedRisk,
    Sign,
)
from riskexplore.risk_score.problem import RiskScoreProblem


def constraint_pool(names: list[str], *, scaled: bool = False) -> list:
    """The constraints a test picks from; ``scaled`` adds an upper predicted risk and two
    rows that mix points and indicators (the learned scale's tests)."""
    pool = [
        AtMostKOf(names[:2], k=1),
        Implies(names[0], then_any=names[1:2]),
        PredictedRisk(when={names[-1]: 1}, at_least=0.3),
    ]
    if scaled:
        pool.append(PredictedRisk(when={names[0]: 1, names[1]: 1}, at_most=0.8))
    pool += [Include(names[1]), Exclude(names[-1]), MinFeatures(1), Sign(names[0], -1)]
    if scaled:
        pool += [
            LinearConstraint(points={names[0]: 1.0, names[1]: 1.0}, upper=2.0),
            LinearConstraint(points={names[1]: 1.0}, included={names[0]: 1.0}, lower=0.0),
        ]
    return pool


def pick_constraints(rng: np.random.Generator, pool: list) -> list:
    """One or two constraints of ``pool``, drawn with ``rng``."""
    picks = rng.choice(len(pool), size=int(rng.integers(1, 3)), replace=False)
    return [pool[i] for i in picks]


def box_problem(
    rng: np.random.Generator,
    X: np.ndarray,
    y: np.ndarray,
    constraints: list,
    *,
    c0_choices: tuple[float, ...] = (1e-6, 0.01, 0.04),
    smallest_max_size: int = 1,
    sample_weights: bool = True,
) -> RiskScoreProblem:
    """The problem on ``X, y`` with points in [-2, 2], intercept in [-4, 4], a penalty of
    ``c0_choices``, a size limit from ``smallest_max_size`` to ``d``, sample weights in
    three of ten draws (when ``sample_weights``) and a positive class weight 1 or 2."""
    n, d = X.shape
    c0 = float(rng.choice(c0_choices))
    max_size = int(rng.integers(smallest_max_size, d + 1))
    weight = None
    if sample_weights and rng.random() < 0.3:
        weight = rng.uniform(0.5, 2, n)
    return RiskScoreProblem(
        X,
        y,
        feature_names=[f"f{j}" for j in range(d)],
        coef_min=-2,
        coef_max=2,
        intercept_min=-4,
        intercept_max=4,
        c0=c0,
        max_size=max_size,
        sample_weight=weight,
        positive_weight=float(rng.choice([1.0, 2.0])),
        constraints=constraints,
    )


def enumerate_optimum(problem: RiskScoreProblem) -> float:
    """Smallest objective over every integer model in the box that obeys everything."""
    lo, hi = problem.lam_bounds()
    best = math.inf
    for lam in itertools.product(*[range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]):
        lam = np.array(lam, dtype=float)
        if not problem.violations(lam):
            best = min(best, problem.objective(lam))
    return best


def random_problem(seed: int, with_constraints: bool) -> RiskScoreProblem:
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(40, 400)), int(rng.integers(2, 5))
    X = rng.integers(0, 2, (n, d)).astype(float)
    if rng.random() < 0.3:  # an ordinal feature
        X[:, 0] = rng.integers(0, 4, n)
    beta = rng.normal(size=d) * 2
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    names = [f"f{j}" for j in range(d)]
    constraints = pick_constraints(rng, constraint_pool(names)) if with_constraints else []
    return box_problem(rng, X, y, constraints)


def income_like(n=20000, d=30, seed=0) -> RiskScoreProblem:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, d))
    beta = rng.normal(size=d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 1)))).astype(int)
    return RiskScoreProblem(X, y, max_size=6)


def noisy_problem(seed: int, with_constraints: bool) -> RiskScoreProblem:
    """Two or three signal features and one or two noise ones; penalties that make the
    noise features cost more than they save (so that fixing has work to do)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(80, 300)), int(rng.integers(3, 5))
    X = rng.integers(0, 2, (n, d)).astype(float)
    if rng.random() < 0.3:
        X[:, 0] = rng.integers(0, 3, n)
    beta = rng.normal(size=d) * 2
    beta[rng.choice(d, size=int(rng.integers(1, 3)), replace=False)] = 0.0
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    names = [f"f{j}" for j in range(d)]
    constraints = pick_constraints(rng, constraint_pool(names)) if with_constraints else []
    return box_problem(
        rng,
        X,
        y,
        constraints,
        c0_choices=(0.003, 0.01, 0.03),
        smallest_max_size=2,
        sample_weights=False,
    )
