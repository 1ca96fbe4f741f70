"""The screen's enumeration of supports and its split merge of binary features."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.combinations import support_batches
from riskexplore.risk_score.support.screen import SupportData, screen_supports


@settings(max_examples=60, deadline=None)
@given(
    n_items=st.integers(0, 9),
    forced_count=st.integers(0, 3),
    k_min=st.integers(0, 5),
    span=st.integers(0, 4),
    batch=st.integers(1, 7),
)
def test_batches_list_the_supports_of_itertools_in_order(n_items, forced_count, k_min, span, batch):
    items = np.arange(n_items + forced_count)
    forced, free = items[:forced_count], items[forced_count:]
    k_max = k_min + span
    want = []
    for extra in range(max(k_min - forced_count, 0), min(k_max - forced_count, free.size) + 1):
        want += [(*forced.tolist(), *c) for c in itertools.combinations(free.tolist(), extra)]
    got = []
    for sup, sizes in support_batches(forced, free, k_min, k_max, batch):
        assert 0 < len(sizes) <= batch and np.all(sizes == sizes[0])
        assert np.all(sup[:, sizes[0] :] == -1)
        got += [tuple(sup[r, : sizes[r]].tolist()) for r in range(len(sizes))]
    assert got == want


def _without_split(data: SupportData) -> SupportData:
    """The same rows with the split merges turned off (every support reads every row)."""
    rare, *rest = data.split
    data.split = (np.full_like(rare, -1), *rest)
    return data


def test_the_split_merges_give_the_bounds_of_a_full_pass():
    rng = np.random.default_rng(3)
    n, d = 900, 9
    X = (rng.random((n, d)) < rng.uniform(0.02, 0.9, d)).astype(float)
    X[:, 4] = rng.integers(0, 3, n)  # three values: merged by a full pass
    X[:, 7] = 1.0 - X[:, 6]  # a feature whose rarer value is 0 half the time
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ rng.normal(size=d) - 0.4)))).astype(int)
    weights = rng.uniform(0.1, 3.0, n)  # weights that are not integers
    problem = RiskScoreProblem(X, y, sample_weight=weights, max_size=4, coef_min=-4, coef_max=4)
    lo = np.concatenate([[-8.0], np.full(d, -4.0)])
    hi = np.concatenate([[8.0], np.full(d, 4.0)])
    kwargs = dict(free=range(d), k_min=0, k_max=4, w_lower=lo, w_upper=hi, c0=problem.c0)
    rare = SupportData(problem.loss).split[0]
    assert np.count_nonzero(rare == 0) >= 1 and np.count_nonzero(rare == 1) >= 1
    assert SupportData(problem.loss).split[3].size == d * (d - 1) // 2 + 1
    for forced in ((), (8,), (5, 2)):  # forced features come first, out of order
        full = screen_supports(_without_split(SupportData(problem.loss)), forced=forced, **kwargs)
        for data in (SupportData(problem.loss), SupportData(problem.loss, split_pairs=False)):
            split = screen_supports(data, forced=forced, **kwargs)
            np.testing.assert_array_equal(split.supports, full.supports)
            np.testing.assert_allclose(split.bounds, full.bounds, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(split.fits, full.fits, rtol=1e-10, atol=1e-12)


def test_a_screen_that_keeps_the_bounds_below_a_cutoff_keeps_the_floors():
    from riskexplore.risk_score.support.fixing import feature_floors

    rng = np.random.default_rng(5)
    n, d = 700, 20
    X = (rng.random((n, d)) < rng.uniform(0.05, 0.6, d)).astype(float)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, :4] @ [1.5, -1.0, 1.0, 0.8] - 0.6)))).astype(int)
    problem = RiskScoreProblem(X, y, max_size=4, coef_min=-3, coef_max=3)
    lo = np.concatenate([[-6.0], np.full(d, -3.0)])
    hi = np.concatenate([[6.0], np.full(d, 3.0)])
    kwargs = dict(forced=(), free=range(d), k_min=0, k_max=4, w_lower=lo, w_upper=hi)
    data = SupportData(problem.loss)
    every = screen_supports(data, **kwargs, c0=problem.c0, n_jobs=2)
    assert every.screened == len(every) > 4096  # several batches
    cutoff = float(np.quantile(every.bounds, 0.02))
    kept = screen_supports(
        data, **kwargs, c0=problem.c0, n_jobs=2, keep_below=cutoff, floors=True
    )  # fmt: skip
    below = every.bounds < cutoff
    assert kept.screened == len(every) and len(kept) == np.count_nonzero(below) > 0
    np.testing.assert_array_equal(kept.supports, every.supports[below])
    np.testing.assert_array_equal(kept.bounds, every.bounds[below])
    np.testing.assert_array_equal(kept.floors, feature_floors(every, d))


def test_the_pair_split_of_items_that_never_meet():
    """One-hot items of one variable: every pair's rows rare on both are none at all."""
    rng = np.random.default_rng(11)
    n, d = 600, 6
    category = rng.integers(0, d, n)
    X = (category[:, None] == np.arange(d)).astype(float)
    y = (rng.random(n) < np.linspace(0.1, 0.8, d)[category]).astype(int)
    problem = RiskScoreProblem(X, y, max_size=3, coef_min=-4, coef_max=4)
    lo = np.concatenate([[-8.0], np.full(d, -4.0)])
    hi = np.concatenate([[8.0], np.full(d, 4.0)])
    kwargs = dict(forced=(), free=range(d), k_min=0, k_max=3, w_lower=lo, w_upper=hi, c0=problem.c0)
    data = SupportData(problem.loss)
    assert data.split[3].size > 1 and data.split[4].size == 0  # pairs, all empty
    pairs = screen_supports(data, **kwargs)
    full = screen_supports(_without_split(SupportData(problem.loss)), **kwargs)
    np.testing.assert_allclose(pairs.bounds, full.bounds, rtol=1e-10, atol=1e-12)
