"""Small compiled helpers of the exact checklist search: bit counts, bounds, tie order.

They are ``@njit`` functions that numba inlines into the loop of
:mod:`riskexplore.checklist.search.kernel`; ``nogil`` lets several searches run in
threads at once (:mod:`riskexplore.checklist.search.parallel`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

#: Options of every compiled function of the search.
JIT = {"cache": True, "nogil": True}


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction on CPUs that have it)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)

    return signature, codegen


@njit(**JIT)
def popcount(x):
    """Number of set bits of a uint64."""
    return _ctpop(x)


@njit(**JIT)
def cutoff(incumbent, slack):
    """Bounds at or above this value cannot beat the incumbent (float keys)."""
    if incumbent == np.inf:
        return incumbent
    return incumbent - slack * abs(incumbent)


@njit(**JIT)
def path_after(path, size, best_path, best_len):
    """Whether every checklist below the node ``path[:size]`` (positions) comes after the
    incumbent ``best_path[:best_len]`` in the canonical tie order (lexicographic)."""
    for k in range(size):
        if k >= best_len or path[k] > best_path[k]:
            return True
        if path[k] < best_path[k]:
            return False
    return size == best_len  # the incumbent itself: its descendants are longer


@njit(**JIT)
def beaten(lower, incumbent, slack, ties, path, size, best_path, best_len):
    """Whether a bound ``lower`` on a subtree rules it out.

    With exact keys (``ties``) an equal bound rules a subtree out only when all of it
    comes after the incumbent in the tie order, so that the answer is the same whatever
    order the subtrees are searched in (one worker or many).
    """
    if not ties:
        return lower >= cutoff(incumbent, slack)
    if lower != incumbent:
        return lower > incumbent
    return path_after(path, size, best_path, best_len)


@njit(**JIT)
def candidate_wins(key, incumbent, ties, path, size, best_path, best_len):
    """Whether the checklist ``path[:size]`` with ``key`` replaces the incumbent."""
    if key < incumbent:
        return True
    if not ties or key != incumbent or size != best_len:
        return False
    for k in range(size):
        if path[k] != best_path[k]:
            return path[k] < best_path[k]
    return False


@njit(**JIT)
def weighted(coef, counts):
    """``sum_w coef[w] * counts[w]``."""
    total = 0.0
    for w in range(coef.shape[0]):
        total += coef[w] * counts[w]
    return total


@njit(**JIT)
def errors_ok(errc, errneg, errpos, errconst, errlo, errhi, fixed_counts, free_counts, exact):
    """Whether every mistake row can still hold (``exact``: holds with no free rows)."""
    for e in range(errc.shape[0]):
        value = errconst[e] + weighted(errc[e], fixed_counts)
        if exact:
            if value > errhi[e] or value < errlo[e]:
                return False
        else:
            low = value + weighted(errneg[e], free_counts)
            high = value + weighted(errpos[e], free_counts)
            if low > errhi[e] or high < errlo[e]:
                return False
    return True


@njit(**JIT)
def rows_ok(rowsum, a_m, a_n, a_lo, a_hi, add_min, add_max, M, n_lo, n_hi):
    """Whether every item row can hold for some completion with ``n_lo..n_hi`` items
    (``add_min``/``add_max``: the least and most the later groups can add)."""
    for r in range(rowsum.shape[0]):
        value = rowsum[r] + a_m[r] * M
        low = value + add_min[r] + min(a_n[r] * n_lo, a_n[r] * n_hi)
        high = value + add_max[r] + max(a_n[r] * n_lo, a_n[r] * n_hi)
        if low > a_hi[r] or high < a_lo[r]:
            return False
    return True


@njit(**JIT)
def plane(T, v, top, w):
    """Word ``w`` of plane ``v`` of a thermometer whose planes above ``top`` were not
    written (no row of the node has more than ``top`` checked items there)."""
    if v > top:
        return np.uint64(0)
    return T[v, w]


@njit(**JIT)
def cell_gain(
    T, top, M, more, q, objc, entry_start, entry_word, entry_mask, entry_cell, cell_start,
    cell_reach, hist_pos, hist_neg, touched, mark,
):  # fmt: skip
    """Mistakes the equivalent-row cells force below a node, for threshold ``M``.

    ``T`` is the node's thermometer, ``more`` the most items a descendant adds and ``q``
    its first later group (see :mod:`riskexplore.checklist.search.cells`). Only rows
    that are *free* (below ``M`` now, able to reach it) count: the simpler bound counts
    none of their mistakes, so this is what the cells add to it (``>= 0``). ``hist_*``,
    ``touched`` and ``mark`` are scratch arrays, left zeroed.
    """
    first, last = entry_start[q], entry_start[q + 1]
    if first == last or more <= 0:
        return 0.0
    depth = min(more, M)
    base = cell_start[q]
    n_touched = 0
    for e in range(first, last):
        cell = entry_cell[e]
        r = min(depth, cell_reach[base + cell])
        if r == 0:
            continue
        w = entry_word[e]
        rows = entry_mask[e]
        coef = objc[w]
        above = plane(T, M, top, w)  # rows already at M are fixed
        for d in range(r):  # rows exactly d + 1 below M
            at_least = plane(T, M - 1 - d, top, w)
            bits = rows & at_least & ~above
            above = at_least
            if bits:
                if not mark[cell]:
                    mark[cell] = 1
                    touched[n_touched] = cell
                    n_touched += 1
                if coef < 0:
                    hist_pos[cell, d] -= coef * popcount(bits)
                else:
                    hist_neg[cell, d] += coef * popcount(bits)
    total = 0.0
    for k in range(n_touched):
        cell = touched[k]
        r = min(depth, cell_reach[base + cell])
        # a: how many of the added items the cell has; rows less than a below M reach it
        cost = 0.0
        for d in range(r):
            cost += hist_pos[cell, d]
        least = cost
        for a in range(1, r + 1):
            cost += hist_neg[cell, a - 1] - hist_pos[cell, a - 1]
            least = min(least, cost)
        total += least
        for d in range(r):
            hist_pos[cell, d] = 0.0
            hist_neg[cell, d] = 0.0
        mark[cell] = 0
    return total


@njit(**JIT)
def sibling_bound(X, objc, Tp, top, j, k, M, closed, floor):
    """Bound on the checklists ``S + j + l`` at threshold ``M`` from a sibling's.

    ``closed`` is the least key of the checklists ``S + k + l`` (``l`` any item of a later
    group) at ``M``, items ``j`` and ``k`` of one group, ``Tp`` the thermometer of ``S``
    (planes above ``top`` not written). A row is predicted alike by ``S + j + l`` and
    ``S + k + l`` unless it has exactly one of ``j`` and ``k`` and its count is ``M - 1``
    without them: ``M - 2`` or ``M - 1`` over ``S``. Of those, only the rows that ``j``
    gets right where ``k`` does not can make ``S + j + l`` better (positives with ``j``
    and not ``k``, negatives with ``k`` and not ``j``); the others only make it worse. So
    ``closed`` minus their weight bounds every ``S + j + l`` (MurTree's similarity bound,
    one-sided). Stops early, with a value below ``floor``, once the bound falls below
    ``floor``.
    """
    total = closed
    low = max(M - 2, 0)
    for w in range(X.shape[1]):
        if objc[w] < 0:  # positives: right when checked
            better = X[j, w] & ~X[k, w]
        else:
            better = X[k, w] & ~X[j, w]
        rows = better & plane(Tp, low, top, w) & ~plane(Tp, M, top, w)
        if rows:
            total -= abs(objc[w]) * popcount(rows)
            if total < floor:
                return total
    return total
