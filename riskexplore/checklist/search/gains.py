"""The coverage bound: what any completion of a node can still gain, item by item.

Below a node ``S`` (row counts ``c``) whose descendants add the items ``T'`` (at most
``R`` of them, one per later group), threshold ``M`` turns

* a positive of count ``M - d`` (``1 <= d <= R``) into a true positive only if at least
  ``d`` items of ``T'`` check it, so the new true positives weigh at most
  ``sum_{l in T'} tp_l`` with ``tp_l = sum_d w(positives at M - d checked by l) / d``;
* a negative of count ``M - 1`` into a false positive as soon as one item of ``T'`` checks
  it, so the new false positives weigh at least ``max_{l in T'} fp_l`` with
  ``fp_l = w(negatives at M - 1 checked by l)``.

Every descendant's loss at ``M`` is therefore at least ``loss_S(M) - (sum tp - max fp)``.
For the subtree of a child ``S + j`` (``T' = {j} + T``, ``T`` at most ``k`` items of the
groups after ``j``'s) two relaxations of ``max fp`` give the *gain* it can reach at most:

* ``max fp >= fp_j``: ``tp_j - fp_j + (the k largest tp of the later groups)``;
* ``max fp >= (sum fp) / R``: ``tp_j - fp_j / R + (the k largest (tp_l - fp_l / R)^+)``;

and the bound is ``loss_S(M)`` less the smaller of the two. Items of one column are
nested (``x >= a`` checks a subset of the rows ``x >= b`` checks when ``a > b``), so a
wide item that reaches many positives also flags many negatives that sit one below the
threshold: the bound sees that trade, which the reach of the free rows (a row checked by
*some* item of each later group, every row when a column brings ``x >= t`` and its
complement ``x < t``) cannot. Each later group contributes its best item only, which is
what one item per group allows.

:func:`item_gains` computes ``tp``, ``fp`` and the node's loss at each alive threshold
from its thermometer, and :func:`top_sums` the sums of the ``k`` largest per-group
values of the groups from each one on; :func:`gain_bound` combines them for one child.
"""

from __future__ import annotations

from numba import njit

from riskexplore.checklist.search.bounds import JIT, plane, popcount

__all__ = ["gain_bound", "item_gains", "top_sums"]

#: Relative margin kept below a gain bound: it divides weights by small integers, so its
#: float sum may round up by a few ulps.
_MARGIN = 1e-11


@njit(**JIT)
def item_gains(X, objc, n_gain_words, Tp, ptop, reach_g, first, thresholds, n_thresholds, R,
               masks, tp, fp, loss_now, base):  # fmt: skip
    """``tp[l, i]``, ``fp[l, i]`` (positions ``l >= first``) and ``loss_now[i]`` (the node's
    loss) at each alive threshold ``thresholds[i]``, in key units (see the module docstring).

    ``Tp`` is the node's thermometer (planes above ``ptop`` not written), ``reach_g`` the
    reach of the groups after the node's last (a positive ``d`` below ``M`` counts only if
    it has checked items in ``d`` of them), ``R`` the most items a descendant adds;
    ``masks`` is scratch (thresholds x (R + 1) x words).
    """
    n_words = X.shape[1]
    for i in range(n_thresholds):
        M = thresholds[i]
        total = base
        depth = min(R, M)
        for w in range(n_words):
            at_m = plane(Tp, M, ptop, w)
            total += objc[w] * popcount(at_m)
            if w < n_gain_words:
                above = at_m
                for d in range(1, depth + 1):
                    at_least = plane(Tp, M - d, ptop, w)
                    masks[i, d, w] = at_least & ~above & reach_g[d, w]
                    above = at_least
            else:
                masks[i, 0, w] = plane(Tp, M - 1, ptop, w) & ~at_m
        loss_now[i] = total
    for pos in range(first, X.shape[0]):
        for i in range(n_thresholds):
            depth = min(R, thresholds[i])
            gain = 0.0
            flag = 0.0
            for w in range(n_words):
                bits = X[pos, w]
                if w < n_gain_words:
                    for d in range(1, depth + 1):
                        gain -= objc[w] * popcount(bits & masks[i, d, w]) / d
                else:
                    flag += objc[w] * popcount(bits & masks[i, 0, w])
            tp[pos, i] = gain
            fp[pos, i] = flag


@njit(**JIT)
def top_sums(tp, fp, group_start, g_first, n_thresholds, R, K, top_a, top_b, suf_a, suf_b):
    """``suf_a[g, i, k]`` / ``suf_b[g, i, k]``: the sum of the ``k`` (``<= K``) largest
    per-group values ``max_l tp`` / ``max_l (tp - fp / R)^+`` of the groups ``g, g + 1,
    ...`` (down to ``g_first``; row ``n_groups`` is 0). ``top_*`` are scratch
    (thresholds x K), sorted decreasing."""
    n_groups = group_start.shape[0] - 1
    for i in range(n_thresholds):
        for k in range(K + 1):
            suf_a[n_groups, i, k] = 0.0
            suf_b[n_groups, i, k] = 0.0
        for k in range(K):
            top_a[i, k] = 0.0
            top_b[i, k] = 0.0
    for g in range(n_groups - 1, g_first - 1, -1):
        for i in range(n_thresholds):
            best_a = 0.0
            best_b = 0.0
            for pos in range(group_start[g], group_start[g + 1]):
                best_a = max(best_a, tp[pos, i])
                best_b = max(best_b, tp[pos, i] - fp[pos, i] / R)
            _insert(top_a[i], K, best_a)
            _insert(top_b[i], K, best_b)
            total_a = 0.0
            total_b = 0.0
            suf_a[g, i, 0] = 0.0
            suf_b[g, i, 0] = 0.0
            for k in range(K):
                total_a += top_a[i, k]
                total_b += top_b[i, k]
                suf_a[g, i, k + 1] = total_a
                suf_b[g, i, k + 1] = total_b


@njit(**JIT)
def _insert(top, K, value):
    """Insert ``value`` into ``top[:K]`` (sorted decreasing), dropping the smallest."""
    k = K
    while k > 0 and top[k - 1] < value:
        if k < K:
            top[k] = top[k - 1]
        k -= 1
    if k < K:
        top[k] = value


@njit(**JIT)
def gain_bound(loss_now, tp_j, fp_j, suf_a, suf_b, R):
    """Least loss below the child ``S + j`` at one threshold: ``loss_now`` (the node's)
    less the most its completions can gain (``suf_*``: the later groups' top sums for
    the child's number of further items)."""
    gain = min(tp_j - fp_j + suf_a, tp_j - fp_j / R + suf_b)
    value = loss_now - gain
    return value - _MARGIN * (abs(loss_now) + abs(tp_j) + abs(fp_j) + suf_a + suf_b + 1.0)
