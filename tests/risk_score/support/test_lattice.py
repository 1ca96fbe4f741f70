"""The lattice search of one support against brute force: the best model of a box, and a
valid bound on every model of the box from what it returns (its best, the floor and the
boxes left open), also when its node budget runs out."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.lattice import search_support
from riskexplore.risk_score.support.screen import SupportData


def lattice_case(seed: int):
    """A problem of at most four features with a few to ten values each or real values, a
    support and a node's box (integer bounds on the intercept and the support's points)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(40, 250)), int(rng.integers(1, 5))
    levels = int(rng.choice([2, 4, 10, 0]))
    if levels == 0:  # real-valued, half zeros: boxes are bounded on rows grouped by bins
        X = np.round(np.exp(rng.normal(size=(n, d))) * (rng.random((n, d)) < 0.5), 2)
        levels = 3
    else:
        X = rng.integers(0, levels, (n, d)).astype(float)
    beta = rng.normal(size=d) * (2.0 / levels)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    problem = RiskScoreProblem(
        X,
        y,
        coef_min=-3,
        coef_max=3,
        intercept_min=-6,
        intercept_max=6,
        c0=float(rng.choice([1e-6, 0.01])),
        max_size=d,
        positive_weight=float(rng.choice([1.0, 2.0])),
    )
    support = np.sort(rng.choice(d, size=int(rng.integers(0, min(d, 3) + 1)), replace=False))
    lower, upper = (np.asarray(b, dtype=float).copy() for b in problem.lam_bounds())
    for c in range(d + 1):
        if c > 0 and c - 1 not in support:
            lower[c] = upper[c] = 0.0
        elif rng.random() < 0.5:
            a, b = sorted(rng.integers(int(lower[c]), int(upper[c]) + 1, size=2))
            lower[c], upper[c] = a, b
    return problem, support, lower, upper


def box_models(problem, support, lower, upper):
    """Objective of every model on ``support`` in the box (points nonzero on it)."""
    ranges = []
    for c in range(problem.n_features + 1):
        values = range(int(lower[c]), int(upper[c]) + 1)
        if c > 0 and c - 1 in support:
            values = [v for v in values if v != 0]
        ranges.append(values)
    out = []
    for lam in itertools.product(*ranges):
        lam = np.array(lam, dtype=float)
        out.append((problem.objective(lam), lam))
    return out


def inside(lam, lo, hi) -> bool:
    return bool(np.all(lam >= lo - 1e-9) and np.all(lam <= hi + 1e-9))


@pytest.mark.parametrize("seed", range(60))
def test_the_lattice_search_finds_the_best_model_of_the_box(seed):
    problem, support, lower, upper = lattice_case(seed)
    models = box_models(problem, support, lower, upper)
    best = min((v for v, _ in models), default=math.inf)
    rng = np.random.default_rng(1000 + seed)
    cutoff = best * float(rng.choice([1.0 + 1e-3, 1.2, 0.999])) if models else 1.0
    result = search_support(
        SupportData(problem.loss),
        support,
        lower,
        upper,
        penalty=float(problem.c0[support].sum()),
        cutoff=cutoff,
        max_nodes=10**7,
    )
    assert result.open_bounds.size == 0
    if best < cutoff:
        assert result.point is not None
        assert result.objective == pytest.approx(best, rel=1e-9)
        assert problem.objective(result.point) == pytest.approx(result.objective, rel=1e-12)
        assert inside(result.point, lower, upper)
        assert np.all(result.point[1:][support] != 0)
        assert np.all(np.delete(result.point[1:], support) == 0)
    else:
        assert result.point is None
    assert min(result.objective, result.floor) <= best * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("budget", [1, 3, 10])
def test_boxes_left_open_hold_every_better_model(seed, budget):
    """With a small budget, every model better than the best found and than the floor lies
    in a box left open, whose bound is at most its objective."""
    problem, support, lower, upper = lattice_case(seed)
    models = box_models(problem, support, lower, upper)
    if not models:
        return
    best = min(v for v, _ in models)
    cutoff = best * 1.3
    result = search_support(
        SupportData(problem.loss),
        support,
        lower,
        upper,
        penalty=float(problem.c0[support].sum()),
        cutoff=cutoff,
        max_nodes=budget,
    )
    assert result.nodes <= budget
    level = min(result.objective, result.floor)
    for value, lam in models:
        if value < level * (1 - 1e-12):
            holders = [
                b
                for lo, hi, b in zip(
                    result.open_lower, result.open_upper, result.open_bounds, strict=True
                )
                if inside(lam, lo, hi)
            ]
            assert len(holders) == 1  # the open boxes are disjoint
            assert holders[0] <= value * (1 + 1e-12)
    for lo, hi in zip(result.open_lower, result.open_upper, strict=True):
        assert inside(lo, lower, upper) and inside(hi, lower, upper)


@pytest.mark.parametrize("seed", range(30))
def test_a_gap_tolerance_keeps_the_bound_valid(seed):
    problem, support, lower, upper = lattice_case(seed)
    models = box_models(problem, support, lower, upper)
    if not models:
        return
    best = min(v for v, _ in models)
    result = search_support(
        SupportData(problem.loss),
        support,
        lower,
        upper,
        penalty=float(problem.c0[support].sum()),
        cutoff=best * 1.5,
        gap=0.05,
        max_nodes=10**7,
    )
    assert min(result.objective, result.floor) <= best * (1 + 1e-12)
    assert result.objective <= best / (1 - 0.05) * (1 + 1e-12)


def test_an_empty_box_has_no_model():
    problem, support, lower, upper = lattice_case(3)
    lower[0], upper[0] = 2.0, 1.0
    result = search_support(
        SupportData(problem.loss), support, lower, upper, penalty=0.0, cutoff=1.0
    )
    assert result.point is None and result.nodes == 0 and result.open_bounds.size == 0
