"""The compiled depth-first loop of the exact checklist search (numba).

Everything here works on plain arrays prepared by :mod:`riskexplore.checklist.search.data`;
:mod:`riskexplore.checklist.search` explains the method and why its bounds are valid. Vocabulary:

* a *position* ``p`` is an allowed item, positions sorted by search group; a node's
  children add one item of a later group, so each subset is visited once and holds at
  most one item per group;
* the training rows (distinct item patterns with their label and group signature, weights
  summed) are bits of ``W`` 64-bit *words*; rows of one word share every coefficient, so a
  weighted sum over a row mask is ``sum_w coef[w] * popcount(mask[w])``;
* a node keeps its rows' checked counts as a *thermometer*: plane ``v`` holds the rows
  with at least ``v`` checked items (plane 0 is every row);
* ``alive[M]`` says whether threshold ``M`` can still give a checklist better than the
  incumbent (and within the constraints) somewhere below the node; it only shrinks going
  down, because forced mistakes only grow.

Objective values are *keys*: ``loss * S + c_n * N + c_m * M`` in the units chosen by the
caller (integers held exactly in float64 when the weights allow it), so comparisons give
the lexicographic order (errors, then fewer items, then smaller ``M``) without rounding.

Subtrees are ruled out by three bounds, cheapest first: the false positives already
fixed, then the positives that can no longer reach a threshold, then the mistakes that
the equivalent-row cells force (``bounds.cell_gain``).
A child's bound is at least its parent's (the parent's bounds its whole subtree). A
node whose children are leaves is also bounded by its searched siblings of the same group
(``bounds.sibling_bound``: their best leaf at each threshold, less the rows on which the
two items differ and that can still sit at the threshold); this needs every leaf's key,
so it is off with constraints and in collect mode.

A *leaf* (a child with no descendants: the checklist has the most items) only needs its
key at each threshold ``M``: its parent's, plus the weights of the rows one item below
``M`` that the new item checks (negative for positives), summed over the words that hold
such rows (positives first, then the negatives, whose terms only add) and left as soon as
it passes the incumbent, when the leaf cannot win; a leaf left early keeps that partial
key, which is at most its own, so the sibling bound built from it stays valid. With
mistake rows every leaf is counted in full.

The loop returns to Python after about ``budget`` nodes with its whole state in the
arrays, so the caller can report progress, honour a stop request and call it again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from riskexplore.checklist.search.bounds import (
    JIT,
    beaten,
    candidate_wins,
    cell_gain,
    errors_ok,
    popcount,
    rows_ok,
    sibling_bound,
)

#: Indices into the ``counters`` array shared with Python.
(
    NODES,
    LEVEL,
    IMPROVED,
    DONE,
    BEST_LEN,
    BEST_M,
    PHASE,
    N_FRONTIER,
    NEXT_FRONTIER,
    COLLECT,
    N_FOUND,
    TIES,
    CELL_BOUNDS,
    FLOOR,
    SIMILAR,
    SIBLING_PRUNED,
    N_DEFERRED,
    DEFER_DEPTH,
) = range(18)
N_COUNTERS = 18
#: Phases: build the frontier (every node at the frontier depth, with its bound), then
#: search below the frontier nodes in increasing order of bound.
BUILD, DESCEND = 0, 1


@njit(**JIT)
def _node_path(item_of, order, cursor, lvl, path):
    """Positions of the node being expanded at level ``lvl`` into ``path[:lvl]``."""
    for k in range(1, lvl + 1):
        path[k - 1] = item_of[k, order[k, cursor[k] - 1]]


@njit(**JIT)
def search(problem, cells, state, budget, slack, depth):
    """Run the search for about ``budget`` more nodes (see the module docstring).

    ``problem`` and ``cells`` are the tuples of :meth:`SearchData.kernel_arrays
    <riskexplore.checklist.search.data.SearchData.kernel_arrays>` and
    :meth:`Cells.arrays <riskexplore.checklist.search.cells.Cells.arrays>`; ``state`` is
    the search's own arrays (:meth:`riskexplore.checklist.search.driver.ExactSearch.state`).
    ``T[level, slot]`` holds the thermometer of a node (plane 0: every row, set by the
    caller); ``alive[level, slot, M]`` its thresholds alive below it and ``bound`` the
    least bound over them.

    The search runs in two phases (``counters[PHASE]``). BUILD is a depth-first search
    below the node at level ``counters[FLOOR]`` (the root, or one frontier node being
    refined) that stops at ``depth`` items: each node of that size with anything alive
    below it becomes a *frontier* node (``f_path``, ``f_len``, ``f_bound``, ``f_alive``;
    ``depth`` beyond the largest size turns the frontier off, and then BUILD is the whole
    search). The caller then orders the frontier by bound and sets DESCEND, which searches
    below each frontier node in turn (of any size), least bound first, so that the least
    open bound, hence the reported lower bound, rises steadily. Returns the least bound
    of the nodes still open within the current phase (the caller adds the frontier's).

    With ``counters[COLLECT]`` set, ``incumbent[0]`` is a fixed threshold instead: every
    feasible checklist whose key is below it is appended to ``found_path`` (positions),
    ``found_size`` (``N``, ``M``) and ``found_key`` (``counters[N_FOUND]`` of them), and
    only subtrees whose bound reaches it are pruned. The loop returns early when the
    buffer might not hold the next node's children; the caller empties it.

    With ``counters[TIES]`` set (exact keys), checklists of equal key are ordered by
    their positions and the smallest wins, whatever the order of the search.
    """
    (
        X, group_of, group_start, reach, free_words, objc, objneg, base, c_n, c_m,
        min_items, max_items, min_m, max_m, errc, errneg, errpos, errconst, errlo, errhi,
        A, a_m, a_n, a_lo, a_hi, add_min, add_max,
    ) = problem  # fmt: skip
    entry_start, entry_word, entry_mask, entry_cell, cell_start, cell_reach, most_gain = cells
    (
        T, rowsum, alive, bound, item_of, order, n_children, cursor, best_path, incumbent,
        counters, f_path, f_len, f_bound, f_alive, found_path, found_size, found_key,
        hist_pos, hist_neg, touched, mark, path, sib_n, sib_pos, sib_key,
        d_path, d_len, d_bound, d_alive, defer_at,
    ) = state  # fmt: skip
    n_positions = X.shape[0]
    n_groups = group_start.shape[0] - 1
    n_words = X.shape[1]
    n_planes = T.shape[2] - 1
    n_rows = A.shape[0]
    has_errors = errc.shape[0] > 0
    n_gain_words = 0  # words of positive rows come first (negative coefficients)
    while n_gain_words < n_words and objc[n_gain_words] < 0:
        n_gain_words += 1
    fixed_counts = np.zeros((n_planes + 1, n_words), dtype=np.int64)
    free_counts = np.zeros((n_planes + 1, n_words), dtype=np.int64)
    gained = np.zeros(n_planes + 1)  # weighted true positives (as negative numbers)
    flagged = np.zeros(n_planes + 1)  # weighted false positives
    to_gain = np.zeros(n_planes + 1)  # free positives (as negative numbers)
    thresholds = np.zeros(n_planes + 1, dtype=np.int64)
    pending = np.zeros(n_planes + 1, dtype=np.int64)
    lvl = counters[LEVEL]
    stop_at = counters[NODES] + budget
    building = counters[PHASE] == BUILD
    collecting = counters[COLLECT] == 1
    ties = counters[TIES] == 1 and not collecting
    capacity = found_key.shape[0]
    # the sibling bound needs every leaf's key to bound its checklists: no constraint
    # may have ruled one out
    similar = counters[SIMILAR] == 1 and not collecting and n_rows == 0 and not has_errors
    leaf_min = np.zeros(n_planes + 1)  # least key of the leaves, by threshold
    # leaves, by threshold: the rows one item below it and the words that hold some
    below = np.zeros((n_planes + 1, n_words), dtype=np.uint64)
    below_words = np.zeros((n_planes + 1, n_words), dtype=np.int64)
    n_below = np.zeros((n_planes + 1, 2), dtype=np.int64)  # gain words, all words
    at_loss = np.zeros(n_planes + 1)  # the loss of the rows already at the threshold
    # a node of a bound at least defer_at[0] (and of at most DEFER_DEPTH items, below the
    # frontier node) goes to the deferred list when its turn comes, after its searched
    # siblings had their say: the caller searches it later, least bound first, so the
    # least open bound rises like a best-first search's
    deferring = not building and not collecting and defer_at[0] < np.inf
    # a deferred node keeps its full bound (cells included), as a frontier node does:
    # it is the reported lower bound until the node is searched
    defer_depth = counters[DEFER_DEPTH]
    defer_room = d_bound.shape[0]
    while counters[NODES] < stop_at:
        if cursor[lvl] >= n_children[lvl]:
            if lvl > counters[FLOOR]:  # the level whose list ends the current subtree
                lvl -= 1
                continue
            nxt = counters[NEXT_FRONTIER]
            if not building and nxt < counters[N_FRONTIER] and f_bound[nxt] > defer_at[1]:
                break  # a deferred node comes first: the caller merges them in
            if building or not _load_frontier(
                X, T[0, 0, 0], A, T, rowsum, alive, bound, item_of, order, n_children,
                cursor, incumbent, counters, slack, f_path, f_len, f_bound, f_alive,
                best_path, ties, path, sib_n,
            ):  # fmt: skip
                counters[DONE] = 1
                break
            lvl = counters[FLOOR]
            continue
        slot = order[lvl, cursor[lvl]]
        parent_bound = bound[lvl, slot]
        if lvl > 0:
            _node_path(item_of, order, cursor, lvl - 1, path)
            path[lvl - 1] = item_of[lvl, slot]
        if beaten(
            parent_bound, incumbent[0], slack, ties, path, lvl, best_path, counters[BEST_LEN]
        ):
            if not ties or parent_bound > incumbent[0]:
                cursor[lvl] = n_children[lvl]  # sorted: the rest is no better
            else:
                cursor[lvl] += 1  # a tie after the incumbent: the next may come before
            continue
        if lvl >= max_items:
            cursor[lvl] += 1
            continue
        if similar and lvl + 1 == max_items and sib_n[lvl] > 0:
            up = order[lvl - 1, cursor[lvl - 1] - 1]  # the node whose children these are
            if _siblings_close(
                X, objc, group_of, T[lvl - 1, up], lvl - 1, item_of[lvl, slot], alive[lvl, slot],
                sib_n[lvl], sib_pos[lvl], sib_key[lvl], incumbent[0], slack, ties, path, lvl,
                best_path, counters[BEST_LEN],
            ):  # fmt: skip
                counters[SIBLING_PRUNED] += 1
                cursor[lvl] += 1
                continue
        if deferring and counters[FLOOR] < lvl <= defer_depth and parent_bound >= defer_at[0]:
            if counters[N_DEFERRED] >= defer_room:
                break  # the caller empties the list, then this node is deferred
            _defer(lvl, path, slot, bound, alive, counters, d_path, d_len, d_bound, d_alive)
            cursor[lvl] += 1
            continue
        parent_pos = item_of[lvl, slot]
        first = 0 if parent_pos < 0 else group_start[group_of[parent_pos] + 1]
        if collecting and counters[N_FOUND] + (n_positions - first) * n_planes > capacity:
            break  # the caller empties the buffer, then this node is expanded
        # children of this size go to the frontier (sized by the caller to hold every
        # subset of that size)
        to_frontier = building and lvl + 1 == depth
        cursor[lvl] += 1
        parent_T = T[lvl, slot]
        n_thresholds = 0
        for M in range(min_m, max_m + 1):
            if alive[lvl, slot, M]:
                thresholds[n_thresholds] = M
                n_thresholds += 1
        size = lvl + 1
        # planes above the largest alive threshold are never read below this node
        top = min(size, thresholds[n_thresholds - 1]) if n_thresholds else 0
        n_reached = 0  # thresholds a checklist of this size can reach (M <= size)
        while n_reached < n_thresholds and thresholds[n_reached] <= size:
            n_reached += 1
        if has_errors:
            fixed_counts[:] = 0
        kept = 0
        leaves = size == max_items  # the children have no descendants
        for i in range(n_thresholds):
            leaf_min[i] = np.inf
        # leaves without mistake rows: a leaf's key is its parent's at M plus the rows one
        # item below M that it checks, summed from the words that hold some, and left
        # once it passes the incumbent (every such leaf loses)
        fast_leaves = leaves and not has_errors
        if fast_leaves:
            _leaf_tables(
                parent_T, objc, thresholds, n_reached, n_gain_words, base, below,
                below_words, n_below, at_loss,
            )  # fmt: skip
        for pos in range(first, n_positions):
            counters[NODES] += 1
            path[lvl] = pos
            best_len = counters[BEST_LEN]
            # the child (the node plus item pos) goes to slot `kept` of the next level
            child_T = T[lvl + 1, kept]
            for i in range(n_thresholds):
                gained[i] = 0.0
                flagged[i] = 0.0
                to_gain[i] = 0.0
            if fast_leaves:
                for i in range(n_reached):
                    M = thresholds[i]
                    limit = incumbent[0] - c_n * size - c_m * M
                    loss = _leaf_loss(
                        X, pos, objc, below[i], below_words[i], n_below[i], at_loss[i], limit
                    )
                    gained[i] = loss - base  # the loss is read as base + gained + flagged
            else:
                for w in range(n_words):
                    bits = X[pos, w]
                    coef = objc[w]
                    if not leaves:
                        # planes above `top` are never read (stale, or 0 from the start)
                        for v in range(top, 0, -1):
                            child_T[v, w] = parent_T[v, w] | (parent_T[v - 1, w] & bits)
                    for i in range(n_reached):
                        M = thresholds[i]
                        if leaves:  # no descendants: only its counts at the thresholds matter
                            count = popcount(parent_T[M, w] | (parent_T[M - 1, w] & bits))
                        else:
                            count = popcount(child_T[M, w])
                        if has_errors:
                            fixed_counts[i, w] = count
                        if w < n_gain_words:
                            gained[i] += coef * count
                        else:
                            flagged[i] += coef * count
            for r in range(n_rows):
                rowsum[lvl + 1, kept, r] = rowsum[lvl, slot, r] + A[r, pos]
            g = group_of[pos]
            more = min(max_items - size, n_groups - g - 1)
            desc_lo = max(size + 1, min_items)
            desc_hi = size + more
            # the child's own checklists, and which thresholds need the free rows
            for M in range(min_m, max_m + 1 if not leaves else min_m):
                alive[lvl + 1, kept, M] = 0  # the slot may hold an earlier node's
            n_pending = 0
            for i in range(n_thresholds):
                M = thresholds[i]
                loss = base + gained[i] + flagged[i]
                if M <= size and size >= min_items:
                    key = loss + c_n * size + c_m * M
                    if key < leaf_min[i]:
                        leaf_min[i] = key
                    wins = candidate_wins(key, incumbent[0], ties, path, size, best_path, best_len)
                    if wins or (collecting and key < incumbent[0]):
                        ok = True
                        for r in range(n_rows):
                            value = rowsum[lvl + 1, kept, r] + a_m[r] * M + a_n[r] * size
                            if value < a_lo[r] or value > a_hi[r]:
                                ok = False
                                break
                        if ok and has_errors:
                            ok = errors_ok(
                                errc, errneg, errpos, errconst, errlo, errhi,
                                fixed_counts[i], free_counts[i], True,
                            )  # fmt: skip
                        if ok and collecting:
                            f = counters[N_FOUND]
                            found_path[f, :size] = path[:size]
                            found_size[f, 0] = size
                            found_size[f, 1] = M
                            found_key[f] = key
                            counters[N_FOUND] = f + 1
                        elif ok:
                            incumbent[0] = key
                            best_path[:size] = path[:size]
                            counters[BEST_LEN] = size
                            best_len = size
                            counters[BEST_M] = M
                            counters[IMPROVED] += 1
                if M > desc_hi or desc_lo > desc_hi:
                    continue
                # false positives alone (before the costlier false-negative bound)
                n_min = max(desc_lo, M)
                fp_bound = max(flagged[i] + c_n * n_min + c_m * M, parent_bound)
                if beaten(fp_bound, incumbent[0], slack, ties, path, size, best_path, best_len):
                    continue
                pending[n_pending] = i
                n_pending += 1
            # free rows: not yet at M but able to get there with `more` items of later
            # groups (count + min(more, reach) >= M)
            if n_pending:
                reach_g = reach[g + 1]
                for k in range(free_words.shape[0]):
                    w = free_words[k]
                    for j in range(n_pending):
                        i = pending[j]
                        M = thresholds[i]
                        can = np.uint64(0)
                        for a in range(max(M - more, 0), M):
                            can |= child_T[a, w] & reach_g[M - a, w]
                        count = popcount(can & ~child_T[M, w])
                        free_counts[i, w] = count
                        to_gain[i] += objneg[w] * count
            best_bound = np.inf
            any_alive = False
            for j in range(n_pending):
                i = pending[j]
                M = thresholds[i]
                n_min = max(desc_lo, M)
                lower = base + gained[i] + flagged[i] + to_gain[i] + c_n * n_min + c_m * M
                lower = max(lower, parent_bound)
                if beaten(lower, incumbent[0], slack, ties, path, size, best_path, best_len):
                    continue
                if n_rows and not rows_ok(
                    rowsum[lvl + 1, kept], a_m, a_n, a_lo, a_hi, add_min[g + 1],
                    add_max[g + 1], M, n_min, desc_hi,
                ):  # fmt: skip
                    continue
                if has_errors and not errors_ok(
                    errc, errneg, errpos, errconst, errlo, errhi, fixed_counts[i],
                    free_counts[i], False,
                ):  # fmt: skip
                    continue
                # frontier nodes keep their full bound (it is the reported lower
                # bound); below them, the cells only where they can prune
                capped = lower + most_gain[g + 1]
                if entry_start[g + 2] > entry_start[g + 1] and (
                    building
                    or (deferring and size <= defer_depth and capped >= defer_at[0])
                    or beaten(capped, incumbent[0], slack, ties, path, size, best_path, best_len)
                ):
                    counters[CELL_BOUNDS] += 1
                    extra = cell_gain(
                        child_T, top, M, more, g + 1, objc, entry_start, entry_word,
                        entry_mask, entry_cell, cell_start, cell_reach, hist_pos, hist_neg,
                        touched, mark,
                    )  # fmt: skip
                    lower = max(
                        base + gained[i] + flagged[i] + to_gain[i] + extra + c_n * n_min
                        + c_m * M,
                        parent_bound,
                    )  # fmt: skip
                    if beaten(lower, incumbent[0], slack, ties, path, size, best_path, best_len):
                        continue
                alive[lvl + 1, kept, M] = 1
                any_alive = True
                if lower < best_bound:
                    best_bound = lower
            bound[lvl + 1, kept] = best_bound
            if any_alive and to_frontier:
                f = counters[N_FRONTIER]
                f_path[f, :size] = path[:size]
                f_len[f] = size
                f_bound[f] = best_bound
                for M in range(min_m, max_m + 1):
                    f_alive[f, M] = alive[lvl + 1, kept, M]
                counters[N_FRONTIER] = f + 1
            elif any_alive:
                item_of[lvl + 1, kept] = pos
                kept += 1
        if similar and leaves and lvl > 0:  # the least key of each threshold below it
            k = sib_n[lvl]
            sib_pos[lvl, k] = parent_pos
            sib_key[lvl, k, :] = -np.inf  # thresholds not alive here: unknown
            for i in range(n_thresholds):
                sib_key[lvl, k, thresholds[i]] = leaf_min[i]
            sib_n[lvl] = k + 1
        sib_n[lvl + 1] = 0  # a new list of children at the next level
        if kept:
            ranked = np.argsort(bound[lvl + 1, :kept], kind="mergesort")
            for i in range(kept):
                order[lvl + 1, i] = ranked[i]
            n_children[lvl + 1] = kept
            cursor[lvl + 1] = 0
            lvl += 1
    counters[LEVEL] = lvl
    return open_bound(bound, order, n_children, cursor, lvl)


@njit(**JIT)
def _leaf_tables(
    parent_T, objc, thresholds, n_reached, n_gain_words, base, below, below_words, n_below,
    at_loss,
):  # fmt: skip
    """For each threshold a leaf can reach: the rows one item below it (``below``), the
    words that hold some (gain words first, ``n_below``: how many of each) and the loss
    of the parent's rows already at it (``at_loss``)."""
    n_words = objc.shape[0]
    for i in range(n_reached):
        M = thresholds[i]
        loss = base
        n = 0
        n_below[i, 0] = 0
        for w in range(n_words):
            at = parent_T[M, w]
            if at:
                loss += objc[w] * popcount(at)
            rows = parent_T[M - 1, w] & ~at
            below[i, w] = rows
            if rows:
                below_words[i, n] = w
                n += 1
                if w < n_gain_words:  # words are listed in order: gain words first
                    n_below[i, 0] = n
        n_below[i, 1] = n
        at_loss[i] = loss


@njit(**JIT)
def _leaf_loss(X, pos, objc, below, words, n_below, loss, limit):
    """The loss of the leaf that adds position ``pos`` (see ``_leaf_tables``), or a value
    above ``limit`` that is at most it: once the gains are in, every word only adds."""
    for k in range(n_below[0]):
        w = words[k]
        loss += objc[w] * popcount(below[w] & X[pos, w])
    if loss > limit:
        return loss
    for k in range(n_below[0], n_below[1]):
        w = words[k]
        bits = below[w] & X[pos, w]
        if bits:
            loss += objc[w] * popcount(bits)
            if loss > limit:
                return loss
    return loss


@njit(**JIT)
def _defer(lvl, path, slot, bound, alive, counters, d_path, d_len, d_bound, d_alive):
    """Append the node at ``lvl``, ``slot`` (items ``path[:lvl]``) to the deferred list."""
    d = counters[N_DEFERRED]
    d_path[d, :lvl] = path[:lvl]
    d_len[d] = lvl
    d_bound[d] = bound[lvl, slot]
    d_alive[d, :] = alive[lvl, slot]
    counters[N_DEFERRED] = d + 1


@njit(**JIT)
def _load_frontier(
    X, valid, A, T, rowsum, alive, bound, item_of, order, n_children, cursor, incumbent,
    counters, slack, f_path, f_len, f_bound, f_alive, best_path, ties, path, sib_n,
):  # fmt: skip
    """Put the next frontier node that can still beat the incumbent at the level of its
    size (its ancestors above it, as if just expanded; ``counters[FLOOR]``: that level);
    False when none is left."""
    f = counters[NEXT_FRONTIER]
    while f < counters[N_FRONTIER]:
        depth = f_len[f]
        path[:depth] = f_path[f, :depth]
        if not beaten(
            f_bound[f], incumbent[0], slack, ties, path, depth, best_path, counters[BEST_LEN]
        ):
            break
        if not ties or f_bound[f] > incumbent[0]:
            f = counters[N_FRONTIER]  # sorted: the rest is no better
            break
        f += 1
    if f >= counters[N_FRONTIER]:
        counters[NEXT_FRONTIER] = counters[N_FRONTIER]
        return False
    counters[NEXT_FRONTIER] = f + 1
    place_node(X, valid, A, T, rowsum, alive, bound, item_of, order, n_children, cursor,
               counters, f_path, f_len, f_bound, f_alive, f, sib_n)  # fmt: skip
    return True


@njit(**JIT)
def _siblings_close(
    X, objc, group_of, Tp, top, j, alive, n_sib, sib_pos, sib_key, incumbent, slack, ties,
    path, size, best_path, best_len,
):  # fmt: skip
    """Whether the searched siblings of node ``j`` (whose children are leaves) rule out
    everything below it (``bounds.sibling_bound``); thresholds they rule out are
    cleared from ``alive``."""
    any_alive = False
    for M in range(alive.shape[0]):
        if not alive[M]:
            continue
        for s in range(n_sib):
            k = sib_pos[s]
            closed = sib_key[s, M]
            if group_of[k] != group_of[j] or closed == -np.inf:
                continue
            lower = sibling_bound(X, objc, Tp, top, j, k, M, closed, incumbent)
            if lower >= incumbent and beaten(
                lower, incumbent, slack, ties, path, size, best_path, best_len
            ):
                alive[M] = 0
                break
        if alive[M]:
            any_alive = True
    return not any_alive


@njit(**JIT)
def place_node(
    X, valid, A, T, rowsum, alive, bound, item_of, order, n_children, cursor, counters,
    f_path, f_len, f_bound, f_alive, f, sib_n,
):  # fmt: skip
    """Make frontier node ``f`` the node to expand at the level of its size, its
    ancestors above it as if just expanded (``counters[FLOOR]``: that level)."""
    depth = f_len[f]
    counters[FLOOR] = depth
    counters[LEVEL] = depth
    n_planes = T.shape[2] - 1
    node = T[depth, 0]
    for v in range(1, n_planes + 1):
        node[v, :] = 0
    node[0, :] = valid
    for r in range(A.shape[0]):
        rowsum[depth, 0, r] = 0.0
    for k in range(depth):
        pos = f_path[f, k]
        for v in range(min(k + 1, n_planes), 0, -1):
            for w in range(valid.shape[0]):
                node[v, w] |= node[v - 1, w] & X[pos, w]
        for r in range(A.shape[0]):
            rowsum[depth, 0, r] += A[r, pos]
        item_of[k + 1, 0] = pos
        order[k + 1, 0] = 0
        n_children[k + 1] = 1
        cursor[k + 1] = 1
    n_children[depth] = 1
    cursor[depth] = 0
    bound[depth, 0] = f_bound[f]
    sib_n[:] = 0  # a new subtree: no sibling searched yet
    alive[depth, 0, :] = f_alive[f]


@njit(**JIT)
def open_bound(bound, order, n_children, cursor, lvl):
    """Least bound of the nodes not yet expanded (each bounds its whole subtree)."""
    least = np.inf
    for k in range(lvl + 1):
        if cursor[k] < n_children[k]:
            value = bound[k, order[k, cursor[k]]]
            if value < least:
                least = value
    return least
