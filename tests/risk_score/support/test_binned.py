"""The screen's bound on rows grouped by bins (real-valued features), against the rows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _small_problems import enumerate_optimum

from riskexplore.core.limits import Limits
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import ScaledLCPASettings, solve_scaled_lcpa
from riskexplore.risk_score.support.binned import BIN_LEVELS, grouped_rows
from riskexplore.risk_score.support.kernel import _evaluate, fit_support
from riskexplore.risk_score.support.screen import SupportData, screen_supports


def real_valued(seed: int, n: int = 400, d: int = 6, **settings) -> RiskScoreProblem:
    """Skewed real-valued columns, many of them zero, and a binary and a three-valued one."""
    rng = np.random.default_rng(seed)
    X = np.round(np.exp(rng.normal(size=(n, d))) * (rng.random((n, d)) < 0.5), 2)
    X[:, 0] = rng.normal(size=n)  # no zeros: bins by quantiles
    X[:, 1] = rng.integers(0, 2, n)
    X[:, 2] = rng.integers(0, 3, n)
    beta = rng.normal(size=d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.3)))).astype(int)
    weights = rng.uniform(0.2, 2.0, n)
    settings = {"max_size": 3, "coef_min": -3, "coef_max": 3, **settings}
    return RiskScoreProblem(X, y, sample_weight=weights, **settings)


def _without_bins(data: SupportData) -> SupportData:
    VB, KB, columns = data.bins
    data.bins = (VB[:0], KB[:0], columns)
    return data


def test_bins_follow_the_values_and_keep_features_with_few():
    data = SupportData(real_valued(0).loss)
    VB, KB, _ = data.bins
    assert VB.shape[0] == len(BIN_LEVELS)
    for level, B in enumerate(BIN_LEVELS):
        for j in range(data.d):
            values, bins = data.X[:, j], VB[level, j]
            if data.K[j] <= B:  # its own values
                np.testing.assert_array_equal(bins, data.VT[j])
                continue
            assert 2 <= KB[level, j] <= B and set(np.unique(bins)) == set(range(KB[level, j]))
            order = np.argsort(values, kind="stable")
            assert np.all(np.diff(bins[order].astype(int)) >= 0)  # bins of increasing values
            if np.mean(values == 0) > 1 / B:  # a common zero gets a bin of its own
                assert np.unique(bins[values == 0]).size == 1
                assert not np.any(bins[values != 0] == bins[values == 0][0])
        np.testing.assert_array_equal(VB[level, data.d], data.VT[data.d])


def test_binary_data_has_nothing_to_bin():
    X = np.random.default_rng(1).integers(0, 2, (200, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    data = SupportData(RiskScoreProblem(X, y, max_size=3).loss)
    assert data.bins[0].shape[0] == 0
    assert not data.groups([0, 1]) and not data.groups_all(3)


def test_which_supports_group():
    data = SupportData(real_valued(0, n=400, d=6).loss)
    assert not data.merges([3, 4]) and data.groups([3, 4])  # two real-valued features
    assert data.groups_all(6)  # 2 x 2 x 2 x 2 x 2 x 3 patterns at the first level
    assert not SupportData(real_valued(0, n=40, d=6).loss).groups_all(6)  # more than rows


@pytest.mark.parametrize("seed", range(6))
def test_the_grouped_bound_is_below_the_loss_everywhere_in_the_box(seed):
    rng = np.random.default_rng(100 + seed)
    data = SupportData(real_valued(seed).loss)
    for _ in range(8):
        k = int(rng.integers(1, 5))
        support = np.sort(rng.choice(data.d, k, replace=False))
        lo = np.concatenate([[-4.0], -rng.uniform(0, 3, k)])
        hi = np.concatenate([[4.0], rng.uniform(0, 3, k)])
        X, labels = np.ascontiguousarray(data.X[:, support]), (data.y > 0).astype(float)
        n = X.shape[0]
        exact, exact_bound = fit_support(X, labels, data.w, n, k, lo, hi, np.zeros(k + 1), np.inf)
        points = lo + rng.random((200, k + 1)) * (hi - lo)
        g, H = np.zeros(k + 1), np.zeros((k + 1, k + 1))
        losses = [_evaluate(X, labels, data.w, n, k, p, g, H, False) for p in points]
        for level in range(len(BIN_LEVELS)):
            Xb, yb, wb, m = grouped_rows(data, support, level)
            assert m > 0 and set(np.unique(yb[:m])) <= {0.0, 1.0}
            np.testing.assert_allclose(wb[:m].sum(), data.w.sum(), rtol=1e-12)
            _, bound = fit_support(Xb, yb, wb, m, k, lo, hi, np.zeros(k + 1), np.inf)
            assert bound <= exact + 1e-10  # Jensen: below the least loss over the box
            assert bound <= min(losses) + 1e-10
            # and below the loss of every point, on the grouped rows too (same argument)
            grouped = [_evaluate(Xb, yb, wb, m, k, p, g, H, False) for p in points]
            assert np.all(np.array(grouped) <= np.array(losses) + 1e-12)
        assert exact_bound <= exact


@pytest.mark.parametrize("seed", range(4))
def test_a_screen_with_bins_keeps_the_supports_of_one_without(seed):
    problem = real_valued(20 + seed, n=600, d=7, max_size=4)
    d = problem.n_features
    lo = np.concatenate([[-6.0], np.full(d, -3.0)])
    hi = np.concatenate([[6.0], np.full(d, 3.0)])
    kwargs = dict(forced=(), free=range(d), k_min=0, k_max=4, w_lower=lo, w_upper=hi)
    rows = screen_supports(_without_bins(SupportData(problem.loss)), c0=problem.c0, **kwargs)
    cutoff = float(np.quantile(rows.fits, 0.2))  # a fifth of the supports can go below
    rows = screen_supports(
        _without_bins(SupportData(problem.loss)), c0=problem.c0, cutoff=cutoff, **kwargs
    )
    bins = screen_supports(SupportData(problem.loss), c0=problem.c0, cutoff=cutoff, **kwargs)
    np.testing.assert_array_equal(bins.supports, rows.supports)
    kept = rows.bounds < cutoff
    np.testing.assert_array_equal(bins.bounds < cutoff, kept)
    # Newton on the rows starts from the grouped fit, so it may stop a little elsewhere
    np.testing.assert_allclose(bins.bounds[kept], rows.bounds[kept], rtol=1e-6)
    # the ruled-out supports that do not merge were ruled out on grouped rows
    data = SupportData(problem.loss)
    unmerged = np.array([not data.merges(bins.support(s)) for s in range(len(bins))])
    assert np.any(unmerged & ~kept & (bins.bounds != rows.bounds))
    assert np.all(bins.bounds[~kept] >= cutoff)


#: no heuristics: the incumbent comes from the search, so a support ruled out wrongly
#: would lose the optimum
SEARCH_ONLY = ScaledLCPASettings(
    initialization=False, sequential_rounding=False, polishing=False, diving=False,
    beam_width=0, screen_roundings=0,
)  # fmt: skip


@pytest.mark.parametrize("settings", [None, SEARCH_ONLY], ids=["default", "search-only"])
@pytest.mark.parametrize("seed", range(8))
def test_real_valued_scores_match_brute_force(seed, settings):
    problem = real_valued(
        40 + seed, n=150, d=4, coef_min=-2, coef_max=2, intercept_min=-3, intercept_max=3
    )
    optimum = enumerate_optimum(problem)
    limits = Limits(gap_tolerance=0.0)
    result = solve_scaled_lcpa(problem, (1.0, 1.0), limits=limits, settings=settings)
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9)
    assert result.lower_bound <= optimum + 1e-12
    assert math.isfinite(result.lower_bound)


@pytest.mark.parametrize("settings", [None, SEARCH_ONLY], ids=["default", "search-only"])
@pytest.mark.parametrize("seed", range(4))
def test_real_valued_scores_with_a_learned_multiplier_match_brute_force(seed, settings):
    # the screen of the learned scale bounds its supports on grouped rows too
    from _scaled_reference import scaled_optimum

    problem = real_valued(
        60 + seed, n=120, d=3, coef_min=-2, coef_max=2, intercept_min=-3, intercept_max=3
    )
    m_range = (0.5, 3.0)
    optimum = scaled_optimum(problem, m_range)
    limits = Limits(gap_tolerance=0.0)
    result = solve_scaled_lcpa(problem, m_range, limits=limits, settings=settings)
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-8)
    assert result.lower_bound <= optimum + 1e-12
