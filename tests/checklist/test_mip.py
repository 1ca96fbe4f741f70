"""Checklist IP against brute-force enumeration, limits, stops and warm starts."""

from __future__ import annotations

import itertools
import math
import threading

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.constraints import (
    FNRLimit,
    FPRLimit,
    GroupRateGap,
    Implies,
    MaxItems,
    MRange,
    OneItemPerGroup,
    PredictPositiveWhen,
    WorstGroupRate,
)
from riskexplore.checklist.mip import check_checklist_feasible, solve_checklist
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.errors import InfeasibleError


def _data(seed: int, n: int, d: int):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.2, 0.7, size=d)).astype(int)
    score = X @ rng.normal(0.6, 0.8, size=d) + rng.normal(scale=1.0, size=n)
    y = (score > np.median(score)).astype(int)
    frame = pd.DataFrame(X, columns=[f"item{j}" for j in range(d)])
    groups = pd.DataFrame(
        {"sex": rng.choice(["F", "M"], size=n), "age": rng.choice(["young", "old"], size=n)}
    )
    return frame, y, groups


def _brute_force(problem: ChecklistProblem) -> tuple[float, list]:
    d = problem.n_items
    best, arg = math.inf, None
    for bits in itertools.product([0, 1], repeat=d):
        mask = np.array(bits, dtype=bool)
        for M in range(1, max(int(mask.sum()), 1) + 1):
            if problem.violations(mask, M):
                continue
            value = problem.objective(mask, M)
            if value < best:
                best, arg = value, (problem.items_of(mask), M)
    return best, arg


ITEM_GROUPS = {"item0": "a", "item1": "a", "item2": "a", "item3": "b", "item4": "b"}

CASES = [
    (0, 150, 6, {}),
    (1, 200, 7, {"max_items": 3}),
    (2, 180, 6, {"item_groups": ITEM_GROUPS, "constraints": [OneItemPerGroup()]}),
    (3, 200, 6, {"constraints": [FNRLimit(0.2)]}),
    (4, 200, 6, {"constraints": [FPRLimit(0.15)], "fp_weight": 2.0}),
    (5, 160, 6, {"constraints": [GroupRateGap("fpr", 0.1)]}),
    (6, 160, 6, {"constraints": [GroupRateGap("fnr", 0.05, by="sex"), MaxItems(4)]}),
    (7, 150, 6, {"constraints": [Implies("item5", then_any=["item4"])]}),
    (8, 150, 6, {"constraints": [PredictPositiveWhen(["item0", "item1"]), MRange(2, 3)]}),
    (9, 150, 6, {"constraints": [WorstGroupRate("fnr", 0.4)], "min_items": 2}),
    (10, 150, 8, {"sample_weight": "random", "max_items": 4}),
]


@pytest.mark.parametrize("seed,n,d,kwargs", CASES)
def test_matches_brute_force(seed, n, d, kwargs):
    X, y, groups = _data(seed, n, d)
    kwargs = dict(kwargs)
    if kwargs.get("sample_weight") == "random":
        kwargs["sample_weight"] = np.random.default_rng(seed).uniform(0.5, 2.0, size=n)
    problem = ChecklistProblem(X, y, groups=groups, **kwargs)
    trace = Trace()
    result = solve_checklist(problem, limits=Limits(time_limit=30.0), listeners=[trace])
    optimum, _ = _brute_force(problem)
    if not math.isfinite(optimum):
        assert result.status == "infeasible"
        return
    assert result.status == "optimal"
    assert result.objective == pytest.approx(optimum, rel=1e-9)
    assert problem.objective(*result.solution) == result.objective
    assert problem.violations(*result.solution) == []
    assert result.lower_bound <= optimum * (1 + 1e-9)
    assert result.gap <= 1e-9
    for event in trace.events:
        assert event.lower_bound <= optimum * (1 + 1e-9)
        if event.incumbent is not None:
            inc = event.incumbent
            assert problem.violations(inc["items"], inc["M"]) == []
    assert trace.events[-1].kind == "final"
    assert result.stats["train_errors"] == pytest.approx(
        result.stats["train_fp"] + result.stats["train_fn"]
    )


def test_lexicographic_tie_breaking():
    # item1 duplicates item0: same loss with one item fewer must win; M as small as possible
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [1, 1, 0, 0, 1, 0], "c": [0, 1, 0, 1, 0, 0]})
    y = [1, 1, 0, 0, 1, 0]
    problem = ChecklistProblem(X, y)
    result = solve_checklist(problem)
    assert result.status == "optimal"
    assert result.stats["train_errors"] == 0
    assert len(result.solution.items) == 1 and result.solution.M == 1


def _hard_problem(seed=0, n=3000, d=40, **kwargs):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.4).astype(int)
    score = X @ rng.normal(0.3, 1.0, size=d) + rng.normal(scale=2.0, size=n)
    y = (score > np.median(score)).astype(int)
    return ChecklistProblem(X, y, **kwargs)


def test_stop_from_listener_returns_incumbent_and_valid_bounds():
    problem = _hard_problem(max_items=8)
    stop = threading.Event()
    seen = []

    def listener(event):
        seen.append(event)
        if event.kind == "incumbent":
            stop.set()

    result = solve_checklist(
        problem, limits=Limits(time_limit=60.0, stop=stop), listeners=[listener]
    )
    assert result.status in ("stopped", "optimal")
    assert result.has_model
    assert result.time < 20.0
    assert problem.violations(*result.solution) == []
    assert result.lower_bound <= result.upper_bound
    assert result.objective == problem.objective(*result.solution)


def test_stop_honoured_quickly():
    problem = _hard_problem(seed=1, n=4000, d=50, max_items=10)
    stop = threading.Event()
    timer = threading.Timer(1.0, stop.set)
    timer.start()
    result = solve_checklist(problem, limits=Limits(time_limit=60.0, stop=stop))
    timer.cancel()
    if result.status != "optimal":
        assert result.status == "stopped"
        assert result.time < 2.5


def test_time_limit_returns_incumbent_with_valid_bounds():
    problem = _hard_problem(seed=2, n=4000, d=50, max_items=10)
    result = solve_checklist(problem, limits=Limits(time_limit=1.0))
    assert result.time < 3.0
    assert result.status in ("time_limit", "optimal")
    assert result.has_model
    assert result.lower_bound <= result.upper_bound
    assert problem.violations(*result.solution) == []


def test_warm_start_is_first_incumbent():
    X, y, _ = _data(3, 300, 7)
    problem = ChecklistProblem(X, y)
    optimum, (items, M) = _brute_force(problem)
    worse = (["item0", "item1", "item2"], 2)
    infeasible = (["item0"], 3)  # M > N
    trace = Trace()
    result = solve_checklist(
        problem, warm_starts=[infeasible, worse, (items, M)], listeners=[trace]
    )
    first = next(e for e in trace.events if e.kind == "incumbent")
    assert first.upper_bound <= problem.objective(items, M) + 1e-12
    assert result.stats["warm_starts_feasible"] == 2
    assert result.objective == pytest.approx(optimum, rel=1e-9)


def test_progress_events_throttled():
    problem = _hard_problem(seed=3, n=3000, d=40, max_items=8)
    trace = Trace()
    result = solve_checklist(problem, limits=Limits(time_limit=1.5), listeners=[trace])
    progress = [e for e in trace.events if e.kind == "progress"]
    assert len(progress) <= 10 * max(result.time, 0.1) + 2
    bounds = [e.lower_bound for e in trace.events]
    assert all(b <= result.upper_bound + 1e-9 for b in bounds)


def test_infeasible_status_and_check():
    X, y, _ = _data(4, 100, 5)
    problem = ChecklistProblem(X, y, constraints=[FNRLimit(0.0), FPRLimit(0.0)], max_items=2)
    result = solve_checklist(problem)
    assert result.status == "infeasible"
    assert not result.has_model
    with pytest.raises(InfeasibleError) as info:
        check_checklist_feasible(problem)
    assert "False" in str(info.value)


def test_feasibility_check_names_culprits():
    X, y, _ = _data(5, 100, 5)
    problem = ChecklistProblem(
        X, y, constraints=[MRange(3, 4), MaxItems(2), Implies("item0", "item1")]
    )
    with pytest.raises(InfeasibleError) as info:
        check_checklist_feasible(problem)
    culprits = info.value.culprits
    assert "Threshold M between 3 and 4" in culprits
    assert "Use at most 2 items" in culprits
    assert all("If item0" not in c for c in culprits)
    feasible = ChecklistProblem(X, y, constraints=[MaxItems(2)])
    items, M = check_checklist_feasible(feasible)
    assert feasible.violations(items, M) == []


@pytest.mark.parametrize("case", [CASES[0], CASES[5]])
def test_strengthened_formulation_keeps_optimum(case):
    from riskexplore.checklist.mip import ChecklistIPSettings

    seed, n, d, kwargs = case
    X, y, groups = _data(seed, n, d)
    problem = ChecklistProblem(X, y, groups=groups, **kwargs)
    settings = ChecklistIPSettings(strengthen=True, exact_indicators=True)
    result = solve_checklist(problem, settings=settings)
    optimum, _ = _brute_force(problem)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(optimum, rel=1e-9)
