"""Submodular knapsack cover (Algorithm 2) and unit weighting: toy example, a literal
transcription of Algorithm 2, feasibility and sanity against brute force."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.constraints import AtMostKItems, MaxItems, OneItemPerGroup
from riskexplore.checklist.heuristics import (
    item_group_ids,
    knapsack_cover,
    size_bounds,
    submodular_checklists,
    unit_weighting_checklists,
)
from riskexplore.checklist.problem import ChecklistProblem

# --- the toy example (worked by hand in the comments) ------------------------------------
# positives p1..p4 and negatives n1, n2 over items 0, 1, 2
XPOS = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 0], [0, 1, 1]])
XNEG = np.array([[1, 0, 0], [0, 0, 1]])
COST = XNEG.sum(axis=0).astype(float)  # c = [1, 0, 1]


def test_toy_example_overflow():
    # M = 2: f({j}) = [2, 2, 2], m = 2, n = 3, p = 1 -> rho from 1 to 6 by factors 1.2.
    # rho <= 3 (items 0 and 2 dense: 2 * 1.5 / 1 = 3 >= rho): tau = 2; item 0 (gain 2) in,
    # item 1 (gain 2, free) in, item 2 (gain 2 from p1, p4) in -> cost 2 > 1.5: overflow,
    # so {0, 1} and {2} are returned. rho > 3: only item 1 is dense -> {1}.
    sets = knapsack_cover(XPOS, np.ones(4), COST, M=2, max_items=3, budget=1.5)
    assert sets == [frozenset({1}), frozenset({2}), frozenset({0, 1})]


def test_toy_example_cardinality_and_density():
    # M = 1, B = 1, N_max = 2, rho = 1, 1.2, ..., 5.16: for rho <= 2: item 0 (gain 2),
    # then item 1 (gain 2 >= tau = 2), N_max reached -> {0, 1}. For rho > 2: item 0 is not
    # dense (2 * 1 / 1 < rho), item 1 enters, item 2 (gain 1, from p1) fails the density
    # 1 * 1 / 1 < rho -> {1}.
    sets = knapsack_cover(XPOS, np.ones(4), COST, M=1, max_items=2, budget=1.0)
    assert sets == [frozenset({1}), frozenset({0, 1})]


def test_toy_example_partition_matroid():
    # items 0 and 1 in one group: after item 0, item 1 is blocked; item 2 (gain 1 with
    # M = 1: p4) enters once tau has dropped to 1 (tau: 2, 1.67, 1.39, 1.16, 0.96).
    groups = np.array([0, 0, 1])
    sets = knapsack_cover(XPOS, np.ones(4), COST, M=1, max_items=2, budget=4.0, groups=groups)
    assert frozenset({0, 2}) in sets
    assert all(not {0, 1} <= s for s in sets)


def literal_algorithm_2(Xpos, w, cost, M, max_items, budget, groups=None, eps=0.2):
    """Algorithm 2 transcribed loop by loop (item scan in index order)."""

    def f(S):
        if not S:
            return 0.0
        return float(w @ np.minimum(Xpos[:, sorted(S)].sum(axis=1), M))

    d = Xpos.shape[1]
    single = np.array([f({j}) for j in range(d)])
    A = [j for j in range(d) if single[j] > 0]
    n = len(A)
    if n == 0:
        return []
    m = single.max()
    p = 1 + (groups is not None)
    B = budget
    A = [j for j in A if cost[j] <= B]
    out = set()
    k = 0
    while True:
        rho = m / (p + 1) * (1 + eps) ** k
        if rho > 2 * n * m / (p + 1) * (1 + 1e-12):
            break
        k += 1
        dense = [j for j in A if single[j] * B >= rho * cost[j] - 1e-12]
        if not dense:
            continue
        tau0 = max(single[j] for j in dense)
        S: list[int] = []
        t = 0
        tau = tau0
        overflow = False
        while tau >= eps * m / n and sum(cost[j] for j in S) <= B and len(S) < max_items:
            for j in A:
                if j in S or len(S) >= max_items:
                    continue
                if groups is not None and any(groups[i] == groups[j] for i in S):
                    continue
                delta = f(set(S) | {j}) - f(set(S))
                if delta >= tau - 1e-12 and delta * B >= rho * cost[j] - 1e-12:
                    S.append(j)
                    if sum(cost[i] for i in S) > B:
                        overflow = True
                        break
            if overflow:
                break
            t += 1
            tau = tau0 / (1 + eps) ** t
        if overflow:
            if len(S) > 1:
                out.add(frozenset(S[:-1]))
            out.add(frozenset([S[-1]]))
        elif S:
            out.add(frozenset(S))
    return sorted(out, key=lambda s: (len(s), sorted(s)))


@pytest.mark.parametrize("seed", range(6))
def test_matches_literal_algorithm(seed):
    rng = np.random.default_rng(seed)
    npos, nneg, d = 25, 20, 9
    Xpos = (rng.random((npos, d)) < 0.4).astype(float)
    Xneg = (rng.random((nneg, d)) < 0.3).astype(float)
    w = rng.integers(1, 3, npos).astype(float)
    cost = Xneg.sum(axis=0)
    groups = np.arange(d) // 3 if seed % 2 else None
    for M in (1, 2, 3):
        for B in (npos / 3, npos, 3 * npos):
            got = knapsack_cover(Xpos, w, cost, M=M, max_items=4, budget=B, groups=groups)
            want = literal_algorithm_2(Xpos, w, cost, M, 4, B, groups)
            assert got == want, (M, B)


# --- problems ------------------------------------------------------------------------
def random_problem(seed, n=80, d=8, group_size=2, **kw):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.4).astype(int)
    y = ((X[:, :3].sum(axis=1) + 1.8 * rng.random(n)) >= 2).astype(int)
    cols = [f"i{j}" for j in range(d)]
    groups = {c: f"g{j // group_size}" for j, c in enumerate(cols)}
    return ChecklistProblem(
        pd.DataFrame(X, columns=cols),
        y,
        item_groups=groups,
        constraints=[OneItemPerGroup(), *kw.pop("constraints", [])],
        **kw,
    )


def brute_force(problem):
    best = math.inf
    for r in range(1, problem.n_items + 1):
        for S in itertools.combinations(problem.item_names, r):
            for M in range(1, r + 1):
                if not problem.violations(list(S), M):
                    best = min(best, problem.objective(list(S), M))
    return best


def one_per_group(problem, items):
    groups = [problem.item_groups[i] for i in items]
    return len(groups) == len(set(groups))


@pytest.mark.parametrize("heuristic", [submodular_checklists, unit_weighting_checklists])
@pytest.mark.parametrize("seed", range(3))
def test_candidates_feasible_sorted_and_not_below_optimum(heuristic, seed):
    problem = random_problem(seed, max_items=4 if seed else None)
    found = heuristic(problem)
    assert found
    values = [problem.objective(items, M) for items, M in found]
    assert values == sorted(values)
    assert len({(tuple(i), m) for i, m in found}) == len(found)
    for items, M in found:
        assert problem.violations(items, M) == []
        assert one_per_group(problem, items)
        assert 1 <= M <= len(items)
    assert values[0] >= brute_force(problem) - 1e-9


def test_group_ids_from_rows_and_size_bounds():
    problem = random_problem(
        0, constraints=[AtMostKItems(["i6", "i7"], k=1), MaxItems(3)], max_items=5
    )
    ids = item_group_ids(problem)
    assert ids[0] == ids[1] and ids[6] == ids[7] and ids[0] != ids[2]
    assert size_bounds(problem)[1] == 3
    for items, _ in submodular_checklists(problem):
        assert len(items) <= 3
    plain = ChecklistProblem(problem.X, problem.y)
    assert item_group_ids(plain) is None


def test_fast_on_heart():
    from riskexplore.data.binarize import Binarizer
    from riskexplore.datasets import load_dataset

    data = load_dataset("heart")
    binarizer = Binarizer(method="adaptive", categorical=["cp", "thal", "ca", "slope", "restecg"])
    items = binarizer.fit_transform(data.X)
    problem = ChecklistProblem(
        items,
        data.y,
        item_groups=binarizer.item_groups_,
        max_items=8,
        constraints=[OneItemPerGroup()],
    )
    unit_weighting_checklists(problem, Cs=[1.0])  # import scikit-learn outside the clock
    for heuristic in (submodular_checklists, unit_weighting_checklists):
        start = time.perf_counter()
        found = heuristic(problem)
        assert time.perf_counter() - start < 2.0
        items, M = found[0]
        assert problem.violations(items, M) == []
        assert problem.errors(items, M)["error"] < 0.2
