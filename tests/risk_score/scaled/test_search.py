"""LCPA with a learned multiplier against brute force, its bounds, limits and events."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from _scaled_reference import random_scaled_problem, region_models, scaled_optimum, scaled_value
from _small_problems import enumerate_optimum as unit_optimum
from _small_problems import income_like

from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.constraints import Include, PredictedRisk
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.model_class import ScaledClass, scaled_risk
from riskexplore.risk_score.scaled.search import ScaledLCPASettings, _ScaledLCPA, solve_scaled_lcpa

RANGES = [(0.25, 10.0), (0.5, 2.0), (2.0, 6.0), (0.25, 1.0)]

#: every improvement off: the plain LP branch-and-bound in (w, t)
PLAIN = ScaledLCPASettings(
    initialization=False,
    sequential_rounding=False,
    polishing=False,
    chained_updates=False,
    tighten_intercept=False,
    diving=False,
    pseudo_costs=False,
    restore_bases=False,
    fractional_cut_rounds=0,
    support_screen=False,
    beam_width=0,
    root_fixing=False,
)


def check_certified(problem, m_range, settings=None) -> None:
    optimum = scaled_optimum(problem, m_range)
    trace = Trace()
    if not math.isfinite(optimum):
        try:
            result = solve_scaled_lcpa(problem, m_range, settings=settings, listeners=[trace])
        except InfeasibleError:
            return
        assert result.status == "infeasible" and not result.has_model
        return
    result = solve_scaled_lcpa(
        problem, m_range, limits=Limits(gap_tolerance=0.0), settings=settings, listeners=[trace]
    )
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-8, abs=1e-10)
    lam, m = result.solution, result.stats["multiplier"]
    sclass = ScaledClass(problem, m_range)
    assert sclass.violations(lam, m) == []
    assert sclass.objective(lam, m) == pytest.approx(result.upper_bound, rel=1e-12)
    assert result.stats["loss"] == pytest.approx(sclass.loss(lam, m), rel=1e-12)
    # the model is one of the brute force's, at (nearly) its best multiplier
    assert scaled_value(problem, lam.astype(float), m_range)[0] == pytest.approx(
        result.upper_bound, rel=1e-8
    )
    assert result.lower_bound <= optimum + 1e-12
    assert all(e.lower_bound <= optimum + 1e-12 for e in trace.events)
    assert all(e.upper_bound >= optimum * (1 - 1e-9) for e in trace.events)


@pytest.mark.parametrize("seed", range(16))
def test_matches_brute_force_unconstrained(seed):
    check_certified(random_scaled_problem(seed, with_constraints=False), RANGES[seed % len(RANGES)])


@pytest.mark.parametrize("seed", range(20))
def test_matches_brute_force_with_constraints(seed):
    problem = random_scaled_problem(100 + seed, with_constraints=True)
    check_certified(problem, RANGES[seed % len(RANGES)])


@pytest.mark.parametrize("seed", range(10))
def test_matches_brute_force_with_every_improvement_off(seed):
    problem = random_scaled_problem(200 + seed, with_constraints=seed % 2 == 0)
    check_certified(problem, RANGES[seed % len(RANGES)], PLAIN)


@pytest.mark.parametrize("seed", range(6))
def test_matches_brute_force_without_the_screen(seed):
    problem = random_scaled_problem(300 + seed, with_constraints=seed % 2 == 1)
    check_certified(problem, RANGES[seed % len(RANGES)], ScaledLCPASettings(support_screen=False))


@pytest.mark.parametrize("seed", range(8))
def test_unit_range_is_the_papers_class(seed):
    """With m fixed to 1 the optimum is the m = 1 optimum (predicted-risk rows agree)."""
    problem = random_scaled_problem(400 + seed, with_constraints=seed % 2 == 0)
    optimum = unit_optimum(problem)
    if not math.isfinite(optimum):
        return
    result = solve_scaled_lcpa(problem, (1.0, 1.0), limits=Limits(gap_tolerance=0.0))
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9)
    assert result.stats["multiplier"] == 1.0
    assert solve_lcpa(problem).upper_bound == pytest.approx(optimum, rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_learned_scale_never_loses_to_m_equal_one(seed):
    problem = random_scaled_problem(500 + seed, with_constraints=False)
    unit = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0))
    learned = solve_scaled_lcpa(problem, (0.25, 10.0), limits=Limits(gap_tolerance=0.0))
    assert learned.upper_bound <= unit.upper_bound + 1e-12


# --- bounds of open regions ----------------------------------------------------------
@pytest.mark.parametrize("screen", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_open_nodes_bound_their_regions(seed, screen):
    """Stopped after a few nodes, every open node's bound is at most the best model in
    its region (brute force), and the reported lower bound at most the optimum."""
    problem = random_scaled_problem(600 + seed, with_constraints=seed % 2 == 1)
    m_range = RANGES[seed % len(RANGES)]
    optimum = scaled_optimum(problem, m_range)
    if not math.isfinite(optimum):
        return
    settings = ScaledLCPASettings(support_screen=screen, diving=False, initialization=False)
    solver = _ScaledLCPA(
        ScaledClass(problem, m_range), Limits(node_limit=3, gap_tolerance=0.0), settings, (),
        None, None,
    )  # fmt: skip
    result = solver.run()
    assert result.lower_bound <= optimum + 1e-12
    for _, _, node in solver.heap:
        best = scaled_optimum(problem, m_range, node.lower, node.upper)
        assert node.bound <= best + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_lp_bound_at_random_nodes(seed):
    """The LP of random sub-boxes (with cuts at random points) never exceeds the best
    model of the box, and is infeasible only when the box holds no model."""
    from riskexplore.risk_score.scaled.lp import ScaledLP

    rng = np.random.default_rng(seed)
    problem = random_scaled_problem(700 + seed, with_constraints=True)
    m_range = RANGES[seed % len(RANGES)]
    sclass = ScaledClass(problem, m_range)
    lp = ScaledLP(sclass)
    d = problem.n_features
    for _ in range(30):
        w = rng.normal(size=d + 1) * 2
        loss, grad = problem.loss.value_and_grad(w)
        lp.add_cut(loss, grad, w)
    for _ in range(12):
        lo, hi = lp.root_lower.copy(), lp.root_upper.copy()
        for j in rng.choice(d + 1, size=2, replace=False):
            a, b = sorted(rng.integers(lo[j], hi[j] + 1, size=2))
            lo[j], hi[j] = a, b
        for j in rng.choice(d, size=1):
            fix = float(rng.integers(0, 2))
            lo[d + 1 + j] = hi[d + 1 + j] = fix
            if fix == 0:
                lo[j + 1] = hi[j + 1] = 0
        lp.set_node_bounds(lo, hi)
        sol = lp.solve()
        best = scaled_optimum(problem, m_range, lo, hi)
        if sol.status == "infeasible":
            assert not math.isfinite(best)
        else:
            assert sol.status == "optimal"
            assert sol.objective <= best + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_support_screen_bounds_every_support(seed):
    from riskexplore.risk_score.support.screen import SupportData, screen_supports

    problem = random_scaled_problem(800 + seed, with_constraints=False)
    m_range = RANGES[seed % len(RANGES)]
    sclass = ScaledClass(problem, m_range)
    d = problem.n_features
    lo, hi = problem.lam_bounds()
    w_lo = np.minimum(lo * sclass.t_lo, lo * sclass.t_hi)
    w_hi = np.maximum(hi * sclass.t_lo, hi * sclass.t_hi)
    result = screen_supports(
        SupportData(problem.loss), forced=(), free=range(d), k_min=0, k_max=d,
        w_lower=w_lo, w_upper=w_hi, c0=problem.c0,
    )  # fmt: skip
    assert len(result) == 2**d
    best: dict[tuple, float] = {}
    for lam in region_models(problem):
        key = tuple(np.flatnonzero(lam[1:]))
        best[key] = min(best.get(key, math.inf), scaled_value(problem, lam, m_range)[0])
    for s in range(len(result)):
        key = tuple(int(j) for j in result.support(s))
        if key in best:
            assert result.bounds[s] <= best[key] + 1e-9
            assert result.bounds[s] <= result.fits[s] + 1e-12


# --- the facts -----------------------------------------------------------------
@pytest.mark.parametrize("screen", [True, False])
@pytest.mark.parametrize(("max_size", "optimum"), [(5, 0.4626345), (3, 0.4688439)])
def test_mammo_certified_optimum(max_size, optimum, screen):
    """The issue's certified optima, by the support screen and by the LP search alone."""
    from riskexplore.datasets import load_dataset

    data = load_dataset("mammo")
    problem = RiskScoreProblem(data.X, data.y, max_size=max_size)
    settings = ScaledLCPASettings(support_screen=screen)
    result = solve_scaled_lcpa(problem, limits=Limits(gap_tolerance=1e-9), settings=settings)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(optimum, abs=1e-6)
    assert result.lower_bound == pytest.approx(optimum, abs=1e-6)
    assert 0.25 <= result.stats["multiplier"] <= 10


# --- constraints -----------------------------------------------------------------------
def test_predicted_risk_holds_with_the_learned_multiplier():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (300, 3)).astype(float)
    y = (rng.random(300) < 1 / (1 + np.exp(-(X @ [2.0, -1.0, 1.0] - 1)))).astype(int)
    names = ["a", "b", "c"]
    when = {"a": 1, "c": 1}
    constraints = [PredictedRisk(when=when, at_most=0.6), PredictedRisk(when={}, at_least=0.2)]
    problem = RiskScoreProblem(
        X, y, feature_names=names, coef_min=-3, coef_max=3, intercept_min=-6, intercept_max=6,
        constraints=constraints,
    )  # fmt: skip
    result = solve_scaled_lcpa(problem, (0.25, 10), limits=Limits(gap_tolerance=0.0))
    m = result.stats["multiplier"]
    risks = scaled_risk(np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]), result.solution, m)
    assert risks[0] <= 0.6 + 1e-9 and risks[1] >= 0.2 - 1e-9
    assert result.upper_bound == pytest.approx(scaled_optimum(problem, (0.25, 10)), rel=1e-8)


def test_infeasible_rows_raise_before_the_search():
    problem = random_scaled_problem(3, with_constraints=False)
    names = problem.feature_names
    problem = RiskScoreProblem(
        problem.X, problem.y, feature_names=names, max_size=1,
        constraints=[Include(names[0]), Include(names[1])],
    )  # fmt: skip
    with pytest.raises(InfeasibleError, match="infeasible"):
        solve_scaled_lcpa(problem)


def test_risk_rows_no_multiplier_can_meet_end_infeasible():
    """Risk >= 0.99 for an all-zero example needs intercept / m >= 4.6: impossible with
    intercept <= 2 and m >= 1; the search proves it."""
    problem = random_scaled_problem(5, with_constraints=False)
    problem = RiskScoreProblem(
        problem.X, problem.y, feature_names=problem.feature_names, coef_min=-2, coef_max=2,
        intercept_min=-2, intercept_max=2, constraints=[PredictedRisk(when={}, at_least=0.99)],
    )  # fmt: skip
    result = solve_scaled_lcpa(problem, (1.0, 4.0), limits=Limits(time_limit=20))
    assert result.status == "infeasible" and not result.has_model
    feasible = solve_scaled_lcpa(problem, (0.25, 4.0), limits=Limits(gap_tolerance=0.0))
    assert feasible.has_model  # intercept 2 and m <= 2 / logit(0.99) make it possible
    assert feasible.stats["multiplier"] <= 2 / math.log(99) * (1 + 1e-9)
    assert feasible.upper_bound == pytest.approx(scaled_optimum(problem, (0.25, 4.0)), rel=1e-8)


@pytest.mark.parametrize("bad", [(0, 1), (2, 1), (1, math.inf), (-1, 2), "ab", (1, None)])
def test_bad_multiplier_range(bad):
    with pytest.raises(InputError, match="multiplier"):
        solve_scaled_lcpa(random_scaled_problem(1, with_constraints=False), bad)


# --- warm starts, pools, limits and events ---------------------------------------------
def test_warm_start_with_and_without_multiplier():
    problem = random_scaled_problem(1, with_constraints=False)
    start = np.zeros(problem.n_features + 1, dtype=int)
    start[1] = 1
    for warm in (start, (start, 2.0)):
        trace = Trace()
        solve_scaled_lcpa(problem, warm_start=warm, listeners=[trace])
        first = next(e for e in trace.events if e.kind == "incumbent")
        assert first.incumbent["points"] == {problem.feature_names[0]: 1}
        assert 0.25 <= first.incumbent["multiplier"] <= 10
    with pytest.raises(InputError, match="warm start"):
        solve_scaled_lcpa(problem, warm_start=np.full(problem.n_features + 1, 99))
    for bad in (50.0, 0.0, "2"):
        with pytest.raises(InputError, match="multiplier"):
            solve_scaled_lcpa(problem, warm_start=(start, bad))


def test_cut_pool_shared_between_both_classes():
    problem = random_scaled_problem(11, with_constraints=False)
    pool = CutPool()
    for _ in range(2):
        unit = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0), cut_pool=pool)
        learned = solve_scaled_lcpa(problem, limits=Limits(gap_tolerance=0.0), cut_pool=pool)
        assert unit.upper_bound == pytest.approx(unit_optimum(problem), rel=1e-9)
        assert learned.upper_bound == pytest.approx(scaled_optimum(problem, (0.25, 10)), rel=1e-8)
    assert len(pool) > 0


def _valid_stop(problem, result) -> None:
    assert result.has_model
    sclass = ScaledClass(problem)
    m = result.stats["multiplier"]
    assert sclass.violations(result.solution, m) == []
    assert result.upper_bound == pytest.approx(sclass.objective(result.solution, m))
    assert result.lower_bound <= result.upper_bound


def test_time_limit_returns_best_model_and_valid_bounds():
    problem = income_like()
    result = solve_scaled_lcpa(problem, limits=Limits(time_limit=1.5))
    assert result.status == "time_limit"
    _valid_stop(problem, result)
    longer = solve_scaled_lcpa(problem, limits=Limits(time_limit=6.0))
    assert result.lower_bound <= longer.upper_bound + 1e-12


def test_node_limit():
    problem = random_scaled_problem(2, with_constraints=False)
    result = solve_scaled_lcpa(
        problem, limits=Limits(node_limit=2, gap_tolerance=0.0), settings=PLAIN
    )
    assert result.nodes <= 3
    if result.status != "optimal":
        assert result.status == "node_limit"
        assert result.lower_bound <= scaled_optimum(problem, (0.25, 10)) + 1e-12


def test_stop_request_from_another_thread():
    problem = income_like()
    event = threading.Event()
    timer = threading.Timer(1.0, event.set)
    timer.start()
    result = solve_scaled_lcpa(problem, limits=Limits(stop=event, time_limit=120))
    timer.cancel()
    assert result.status == "stopped"
    _valid_stop(problem, result)
    assert result.time < 10.0


def test_events_carry_the_multiplier_and_final_event_matches():
    problem = random_scaled_problem(7, with_constraints=False)
    trace = Trace()
    result = solve_scaled_lcpa(problem, listeners=[trace])
    final = trace.events[-1]
    assert final.kind == "final" and final.phase == "done"
    assert final.incumbent["multiplier"] == pytest.approx(result.stats["multiplier"])
    assert result.stats["model"] == final.incumbent
    ub = [e.upper_bound for e in trace.events]
    assert all(a >= b for a, b in zip(ub, ub[1:], strict=False))
    assert {"setup", "search", "done"} <= {e.phase for e in trace.events}


def test_scaled_risk_matches_sigma_of_score_over_m():
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    risks = scaled_risk(X, [-2, 3, 1], 2.0)
    assert risks == pytest.approx(1 / (1 + np.exp(-np.array([0.5, 1.0]))))


# --- bounds of the class ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_intercept_and_loss_bounds_hold_for_the_class(seed):
    """With a wide intercept box the data-derived intercept bounds bind; every optimal
    model lies within them, and every model's loss within the initial loss bounds."""
    base = random_scaled_problem(900 + seed, with_constraints=False)
    problem = RiskScoreProblem(
        base.X, base.y, feature_names=base.feature_names, coef_min=-2, coef_max=2,
        intercept_min=-15, intercept_max=15, max_size=2,
    )  # fmt: skip
    m_range = RANGES[seed % len(RANGES)]
    sclass = ScaledClass(problem, m_range)
    lo0, hi0 = sclass.intercept_bounds()
    bounds = sclass.objective_bounds((-15.0, 15.0))
    values = []
    for lam in region_models(problem):
        value, m = scaled_value(problem, lam, m_range)
        values.append((value, lam))
        for mult in (m, *m_range):
            assert bounds.L_min - 1e-12 <= sclass.loss(lam, mult) <= bounds.L_max + 1e-12
    optimum = min(v for v, _ in values)
    for value, lam in values:
        if value <= optimum + 1e-12:
            assert lo0 <= lam[0] <= hi0
    assert (lo0, hi0) != (-15.0, 15.0)  # the bounds do bind here


def test_views_on_a_support_merge_rows_as_before_and_the_cache_stays_bounded(monkeypatch):
    """A view on a support has the loss of the full model at every multiplier, whether
    its merged rows come from the cache or not; the cache drops its oldest entries."""
    import riskexplore.risk_score.scaled.model_class as model_class

    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (200, 5)).astype(float)
    y = rng.integers(0, 2, 200)
    problem = RiskScoreProblem(X, y, max_size=3, coef_min=-3, coef_max=3)
    sclass = ScaledClass(problem, (0.5, 4.0))
    for support in ([0, 2], [1, 3, 4], [0, 2]):
        for t in (0.25, 1.0, 2.0):
            view = sclass.fixed_scale(t, support)
            small = rng.integers(-3, 4, len(support) + 1)
            lam = view.embed(small)
            assert view.loss.value(small.astype(float)) == pytest.approx(
                sclass.loss(lam, 1.0 / t), rel=1e-12
            )
            Z, inverse = np.unique(
                problem.loss.Z[:, [0, *(j + 1 for j in support)]], axis=0, return_inverse=True
            )
            assert np.array_equal(view.loss.Z, Z * t)
    assert len(sclass._merged) == 2
    monkeypatch.setattr(model_class, "_MERGED_CACHE", 1)
    sclass.fixed_scale(1.0, [4])
    assert list(sclass._merged) == [(4,)] and sclass._merged_size == sclass._merged[(4,)][0].size
