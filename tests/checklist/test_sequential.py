"""Sequential training (Algorithm 1) and the FNR error path (Algorithm 3) against brute
force on small instances; certificates, limits, stop requests and events."""

from __future__ import annotations

import itertools
import math
import threading

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.constraints import FNRLimit, OneItemPerGroup
from riskexplore.checklist.error_path import fnr_error_path
from riskexplore.checklist.mip import solve_checklist
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.sequential import _cells, sequential_training
from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits


def random_problem(seed, n=70, d=7, groups=True, **kw):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.4).astype(int)
    y = ((X[:, :3].sum(axis=1) + 1.8 * rng.random(n)) >= 2).astype(int)
    cols = [f"i{j}" for j in range(d)]
    item_groups = {c: f"g{j // 2}" for j, c in enumerate(cols)} if groups else None
    constraints = [OneItemPerGroup()] if groups else []
    constraints += kw.pop("constraints", [])
    return ChecklistProblem(
        pd.DataFrame(X, columns=cols),
        y,
        item_groups=item_groups,
        constraints=constraints,
        **kw,
    )


def brute_force(problem):
    best = (math.inf, None, None)
    for r in range(1, problem.n_items + 1):
        for S in itertools.combinations(problem.item_names, r):
            for M in range(1, r + 1):
                if not problem.violations(list(S), M):
                    v = problem.objective(list(S), M)
                    if v < best[0]:
                        best = (v, list(S), M)
    return best


@pytest.mark.parametrize(
    "seed, kwargs, use_heuristics",
    [
        (0, {}, False),
        (1, {"max_items": 4}, True),
        (1, {"max_items": 4}, False),
        (2, {"groups": False, "max_items": 5}, False),
        (3, {"fp_weight": 2.0, "max_items": 3}, True),
    ],
)
def test_sequential_training_matches_brute_force(seed, kwargs, use_heuristics):
    problem = random_problem(seed, **kwargs)
    value, _, _ = brute_force(problem)
    result = sequential_training(problem, limits=Limits(), use_heuristics=use_heuristics)
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(value, abs=1e-9)
    assert result.lower_bound == pytest.approx(value, abs=1e-9)
    assert problem.violations(*result.solution) == []
    assert problem.objective(*result.solution) == pytest.approx(value, abs=1e-9)
    direct = solve_checklist(problem)
    assert direct.status == "optimal"
    assert result.upper_bound == pytest.approx(direct.upper_bound, abs=1e-9)
    # every cell is certified and the best checklist of each cell lies in the cell
    assert all(lb >= result.upper_bound - 1e-9 for lb in result.cells.values())
    for (n0, n1, m0, m1), (items, M, v) in result.best_per_cell.items():
        assert n0 <= len(items) <= n1 and m0 <= M <= m1
        assert v >= value - 1e-9


def test_coarse_cells_and_cell_partition():
    problem = random_problem(4, max_items=6)
    cells = _cells(problem, [2, 4], [1, 3])
    assert cells[0] == (1, 2, 1, 1) and (3, 4, 2, 3) in cells and (5, 6, 4, 6) in cells
    covered = set()
    for n0, n1, m0, m1 in cells:
        for n in range(n0, n1 + 1):
            for m in range(m0, min(m1, n) + 1):
                assert (n, m) not in covered
                covered.add((n, m))
    assert covered == {(n, m) for n in range(1, 7) for m in range(1, n + 1)}
    value, _, _ = brute_force(problem)
    result = sequential_training(
        problem, limits=Limits(), n_values=[2, 4], m_values=[1, 3], use_heuristics=False
    )
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(value, abs=1e-9)


def test_events_frame_and_warm_starts():
    problem = random_problem(5, max_items=4)
    trace = Trace()
    value, items, M = brute_force(problem)
    result = sequential_training(
        problem,
        limits=Limits(),
        listeners=[trace],
        warm_starts=[(items, M)],
        use_heuristics=False,
    )
    assert result.upper_bound == pytest.approx(value, abs=1e-9)
    search = [e for e in trace.events if e.phase == "search" and e.kind == "progress"]
    assert len(search) == len(result.steps)
    nodes = [e.nodes for e in search]
    assert nodes == sorted(nodes)
    assert trace.events[-1].phase == "done"
    for e in trace.events:
        assert e.lower_bound <= value + 1e-9
    frame = result.to_frame()
    for col in (
        "N",
        "M",
        "items",
        "train_error",
        "fnr",
        "fpr",
        "upper_bound",
        "lower_bound",
        "gap",
        "status",
        "time",
    ):
        assert col in frame.columns
    assert len(frame) == len(result.steps)
    # with the optimum as warm start every cell is ruled out, none solved to a new best
    assert set(frame["status"]) <= {"ruled_out", "infeasible"}


def test_stop_and_time_limit_keep_valid_bounds():
    problem = random_problem(6, d=8, n=120)
    value, _, _ = brute_force(problem)
    stop = threading.Event()
    stop.set()
    stopped = sequential_training(problem, limits=Limits(stop=stop))
    assert stopped.status == "stopped"
    assert stopped.steps == []
    assert stopped.lower_bound <= value + 1e-9
    assert stopped.upper_bound >= value - 1e-9  # heuristic incumbent
    short = sequential_training(problem, limits=Limits(time_limit=0.5), min_share=0.05)
    assert short.lower_bound <= value + 1e-9 <= short.upper_bound + 2e-9


def brute_force_fpr(problem, gamma):
    """Fewest false positives subject to FNR <= gamma (ties: fewest false negatives)."""
    best = None
    for r in range(1, problem.n_items + 1):
        for S in itertools.combinations(problem.item_names, r):
            for M in range(1, r + 1):
                if problem.violations(list(S), M):
                    continue
                e = problem.errors(list(S), M)
                if e["fnr"] <= gamma + 1e-12:
                    key = (e["fp"], e["fn"])
                    best = key if best is None or key < best else best
    return best


def test_fnr_error_path():
    problem = random_problem(7, max_items=4)
    gammas = [0.3, 0.05, 0.1, 0.2]
    path = fnr_error_path(problem, gammas, limits=Limits())
    assert [p.fnr_limit for p in path.points] == sorted(gammas)
    fprs = []
    for point in path.points:
        assert point.status == "optimal"
        assert point.fnr <= point.fnr_limit + 1e-12
        want_fp, _ = brute_force_fpr(problem, point.fnr_limit)
        assert point.fpr * problem.total_neg == pytest.approx(want_fp)
        fprs.append(point.fpr)
    assert all(a >= b - 1e-12 for a, b in zip(fprs, fprs[1:], strict=False))
    frame = path.to_frame()
    assert list(frame["fnr_limit"]) == sorted(gammas)
    assert {
        "N",
        "M",
        "items",
        "fnr",
        "fpr",
        "upper_bound",
        "lower_bound",
        "gap",
        "status",
        "time",
    } <= set(frame.columns)


def test_fnr_error_path_with_sequential_training():
    problem = random_problem(8, max_items=3, constraints=[])
    path = fnr_error_path(problem, [0.1, 0.25], limits=Limits(), sequential=True)
    for point in path.points:
        assert point.status == "optimal"
        assert point.fnr <= point.fnr_limit + 1e-12
        want_fp, _ = brute_force_fpr(problem, point.fnr_limit)
        assert point.fpr * problem.total_neg == pytest.approx(want_fp)
    # the base problem is untouched
    assert problem.fp_weight == 1.0
    assert not any(isinstance(c, FNRLimit) for c in problem.error_rows)
