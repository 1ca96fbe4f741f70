"""The screen's enumeration of supports and its split merge of binary features."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.combinations import (
    equal_stretches,
    nth_combination,
    stretch_supports,
    support_batches,
)
from riskexplore.risk_score.support.screen import SupportData, screen_supports


@settings(max_examples=60, deadline=None)
@given(
    n_items=st.integers(0, 9),
    forced_count=st.integers(0, 3),
    k_min=st.integers(0, 5),
    span=st.integers(0, 4),
    batch=st.integers(1, 7),
    parts=st.integers(1, 5),
)
def test_batches_list_the_supports_of_itertools_in_order(
    n_items, forced_count, k_min, span, batch, parts
):
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
    # A Dask task's run: only where it starts travels; its worker writes the batches of the
    # threads' screen, the same supports in the same batches, and the runs are of about
    # equal length (each end moved back at most one batch).
    batches = [
        (sup.tolist(), sizes.tolist())
        for sup, sizes in support_batches(forced, free, k_min, k_max, batch)
    ]
    written, lengths = [], []
    for run in equal_stretches(forced_count, free.size, k_min, k_max, parts, align=batch):
        length = 0
        for extra, first, count in run:
            for sup, sizes in stretch_supports(forced, free, extra, first, count, k_max, batch):
                written.append((sup.tolist(), sizes.tolist()))
                length += len(sizes)
        lengths.append(length)
    assert written == batches
    assert len(lengths) <= max(1, parts)
    if len(want) >= parts * (batch + 1):  # room for every run
        assert max(lengths) - min(lengths) <= 2 * batch


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 12), k=st.integers(0, 6))
def test_nth_combination_is_that_of_itertools(n, k):
    every = list(itertools.combinations(range(n), k))
    assert [tuple(nth_combination(i, n, k).tolist()) for i in range(len(every))] == every


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


def test_a_screen_that_keeps_the_bounds_below_a_cutoff_keeps_the_floors(small_batches):
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
    assert every.screened == len(every) > 4 * small_batches  # several batches
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


def test_a_screen_with_a_cutoff_rules_out_supports_by_entropy():
    """Rare one-hot levels: many supports are ruled out by their first features' counts
    (with and without a forced feature); every support that could beat the cutoff stays."""
    rng = np.random.default_rng(13)
    n = 800
    level = rng.choice(6, n, p=[0.5, 0.3, 0.1, 0.05, 0.03, 0.02])
    X = np.column_stack([level[:, None] == np.arange(1, 6), rng.random((n, 3)) < 0.4])
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 5:] @ [2.0, -1.5, 1.0] - 0.5)))).astype(int)
    problem = RiskScoreProblem(X.astype(float), y, max_size=4, coef_min=-3, coef_max=3)
    d = problem.n_features
    lo = np.concatenate([[-6.0], np.full(d, -3.0)])
    data = SupportData(problem.loss)
    for forced in ((), (4,)):
        kwargs = dict(forced=forced, free=range(d), k_min=0, k_max=4, w_lower=lo, w_upper=-lo)
        every = screen_supports(data, **kwargs, c0=problem.c0)
        cutoff = float(np.quantile(every.bounds, 0.05))
        cut = screen_supports(data, **kwargs, c0=problem.c0, cutoff=cutoff)
        np.testing.assert_array_equal(cut.supports, every.supports)
        assert np.all(cut.bounds <= every.fits + 1e-12)
        assert np.all(cut.bounds[every.bounds < cutoff - 1e-9] < cutoff)
        assert np.count_nonzero((cut.fits == cut.bounds) & (cut.bounds >= cutoff)) >= 3


def test_the_screen_enumerates_the_most_informative_features_first():
    """The screen lists every support of the region once, with the features of most
    entropy first and the rare levels last, and its bounds hold against the fits of the
    enumeration in index order."""
    from riskexplore.risk_score.support.screen import _fit

    rng = np.random.default_rng(5)
    n = 900
    level = rng.choice(6, n, p=[0.02, 0.03, 0.05, 0.1, 0.3, 0.5])  # rare levels first
    X = np.column_stack([level[:, None] == np.arange(5), rng.random((n, 3)) < 0.4])
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 5:] @ [2.0, -1.5, 1.0] - 0.5)))).astype(int)
    problem = RiskScoreProblem(X.astype(float), y, max_size=4, coef_min=-3, coef_max=3)
    d = problem.n_features
    data = SupportData(problem.loss)
    He = data.entropy[1]
    order = data.screen_order(range(d))
    assert sorted(order) == list(range(d))
    assert all(He[a] >= He[b] for a, b in itertools.pairwise(order))
    assert order[-3:] == (2, 1, 0)  # the rarest levels are met last

    lo = np.concatenate([[-6.0], np.full(d, -3.0)])
    kwargs = dict(k_min=0, k_max=4, w_lower=lo, w_upper=-lo, c0=problem.c0)
    fits = {}  # each support's fit in the enumeration of index order
    for sup, sizes in support_batches(np.zeros(0), np.arange(d), 0, 4, 4096):
        part = _fit(data, sup, sizes, lo, -lo, problem.c0, np.inf)
        for s in range(len(part)):
            fits[tuple(part.support(s))] = part.fits[s]
    cutoff = float(np.quantile(list(fits.values()), 0.05))
    cut = screen_supports(data, forced=(), free=range(d), cutoff=cutoff, **kwargs)
    listed = [tuple(sorted(cut.support(s))) for s in range(len(cut))]
    assert sorted(listed) == sorted(fits)  # each support once
    for key, bound in zip(listed, cut.bounds, strict=True):
        assert bound <= fits[key] + 1e-12
        assert bound < cutoff or fits[key] >= cutoff - 1e-9


def _near_the_cap() -> RiskScoreProblem:
    """Three ten-valued features and a binary one: 2,000 value patterns (4,000 with the
    label), just under the merge's cap of 2,048."""
    rng = np.random.default_rng(11)
    n = 6000
    X = np.column_stack([rng.integers(0, 10, (n, 3)), rng.integers(0, 2, n)]).astype(float)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ [0.2, -0.1, 0.15, 0.8] - 0.5)))).astype(int)
    return RiskScoreProblem(X, y, max_size=4, coef_min=-3, coef_max=3)


def test_a_support_with_nearly_the_most_patterns_merges_its_rows_exactly():
    # the merge's buffers once held PATTERN_CAP codes, half of what such a support needs
    from riskexplore.risk_score.support.kernel import fit_support
    from riskexplore.risk_score.support.merge import PATTERN_CAP, gather_rows

    problem = _near_the_cap()
    data = SupportData(problem.loss)
    support = [0, 1, 2, 3]
    assert PATTERN_CAP // 2 < np.prod(data.K[support]) <= PATTERN_CAP
    Xb, yb, wb, m = gather_rows(data, support)
    assert m == np.unique(data.X[:, support], axis=0).shape[0]
    np.testing.assert_allclose(wb[:m].sum(), data.w.sum(), rtol=1e-12)
    lo, hi = np.array([-6.0, -3, -3, -3, -3]), np.array([6.0, 3, 3, 3, 3])
    merged = fit_support(Xb, yb, wb, m, 4, lo, hi, np.zeros(5), np.inf)
    raw = fit_support(
        np.ascontiguousarray(data.X[:, support]), (data.y > 0).astype(float), data.w,
        data.X.shape[0], 4, lo, hi, np.zeros(5), np.inf,
    )  # fmt: skip
    np.testing.assert_allclose(merged, raw, rtol=1e-9)


def test_the_merges_stay_inside_their_buffers(tmp_path):
    # numba does not check indices: run the screens once with its bounds checks on (and a
    # cache of their own), so a write past a buffer is an IndexError, not a corrupt heap
    import os
    import subprocess
    import sys

    script = tmp_path / "screens.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(__import__('pathlib').Path(__file__).parent)!r})\n"
        "import test_batches as t\n"
        "t.test_a_support_with_nearly_the_most_patterns_merges_its_rows_exactly()\n"
        "t.test_the_split_merges_give_the_bounds_of_a_full_pass()\n"
        "t.test_the_pair_split_of_items_that_never_meet()\n"
        "t.test_a_screen_with_a_cutoff_rules_out_supports_by_entropy()\n"
    )
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
