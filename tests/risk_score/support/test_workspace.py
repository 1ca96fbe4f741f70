"""The screen's scratch arrays serve batch after batch: a batch screened with arrays that
an earlier batch used (other supports, box and cutoff) gives, bit for bit, what it gives
with fresh ones."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.combinations import support_batches
from riskexplore.risk_score.support.kernel import screen_batch, screen_workspace
from riskexplore.risk_score.support.screen import SupportData, _workspace


def _table(seed: int, n: int, d: int) -> SupportData:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.05, 0.9, d)).astype(float)
    X[:, 0] = rng.integers(0, 4, n)  # a few values
    X[:, 1] = np.round(rng.normal(size=n), 1)  # many values
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ rng.normal(size=d) - 0.3)))).astype(int)
    y[:2] = (0, 1)  # both classes
    problem = RiskScoreProblem(X, y, max_size=4, coef_min=-4, coef_max=4)
    return SupportData(problem.loss)


def _screen(data: SupportData, sup, sizes, box: float, cutoff: float, work) -> tuple:
    n = len(sizes)
    bounds, fits, thetas = np.zeros(n), np.zeros(n), np.zeros((n, sup.shape[1] + 1))
    lo = np.concatenate([[-8.0], np.full(data.d, -box)])
    hi = np.concatenate([[8.0], np.full(data.d, box)])
    screen_batch(
        sup, sizes, data.VT, data.K, data.vals, data.X, data.y, data.w, data.split,
        data.entropy, *data.bins, lo, hi, np.full(data.d, 0.01), data.prior, cutoff,
        bounds, fits, thetas, work,
    )  # fmt: skip
    return bounds, fits, thetas


def _fresh(data: SupportData, kmax: int):
    return screen_workspace(kmax, data.X.shape[0], data.d, data.bins[0].shape[0])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(30, 400),
    d=st.integers(3, 8),
    batch=st.integers(1, 40),
    order=st.permutations(range(6)),
    cutoffs=st.lists(st.sampled_from([0.3, 0.55, 0.7, np.inf]), min_size=6, max_size=6),
    boxes=st.lists(st.sampled_from([1.0, 2.0, 4.0]), min_size=6, max_size=6),
)
def test_a_used_workspace_screens_as_a_fresh_one(seed, n, d, batch, order, cutoffs, boxes):
    data = _table(seed, n, d)
    kmax = 4
    batches = list(support_batches((), np.arange(d), 1, kmax, batch))[:6]
    used = _fresh(data, kmax)
    for i in [i for i in order if i < len(batches)]:
        sup, sizes = batches[i]
        again = _screen(data, sup, sizes, boxes[i], cutoffs[i], used)
        alone = _screen(data, sup, sizes, boxes[i], cutoffs[i], _fresh(data, kmax))
        for a, b in zip(again, alone, strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_screen_keeps_one_workspace_per_data_and_size():
    data, other = _table(0, 200, 5), _table(1, 200, 5)
    with _workspace(data, 4) as first:
        with _workspace(data, 4) as second:  # another thread's, while the first is in use
            assert second is not first
    with _workspace(data, 4) as again:
        assert again is second or again is first  # a free one is handed out again
    with _workspace(data, 3) as smaller, _workspace(other, 4) as others:
        assert smaller[0].shape[1] == 3 and not any(others is w for w in (first, second))
