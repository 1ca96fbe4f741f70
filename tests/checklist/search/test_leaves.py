"""The loss of a leaf from its parent's rows one item below the threshold (kernel)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from riskexplore.checklist.search.kernel import _leaf_loss, _leaf_tables


def _words(mask: np.ndarray) -> np.ndarray:
    """Rows (bools, a multiple of 64) as uint64 words."""
    bits = mask.reshape(-1, 64).astype(np.uint64) << np.arange(64, dtype=np.uint64)
    return np.bitwise_or.reduce(bits, axis=1)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_gain_words=st.integers(0, 3),
    n_words=st.integers(1, 4),
    size=st.integers(1, 4),
    slack=st.floats(-20.0, 60.0),
)
def test_a_leaf_loss_is_exact_below_the_limit_and_a_lower_value_above(
    seed, n_gain_words, n_words, size, slack
):
    rng = np.random.default_rng(seed)
    n_gain_words = min(n_gain_words, n_words)
    n_rows = 64 * n_words
    # words of positives (negative coefficients) first, as the search lays them out
    objc = np.concatenate(
        [-rng.integers(1, 4, n_gain_words), rng.integers(0, 4, n_words - n_gain_words)]
    ).astype(float)
    coef = np.repeat(objc, 64)
    parent = rng.random((size - 1, n_rows)) < 0.5  # the parent's items (rows checked)
    leaf = rng.random(n_rows) < 0.5  # the item the leaf adds
    count = parent.sum(axis=0)
    T = np.zeros((size + 2, n_words), dtype=np.uint64)
    for v in range(size + 2):
        T[v] = _words(count >= v)
    base = float(-coef[coef < 0].sum())
    thresholds = np.arange(1, size + 1, dtype=np.int64)
    n = len(thresholds)
    below = np.zeros((size + 2, n_words), dtype=np.uint64)
    below_words = np.zeros((size + 2, n_words), dtype=np.int64)
    n_below = np.zeros((size + 2, 2), dtype=np.int64)
    at_loss = np.zeros(size + 2)
    _leaf_tables(T, objc, thresholds, n, n_gain_words, base, below, below_words, n_below, at_loss)
    X = _words(leaf)[None, :]
    for i, M in enumerate(thresholds):
        predicted = count + leaf >= M
        true_loss = base + coef[predicted].sum()
        limit = true_loss + slack
        loss = _leaf_loss(X, 0, objc, below[i], below_words[i], n_below[i], at_loss[i], limit)
        if true_loss <= limit:
            assert loss == true_loss
        else:  # stopped early: still at most the loss, and above the limit
            assert limit < loss <= true_loss
        # the words listed are exactly those with a row one item below M
        held = [w for w in range(n_words) if below[i, w]]
        assert list(below_words[i, : n_below[i, 1]]) == held
        assert all(w < n_gain_words for w in below_words[i, : n_below[i, 0]])
