"""Near-optimal risk-score sets against brute-force enumeration of every integer model."""

from __future__ import annotations

import dataclasses
import itertools
import threading

import numpy as np
import pytest
from _small_problems import random_problem

from riskexplore.errors import InputError
from riskexplore.risk_score.lcpa.search import _LCPA
from riskexplore.risk_score.near_optimal import solve_near_optimal


def _all_models(problem):
    """Objective of every feasible integer model in the box."""
    lo, hi = problem.lam_bounds()
    out = {}
    ranges = [range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]
    for lam in itertools.product(*ranges):
        vec = np.array(lam, dtype=float)
        if not problem.violations(vec):
            out[tuple(lam)] = problem.objective(vec)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_sets_match_enumeration(seed):
    problem = random_problem(seed, with_constraints=seed % 2 == 1)
    models = _all_models(problem)
    if not models:
        return
    optimum = min(models.values())
    tolerance = float(np.random.default_rng(seed).choice([0.0, 0.01, 0.05, 0.2]))
    result = solve_near_optimal(problem, tolerance=tolerance, max_models=10_000)
    expected = {lam for lam, v in models.items() if v <= optimum * (1 + tolerance) * (1 + 1e-12)}
    got = {m.lam for m in result.models}
    assert result.complete, result.reason
    assert result.optimum == pytest.approx(optimum, rel=1e-9)
    assert got == expected  # nothing missing, nothing outside the tolerance
    values = [m.objective for m in result.models]
    assert values == sorted(values)
    for m in result.models:
        assert m.objective == pytest.approx(models[m.lam], rel=1e-12)


def test_max_models_keeps_the_best_and_says_incomplete():
    problem = random_problem(3, with_constraints=False)
    models = _all_models(problem)
    optimum = min(models.values())
    within = sorted(v for v in models.values() if v <= optimum * 1.5)
    assert len(within) > 6
    result = solve_near_optimal(problem, tolerance=0.5, max_models=5)
    assert not result.complete and result.reason == "max_models"
    assert [m.objective for m in result.models] == pytest.approx(within[:5], rel=1e-12)
    counts = result.feature_counts()
    assert sum(counts.values()) == sum(m.size for m in result.models)


def test_bad_arguments():
    problem = random_problem(0, with_constraints=False)
    with pytest.raises(InputError, match="tolerance"):
        solve_near_optimal(problem, tolerance=-0.1)
    with pytest.raises(InputError, match="max_models"):
        solve_near_optimal(problem, max_models=0)


def test_an_lp_that_keeps_underestimating_at_an_integer_point_does_not_loop(monkeypatch):
    """The LP's estimate of the loss at an integer point can stay a hair below the loss
    after the cut at that point (the point lies within INT_TOL of it); a node then got the
    same point back for ever (it hung CI). Simulated here by lowering every estimate: the
    searches end, and the set is still exactly the enumeration's."""
    solve_lp = _LCPA._solve_lp

    def short(self):
        sol = solve_lp(self)
        if sol.status != "optimal":
            return sol
        return dataclasses.replace(sol, loss_estimate=sol.loss_estimate - 1e-7)

    monkeypatch.setattr(_LCPA, "_solve_lp", short)
    problem = random_problem(15, with_constraints=True)
    models = _all_models(problem)
    optimum = min(models.values())
    box: dict = {}
    thread = threading.Thread(
        target=lambda: box.update(result=solve_near_optimal(problem, tolerance=0.05)),
        daemon=True,
    )
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the search looped"
    result = box["result"]
    expected = {lam for lam, v in models.items() if v <= optimum * 1.05 * (1 + 1e-12)}
    assert {m.lam for m in result.models} == expected
    assert result.lower_bound <= optimum + 1e-9
