"""The fixed scale by either engine (LCPA, or the support screen with m = 1) against brute
force: the same objective and a valid certificate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _small_problems import (
    box_problem,
    constraint_pool,
    enumerate_optimum,
    noisy_problem,
    pick_constraints,
    random_problem,
)

from riskexplore.errors import InfeasibleError
from riskexplore.risk_score.constraints import PredictedRisk
from riskexplore.risk_score.fit import fixed_scale_engine, solve_problem
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import ScaledLCPASettings

ENGINES = {
    "auto": None,
    "screen": ScaledLCPASettings(),
    "screen, lattice of 2 boxes a node": ScaledLCPASettings(lattice_max_nodes=2),
    "screen, no lattice": ScaledLCPASettings(lattice_search=False),
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


def many_valued_problem(seed: int, with_constraints: bool) -> RiskScoreProblem:
    """Features with up to ten values (rows do not merge: the lattice search's case)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(60, 300)), int(rng.integers(2, 5))
    X = rng.integers(0, int(rng.choice([5, 10])), (n, d)).astype(float)
    beta = rng.normal(size=d) * 0.4
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 1.0)))).astype(int)
    names = [f"f{j}" for j in range(d)]
    constraints = pick_constraints(rng, constraint_pool(names)) if with_constraints else []
    return box_problem(rng, X, y, constraints)


@pytest.mark.parametrize("seed", range(12))
def test_every_engine_matches_brute_force_on_many_valued_features(seed):
    check_engines(many_valued_problem(800 + seed, with_constraints=seed % 3 > 0))


def test_the_lattice_search_takes_the_supports_of_many_valued_features():
    problem = many_valued_problem(5, with_constraints=False)
    model = solve_problem(problem, gap_tolerance=0.0)
    assert model.stats["solver"]["lattice_nodes"] > 0
    assert model.stats["solver"]["lp_solves"] == 0
    no_lattice = ScaledLCPASettings(lattice_search=False)
    off = solve_problem(problem, gap_tolerance=0.0, settings=no_lattice)
    assert off.stats["solver"]["lattice_nodes"] == 0
    assert off.objective == pytest.approx(model.objective, rel=1e-12)


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
    # the lattice search takes every support when no row involves the points
    assert fixed_scale_engine(RiskScoreProblem(many, y, max_size=3)) == "screen"
    risk = PredictedRisk(when={"x0": 1}, at_least=0.1)
    names = [f"x{j}" for j in range(6)]
    mixed = RiskScoreProblem(many, y, max_size=3, feature_names=names, constraints=[risk])
    assert fixed_scale_engine(mixed) == "lcpa"
    # real-valued features: the screen bounds supports on rows grouped by bins, while a
    # root screen reads at most 1e11 rows (1.7e5 supports of 2e4 rows), else LCPA
    y2 = rng.integers(0, 2, 20_000)
    wider = rng.integers(0, 30, (20_000, 30)).astype(float)
    assert fixed_scale_engine(RiskScoreProblem(wider, y2, max_size=5)) == "screen"
    widest = rng.integers(0, 30, (20_000, 60)).astype(float)  # 5.9e6 supports: 1.2e11 rows
    assert fixed_scale_engine(RiskScoreProblem(widest, y2, max_size=5)) == "lcpa"
    wide = RiskScoreProblem(rng.integers(0, 2, (500, 40)).astype(float), y, max_size=10)
    assert fixed_scale_engine(wide) == "lcpa"  # 1,024 patterns on 500 rows: no merge
    # 5.5e6 supports, more than one screen takes: the screen engine's LP nodes split them
    items = RiskScoreProblem(rng.integers(0, 2, (500, 60)).astype(float), y, max_size=5)
    assert fixed_scale_engine(items) == "screen"


def test_screen_engine_events_look_like_lcpa_ones():
    """Incumbents of the fixed scale carry no multiplier, whichever engine found them."""
    from riskexplore.core.events import Trace

    problem = random_problem(3, with_constraints=False)
    trace = Trace()
    solve_problem(problem, settings=ScaledLCPASettings(), callbacks=[trace])
    incumbents = [e.incumbent for e in trace.events if e.incumbent is not None]
    assert incumbents and all("multiplier" not in inc for inc in incumbents)
    assert all(set(inc) == {"intercept", "points"} for inc in incumbents)
