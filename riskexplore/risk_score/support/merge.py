"""The rows of a support's regression, merged by their values on it (numba).

A support ``S`` of a few features with few values each (binary ones, say) splits the data
into at most ``2 prod K_j`` *patterns*: a value on each feature of ``S`` and a label. The
kernel's Newton method (:mod:`riskexplore.risk_score.support.kernel`) then runs on one row
per value pattern, with its weight and its share of positive weight, instead of on every
row. The screen merges millions of supports in lexicographic order, so consecutive ones
share all features but the last one or two, and the merge is built to reuse that:

* the rows' pattern codes on a support's first features are kept (``levels``) and only
  the changed features are added;
* when the last feature is binary, the weight of each pattern of the other features is
  summed once, and a support reads only the rows that take its last feature's rarer value
  (``split``; on one-hot data a few hundred rows instead of every row);
* when the last two features are binary and their rarer values' rows are intersected in
  advance (``pairs``), the first features' patterns are summed once for every pair after
  them, the rows of each last feature once for those, and a support reads only the rows
  that take both rarer values. The four halves of each pattern then follow from
  differences of those sums.

A half that is zero may come out of a difference as a rounding error (relative 1e-16);
weights below 1e-12 of their pattern's are taken as zero so that no such pattern appears.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from riskexplore.risk_score.support.entropy import pattern_entropy

__all__ = ["PAIR_BUDGET", "PATTERN_CAP", "gather_rows", "row_splits"]

#: Merge rows only when a support's value patterns are at most this many.
PATTERN_CAP = 2048
#: The pair split is used when the first features (and the label) make at most this many
#: patterns (five binary features and the label).
PAIR_CODES = 64
#: Largest number of row indices kept for the intersections of pairs (int32 each).
PAIR_BUDGET = 20_000_000
#: Largest number of features for which intersections of pairs are built.
PAIR_FEATURES = 400


@njit(cache=True)
def merges_exactly(feats, k, K, n):
    """Whether the values of ``feats[:k]`` make at most :data:`PATTERN_CAP` patterns and
    at most ``n`` (the rows), so that merging the rows by them pays."""
    prod = 1
    for q in range(k):
        prod *= K[feats[q]]
        if prod > PATTERN_CAP or prod > n:
            return False
    return True


@njit(cache=True)
def _codes(feats, depth, k, VT, K, levels, cached):
    """Pattern codes of the rows on ``feats[:depth]`` (with the label as lowest bit).

    ``levels[q]`` keeps the codes on ``feats[:q + 1]`` and ``cached`` the features they
    were built for, so consecutive supports with a common prefix only add their changed
    features. Returns the number of patterns on all ``k`` features (``2 * prod K``), or
    -1 when they exceed :data:`PATTERN_CAP` or the number of rows.
    """
    n = VT.shape[1]
    if not merges_exactly(feats, k, K, n):
        return -1
    prod = 1
    for q in range(k):
        prod *= K[feats[q]]
    same = 0
    while same < depth and cached[same] == feats[same]:
        same += 1
    label = VT[VT.shape[0] - 1]
    r = 2
    for q in range(same):
        r *= K[feats[q]]
    for q in range(same, depth):
        col = VT[feats[q]]
        out = levels[q]
        if q == 0:
            for i in range(n):
                out[i] = label[i] + col[i] * r
        else:
            prev = levels[q - 1]
            for i in range(n):
                out[i] = prev[i] + col[i] * r
        r *= K[feats[q]]
        cached[q] = feats[q]
    for q in range(depth, cached.shape[0]):
        cached[q] = -1
    return 2 * prod


@njit(cache=True)
def _coded(depth, VT, levels):
    """The rows' codes on the first ``depth`` features of the support (and the label)."""
    return levels[depth - 1] if depth > 0 else VT[VT.shape[0] - 1]


@njit(cache=True)
def _prefix_codes(feats, depth, K):
    """Number of codes on ``feats[:depth]`` and the label."""
    r = 2
    for q in range(depth):
        r *= K[feats[q]]
    return r


@njit(cache=True)
def _sum_by_code(codes, w, scratch, out, count):
    """``out[c]`` = the weight of the rows with code ``c`` (for ``c < count``)."""
    # four interleaved sums per code: consecutive rows often share a code, and one sum
    # would make every addition wait for the one before
    scratch[: 4 * count] = 0.0
    for i in range(codes.shape[0]):
        scratch[4 * codes[i] + (i & 3)] += w[i]
    _fold(scratch, out, count)


@njit(cache=True)
def _sum_rows_by_code(codes, w, rows, lo, hi, scratch, out, count):
    """``out[c]`` = the weight of the rows ``rows[lo:hi]`` with code ``c``."""
    scratch[: 4 * count] = 0.0
    for t in range(lo, hi):
        i = rows[t]
        scratch[4 * codes[i] + (t & 3)] += w[i]
    _fold(scratch, out, count)


@njit(cache=True)
def _fold(scratch, out, count):
    """Add up the four interleaved sums of each code."""
    for c in range(count):
        out[c] = scratch[4 * c] + scratch[4 * c + 1] + scratch[4 * c + 2] + scratch[4 * c + 3]


@njit(cache=True)
def _same_key(key, feats, depth):
    """Whether ``key`` holds ``feats[:depth]`` (and records it if not)."""
    same = key[0] == depth
    for q in range(depth):
        same = same and key[q + 1] == feats[q]
    if not same:
        key[0] = depth
        for q in range(depth):
            key[q + 1] = feats[q]
    return same


@njit(cache=True)
def _half(value, whole):
    """A difference of sums that should be a weight: zero when it is rounding error."""
    return value if value > 1e-12 * whole else 0.0


@njit(cache=True)
def _merge_all(feats, k, VT, K, w, levels, acc, scratch, patterns):
    """Pattern weights by one pass over every row (the last feature added on the way)."""
    if k == 0:
        _sum_by_code(VT[VT.shape[0] - 1], w, scratch, acc, 2)
        return
    r = _prefix_codes(feats, k - 1, K)
    col = VT[feats[k - 1]]
    prev = _coded(k - 1, VT, levels)
    scratch[: 4 * patterns] = 0.0
    for i in range(prev.shape[0]):
        scratch[4 * (prev[i] + col[i] * r) + (i & 3)] += w[i]
    _fold(scratch, acc, patterns)


@njit(cache=True)
def _split_last(feats, k, VT, K, w, split, levels, acc, ws):
    """Pattern weights when the last feature is binary: split the first features'
    patterns by reading only the rows of the last feature's rarer value."""
    rare, starts, rows = split[0], split[1], split[2]
    sums, key, scratch = ws[0], ws[1], ws[2]
    r = _prefix_codes(feats, k - 1, K)
    prev = _coded(k - 1, VT, levels)
    if not _same_key(key, feats, k - 1):
        _sum_by_code(prev, w, scratch, sums, r)
    j = feats[k - 1]
    part = ws[8]
    _sum_rows_by_code(prev, w, rows, starts[j], starts[j + 1], scratch, part, r)
    v = rare[j]
    for c in range(r):
        acc[c + v * r] = part[c]
        acc[c + (1 - v) * r] = _half(sums[c] - part[c], sums[c])


@njit(cache=True)
def _pair_index(a, b, d):
    """Index of the pair ``{a, b}`` (``a != b``) among the ``d (d - 1) / 2`` pairs."""
    if a > b:
        a, b = b, a
    return a * d - a * (a + 1) // 2 + (b - a - 1)


@njit(cache=True)
def _rare_sums(feats, k, f, VT, w, split, levels, ws, r):
    """Make sure ``ws[3]`` holds the weights of the first ``k - 2`` features' patterns
    and ``ws[5][f]`` those of feature ``f``'s rarer rows (each summed once a prefix)."""
    starts, rows = split[1], split[2]
    scratch, sums, key, S, stamp, version = ws[2], ws[3], ws[4], ws[5], ws[6], ws[7]
    codes = _coded(k - 2, VT, levels)
    if not _same_key(key, feats, k - 2):
        _sum_by_code(codes, w, scratch, sums, r)
        version[0] += 1
    if stamp[f] != version[0]:
        _sum_rows_by_code(codes, w, rows, starts[f], starts[f + 1], scratch, S[f], r)
        stamp[f] = version[0]


@njit(cache=True)
def _information(feats, k, f, VT, w, split, levels, ws, r):
    """``(I(X_f; Y | X_P), H(X_f | X_P, Y))`` for ``P = feats[:k - 2]``, from the sums of
    :func:`_rare_sums` (kept per prefix like them)."""
    _rare_sums(feats, k, f, VT, w, split, levels, ws, r)
    info, stamp, version = ws[9], ws[10], ws[7]
    if stamp[f] != version[0]:
        sums, Sf = ws[3], ws[5][f]
        gain = spread = 0.0
        for c in range(0, r, 2):  # a pattern's negative, then positive weight
            neg, pos = sums[c], sums[c + 1]
            on, op = _half(neg - Sf[c], neg), _half(pos - Sf[c + 1], pos)
            gain += pattern_entropy(neg, pos) - pattern_entropy(Sf[c], Sf[c + 1])
            gain -= pattern_entropy(on, op)
            spread += pattern_entropy(Sf[c], on) + pattern_entropy(Sf[c + 1], op)
        info[f, 0], info[f, 1] = max(gain, 0.0), spread
        stamp[f] = version[0]
    return info[f, 0], info[f, 1]


@njit(cache=True)
def prefix_entropy(feats, k, VT, K, w, split, levels, cached, ws):
    """``H(Y | X_Q)`` for ``Q = feats[:k - 1]``
    (:mod:`~riskexplore.risk_score.support.entropy`), or ``-1`` when the pair split does
    not apply to the support ``feats[:k]``.

    With ``P = feats[:k - 2]`` and ``a = feats[k - 2]`` it is ``H(Y | X_P) - I(Y; X_a |
    X_P)``, read from ``a``'s rarer rows summed by ``P``'s patterns: the sums the pair split
    keeps anyway, so a support that is not ruled out costs no second pass.
    """
    if (
        not _pair_split_applies(feats, k, K, split)
        or _codes(feats, k - 2, k, VT, K, levels, cached) < 0
    ):
        return -1.0
    r = _prefix_codes(feats, k - 2, K)
    gain_a = _information(feats, k, feats[k - 2], VT, w, split, levels, ws, r)[0]
    memo, version = ws[11], ws[7]
    if memo[1] != version[0]:  # H(Y | X_P), once per prefix
        sums = ws[3]
        h = 0.0
        for c in range(0, r, 2):
            h += pattern_entropy(sums[c], sums[c + 1])
        memo[0], memo[1] = h, version[0]
    return max(memo[0] - gain_a, 0.0)


@njit(cache=True)
def extension_information(feats, k, VT, K, w, split, levels, cached, ws):
    """An upper bound on ``I(Y; X_e | X_Q)`` for ``e = feats[k - 1]``, ``Q = feats[:k - 1]``
    (where :func:`prefix_entropy` applies).

    With ``P`` and ``a`` as there, the chain rule gives ``I(Y; X_e | X_P, X_a) <=
    I(X_e; Y, X_a | X_P) = I(X_e; Y | X_P) + I(X_e; X_a | X_P, Y)``, and the last term is
    at most ``min(H(X_a | X_P, Y), H(X_e | X_P, Y))``: each read from a feature's rarer
    rows summed by ``P``'s patterns, once per prefix ``P``.
    """
    _codes(feats, k - 2, k, VT, K, levels, cached)
    r = _prefix_codes(feats, k - 2, K)
    spread_a = _information(feats, k, feats[k - 2], VT, w, split, levels, ws, r)[1]
    gain_e, spread_e = _information(feats, k, feats[k - 1], VT, w, split, levels, ws, r)
    return gain_e + min(spread_a, spread_e) + 1e-12


@njit(cache=True)
def _split_two(feats, k, VT, K, w, split, levels, acc, ws):
    """Pattern weights when the last two features are binary: from the first features'
    pattern sums, each last feature's rarer rows and the rows rare on both."""
    rare, starts, rows, pair_ptr, pair_rows = split
    scratch, sums, S, T = ws[2], ws[3], ws[5], ws[8]
    d = rare.size
    r = _prefix_codes(feats, k - 2, K)
    codes = _coded(k - 2, VT, levels)
    a, b = feats[k - 2], feats[k - 1]
    for f in (a, b):
        _rare_sums(feats, k, f, VT, w, split, levels, ws, r)
    p = _pair_index(a, b, d)
    _sum_rows_by_code(codes, w, pair_rows, pair_ptr[p], pair_ptr[p + 1], scratch, T, r)
    va, vb = rare[a], rare[b]
    Sa, Sb = S[a], S[b]
    for c in range(r):
        # codes: c + (value of a) * r + (value of b) * 2r
        acc[c + va * r + vb * 2 * r] = T[c]
        acc[c + va * r + (1 - vb) * 2 * r] = _half(Sa[c] - T[c], sums[c])
        acc[c + (1 - va) * r + vb * 2 * r] = _half(Sb[c] - T[c], sums[c])
        acc[c + (1 - va) * r + (1 - vb) * 2 * r] = _half(sums[c] - Sa[c] - Sb[c] + T[c], sums[c])


@njit(cache=True)
def _pair_split_applies(feats, k, K, split):
    if k < 2 or split[3].size < 2:
        return False
    rare = split[0]
    if rare[feats[k - 2]] < 0 or rare[feats[k - 1]] < 0:
        return False
    return _prefix_codes(feats, k - 2, K) <= PAIR_CODES


@njit(cache=True)
def gather(feats, k, VT, K, vals, X, y, w, split, levels, cached, acc, ws, Xb, yb, wb):
    """Rows of the regression on ``feats[:k]`` (merged by pattern when few); their count.

    Merged rows are one per value pattern: the values in ``Xb``, the share of positive
    weight in ``yb`` and the weight in ``wb``. Rows that do not merge are copied with a
    share of 1 or 0.
    """
    pair = _pair_split_applies(feats, k, K, split)
    single = not pair and k > 0 and split[0][feats[k - 1]] >= 0
    depth = k - 2 if pair else max(k - 1, 0)
    patterns = _codes(feats, depth, k, VT, K, levels, cached)
    if patterns < 0:
        n = X.shape[0]
        for i in range(n):
            for q in range(k):
                Xb[i, q] = X[i, feats[q]]
            yb[i] = 1.0 if y[i] > 0 else 0.0
            wb[i] = w[i]
        return n
    if pair:
        _split_two(feats, k, VT, K, w, split, levels, acc, ws)
    elif single:
        _split_last(feats, k, VT, K, w, split, levels, acc, ws)
    else:
        _merge_all(feats, k, VT, K, w, levels, acc, ws[2], patterns)
    m = 0
    for c in range(0, patterns, 2):  # a value pattern's negative, then positive weight
        total = acc[c] + acc[c + 1]
        if total <= 0.0:
            continue
        rest = c >> 1
        for q in range(k):
            f = feats[q]
            Xb[m, q] = vals[f, rest % K[f]]
            rest //= K[f]
        yb[m] = acc[c + 1] / total
        wb[m] = total
        m += 1
    return m


@njit(cache=True)
def workspace(kmax, n, d):
    """Scratch arrays of :func:`gather` for supports of up to ``kmax`` of ``d`` features
    over ``n`` rows: ``(Xb, yb, wb, levels, cached, acc, ws)``."""
    codes = 2 * PATTERN_CAP  # value patterns and the label
    rows = max(n, codes)
    width = max(kmax, 1)
    ws = (
        np.zeros(codes),  # 0: the first k - 1 features' pattern sums
        np.full(width + 1, -1, dtype=np.int64),  # 1: ... and those features
        np.zeros(4 * codes),  # 2: interleaved sums
        np.zeros(PAIR_CODES),  # 3: the first k - 2 features' pattern sums
        np.full(width + 1, -1, dtype=np.int64),  # 4: ... and those features
        np.zeros((d, PAIR_CODES)),  # 5: per feature, its rarer rows' sums by those
        np.full(d, -1, dtype=np.int64),  # 6: ... and the version of 3 they are for
        np.zeros(1, dtype=np.int64),  # 7: that version
        np.zeros(codes),  # 8: the sums of a last feature's rarer rows, or a pair's
        np.zeros((d, 2)),  # 9: per feature, what it tells of the label given those
        np.full(d, -1, dtype=np.int64),  # 10: ... and the version of 3 it is for
        np.array([0.0, -1.0]),  # 11: the label's entropy given those, and its version
    )
    return (
        np.zeros((rows, width)), np.zeros(rows), np.zeros(rows),
        np.zeros((width, n), dtype=np.int32), np.full(width, -1, dtype=np.int64),
        np.zeros(codes), ws,
    )  # fmt: skip


def gather_rows(data, support) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The rows of the regression on one support, merged by pattern when few.

    Parameters
    ----------
    data : SupportData
        The loss's rows (:class:`~riskexplore.risk_score.support.screen.SupportData`).
    support : sequence of int
        The support's features (0-based).

    Returns
    -------
    Xb, yb, wb : arrays
        The rows' values on the support, their share of positive weight and their
        weights, as the kernel's ``fit_support`` reads them.
    m : int
        The number of rows.
    """
    feats = np.asarray(support, dtype=np.int64)
    k = feats.size
    Xb, yb, wb, levels, cached, acc, ws = workspace(k, data.X.shape[0], data.d)
    m = gather(
        feats, k, data.VT, data.K, data.vals, data.X, data.y, data.w, data.split, levels,
        cached, acc, ws, Xb, yb, wb,
    )  # fmt: skip
    return Xb, yb, wb, int(m)


@njit(cache=True)
def _intersections(starts, rows, rare, budget):
    """Row indices rare on both features of each pair (sorted lists intersected);
    ``(ptr, rows)``, or an empty ``ptr`` when they exceed ``budget``."""
    d = rare.size
    n_pairs = d * (d - 1) // 2
    ptr = np.zeros(n_pairs + 1, dtype=np.int64)
    for count_only in (True, False):
        out = np.zeros(0 if count_only else ptr[n_pairs], dtype=np.int32)
        p = 0
        for a in range(d):
            for b in range(a + 1, d):
                n_ab = 0
                if rare[a] >= 0 and rare[b] >= 0:
                    s, t = starts[a], starts[b]
                    while s < starts[a + 1] and t < starts[b + 1]:
                        if rows[s] < rows[t]:
                            s += 1
                        elif rows[s] > rows[t]:
                            t += 1
                        else:
                            if not count_only:
                                out[ptr[p] + n_ab] = rows[s]
                            n_ab += 1
                            s += 1
                            t += 1
                if count_only:
                    ptr[p + 1] = ptr[p] + n_ab
                p += 1
        if count_only and ptr[n_pairs] > budget:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
        if not count_only:
            return ptr, out
    return ptr, np.zeros(0, dtype=np.int32)


def row_splits(VT: np.ndarray, K: np.ndarray, pairs: bool = True) -> tuple:
    """``(rare, starts, rows, pair_ptr, pair_rows)``: what the split merges read.

    Parameters
    ----------
    VT : int array (d, n)
        Each row's value index per feature.
    K : int array (d,)
        Number of values of each feature.
    pairs : bool
        Also intersect the rarer rows of every pair of binary features (skipped when
        there are more than :data:`PAIR_FEATURES` features or the lists would hold more
        than :data:`PAIR_BUDGET` rows).

    Returns
    -------
    tuple of arrays
        ``rare[j]`` the rarer value index of binary feature ``j`` (-1 for others, whose
        supports are merged by a full pass), its rows ``rows[starts[j]:starts[j + 1]]``,
        and the rows rare on both features of pair ``p`` (see ``_pair_index``),
        ``pair_rows[pair_ptr[p]:pair_ptr[p + 1]]`` (``pair_ptr`` empty without pairs).
    """
    d, n = VT.shape
    rare = np.full(d, -1, dtype=np.int64)
    lists = []
    for j in range(d):
        if K[j] == 2:
            ones = int(VT[j].sum())
            rare[j] = 1 if ones <= n - ones else 0
            lists.append(np.flatnonzero(VT[j] == rare[j]).astype(np.int32))
        else:
            lists.append(np.zeros(0, dtype=np.int32))
    starts = np.zeros(d + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(r) for r in lists])
    rows = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int32)
    pair_ptr, pair_rows = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    if pairs and 2 <= d <= PAIR_FEATURES and np.count_nonzero(rare >= 0) >= 2:
        pair_ptr, pair_rows = _intersections(starts, rows, rare, PAIR_BUDGET)
    return rare, starts, rows, pair_ptr, pair_rows
