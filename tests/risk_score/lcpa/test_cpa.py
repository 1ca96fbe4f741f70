"""Plain CPA (Algorithm 1) against brute-force enumeration and LCPA."""

from __future__ import annotations

import itertools
import math
import threading

import numpy as np
import pytest

from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.risk_score.lcpa.cpa import solve_cpa
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem


def _problem(seed: int, n: int, d: int, **kwargs) -> RiskScoreProblem:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    X[:, 0] = np.round(rng.normal(size=n), 1)  # one real-valued feature
    logit = X @ rng.normal(scale=0.8, size=d) - 0.3
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    options = dict(coef_min=-2, coef_max=2, intercept_min=-4, intercept_max=4, c0=1e-3)
    options.update(kwargs)
    return RiskScoreProblem(X, y, **options)


def _brute_force(problem: RiskScoreProblem) -> float:
    lo, hi = problem.lam_bounds()
    ranges = [range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]
    best = math.inf
    for lam in itertools.product(*ranges):
        lam = np.array(lam, dtype=float)
        if problem.is_feasible(lam):
            best = min(best, problem.objective(lam))
    return best


CASES = [(0, 120, 3, {}), (1, 250, 4, {}), (2, 180, 4, {"max_size": 2}), (3, 300, 3, {"c0": 0.02})]


@pytest.mark.parametrize("seed,n,d,kwargs", CASES)
def test_cpa_matches_brute_force_and_lcpa(seed, n, d, kwargs):
    problem = _problem(seed, n, d, **kwargs)
    trace = Trace()
    result = solve_cpa(problem, limits=Limits(time_limit=30.0), listeners=[trace])
    optimum = _brute_force(problem)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(optimum, rel=1e-9)
    assert problem.objective(result.solution) == pytest.approx(result.objective, rel=1e-12)
    assert not problem.violations(result.solution)
    assert result.lower_bound <= optimum + 1e-12
    assert result.gap <= 1e-9

    lcpa = solve_lcpa(problem, limits=Limits(time_limit=30.0))
    assert lcpa.objective == pytest.approx(result.objective, rel=1e-9)

    assert trace.events, "CPA emits one event per iteration"
    assert all(e.lower_bound <= optimum + 1e-12 for e in trace.events)
    assert all(e.upper_bound >= optimum - 1e-12 for e in trace.events)
    lbs = [e.lower_bound for e in trace.events]
    assert lbs == sorted(lbs)
    assert trace.events[-1].kind == "final"
    assert len(result.stats["mip_times"]) == result.stats["iterations"]
    assert result.cuts >= 1


def test_cpa_time_limit_keeps_valid_bounds():
    problem = _problem(5, 300, 4, coef_min=-5, coef_max=5, intercept_min=-10, intercept_max=10)
    exact = solve_lcpa(problem, limits=Limits(time_limit=30.0))
    assert exact.status == "optimal"
    result = solve_cpa(problem, limits=Limits(time_limit=0.3))
    assert result.time < 3.0
    if result.status != "optimal":
        assert result.status == "time_limit"
    assert result.lower_bound <= exact.objective + 1e-12
    if result.has_model:
        assert result.upper_bound >= exact.objective - 1e-12
        assert not problem.violations(result.solution)


def test_cpa_max_iterations_and_stop():
    problem = _problem(6, 200, 4)
    result = solve_cpa(problem, max_iterations=2)
    assert result.stats["iterations"] == 2
    assert result.status in ("node_limit", "optimal")
    stop = threading.Event()
    stop.set()
    stopped = solve_cpa(problem, limits=Limits(stop=stop))
    assert stopped.status == "stopped"
    assert stopped.stats["iterations"] == 0
