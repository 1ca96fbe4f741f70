"""Compiled logistic regressions on small supports, with a certified lower bound (numba).

For a support ``S`` (a few features) the kernel minimises the convex loss
``f(theta) = sum_i w_i log(1 + exp(-y_i (theta_0 + x_iS . theta_S)))`` over a box by a
projected Newton method, and returns, besides the last iterate, the bound

    f(theta_k) + sum_l min(g_l (lo_l - theta_l), g_l (hi_l - theta_l))   (g = grad f(theta_k))

which holds for every ``theta`` in the box because ``f`` is convex (``f(theta) >= f(theta_k) +
g . (theta - theta_k)``), whether or not Newton converged. Rows are first merged by their
values on ``S`` (:mod:`riskexplore.risk_score.support.merge`) into one row per value
pattern with its weight and its share of positive weight, so a support of five binary
features costs a Newton method on at most 32 rows, with one exponential and one logarithm
per row.

Inputs are plain arrays prepared by :mod:`riskexplore.risk_score.support.screen`:
``VT[j, i]`` the index of row ``i``'s value of feature ``j`` in ``vals[j]`` (``K[j]`` values)
and, in its last row, 1 for positive rows; ``X`` the values themselves, ``y`` in
``{-1, +1}``, weights ``w``, and ``split`` (the rows of binary features' rarer values).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from riskexplore.risk_score.support.binned import binned_workspace, gather_binned
from riskexplore.risk_score.support.entropy import counts_entropy, extension_bound
from riskexplore.risk_score.support.merge import (
    expand_patterns,
    extension_information,
    gather,
    merge_counts,
    merges_exactly,
    prefix_entropy,
    workspace,
)

__all__ = ["screen_batch", "screen_workspace"]

_MAX_ITER = 40


@njit(cache=True)
def _evaluate(Xb, yb, wb, m, k, theta, g, H, with_hessian):
    """Loss at ``theta`` (and its gradient and Hessian into ``g``, ``H``)."""
    p = k + 1
    f = 0.0
    if with_hessian:
        g[:p] = 0.0
        H[:p, :p] = 0.0
    for r in range(m):
        z = theta[0]
        for a in range(k):
            z += theta[a + 1] * Xb[r, a]
        # w (share * log(1 + e^-z) + (1 - share) * log(1 + e^z)), with one exp and log
        e = math.exp(-abs(z))
        share = yb[r]
        f += wb[r] * (math.log1p(e) + (share * -z if z < 0 else (1.0 - share) * z))
        q = 1.0 / (1.0 + e) if z >= 0 else e / (1.0 + e)  # the predicted risk
        if not with_hessian:
            continue
        c = wb[r] * (q - share)
        h = wb[r] * q * (1.0 - q)
        g[0] += c
        H[0, 0] += h
        for a in range(k):
            xa = Xb[r, a]
            g[a + 1] += c * xa
            H[0, a + 1] += h * xa
            for b in range(a, k):
                H[a + 1, b + 1] += h * xa * Xb[r, b]
    if with_hessian:
        for a in range(p):
            for b in range(a):
                H[a, b] = H[b, a]
    return f


@njit(cache=True)
def _newton_direction(H, g, p, step, lo, hi, theta):
    """Solve ``(H + ridge) step = -g`` by Cholesky on the free coordinates; False if H is
    not positive there.

    A coordinate at a bound of the box whose gradient pushes it further out is held
    (projected Newton with an active set), so that a start on the box's surface (a warm
    start) still gives a descent step.
    """
    ridge = 1e-12
    for a in range(p):
        ridge = max(ridge, 1e-10 * H[a, a])
    held = np.zeros(p, dtype=np.bool_)
    for a in range(p):
        held[a] = (theta[a] <= lo[a] and g[a] > 0.0) or (theta[a] >= hi[a] and g[a] < 0.0)
    L = np.zeros((p, p))
    for a in range(p):
        for b in range(a + 1):
            if held[a] or held[b]:
                s = 1.0 if a == b else 0.0
            else:
                s = H[a, b] + (ridge if a == b else 0.0)
            for c in range(b):
                s -= L[a, c] * L[b, c]
            if a == b:
                if s <= 0.0:
                    return False
                L[a, a] = math.sqrt(s)
            else:
                L[a, b] = s / L[b, b]
    z = np.zeros(p)
    for a in range(p):
        s = 0.0 if held[a] else -g[a]
        for c in range(a):
            s -= L[a, c] * z[c]
        z[a] = s / L[a, a]
    for a in range(p - 1, -1, -1):
        s = z[a]
        for c in range(a + 1, p):
            s -= L[c, a] * step[c]
        step[a] = s / L[a, a]
    return True


@njit(cache=True)
def _box_bound(f, g, theta, lo, hi, p):
    """``f + min over the box of g . (x - theta)``: a lower bound on the loss in the box."""
    b = f
    for a in range(p):
        b += min(g[a] * (lo[a] - theta[a]), g[a] * (hi[a] - theta[a]))
    return b


@njit(cache=True)
def fit_support(Xb, yb, wb, m, k, lo, hi, theta, cutoff):
    """Projected Newton on the support's rows from ``theta`` (updated in place).

    Stops once the bound reaches ``cutoff`` or meets the loss (to 1e-11), or Newton makes
    no more progress. The bound is valid wherever Newton stopped: the loss is convex, so
    its linearization at ``theta`` minimized over the box is below it everywhere there.

    Parameters
    ----------
    Xb, yb, wb : arrays
        The support's merged rows: values on ``S``, the share of positive weight
        (1 or 0 for rows that are not merged) and the weight; the first ``m`` rows are
        used.
    m : int
        Number of merged rows.
    k : int
        Support size (``theta`` has ``k + 1`` entries).
    lo, hi : arrays (k+1,)
        Box of ``[w_0, w_S]``.
    theta : array (k+1,)
        Start, overwritten with the last iterate.
    cutoff : float
        Loss at which the bound is good enough.

    Returns
    -------
    loss : float
        The loss at the last iterate.
    bound : float
        A lower bound on the loss over the box.
    """
    p = k + 1
    g = np.zeros(p)
    H = np.zeros((p, p))
    step = np.zeros(p)
    trial = np.zeros(p)
    gt = np.zeros(p)
    Ht = np.zeros((p, p))
    f = _evaluate(Xb, yb, wb, m, k, theta, g, H, True)
    best = -np.inf
    for _ in range(_MAX_ITER):
        best = max(best, _box_bound(f, g, theta, lo, hi, p))
        if best >= cutoff or f - best <= 1e-11 * (1.0 + f):
            break
        if not _newton_direction(H, g, p, step, lo, hi, theta):
            break
        decrement = 0.0
        for a in range(p):
            decrement -= g[a] * step[a]
        if decrement <= 1e-15 * (1.0 + f):
            break
        size = 1.0
        moved = False
        for _ls in range(30):
            for a in range(p):
                trial[a] = min(max(theta[a] + size * step[a], lo[a]), hi[a])
            # the full step is taken almost always: evaluate it with its derivatives
            ft = _evaluate(Xb, yb, wb, m, k, trial, gt, Ht, size == 1.0)
            if ft < f:
                moved = True
                break
            size *= 0.5
        if not moved:
            break
        theta[:p] = trial[:p]
        if size == 1.0:
            f = ft
            g[:p] = gt[:p]
            H[:p, :p] = Ht[:p, :p]
        else:
            f = _evaluate(Xb, yb, wb, m, k, theta, g, H, True)
    best = max(best, _box_bound(f, g, theta, lo, hi, p))
    return f, best


@njit(cache=True)
def _binned_bound(feats, k, VB, KB, columns, w, bws, Xb, yb, wb, lo, hi, theta, cutoff):
    """The bound on the rows grouped by bins, level after level until one reaches
    ``cutoff``: ``(loss at the last iterate, bound)`` (``-inf`` when no level applies)."""
    f, best = np.inf, -np.inf
    for level in range(VB.shape[0]):
        m = gather_binned(feats, k, level, VB, KB, columns, w, bws, Xb, yb, wb)
        if m < 0:
            continue
        f, b = fit_support(Xb, yb, wb, m, k, lo, hi, theta, cutoff)
        best = max(best, b)
        if best >= cutoff:
            break
    return f, best


@njit(cache=True)
def _same_prefix(key, feats, k):
    """Whether ``key[2:]`` holds ``feats[:k - 1]`` (and records it if not; ``key[0]`` is
    then to be set to the prefix's entropy)."""
    same = key[1] == k - 1
    for q in range(k - 1):
        same = same and key[q + 2] == feats[q]
    if not same:
        key[1] = k - 1
        for q in range(k - 1):
            key[q + 2] = feats[q]
    return same


@njit(cache=True)
def screen_workspace(kmax, n, d, bin_levels):
    """Scratch arrays of :func:`screen_batch` for supports of up to ``kmax`` of ``d``
    features over ``n`` rows (``bin_levels``: the levels of ``SupportData.bins``).

    Allocated once and handed to batch after batch: at a hundred thousand rows they are
    tens of megabytes, and a Dask worker (whose allocator returns every large block to
    the system at once) paid for fresh pages on every batch, which made its screen 1.6 to
    2.2 times as slow as the calling process's. What they cache is keyed by features,
    so they serve any batch on the same rows (as they serve the supports of one batch)."""
    Xb, yb, wb, levels, cached, acc, ws = workspace(kmax, n, d)
    bws = binned_workspace(bin_levels, kmax, n if bin_levels else 0)
    return Xb, yb, wb, levels, cached, acc, ws, bws


@njit(cache=True, nogil=True)
def screen_batch(
    supports, sizes, VT, K, vals, X, y, w, split, entropy, VB, KB, columns, lo_w, hi_w, c0,
    prior, cutoff, bounds, fits, thetas, work,
):  # fmt: skip
    """Fit every support of a batch; write objective bounds, fits and iterates.

    Parameters
    ----------
    supports : int array (N, k_max)
        ``supports[s, :sizes[s]]`` are 0-based feature indices.
    sizes : int array (N,)
        Support sizes.
    VT, K, vals, X, y, w : arrays
        The loss's rows as :class:`~riskexplore.risk_score.support.screen.SupportData`
        holds them.
    split : tuple of arrays
        ``SupportData.split``: per binary feature its rarer value and the rows that take
        it (``-1`` for other features).
    entropy : tuple of arrays
        ``SupportData.entropy``
        (:func:`~riskexplore.risk_score.support.entropy.entropy_tables`): a support
        whose first features' counts already rule it out
        (:func:`~riskexplore.risk_score.support.entropy.extension_bound`) is not fitted;
        its bound is that one. A support whose rows merge is then bounded by its
        patterns' own entropy (:func:`~riskexplore.risk_score.support.entropy.counts_entropy`,
        no Newton), and fitted only when that stays below ``cutoff``.
    VB, KB, columns : arrays
        ``SupportData.bins``: the rows' bins per level
        (:mod:`~riskexplore.risk_score.support.binned`) and each feature's nonzero
        values times their rows' weights. A support whose rows do not
        merge is first bounded on its rows grouped by bins; only when that bound stays
        below ``cutoff`` are its rows fitted one by one.
    lo_w, hi_w : arrays (d+1,)
        Box of ``[w_0, w_1..w_d]``.
    c0 : array (d,)
        Penalty added for every feature of a support.
    prior : float
        Starting intercept (the log-odds of the positive class).
    cutoff : float
        Objective at which Newton may stop (the bound is good enough).
    bounds, fits : arrays (N,)
        Output: lower bound on the objective of every model on each support, and the
        objective of the last iterate (on the grouped rows when those already reached
        ``cutoff``: then below the true one, but still at least the bound).
    thetas : array (N, k_max + 1)
        Output: the last iterate ``[w_0, w_S]`` of each support.
    work : tuple
        Scratch arrays from :func:`screen_workspace` for ``k_max`` on these rows (one
        batch at a time).
    """
    kmax = supports.shape[1]
    n = X.shape[0]
    Xb, yb, wb, levels, cached, acc, ws, bws = work
    screened = cutoff < np.inf  # without a cutoff nothing is ruled out
    binned = VB.shape[0] > 0 and screened
    lo = np.zeros(kmax + 1)
    hi = np.zeros(kmax + 1)
    theta = np.zeros(kmax + 1)
    prev = np.full(max(kmax, 1), -1, dtype=np.int64)
    h_key = np.full(kmax + 2, -1.0)  # H(Y | X_Q), then Q's size and features
    tried = ruled = 0  # supports put to the entropy bound, and those it ruled out
    prev_k = -1
    for s in range(supports.shape[0]):
        k = sizes[s]
        feats = supports[s]
        # warm start: a support that shares all but its last feature with the one before
        # starts from that one's iterate (the bound holds from any start)
        warm = k == prev_k and k > 0
        for q in range(k - 1):
            if feats[q] != prev[q]:
                warm = False
        pen = 0.0
        lo[0], hi[0] = lo_w[0], hi_w[0]
        if not warm:
            theta[0] = min(max(prior, lo[0]), hi[0])
        for q in range(k):
            j = feats[q]
            pen += c0[j]
            lo[q + 1], hi[q + 1] = lo_w[j + 1], hi_w[j + 1]
            if not warm or q == k - 1:
                theta[q + 1] = min(max(0.0, lo[q + 1]), hi[q + 1])
        for q in range(k):
            prev[q] = feats[q]
        prev_k = k
        # ruled out by its first features' counts? (tried while it pays: on a table
        # where it rules out under one support in five its look-ups cost more than it saves)
        if screened and k >= 2 and (tried < 256 or 5 * ruled >= tried):
            tried += 1
            if not _same_prefix(h_key, feats, k):
                h_key[0] = prefix_entropy(feats, k, VT, K, w, split, levels, cached, ws)
            h = h_key[0]
            if h >= 0.0:
                bound = extension_bound(h, feats, k, entropy[0], entropy[1]) - 1e-12
                if bound < cutoff - pen:  # the counts' own bound: tighter, dearer
                    info = extension_information(feats, k, VT, K, w, split, levels, cached, ws)
                    bound = extension_bound(h, feats, k, entropy[0], entropy[1], info) - 1e-12
                if bound >= cutoff - pen:
                    ruled += 1
                    bounds[s] = fits[s] = bound + pen
                    thetas[s, : k + 1] = theta[: k + 1]
                    continue
        bound = -np.inf
        if binned and not merges_exactly(feats, k, K, n):
            f, bound = _binned_bound(
                feats, k, VB, KB, columns, w, bws, Xb, yb, wb, lo, hi, theta, cutoff - pen
            )
        if bound < cutoff - pen and screened and merges_exactly(feats, k, K, n):
            # the patterns' own entropy: within about 1e-4 of the fit on one-hot data, it
            # rules out most supports the counts' bounds left, without Newton
            codes = merge_counts(feats, k, VT, K, w, split, levels, cached, acc, ws)
            h = counts_entropy(acc, codes)
            h -= 1e-12 * (1.0 + h)
            if h >= cutoff - pen:
                bound = f = h
            else:
                m = expand_patterns(feats, k, K, vals, acc, codes, Xb, yb, wb)
                f, bound = fit_support(Xb, yb, wb, m, k, lo, hi, theta, cutoff - pen)
        elif bound < cutoff - pen:  # the rows themselves (Newton from the grouped fit)
            m = gather(feats, k, VT, K, vals, X, y, w, split, levels, cached, acc, ws, Xb, yb, wb)
            f, b = fit_support(Xb, yb, wb, m, k, lo, hi, theta, cutoff - pen)
            bound = max(bound, b)
        bounds[s] = bound + pen
        fits[s] = f + pen
        thetas[s, : k + 1] = theta[: k + 1]
