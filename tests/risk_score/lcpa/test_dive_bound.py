"""LCPA's lower bound counts the child it dives into.

A node with a single child (``alpha_j = 1`` but ``lambda_j = 0`` where ``lambda_j`` cannot be
negative) dives into it with nothing else open; the lower bound must still be that child's
bound, or the gap test stops the search at once and calls the incumbent optimal.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from riskexplore.core.limits import Limits
from riskexplore.risk_score.constraints import Include
from riskexplore.risk_score.lcpa.search import LCPASettings, solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem


def _problem(seed: int) -> RiskScoreProblem:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (200, 3)).astype(float)
    y = (rng.random(200) < 1 / (1 + np.exp(-(X @ rng.normal(size=3) * 2 - 0.5)))).astype(int)
    return RiskScoreProblem(
        X,
        y,
        feature_names=["a", "b", "c"],
        coef_min=-2,
        coef_max=2,
        intercept_min=-4,
        intercept_max=4,
        signs={"a": 1},
        constraints=[Include("a")],
        c0=0.01,
    )


@pytest.mark.parametrize("seed", range(4))
def test_single_child_dive_keeps_the_certificate(seed):
    problem = _problem(seed)
    lo, hi = problem.lam_bounds()
    boxes = [range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]
    optimum = min(
        problem.objective(np.array(lam, float))
        for lam in itertools.product(*boxes)
        if not problem.violations(np.array(lam, float))
    )
    settings = LCPASettings(initialization=False, sequential_rounding=False, polishing=False)
    result = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0), settings=settings)
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9)
    assert result.lower_bound <= optimum + 1e-12


def test_a_search_that_gives_up_a_region_does_not_claim_optimality(monkeypatch):
    """When an LP cannot be solved exactly, its region is given up with its bound; the
    finished search then reports the gap that leaves, not "optimal"."""
    from riskexplore.risk_score.lcpa import search as lcpa
    from riskexplore.risk_score.lcpa.lp import LPSolution

    problem = _give_up_problem()
    original = lcpa._LCPA._solve_lp
    calls = {"n": 0}

    def flaky(self):
        calls["n"] += 1
        if self.phase == "search" and calls["n"] % 2 == 0 and self.nodes > 1:
            return LPSolution("error", -float("inf"), None, float("nan"))
        return original(self)

    monkeypatch.setattr(lcpa._LCPA, "_solve_lp", flaky)
    settings = lcpa.LCPASettings(initialization=False, sequential_rounding=False)
    result = lcpa.solve_lcpa(problem, settings=settings)
    assert result.lower_bound <= result.upper_bound
    assert result.gap > 1e-6  # the failed LPs left regions with a lower bound
    assert result.status == "numerical"


def _give_up_problem():
    import numpy as np

    from riskexplore.risk_score.problem import RiskScoreProblem

    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, (300, 6)).astype(float)
    y = (rng.random(300) < 1 / (1 + np.exp(-(X @ rng.normal(size=6))))).astype(int)
    return RiskScoreProblem(X, y, coef_min=-3, coef_max=3, max_size=4)
