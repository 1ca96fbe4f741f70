"""Root feature fixing against brute force: a fixed-out feature is in no better model, and
the certified optimum with fixing on is the brute force's, with both scales."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _scaled_reference import region_models, scaled_optimum, scaled_value
from _small_problems import enumerate_optimum, noisy_problem

from riskexplore.core.limits import Limits
from riskexplore.errors import InfeasibleError
from riskexplore.risk_score.lcpa.search import LCPASettings, solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import ScaledLCPASettings, solve_scaled_lcpa
from riskexplore.risk_score.support.fixing import (
    FeatureFixing,
    alpha_rows,
    feature_floors,
    root_feature_floors,
)
from riskexplore.risk_score.support.screen import ScreenResult, SupportData

RANGES = [(1.0, 1.0), (0.25, 10.0), (0.5, 2.0), (1.0, 1.0)]


def root_region(problem: RiskScoreProblem) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on ``[lambda, alpha]`` of the whole problem."""
    d = problem.n_features
    lo, hi = (np.asarray(b, dtype=float) for b in problem.lam_bounds())
    a_lo = ((lo[1:] > 0) | (hi[1:] < 0)).astype(float)
    a_hi = ((lo[1:] < 0) | (hi[1:] > 0)).astype(float)
    assert a_lo.size == d
    return np.concatenate([lo, a_lo]), np.concatenate([hi, a_hi])


def floors_of(problem: RiskScoreProblem, m_range) -> np.ndarray:
    d = problem.n_features
    lower, upper = root_region(problem)
    t_lo, t_hi = 1.0 / m_range[1], 1.0 / m_range[0]
    lam_lo, lam_hi = lower[: d + 1], upper[: d + 1]
    floors = root_feature_floors(
        SupportData(problem.loss),
        lower,
        upper,
        w_lower=np.minimum(lam_lo * t_lo, lam_lo * t_hi),
        w_upper=np.maximum(lam_hi * t_lo, lam_hi * t_hi),
        c0=problem.c0,
        k_min=problem.min_size,
        k_max=problem.max_size,
        max_supports=10_000,
        alpha_rows=alpha_rows(problem),
    )
    assert floors is not None
    return floors


def models_and_objectives(problem: RiskScoreProblem, m_range):
    """Every model of the class (brute force) with its objective."""
    for lam in region_models(problem):
        if m_range == (1.0, 1.0):
            value = problem.objective(lam) if not problem.violations(lam) else math.inf
        else:
            value = scaled_value(problem, lam, m_range)[0]
        if math.isfinite(value):
            yield lam, value


@pytest.mark.parametrize("seed", range(12))
def test_floors_bound_every_model_that_uses_the_feature(seed):
    problem = noisy_problem(seed, with_constraints=seed % 2 == 1)
    m_range = RANGES[seed % len(RANGES)]
    floors = floors_of(problem, m_range)
    seen = 0
    for lam, value in models_and_objectives(problem, m_range):
        for j in np.flatnonzero(lam[1:]):
            assert value >= floors[j] - 1e-9, (j, value, floors[j])
            seen += 1
    assert seen > 0


@pytest.mark.parametrize("seed", range(12))
def test_a_fixed_out_feature_is_in_no_better_model(seed):
    """Against the optimum and against a worse incumbent (the median model)."""
    problem = noisy_problem(50 + seed, with_constraints=seed % 2 == 0)
    m_range = RANGES[seed % len(RANGES)]
    floors = floors_of(problem, m_range)
    models = list(models_and_objectives(problem, m_range))
    if not models:
        return
    values = sorted(v for _, v in models)
    for incumbent in (values[0], values[len(values) // 2]):
        fixing = FeatureFixing(floors)
        fixing.update(incumbent)
        for lam, value in models:
            if value < incumbent:
                assert not np.any(fixing.fixed[lam[1:] != 0])


def test_fixing_happens_on_these_instances():
    """The brute-force tests above are not vacuous: features do get fixed at the optimum."""
    fixed = 0
    for seed in range(12):
        problem = noisy_problem(seed, with_constraints=False)
        optimum = enumerate_optimum(problem)
        fixing = FeatureFixing(floors_of(problem, (1.0, 1.0)))
        fixed += fixing.update(optimum)
    assert fixed >= 3


def test_floors_and_restrict():
    result = ScreenResult(
        supports=np.array([[0, 1], [1, -1], [2, -1], [-1, -1]]),
        sizes=np.array([2, 1, 1, 0]),
        bounds=np.array([0.5, 0.7, 0.9, 1.0]),
        fits=np.zeros(4),
        thetas=np.zeros((4, 3)),
    )
    floors = feature_floors(result, 4)
    assert floors.tolist() == [0.5, 0.5, 0.9, math.inf]
    fixing = FeatureFixing(floors)
    assert fixing.update(0.8) == 2  # features 2 and 3
    assert fixing.update(0.8) == 0 and fixing.count == 2
    lower = np.array([-5.0, -2, -2, -2, -2, 0, 0, 0, 0])
    upper = np.array([5.0, 2, 2, 2, 2, 1, 1, 1, 1])
    assert fixing.restrict(lower, upper)
    assert upper[3:5].tolist() == [0, 0] and lower[3:5].tolist() == [0, 0]
    assert upper[7:].tolist() == [0, 0] and upper[5:7].tolist() == [1, 1]
    needs = lower.copy()
    needs[7] = 1.0  # a region whose models all use feature 2
    assert not fixing.restrict(needs, upper.copy())


def check_lcpa(problem: RiskScoreProblem, settings: LCPASettings) -> int:
    optimum = enumerate_optimum(problem)
    if not math.isfinite(optimum):
        with pytest.raises(InfeasibleError):
            solve_lcpa(problem, settings=settings)
        return 0
    result = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0), settings=settings)
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9)
    assert result.lower_bound <= optimum
    assert problem.violations(result.solution) == []
    return int(result.stats["fixed_features"])


@pytest.mark.parametrize("with_constraints", [False, True])
def test_lcpa_with_root_fixing_matches_brute_force(with_constraints):
    fixed = 0
    for seed in range(10):
        problem = noisy_problem(100 + seed, with_constraints)
        # without the initialization the incumbent at the fixing is a poor one
        for settings in (LCPASettings(), LCPASettings(initialization=False, polishing=False)):
            fixed += check_lcpa(problem, settings)
    assert fixed > 0


@pytest.mark.parametrize("seed", range(8))
def test_learned_scale_with_root_fixing_matches_brute_force(seed):
    """The LP search of the learned class (no screen) with the root fixing."""
    problem = noisy_problem(200 + seed, with_constraints=seed % 2 == 1)
    m_range = RANGES[seed % len(RANGES)]
    optimum = scaled_optimum(problem, m_range)
    if not math.isfinite(optimum):
        return
    settings = ScaledLCPASettings(support_screen=False)
    result = solve_scaled_lcpa(
        problem, m_range, limits=Limits(gap_tolerance=0.0), settings=settings
    )
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-8, abs=1e-10)
    assert result.lower_bound <= optimum + 1e-12
    assert "fixed_features" in result.stats


def test_root_fixing_off_fixes_nothing():
    problem = noisy_problem(6, with_constraints=False)
    result = solve_lcpa(problem, settings=LCPASettings(root_fixing=False))
    assert result.stats["fixed_features"] == 0
    assert result.upper_bound == pytest.approx(enumerate_optimum(problem), rel=1e-9)


def test_no_fixing_when_the_screen_would_cost_too_much():
    problem = noisy_problem(6, with_constraints=False)  # 3 features fixed by default
    assert solve_lcpa(problem).stats["fixed_features"] == 3
    settings = LCPASettings(fixing_max_work=10.0)
    result = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0), settings=settings)
    assert result.stats["fixed_features"] == 0
    assert result.upper_bound == pytest.approx(enumerate_optimum(problem), rel=1e-9)
