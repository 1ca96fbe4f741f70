"""The entropy bound of the screen against brute force: its tables bound the conditional
entropies, the supports it rules out hold no model below the cutoff, and the certified
optimum on one-hot items with rare levels is the brute force's in both scales."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _scaled_reference import scaled_value

from riskexplore.core.limits import Limits
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import solve_scaled_lcpa
from riskexplore.risk_score.support.screen import SupportData, screen_supports


def one_hot_problem(seed: int, max_size: int = 3, **kwargs) -> RiskScoreProblem:
    """Two categorical columns one-hot (some levels rare) and two binary items; the label
    follows the binary items mostly."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(300, 600))
    first = rng.choice(4, n, p=[0.6, 0.3, 0.07, 0.03])
    second = rng.choice(3, n, p=[0.9, 0.07, 0.03])
    X = np.column_stack(
        [first == 1, first == 2, first == 3, second == 1, second == 2, rng.random((n, 2)) < 0.4]
    ).astype(float)
    beta = np.array([0.3, 0.5, -0.5, 0.3, 0.4, 2.0, -1.5]) + rng.normal(size=7) * 0.2
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.8)))).astype(int)
    weights = rng.uniform(0.5, 2.0, n) if seed % 2 else None
    settings = dict(coef_min=-2, coef_max=2, intercept_min=-4, intercept_max=4, c0=1e-3)
    return RiskScoreProblem(
        X, y, max_size=max_size, sample_weight=weights, **{**settings, **kwargs}
    )


def conditional_entropy(data: SupportData, e: int, a: int | None) -> float:
    """``H(X_e | X_a)`` (``H(X_e)`` for ``a=None``) from the rows, in the loss's units."""
    codes = data.VT[e] * 4 + (data.VT[a] if a is not None else 0)
    cells = np.bincount(codes, weights=data.w)
    given = np.bincount(data.VT[a], weights=data.w) if a is not None else [data.w.sum()]
    h = lambda p: float(sum(v * math.log(v) for v in p if v > 0))  # noqa: E731
    return h(given) - h(cells)


@pytest.mark.parametrize("seed", range(3))
def test_the_tables_bound_the_conditional_entropies(seed):
    problem = one_hot_problem(seed)
    problem.X[:, 6] = np.random.default_rng(seed).integers(0, 3, problem.X.shape[0])
    data = SupportData(RiskScoreProblem(problem.X, problem.y).loss)
    Hc, He = data.entropy
    d = data.d
    for e in range(d):
        assert He[e] == pytest.approx(conditional_entropy(data, e, None), rel=1e-12, abs=1e-15)
        for a in range(d):
            exact = conditional_entropy(data, e, a)
            assert Hc[e, a] >= exact - 1e-13
            if a != e and data.K[e] == data.K[a] == 2:  # binary pairs: the exact value
                assert Hc[e, a] == pytest.approx(exact, abs=1e-11)
    assert Hc[1, 0] < He[1] - 1e-3  # levels of one column: knowing one tells of the other


def entropy_of(data: SupportData, columns) -> float:
    """The joint entropy of the rows' values on ``columns`` of ``VT`` (the label is row
    ``d``), in the loss's units."""
    codes = np.zeros(data.VT.shape[1], dtype=np.int64)
    for j in columns:
        codes = codes * 8 + data.VT[j]
    p = np.bincount(codes, weights=data.w)
    return float(data.w.sum() * math.log(data.w.sum()) - sum(v * math.log(v) for v in p if v > 0))


@pytest.mark.parametrize("seed", range(2))
def test_the_prefix_entropy_and_the_information_bound_against_their_definitions(seed):
    from riskexplore.risk_score.support.merge import (
        extension_information,
        prefix_entropy,
        workspace,
    )

    data = SupportData(one_hot_problem(seed).loss)
    d, label = data.d, data.d
    *_, levels, cached, _, ws = workspace(4, data.X.shape[0], d)
    args = (data.VT, data.K, data.w, data.split, levels, cached, ws)
    tighter = 0
    for support in itertools.islice(itertools.permutations(range(d), 4), 0, None, 5):
        feats = np.array(support, dtype=np.int64)
        Q, e = list(support[:3]), support[3]
        h_q = entropy_of(data, [*Q, label]) - entropy_of(data, Q)
        info = (
            entropy_of(data, [*Q, label]) + entropy_of(data, [*Q, e])
            - entropy_of(data, Q) - entropy_of(data, [*Q, e, label])
        )  # fmt: skip
        assert prefix_entropy(feats, 4, *args) == pytest.approx(h_q, abs=1e-12)
        bound = extension_information(feats, 4, *args)
        assert bound >= info - 1e-12
        tighter += bound < data.entropy[1][e] - 1e-3  # below H(X_e): it tells something
    assert tighter >= 10


@pytest.mark.parametrize("seed", range(4))
def test_supports_ruled_out_by_entropy_hold_nothing_below_the_cutoff(seed):
    problem = one_hot_problem(seed)
    d = problem.n_features
    data = SupportData(problem.loss)
    lo = np.concatenate([[-4.0], np.full(d, -2.0)])
    hi = -lo
    kwargs = dict(forced=(), free=range(d), k_min=0, k_max=4, w_lower=lo, w_upper=hi)
    full = screen_supports(data, **kwargs, c0=problem.c0)
    cutoff = float(np.quantile(full.bounds, 0.1))
    cut = screen_supports(data, **kwargs, c0=problem.c0, cutoff=cutoff)
    np.testing.assert_array_equal(cut.supports, full.supports)
    # a fit is the objective of a model on the box: no bound may exceed it
    assert np.all(full.fits - full.bounds <= 1e-6)
    assert np.all(cut.bounds <= full.fits + 1e-12)
    assert np.all(cut.bounds[full.bounds < cutoff - 1e-9] < cutoff)
    ruled_out = (cut.fits == cut.bounds) & (cut.bounds >= cutoff)  # never fitted
    assert np.count_nonzero(ruled_out) >= 3
    # on one-hot items the bound is close: a support's loss is nearly its entropy
    assert np.all(full.bounds[ruled_out] - cut.bounds[ruled_out] < 0.2)


def brute_force(problem: RiskScoreProblem, m_range) -> float:
    """Least objective over every model with at most ``max_size`` points in [-2, 2]."""
    d = problem.n_features
    y = np.where(problem.y > 0, 1.0, -1.0)
    w = problem.sample_weight / problem.sample_weight.sum()
    best = math.inf
    for size in range(problem.max_size + 1):
        for support in itertools.combinations(range(d), size):
            for points in itertools.product([-2, -1, 1, 2], repeat=size):
                lam = np.zeros(d + 1)
                lam[[j + 1 for j in support]] = points
                if m_range != (1.0, 1.0):
                    for b in range(-4, 5):
                        lam[0] = b
                        best = min(best, scaled_value(problem, lam, m_range)[0])
                    continue
                scores = problem.X[:, list(support)] @ np.array(points, float)
                losses = [float(w @ np.logaddexp(0.0, -y * (b + scores))) for b in range(-4, 5)]
                best = min(best, min(losses) + size * float(problem.c0[0]))
    return best


@pytest.mark.parametrize(("seed", "m_range"), [(0, (1.0, 1.0)), (1, (1.0, 1.0)), (2, (0.5, 2.0))])
def test_the_certified_optimum_is_the_brute_force_one(seed, m_range):
    problem = one_hot_problem(seed, max_size=2 if m_range != (1.0, 1.0) else 3)
    optimum = brute_force(problem, m_range)
    result = solve_scaled_lcpa(problem, m_range, limits=Limits(gap_tolerance=0.0))
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-8)
    assert result.lower_bound <= optimum + 1e-12
