"""The entropy bound: one support's counts bound every support one feature larger (numba).

Whatever its coefficients, box or multiplier, a model on a support ``S`` gives every value
pattern of ``S`` one predicted risk, and the least weighted log loss of a pattern at one risk
is its weight times the entropy of its labels. So the logistic loss of every model on ``S``
is at least the label's conditional entropy given the values on ``S``, ``H(Y | X_S)`` (the
loss's weights sum to one). On one-hot data a logistic regression on five items is within
about 1e-4 of that bound.

It also bounds a support's extensions without their counts. By the chain rule,

    H(Y | X_Q, X_e) = H(Y | X_Q) - I(Y; X_e | X_Q)  and  I(Y; X_e | X_Q) <= H(X_e | X_Q),

and conditioning never raises an entropy, so ``H(X_e | X_Q) <= min(H(X_e), H(X_e | X_a))``
for every ``a`` in ``Q``. The screen enumerates supports in lexicographic order, so the
supports ``Q + {e}`` that share their first features ``Q`` come together: the counts of
``Q`` give ``H(Y | X_Q)`` once, and a table of ``H(X_e | X_a)`` over pairs of features
(:func:`entropy_tables`) rules out every ``e`` with

    H(Y | X_Q) - min(H(Y | X_Q), H(X_e), min_a H(X_e | X_a)) + penalties >= cutoff

without reading its rows. On adult (110 items) this drops about 60% of a prefix's
extensions at a few table look-ups each. Where it does not, the counts of ``e``'s rarer
rows by the patterns of ``Q``'s first features bound ``I(Y; X_e | X_Q)`` more tightly
(``merge.extension_information``; about 80% dropped).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["entropy_tables", "extension_bound", "pattern_entropy"]


@njit(cache=True)
def _xlogx(a):
    return a * math.log(a) if a > 0.0 else 0.0


@njit(cache=True)
def pattern_entropy(neg, pos):
    """``H`` of one pattern's labels times its weight: ``T log T - P log P - N log N``."""
    return _xlogx(neg + pos) - _xlogx(pos) - _xlogx(neg)


@njit(cache=True)
def extension_bound(h_prefix, feats, k, Hc, He, information=np.inf):
    """A lower bound on the loss of every model on ``feats[:k]`` from ``h_prefix``, the
    label's conditional entropy given ``feats[:k - 1]``.

    Parameters
    ----------
    h_prefix : float
        ``H(Y | X_Q)`` for ``Q = feats[:k - 1]``.
    feats : int array
        The support's features; its last one, ``e = feats[k - 1]``, is the extension.
    k : int
        Support size.
    Hc, He : arrays (d, d), (d,)
        :func:`entropy_tables`: upper bounds on ``H(X_e | X_a)`` and ``H(X_e)``.
    information : float
        Another upper bound on ``I(Y; X_e | X_Q)``, from the counts
        (``merge.extension_information``).

    Returns
    -------
    float
        ``h_prefix - min(h_prefix, information, He[e], min_a Hc[e, a])``.
    """
    e = feats[k - 1]
    gain = min(h_prefix, He[e], information)
    for q in range(k - 1):
        gain = min(gain, Hc[e, feats[q]])
    return h_prefix - gain


@njit(cache=True)
def _pair_table(rare, weight, pair_ptr, pair_rows, w, He, Hc):
    """``Hc[e, a] = H(X_e | X_a)`` for binary pairs, from the rows rare on both."""
    d = rare.size
    p = 0
    for a in range(d):
        for b in range(a + 1, d):
            if rare[a] >= 0 and rare[b] >= 0:
                both = 0.0
                for t in range(pair_ptr[p], pair_ptr[p + 1]):
                    both += w[pair_rows[t]]
                wa, wb = weight[a], weight[b]
                only_a, only_b = max(wa - both, 0.0), max(wb - both, 0.0)
                neither = max(1.0 - wa - wb + both, 0.0)
                joint = -(_xlogx(both) + _xlogx(only_a) + _xlogx(only_b) + _xlogx(neither))
                # H(X_a | X_b), with a margin for rounding (the table must not be low)
                Hc[a, b] = min(joint - He[b] + 1e-12, He[a])
                Hc[b, a] = min(joint - He[a] + 1e-12, He[b])
            p += 1


def entropy_tables(VT: np.ndarray, K: np.ndarray, w: np.ndarray, split: tuple) -> tuple:
    """Upper bounds on ``H(X_e | X_a)`` for every pair of features, and ``H(X_e)``.

    Parameters
    ----------
    VT : int array (d + 1, n)
        Each row's value index per feature, then its label bit.
    K : int array (d,)
        Distinct values of each feature.
    w : array (n,)
        Row weights; entropies are in the loss's units (weights summing to one).
    split : tuple
        :func:`~riskexplore.risk_score.support.merge.row_splits`: the rows rare on both
        features of each binary pair give their joint entropy; other pairs keep ``H(X_e)``
        (conditioning never raises an entropy), as do all when there are no pairs.

    Returns
    -------
    Hc : array (d, d)
        ``Hc[e, a] >= H(X_e | X_a)``.
    He : array (d,)
        ``H(X_e)``.
    """
    d = VT.shape[0] - 1
    total = float(w.sum())
    w = w / total  # then back to the loss's units, whatever their sum
    He = np.zeros(d)
    for j in range(d):
        p = np.bincount(VT[j], weights=w, minlength=int(K[j]))
        p = p[p > 0]
        He[j] = float(-(p * np.log(p)).sum())
    Hc = np.tile(He[:, None], (1, d))
    rare, starts, rows, pair_ptr, pair_rows = split
    if pair_ptr.size:
        weight = np.array(
            [w[rows[starts[j] : starts[j + 1]]].sum() if rare[j] >= 0 else 0.0 for j in range(d)]
        )
        _pair_table(rare, weight, pair_ptr, pair_rows, w, He, Hc)
    return Hc * total, He * total
