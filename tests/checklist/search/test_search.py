"""The exact checklist search against brute force: optima, infeasibility, bound soundness."""

from __future__ import annotations

import math
import threading

import numpy as np
import pandas as pd
import pytest
from _checklist_reference import (
    TOL,
    brute_force,
    check_open_nodes,
    lexicographic,
    random_problem,
    score_all,
    subset_masks,
)

from riskexplore.checklist.constraints import (
    AtMostKItems,
    Implies,
    MaxItems,
    MRange,
    OneItemPerGroup,
)
from riskexplore.checklist.mip import solve_checklist
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search import (
    ExactSearch,
    ExactSearchSettings,
    check_feasible_exact,
    solve_checklist_exact,
)
from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.errors import InfeasibleError

# ------------------------------------------------------------------ random instances


def _assert_optimal(problem, result, optimum, items, M):
    if not math.isfinite(optimum):
        assert result.status == "infeasible"
        assert not result.has_model
        return
    assert result.status == "optimal", result.status
    assert problem.violations(*result.solution) == []
    assert result.upper_bound == problem.objective(*result.solution)
    # same weighted errors, number of items and threshold as brute force
    got = lexicographic(problem, *result.solution)
    want = lexicographic(problem, items, M)
    assert got[0] == pytest.approx(want[0], rel=1e-12, abs=1e-12)
    assert got[1:] == want[1:]
    assert result.upper_bound == pytest.approx(optimum, rel=1e-12)
    assert result.lower_bound <= optimum * (1 + TOL)
    assert result.gap <= 1e-9


@pytest.mark.parametrize("seed", range(160))
def test_random_instances_match_brute_force(seed):
    problem = random_problem(seed)
    optimum, items, M = brute_force(problem)
    trace = Trace()
    result = solve_checklist_exact(problem, listeners=[trace])
    _assert_optimal(problem, result, optimum, items, M)
    lower = [e.lower_bound for e in trace.events]
    assert all(b <= optimum * (1 + TOL) for b in lower if math.isfinite(optimum))
    assert lower == sorted(lower)  # the bound only rises
    for event in trace.events:
        if event.incumbent is not None:
            assert problem.violations(event.incumbent["items"], event.incumbent["M"]) == []
    assert trace.events[-1].kind == "final"


@pytest.mark.parametrize("order", ["strong_first", "weak_first", "large_first", "small_first"])
def test_group_orders_give_the_same_optimum(order):
    for seed in range(10):
        problem = random_problem(1000 + seed)
        optimum, items, M = brute_force(problem)
        result = solve_checklist_exact(problem, settings=ExactSearchSettings(group_order=order))
        _assert_optimal(problem, result, optimum, items, M)


def test_infeasibility_verdicts_agree_with_brute_force():
    verdicts = []
    for seed in range(60):
        problem = random_problem(2000 + seed)
        optimum, _, _ = brute_force(problem)
        result = solve_checklist_exact(problem)
        assert (result.status == "infeasible") == (not math.isfinite(optimum))
        verdicts.append(math.isfinite(optimum))
    assert not all(verdicts) and any(verdicts)  # both kinds were tried


@pytest.mark.parametrize("seed", range(8))
def test_at_most_zero_of_several_items_rules_them_all_out(seed):
    """``AtMostKItems(items, 0)`` (the rule "do not use age" over age's items) keeps every
    one of them off the checklist, as brute force does (it is not an "at most one of")."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((40, 6)) < 0.5).astype(int), columns=[f"x{j}" for j in range(6)])
    y = ((X["x0"] + X["x1"] + rng.random(40)) > 1.2).astype(int).to_numpy()
    problem = ChecklistProblem(X, y, constraints=[AtMostKItems(("x0", "x1", "x2"), 0)])
    optimum, items, M = brute_force(problem)
    result = solve_checklist_exact(problem)
    _assert_optimal(problem, result, optimum, items, M)
    assert not {"x0", "x1", "x2"} & set(result.solution[0])


# ------------------------------------------------------------------ bound soundness


@pytest.mark.parametrize("seed", range(40))
def test_bounds_of_open_nodes_are_sound(seed):
    problem = random_problem(3000 + seed)
    rng = np.random.default_rng(seed)
    search = ExactSearch(problem)
    search.start()
    checked = 0
    for _ in range(30):
        done = search.step(int(rng.integers(1, 40)))
        checked += check_open_nodes(problem, search)
        optimum, _, _ = brute_force(problem)
        assert search.lower_bound <= optimum * (1 + TOL) + 1e-12
        if done:
            break


def test_bound_soundness_reaches_many_nodes():
    problem = ChecklistProblem(*_separable(seed=7, n=50, d=11))
    search = ExactSearch(problem)
    search.start()
    checked = 0
    while not search.step(5):
        checked += check_open_nodes(problem, search)
    assert checked > 100


def _separable(seed: int, n: int, d: int):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.45).astype(int)
    y = ((X[:, :4].sum(axis=1) + rng.normal(scale=0.7, size=n)) >= 2).astype(int)
    return pd.DataFrame(X, columns=[f"i{j}" for j in range(d)]), y


# ----------------------------------------------------------------- events and limits
def test_lower_bound_rises_through_the_search():
    problem = ChecklistProblem(*_separable(seed=1, n=400, d=24), max_items=6)
    trace = Trace()
    result = solve_checklist_exact(
        problem,
        listeners=[trace],
        settings=ExactSearchSettings(progress_interval=0.0, slice_seconds=0.001),
    )
    assert result.status == "optimal"
    lower = [e.lower_bound for e in trace.events]
    assert lower == sorted(lower)
    first, last = lower[0], result.upper_bound
    between = [b for b in lower if first < b < last]
    assert len(set(between)) >= 3  # it climbs, not one jump at the end


def test_stop_and_time_limit_return_best_with_valid_bound():
    rng = np.random.default_rng(5)
    X = (rng.random((3000, 60)) < 0.4).astype(int)
    y = ((X @ rng.normal(0.2, 1.0, 60) + rng.normal(scale=2.0, size=3000)) > 0).astype(int)
    problem = ChecklistProblem(X, y, max_items=12)
    result = solve_checklist_exact(problem, limits=Limits(time_limit=0.7))
    assert result.status == "time_limit"
    assert result.time < 1.5
    assert result.has_model and problem.violations(*result.solution) == []
    assert 0 <= result.lower_bound <= result.upper_bound
    stop = threading.Event()
    timer = threading.Timer(0.5, stop.set)
    timer.start()
    result = solve_checklist_exact(problem, limits=Limits(time_limit=60.0, stop=stop))
    assert result.status == "stopped"
    assert result.time < 1.2
    assert result.lower_bound <= result.upper_bound


def test_node_limit():
    problem = ChecklistProblem(*_separable(seed=2, n=200, d=20), max_items=6)
    result = solve_checklist_exact(problem, limits=Limits(node_limit=500))
    assert result.status == "node_limit"
    assert 500 <= result.nodes < 500 + 40


def test_warm_starts_are_checked_and_used():
    problem = ChecklistProblem(*_separable(seed=3, n=120, d=8))
    optimum, items, M = brute_force(problem)
    trace = Trace()
    result = solve_checklist_exact(
        problem,
        warm_starts=[(["i0"], 3), (["nope"], 1), (items, M), (["i0", "i1"], 1)],
        listeners=[trace],
    )
    first = next(e for e in trace.events if e.kind == "incumbent")
    assert first.upper_bound == pytest.approx(optimum)
    assert result.stats["warm_starts_feasible"] == 1
    assert result.upper_bound == pytest.approx(optimum)


def test_tie_breaks_exactly_towards_fewer_items_then_smaller_m():
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [1, 1, 0, 0, 1, 0], "c": [0, 1, 0, 1, 0, 0]})
    result = solve_checklist_exact(ChecklistProblem(X, [1, 1, 0, 0, 1, 0]))
    assert result.stats["train_errors"] == 0
    assert len(result.solution.items) == 1 and result.solution.M == 1


# -------------------------------------------------------------------- infeasibility
def test_culprits_of_an_impossible_constraint_set():
    X, y = _separable(seed=4, n=80, d=6)
    problem = ChecklistProblem(
        X, y, constraints=[MRange(3, 4), MaxItems(2), Implies("i0", then_any=["i1"])]
    )
    assert solve_checklist_exact(problem).status == "infeasible"
    with pytest.raises(InfeasibleError) as info:
        check_feasible_exact(problem)
    culprits = info.value.culprits
    assert "Threshold M between 3 and 4" in culprits
    assert "Use at most 2 items" in culprits
    assert not any("If i0" in c for c in culprits)
    feasible = ChecklistProblem(X, y, constraints=[MaxItems(2)])
    items, M = check_feasible_exact(feasible)
    assert feasible.violations(items, M) == []


# ------------------------------------------------------------- cross-check with the MIP
@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_the_mip_where_it_certifies(seed):
    problem = random_problem(4000 + seed)
    mip = solve_checklist(problem, limits=Limits(time_limit=20.0))
    exact = solve_checklist_exact(problem)
    if mip.status == "optimal":
        assert exact.status == "optimal"
        assert exact.upper_bound == pytest.approx(mip.upper_bound, rel=1e-9)
    elif mip.status == "infeasible":
        assert exact.status == "infeasible"


# ---------------------------------------------------------------------------- heart
@pytest.fixture(scope="module")
def heart_items():
    from riskexplore.data.binarize import Binarizer
    from riskexplore.datasets import load_dataset

    data = load_dataset("heart")
    binarizer = Binarizer(method="adaptive", categorical=["cp", "thal", "ca", "slope", "restecg"])
    return binarizer.fit_transform(data.X), np.asarray(data.y), binarizer.item_groups_


def test_heart_matches_enumeration_and_never_worsens_with_more_items(heart_items):
    from _checklist_reference import best_by_size

    items, y, groups = heart_items
    problem = ChecklistProblem(
        items, y, item_groups=groups, constraints=[OneItemPerGroup()], max_items=5
    )
    group_ids = np.unique([groups[n] for n in problem.item_names], return_inverse=True)[1]
    by_size = best_by_size(problem, group_ids, 5)
    errors = []
    for n in range(1, 7):
        p = ChecklistProblem(
            items, y, item_groups=groups, constraints=[OneItemPerGroup()], max_items=n
        )
        result = solve_checklist_exact(p)
        assert result.status == "optimal" and result.gap == 0
        errors.append(result.stats["train_errors"])
        if n <= 5:
            assert result.stats["train_errors"] == np.min(by_size[1 : n + 1])
            assert result.stats["N"] == 1 + int(np.argmin(by_size[1 : n + 1]))
    assert errors == sorted(errors, reverse=True)  # never worse with more items allowed
    assert errors[4] == 43  # the N <= 5 optimum the MIP could not certify


# ------------------------------------------------------------------ near-optimal sets
@pytest.mark.parametrize("seed", range(40))
def test_near_optimal_sets_match_brute_force(seed):
    from riskexplore.checklist.near_optimal import solve_near_optimal as near_optimal_checklists

    problem = random_problem(5000 + seed)
    optimum, _, _ = brute_force(problem)
    if not math.isfinite(optimum):
        with pytest.raises(InfeasibleError):
            near_optimal_checklists(problem, tolerance=1.0)
        return
    tolerance = float(np.random.default_rng(seed).choice([0.0, 1.0, 2.5, 4.0]))
    result = near_optimal_checklists(problem, tolerance=tolerance, max_models=100_000)
    masks = subset_masks(problem.n_items)
    objective, feasible = score_all(problem, masks)
    loss = (
        objective
        - problem.eps_n * masks.sum(axis=1)[:, None]
        - problem.eps_m * np.arange(problem.n_items + 1)
    )
    best_loss = loss[feasible].min()
    s_idx, m_idx = np.nonzero(feasible & (loss <= best_loss + tolerance + 1e-9))
    expected = {
        (tuple(problem.items_of(masks[s])), int(M)) for s, M in zip(s_idx, m_idx, strict=True)
    }
    got = {(m.items, m.M) for m in result.models}
    assert result.complete and result.reason is None
    assert result.optimum == pytest.approx(best_loss)
    assert got == expected  # nothing missing, nothing outside the tolerance
    ranks = [(m.errors, m.N, m.M) for m in result.models]
    assert ranks == sorted(ranks)


def test_near_optimal_max_models_keeps_the_best_and_says_incomplete():
    from riskexplore.checklist.near_optimal import solve_near_optimal as near_optimal_checklists

    problem = ChecklistProblem(*_separable(seed=8, n=60, d=9))
    full = near_optimal_checklists(problem, tolerance=6.0, max_models=100_000)
    assert full.complete and len(full) > 12
    cut = near_optimal_checklists(problem, tolerance=6.0, max_models=12)
    assert not cut.complete and cut.reason == "max_models"
    assert len(cut) == 12
    assert [m.errors for m in cut.models] == [m.errors for m in full.models[:12]]
    counts = full.feature_counts()
    assert sum(counts.values()) == sum(m.N for m in full.models)
    assert sum(len(v) for v in full.by_features().values()) == len(full)
