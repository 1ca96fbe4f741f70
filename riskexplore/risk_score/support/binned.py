"""A cheaper bound for supports whose rows do not merge: rows grouped by bins (numba).

On real-valued features a support's rows have as many value patterns as rows, so the
exact merge of :mod:`riskexplore.risk_score.support.merge` leaves a Newton method on every
row. But the logistic loss is convex in the score, so by Jensen's inequality a group ``G``
of rows with one label costs at least its weight times the loss at its weighted centroid:

    sum_{i in G} w_i l(y (theta_0 + x_i . theta)) >= W_G l(y (theta_0 + xbar_G . theta))

for *every* ``theta``. Replacing each group by one row at its centroid therefore lowers
the loss everywhere, and the kernel's certified bound on the grouped rows is a lower
bound on the true loss over the box. The groups here are the value patterns of the
support's features cut into a few bins (weighted quantiles of each feature; a feature
with few values keeps its values, so it costs nothing), with one group per label.

The bound is weaker than the exact one, but a support of five real-valued features costs
one pass over the rows and a Newton method on at most 64 rows (two bins each), and on a
spambase-shaped set it rules out 99% of the supports that the exact bound rules out.
The kernel (:mod:`riskexplore.risk_score.support.kernel`) tries the
levels in turn, finer bins each time, and fits the rows themselves only when none
reaches the cutoff (starting from the last grouped fit, which is close).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from riskexplore.risk_score.support.merge import PATTERN_CAP, _codes

__all__ = [
    "BIN_LEVELS",
    "bin_codes",
    "binned_workspace",
    "gather_binned",
    "grouped_rows",
    "weighted_columns",
]

#: Bins per feature at each level (a feature with at most that many values keeps them).
BIN_LEVELS = (2, 4)


def bin_codes(VT: np.ndarray, K: np.ndarray, w: np.ndarray) -> tuple:
    """Each row's bin per feature at every level: ``(VB, KB)``.

    Parameters
    ----------
    VT : int array (d + 1, n)
        Value indices per feature, then the label bit (``SupportData.VT``).
    K : int array (d,)
        Number of values of each feature (value indices follow the values' order).
    w : array (n,)
        Row weights.

    Returns
    -------
    VB : uint8 array (L, d + 1, n)
        Per level, each row's bin per feature (then its label bit); ``L = 0`` when every
        feature has at most ``min(BIN_LEVELS)`` values (nothing to bin).
    KB : int array (L, d)
        Bins of each feature per level. A bin holds the values whose share of weight
        below them falls in one of ``B`` equal parts (empty parts dropped), so a feature
        that is zero in 60% of the rows gets the bin ``{0}`` and bins of the rest.
    """
    d, n = VT.shape[0] - 1, VT.shape[1]
    if d == 0 or int(K.max()) <= min(BIN_LEVELS):
        return np.zeros((0, d + 1, n), dtype=np.uint8), np.zeros((0, d), dtype=np.int64)
    VB = np.zeros((len(BIN_LEVELS), d + 1, n), dtype=np.uint8)
    KB = np.zeros((len(BIN_LEVELS), d), dtype=np.int64)
    total = float(w.sum())
    for level, B in enumerate(BIN_LEVELS):
        VB[level, d] = VT[d]
        for j in range(d):
            if K[j] <= B:  # its own values: no loss of precision on this feature
                VB[level, j], KB[level, j] = VT[j], K[j]
                continue
            weight = np.bincount(VT[j], weights=w, minlength=K[j])
            below = np.concatenate([[0.0], np.cumsum(weight)[:-1]])
            part = np.minimum((B * below / total).astype(np.int64), B - 1)
            _, bins = np.unique(part, return_inverse=True)  # drop empty parts
            VB[level, j], KB[level, j] = bins[VT[j]], bins.max() + 1
    return VB, KB


def weighted_columns(X: np.ndarray, w: np.ndarray) -> tuple:
    """Each feature's nonzero values times their rows' weights, column by column.

    Parameters
    ----------
    X : array (n, d)
        Feature values.
    w : array (n,)
        Row weights.

    Returns
    -------
    tuple of arrays
        ``(ptr, rows, wx)``: feature ``j``'s rows with a nonzero value are
        ``rows[ptr[j]:ptr[j + 1]]`` (increasing) and ``wx`` their ``w_i x_ij``, so a
        centroid's sums read only those (40% of the rows of a word-frequency column).
    """
    nonzero = X.T != 0
    ptr = np.zeros(X.shape[1] + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(nonzero.sum(axis=1))
    feature, rows = np.nonzero(nonzero)  # row-major over X.T: by feature, then row
    return ptr, rows.astype(np.int32), w[rows] * X[rows, feature]


@njit(cache=True)
def binned_workspace(levels, kmax, n):
    """Scratch arrays of :func:`gather_binned`: per level the rows' codes on a support's
    first features and those features (kept between supports), and the groups' sums."""
    width = max(kmax, 1)
    return (
        np.zeros((max(levels, 1), width, n), dtype=np.int64),  # int32 measured ~7% slower
        np.full((max(levels, 1), width), -1, dtype=np.int64),
        np.zeros(2 * PATTERN_CAP),
        np.zeros((2 * PATTERN_CAP, width)),
    )


@njit(cache=True)
def gather_binned(feats, k, level, VB, KB, columns, w, bws, Xb, yb, wb):
    """Rows of the support ``feats[:k]`` grouped by their bins at ``level`` and their
    label, each group at its weighted centroid; their count, or -1 when the bins make
    more than :data:`~riskexplore.risk_score.support.merge.PATTERN_CAP` patterns.

    Every group's row has the share of positive weight 1 or 0 (its label) in ``yb``.
    """
    codes_by_depth, cached, weight, moment = bws
    levels = codes_by_depth[level]
    patterns = _codes(feats, k, k, VB[level], KB[level], levels, cached[level])
    if patterns < 0:
        return -1
    codes = levels[k - 1]  # k >= 1: a support without features merges exactly
    weight[:patterns] = 0.0
    moment[:patterns, :k] = 0.0
    for i in range(codes.shape[0]):
        weight[codes[i]] += w[i]
    ptr, rows, wx = columns
    for q in range(k):  # one feature at a time, only its nonzero values
        f = feats[q]
        for t in range(ptr[f], ptr[f + 1]):
            moment[codes[rows[t]], q] += wx[t]
    m = 0
    for c in range(patterns):
        if weight[c] <= 0.0:
            continue
        for q in range(k):
            Xb[m, q] = moment[c, q] / weight[c]
        yb[m] = c & 1  # the label is the code's lowest bit
        wb[m] = weight[c]
        m += 1
    return m


def grouped_rows(data, support, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The rows of the regression on one support grouped by their bins at ``level``.

    Parameters
    ----------
    data : SupportData
        The loss's rows (:class:`~riskexplore.risk_score.support.screen.SupportData`).
    support : sequence of int
        The support's features (0-based; at least one).
    level : int
        Index into :data:`BIN_LEVELS`.

    Returns
    -------
    Xb, yb, wb : arrays
        One row per group (its centroid, its label as the share of positive weight, its
        weight), as the kernel's ``fit_support`` reads them.
    m : int
        The number of groups (-1 when the bins make too many patterns).
    """
    feats = np.asarray(support, dtype=np.int64)
    VB, KB, columns = data.bins
    n = data.X.shape[0]
    rows = max(n, 2 * PATTERN_CAP)
    Xb, yb, wb = np.zeros((rows, max(feats.size, 1))), np.zeros(rows), np.zeros(rows)
    bws = binned_workspace(VB.shape[0], feats.size, n)
    m = gather_binned(feats, feats.size, level, VB, KB, columns, data.w, bws, Xb, yb, wb)
    return Xb, yb, wb, int(m)
