"""LCPA against brute-force enumeration, and its limits, stops and events."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from _small_problems import (
    enumerate_optimum,
    income_like,
    random_problem,
)

from riskexplore.core.events import Trace, iterate_events
from riskexplore.core.limits import Limits
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.constraints import Include
from riskexplore.risk_score.lcpa.search import LCPASettings, solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem

ALL_OFF = LCPASettings(
    initialization=False,
    sequential_rounding=False,
    polishing=False,
    chained_updates=False,
    tighten_intercept=False,
    diving=False,
    pseudo_costs=False,
    restore_bases=False,
    fractional_cut_rounds=0,
    root_fixing=False,
)


def check_certified(problem: RiskScoreProblem, settings: LCPASettings) -> None:
    try:
        optimum = enumerate_optimum(problem)
    except Exception:  # pragma: no cover
        raise
    if not math.isfinite(optimum):
        with pytest.raises(InfeasibleError):
            solve_lcpa(problem, settings=settings)
        return
    trace = Trace()
    result = solve_lcpa(
        problem, limits=Limits(gap_tolerance=0.0), settings=settings, listeners=[trace]
    )
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9, abs=0)
    assert problem.violations(result.solution) == []
    assert problem.objective(result.solution) == pytest.approx(result.upper_bound, 1e-12)
    assert result.lower_bound <= optimum
    assert all(e.lower_bound <= optimum for e in trace.events)
    assert all(e.upper_bound >= optimum * (1 - 1e-12) for e in trace.events)


@pytest.mark.parametrize("seed", range(25))
def test_matches_enumeration_unconstrained(seed):
    check_certified(random_problem(seed, with_constraints=False), LCPASettings())


@pytest.mark.parametrize("seed", range(25))
def test_matches_enumeration_with_constraints(seed):
    check_certified(random_problem(100 + seed, with_constraints=True), LCPASettings())


@pytest.mark.parametrize("seed", range(10))
def test_matches_enumeration_with_every_improvement_off(seed):
    check_certified(random_problem(200 + seed, with_constraints=seed % 2 == 0), ALL_OFF)


def test_include_forces_nonzero_points_even_for_noise():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (200, 3))
    y = rng.integers(0, 2, 200)
    problem = RiskScoreProblem(
        X,
        y,
        feature_names=["a", "b", "noise"],
        coef_min=-3,
        coef_max=3,
        intercept_min=-5,
        intercept_max=5,
        c0=0.05,
        constraints=[Include("noise")],
    )
    result = solve_lcpa(problem)
    assert result.solution[3] != 0
    assert result.upper_bound == pytest.approx(enumerate_optimum(problem), rel=1e-9)


def test_infeasible_constraints_raise_before_search():
    problem = random_problem(3, with_constraints=False)
    names = problem.feature_names
    problem = RiskScoreProblem(
        problem.X,
        problem.y,
        feature_names=names,
        max_size=1,
        constraints=[Include(names[0]), Include(names[1])],
    )
    with pytest.raises(InfeasibleError, match="infeasible"):
        solve_lcpa(problem)


def test_time_limit_returns_best_model_and_valid_bounds():
    problem = income_like()
    result = solve_lcpa(problem, limits=Limits(time_limit=1.0))
    assert result.status == "time_limit"
    assert result.has_model and problem.violations(result.solution) == []
    assert result.lower_bound <= result.upper_bound
    assert result.upper_bound == pytest.approx(problem.objective(result.solution))
    # a longer solve can only confirm the bound: it never ends below the earlier lower bound
    longer = solve_lcpa(problem, limits=Limits(time_limit=4.0))
    assert result.lower_bound <= longer.upper_bound + 1e-12


def test_node_limit():
    result = solve_lcpa(
        income_like(), limits=Limits(node_limit=5), settings=LCPASettings(initialization=False)
    )
    assert result.status == "node_limit"
    assert result.nodes <= 6
    assert result.has_model


@pytest.mark.parametrize("as_callable", [False, True])
def test_stop_request_from_another_thread(as_callable):
    problem = income_like()
    event = threading.Event()
    stop = event.is_set if as_callable else event
    timer = threading.Timer(0.5, event.set)
    timer.start()
    result = solve_lcpa(problem, limits=Limits(stop=stop, time_limit=60))
    timer.cancel()
    assert result.status == "stopped"
    assert result.has_model and result.lower_bound <= result.upper_bound
    assert result.time < 5.0  # honoured promptly (the benchmark measures the latency)


def test_warm_start_is_first_incumbent_and_bad_warm_start_is_rejected():
    problem = random_problem(1, with_constraints=False)
    start = np.zeros(problem.n_features + 1, dtype=int)
    start[1] = 1
    trace = Trace()
    solve_lcpa(problem, warm_start=start, listeners=[trace])
    first = next(e for e in trace.events if e.kind == "incumbent")
    assert first.incumbent["points"] == {problem.feature_names[0]: 1}
    with pytest.raises(InputError, match="warm start"):
        solve_lcpa(problem, warm_start=np.full(problem.n_features + 1, 99))


def test_event_stream_iterator_and_trace_round_trip(tmp_path):
    problem = random_problem(7, with_constraints=False)
    stream = iterate_events(lambda listener: solve_lcpa(problem, listeners=[listener]))
    events = []
    while True:
        try:
            events.append(next(stream))
        except StopIteration as done:
            result = done.value
            break
    assert events[-1].kind == "final" and events[-1].phase == "done"
    assert events[-1].upper_bound == result.upper_bound
    assert any(e.kind == "incumbent" and e.incumbent for e in events)
    ub = [e.upper_bound for e in events]
    assert all(a >= b for a, b in zip(ub, ub[1:], strict=False))  # upper bound never worsens
    assert [e.phase for e in events][0] == "setup"
    path = tmp_path / "trace.jsonl"
    result.trace.save(path)
    loaded = Trace.load(path)
    assert loaded.events == result.trace.events


def test_progress_events_are_throttled():
    trace = Trace()
    result = solve_lcpa(
        income_like(),
        limits=Limits(time_limit=1.5),
        settings=LCPASettings(report_interval=0.25),
        listeners=[trace],
    )
    progress = [e for e in trace.events if e.kind == "progress"]
    phases = {e.phase for e in trace.events}
    # at most one progress event per interval, plus one at each phase change
    assert len(progress) <= result.time / 0.25 + len(phases) + 2
    assert {"setup", "search", "done"} <= phases


def test_shared_cut_pool_keeps_certificates_exact_across_a_size_path():
    from riskexplore.risk_score.lcpa.cut_pool import CutPool

    base = random_problem(11, with_constraints=False)
    pool = CutPool()
    for size in range(1, base.n_features + 1):
        problem = RiskScoreProblem(
            base.X,
            base.y,
            feature_names=base.feature_names,
            coef_min=-2,
            coef_max=2,
            intercept_min=-4,
            intercept_max=4,
            c0=0.01,
            max_size=size,
        )
        trace = Trace()
        result = solve_lcpa(
            problem, limits=Limits(gap_tolerance=0.0), cut_pool=pool, listeners=[trace]
        )
        optimum = enumerate_optimum(problem)
        assert result.upper_bound == pytest.approx(optimum, rel=1e-9)
        assert all(e.lower_bound <= optimum for e in trace.events)
    assert len(pool) > 0 and pool.models()


def test_cut_pool_refuses_other_data():
    from riskexplore.risk_score.lcpa.cut_pool import CutPool

    pool = CutPool()
    solve_lcpa(random_problem(1, with_constraints=False), cut_pool=pool)
    with pytest.raises(InputError, match="other data"):
        solve_lcpa(random_problem(2, with_constraints=False), cut_pool=pool)


@pytest.mark.parametrize("seed", range(15))
def test_beam_search_offers_only_models_of_the_problem(seed):
    """The beam search's rounded models (before any LP point) meet every bound and
    constraint and never beat the optimum; with it and without, the same optimum."""
    problem = random_problem(300 + seed, with_constraints=seed % 3 != 0)
    optimum = enumerate_optimum(problem)
    if not math.isfinite(optimum):
        return
    names = list(problem.feature_names)
    beam_only = LCPASettings(init_max_iterations=0, init_roundings=0, root_fixing=False)
    for settings in (beam_only, LCPASettings(beam_width=0)):
        trace = Trace()
        result = solve_lcpa(
            problem, limits=Limits(gap_tolerance=0.0), settings=settings, listeners=[trace]
        )
        assert result.status == "optimal"
        assert result.upper_bound == pytest.approx(optimum, rel=1e-9, abs=0)
        for event in trace.events:
            if event.incumbent is not None:
                lam = np.zeros(len(names) + 1)
                lam[0] = event.incumbent["intercept"]
                for name, value in event.incumbent["points"].items():
                    lam[1 + names.index(name)] = value
                assert problem.violations(lam) == []
                assert problem.objective(lam) >= optimum * (1 - 1e-12)
