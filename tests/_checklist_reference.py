"""Reference answers for checklist tests: brute-force enumeration of every checklist.

Independent of the solvers: every subset of items and every threshold are scored with
plain numpy from the problem's data, size bounds and compiled rows, as
:meth:`ChecklistProblem.violations` defines feasibility.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from riskexplore.checklist.constraints import (
    AtMostKItems,
    ExcludeItem,
    FNRLimit,
    FPRLimit,
    GroupRateGap,
    Implies,
    IncludeItem,
    MaxItems,
    MinItems,
    MRange,
    OneItemPerGroup,
    PredictNegativeWhen,
    PredictPositiveWhen,
    WorstGroupRate,
)
from riskexplore.checklist.problem import ChecklistProblem, violation_slack
from riskexplore.checklist.rows import ChecklistRow


def subset_masks(d: int, allowed: list[int] | None = None, base: list[int] = ()) -> np.ndarray:
    """Every 0/1 mask over ``d`` items: ``base`` plus any subset of ``allowed``."""
    allowed = list(range(d)) if allowed is None else list(allowed)
    rows = []
    for bits in itertools.product([0, 1], repeat=len(allowed)):
        mask = np.zeros(d, dtype=bool)
        mask[list(base)] = True
        mask[[j for j, b in zip(allowed, bits, strict=True) if b]] = True
        rows.append(mask)
    return np.array(rows, dtype=bool).reshape(len(rows), d)


def score_all(problem: ChecklistProblem, masks: np.ndarray):
    """``(objective, feasible)`` arrays of shape ``(len(masks), d + 1)``: entry ``[s, M]``
    is checklist ``masks[s]`` with threshold ``M`` (``inf`` / ``False`` when ``M`` is 0 or
    above the number of items)."""
    d = problem.n_items
    S = masks.shape[0]
    N = masks.sum(axis=1)
    counts = problem.patterns.astype(np.int64) @ masks.T.astype(np.int64)  # U x S
    objective = np.full((S, d + 1), math.inf)
    feasible = np.zeros((S, d + 1), dtype=bool)
    for M in range(1, d + 1):
        pred = (counts >= M).astype(float)  # U x S
        fn = problem.w_pos @ (1 - pred)
        fp = problem.w_neg @ pred
        ok = (M <= N) & (N >= problem.min_items) & (N <= problem.max_items)
        ok &= (problem.min_m <= M) & (M <= problem.max_m)
        if len(problem.rows):
            x = np.column_stack([masks.astype(float), np.full(S, M), N])
            ax = x @ problem.row_A.T  # S x R
            ok &= ((ax >= problem.row_lower - 1e-7) & (ax <= problem.row_upper + 1e-7)).all(axis=1)
        for row in problem.error_rows:
            value = np.zeros(S)
            for label, c in row.fn.items():
                wp, _ = problem.group_class_weights(label)
                value += c * (wp @ (1 - pred))
            for label, c in row.fp.items():
                _, wn = problem.group_class_weights(label)
                value += c * (wn @ pred)
            ok &= value <= row.upper + violation_slack(row.upper)
            ok &= value >= row.lower - violation_slack(row.lower)
        objective[:, M] = fn + problem.fp_weight * fp + problem.eps_n * N + problem.eps_m * M
        feasible[:, M] = ok
    return objective, feasible


def brute_force(problem: ChecklistProblem):
    """``(objective, items, M)`` of a best checklist, or ``(inf, None, None)``."""
    masks = subset_masks(problem.n_items)
    objective, feasible = score_all(problem, masks)
    values = np.where(feasible, objective, math.inf)
    s, M = np.unravel_index(np.argmin(values), values.shape)
    if not math.isfinite(values[s, M]):
        return math.inf, None, None
    items = problem.items_of(masks[s])
    assert problem.violations(items, int(M)) == []  # the official check agrees
    return float(values[s, M]), items, int(M)


def lexicographic(problem: ChecklistProblem, items, M) -> tuple[float, int, int]:
    """``(weighted errors, N, M)`` of a checklist: what the objective orders by."""
    return (problem.loss(items, M), len(items), int(M))


def best_by_size(problem: ChecklistProblem, group_of: np.ndarray, max_items: int) -> np.ndarray:
    """Least weighted errors ``FN + W- FP`` of the checklists with exactly ``N`` items (at
    most one per group of ``group_of``, every ``M`` in ``1..N``), for ``N = 0..max_items``;
    by plain enumeration (compiled), without constraints. For data too large for
    :func:`brute_force`."""
    from numba import njit

    enumerate_ = njit(cache=False)(_enumerate_by_size)
    order = np.argsort(group_of, kind="stable")
    P = np.ascontiguousarray(problem.patterns[:, order].astype(np.int64))
    groups = np.ascontiguousarray(group_of[order].astype(np.int64))
    return enumerate_(P, problem.w_pos, problem.fp_weight * problem.w_neg, groups, max_items)


def _enumerate_by_size(P, w_pos, w_neg, groups, max_items):
    U, d = P.shape
    best = np.full(max_items + 1, np.inf)
    counts = np.zeros((max_items + 1, U), dtype=np.int64)
    chosen = np.full(max_items + 1, -1, dtype=np.int64)  # item at each depth; -1: not yet
    hist_pos = np.zeros(max_items + 1)
    hist_neg = np.zeros(max_items + 1)
    depth = 1
    while depth >= 1:
        if chosen[depth] == -1:  # first item of a group after the parent's
            j = 0
            if depth > 1:
                j = chosen[depth - 1] + 1
                while j < d and groups[j] == groups[chosen[depth - 1]]:
                    j += 1
        else:
            j = chosen[depth] + 1
        if j >= d:
            chosen[depth] = -1
            depth -= 1
            continue
        chosen[depth] = j
        for u in range(U):
            counts[depth, u] = counts[depth - 1, u] + P[u, j]
        hist_pos[:] = 0.0
        hist_neg[:] = 0.0
        for u in range(U):
            c = counts[depth, u]
            hist_pos[c] += w_pos[u]
            hist_neg[c] += w_neg[u]
        # FN(M): positives with count < M; FP(M): negatives with count >= M
        for M in range(1, depth + 1):
            fn = 0.0
            for c in range(M):
                fn += hist_pos[c]
            fp = 0.0
            for c in range(M, depth + 1):
                fp += hist_neg[c]
            if fn + fp < best[depth]:
                best[depth] = fn + fp
        if depth < max_items:
            depth += 1
    return best


TOL = 1e-9


def random_problem(seed: int) -> ChecklistProblem:
    """5-60 rows, 3-15 items in 1-5 feature groups (with complements), duplicate rows
    with opposite labels, weights and a random mix of every kind of constraint."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 61))
    n_groups = int(rng.integers(1, 6))
    d_target = int(rng.integers(3, 16))
    columns: dict[str, np.ndarray] = {}
    item_groups: dict[str, str] = {}
    k = 0
    while len(columns) < d_target:
        g = f"f{k % n_groups}"
        col = (rng.random(n) < rng.uniform(0.15, 0.85)).astype(int)
        columns[f"x{k}"] = col
        item_groups[f"x{k}"] = g
        if len(columns) < d_target and rng.random() < 0.3:  # its complement, same group
            columns[f"not x{k}"] = 1 - col
            item_groups[f"not x{k}"] = g
        k += 1
    X = pd.DataFrame(columns)
    names = list(X.columns)
    d = len(names)
    score = X.to_numpy() @ rng.normal(0.3, 1.0, size=d) + rng.normal(scale=1.0, size=n)
    y = (score > np.median(score)).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    if n > 6 and rng.random() < 0.5:  # duplicate rows with the opposite label
        dup = rng.choice(n, size=min(5, n // 3), replace=False)
        X = pd.concat([X, X.iloc[dup]], ignore_index=True)
        y = np.concatenate([y, 1 - y[dup]])
    n = len(y)
    kwargs: dict = {}
    weights = rng.random()
    if weights < 0.25:
        kwargs["sample_weight"] = rng.integers(1, 4, size=n).astype(float)
    elif weights < 0.4:
        kwargs["sample_weight"] = rng.uniform(0.5, 2.0, size=n)
    if rng.random() < 0.3:
        kwargs["fp_weight"] = float(rng.choice([0.5, 2.0, 3.0, 1.7]))
    groups = pd.DataFrame(
        {"sex": rng.choice(["F", "M"], size=n), "age": rng.choice(["young", "old"], size=n)}
    )
    constraints: list = []
    if rng.random() < 0.6:
        constraints.append(OneItemPerGroup())
    pool = [
        lambda: FNRLimit(float(rng.uniform(0.1, 0.6))),
        lambda: FPRLimit(float(rng.uniform(0.1, 0.6))),
        lambda: GroupRateGap(str(rng.choice(["fnr", "fpr"])), float(rng.uniform(0.1, 0.5))),
        lambda: GroupRateGap("fpr", float(rng.uniform(0.1, 0.5)), by="sex"),
        lambda: WorstGroupRate(str(rng.choice(["fnr", "fpr"])), float(rng.uniform(0.3, 0.8))),
        lambda: IncludeItem(str(rng.choice(names))),
        lambda: ExcludeItem(str(rng.choice(names))),
        lambda: AtMostKItems(list(rng.choice(names, size=3, replace=False)), k=1),
        lambda: AtMostKItems(list(rng.choice(names, size=3, replace=False)), k=2),
        lambda: Implies(str(names[0]), then_any=[str(names[-1])]),
        lambda: PredictPositiveWhen(list(rng.choice(names, size=2, replace=False))),
        lambda: PredictNegativeWhen([str(rng.choice(names))]),
        lambda: MRange(1, int(rng.integers(1, 4))),
        lambda: MRange(int(rng.integers(1, 3)), None),
        lambda: MaxItems(int(rng.integers(1, 6))),
        lambda: MinItems(int(rng.integers(1, 4))),
        lambda: ChecklistRow("row on N and M", N=1.0, M=-2.0, lower=0.0),
        lambda: ChecklistRow("weighted items", {names[0]: 2.0, names[1]: -1.0}, N=0.5, upper=2.0),
    ]
    for _ in range(int(rng.integers(0, 4))):
        constraints.append(pool[int(rng.integers(len(pool)))]())
    sizes = {}
    if rng.random() < 0.4:
        sizes["max_items"] = int(rng.integers(1, d + 1))
    if rng.random() < 0.2:
        sizes["min_items"] = min(int(rng.integers(1, 3)), sizes.get("max_items", d))
    if rng.random() < 0.2:
        sizes["max_m"] = int(rng.integers(1, 4))
    return ChecklistProblem(
        X,
        y,
        item_groups=item_groups,
        groups=groups,
        constraints=constraints,
        **kwargs,
        **sizes,
    )


def check_open_nodes(problem, search):
    """Every open node's bound is below each feasible checklist of its subtree, and a
    threshold pruned there has no feasible checklist below the node beating the
    incumbent."""
    names = problem.item_names
    index = {n: j for j, n in enumerate(names)}
    incumbent = search.incumbent_objective
    checked = 0
    for node in search.open_nodes():
        base = [index[i] for i in node.items]
        later = [index[i] for i in node.later_items]
        if len(later) > 12:
            continue
        masks = subset_masks(problem.n_items, later, base)
        masks = masks[masks.sum(axis=1) > len(base)]  # strict descendants
        if not len(masks):
            continue
        objective, feasible = score_all(problem, masks)
        values = np.where(feasible, objective, math.inf)
        best = values.min()
        assert min(node.lower_bound, incumbent) <= best * (1 + TOL) + 1e-12
        for M in range(1, problem.n_items + 1):
            if M not in node.alive:
                assert values[:, M].min() >= incumbent * (1 - TOL) - 1e-12
        checked += 1
    return checked
