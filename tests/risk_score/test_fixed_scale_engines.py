"""The fixed scale by either engine (LCPA, or the support screen with m = 1) against brute
force: the same objective and a valid certificate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_feature_fixing import noisy_problem
from test_lcpa import enumerate_optimum, random_problem

from riskexplore.errors import InfeasibleError
from riskexplore.risk_score.fit import fixed_scale_engine, solve_problem
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import ScaledLCPASettings

ENGINES = {
    "auto": None,
    "screen": ScaledLCPASettings(),
    "lcpa": LCPASettings(),
    "lcpa, no fixing": LCPASettings(root_fixing=False),
}


def check_engines(problem: RiskScoreProblem) -> None:
    optimum = enumerate_optimum(problem)
    for name, settings in ENGINES.items():
        if not math.isfinite(optimum):
            with pytest.raises(InfeasibleError):
                solve_problem(problem, settings=settings)
            continue
        model = solve_problem(problem, gap_tolerance=0.0, settings=settings)
        assert model.certificate.status == "optimal", name
        assert model.objective == pytest.approx(optimum, rel=1e-9), name
        assert model.certificate.lower_bound <= optimum, name
        lam = np.array([model.intercept, *(model.all_points[n] for n in problem.feature_names)])
        assert problem.violations(lam) == [], name
        assert model.multiplier == 1.0
        assert model.stats["loss"] == pytest.approx(problem.loss_of(lam), rel=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_both_engines_match_brute_force(seed):
    check_engines(random_problem(600 + seed, with_constraints=seed % 2 == 1))


@pytest.mark.parametrize("seed", range(6))
def test_both_engines_match_brute_force_with_noise_features(seed):
    check_engines(noisy_problem(700 + seed, with_constraints=seed % 2 == 0))


def test_engine_choice():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (500, 6)).astype(float)
    y = rng.integers(0, 2, 500)
    problem = RiskScoreProblem(X, y, max_size=3)
    assert fixed_scale_engine(problem) == "screen"
    assert fixed_scale_engine(problem, LCPASettings()) == "lcpa"
    assert fixed_scale_engine(problem, ScaledLCPASettings()) == "screen"
    many = X.copy()
    many[:, :3] = rng.integers(0, 30, (500, 3))  # rows do not merge on these
    assert fixed_scale_engine(RiskScoreProblem(many, y, max_size=3)) == "lcpa"
    wide = RiskScoreProblem(rng.integers(0, 2, (500, 40)).astype(float), y, max_size=10)
    assert fixed_scale_engine(wide) == "lcpa"  # 1.3e9 supports: too many for the screen


def test_screen_engine_events_look_like_lcpa_ones():
    """Incumbents of the fixed scale carry no multiplier, whichever engine found them."""
    from riskexplore.core.events import Trace

    problem = random_problem(3, with_constraints=False)
    trace = Trace()
    solve_problem(problem, settings=ScaledLCPASettings(), callbacks=[trace])
    incumbents = [e.incumbent for e in trace.events if e.incumbent is not None]
    assert incumbents and all("multiplier" not in inc for inc in incumbents)
    assert all(set(inc) == {"intercept", "points"} for inc in incumbents)
