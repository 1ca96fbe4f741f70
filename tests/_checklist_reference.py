"""Reference answers for checklist tests: brute-force enumeration of every checklist.

Independent of the solvers: every subset of items and every threshold are scored with
plain numpy from the problem's data, size bounds and compiled rows, as
:meth:`ChecklistProblem.violations` defines feasibility.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from riskexplore.checklist.problem import ChecklistProblem, violation_slack


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
