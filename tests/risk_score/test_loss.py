"""The loss's sparse products (large, mostly-zero rows) against the dense ones, and the
engines' certificates when every loss takes them."""

from __future__ import annotations

import numpy as np
import pytest
from _scaled_reference import scaled_optimum
from _small_problems import enumerate_optimum
from _small_problems import random_problem as lcpa_problem

import riskexplore.risk_score.loss as loss_module
from riskexplore.core.limits import Limits
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.loss import LogisticLoss
from riskexplore.risk_score.scaled.search import solve_scaled_lcpa


def one_hot_rows(seed: int, n: int = 5000, d: int = 120) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.08).astype(float)
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("seed", range(3))
def test_sparse_products_match_dense_ones(seed):
    X, y = one_hot_rows(seed)
    lo, hi = np.full(X.shape[1] + 1, -5.0), np.full(X.shape[1] + 1, 5.0)
    sparse = LogisticLoss.from_data(X, y, np.ones(len(y)), lo, hi)
    assert sparse._csr is not None  # 605,000 entries, about 8% non-zero
    dense = LogisticLoss(sparse.Z, sparse.weights, lo, hi)
    dense._csr = None
    rng = np.random.default_rng(seed)
    for integral in (True, False):
        for _ in range(5):
            lam = rng.integers(-5, 6, X.shape[1] + 1).astype(float)
            if not integral:
                lam += rng.normal(size=lam.size)
            assert np.array_equal(sparse.scores(lam), dense.scores(lam)) or np.allclose(
                sparse.scores(lam), dense.scores(lam), rtol=1e-14, atol=1e-12
            )
            (v1, g1), (v2, g2) = (
                sparse.value_and_grad(lam, integral),
                dense.value_and_grad(lam, integral),
            )
            assert v1 == pytest.approx(v2, rel=1e-13)
            np.testing.assert_allclose(g1, g2, rtol=1e-11, atol=1e-15)


def test_small_or_dense_rows_stay_dense():
    X, y = one_hot_rows(0, n=200, d=10)
    assert LogisticLoss.from_data(X, y, np.ones(len(y)))._csr is None
    X = np.ones((6000, 100))
    X[::2, ::3] = 0.0
    assert LogisticLoss.from_data(X, np.ones(6000), np.ones(6000))._csr is None


@pytest.mark.parametrize("seed", range(8))
def test_engines_certify_the_optimum_with_sparse_products(monkeypatch, seed):
    monkeypatch.setattr(loss_module, "_SPARSE_MIN_SIZE", 0)
    monkeypatch.setattr(loss_module, "_SPARSE_DENSITY", 1.0)
    problem = lcpa_problem(400 + seed, with_constraints=seed % 2 == 1)
    assert problem.loss._csr is not None
    optimum = enumerate_optimum(problem)
    if not np.isfinite(optimum):
        return
    result = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0))
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9, abs=0)
    assert result.lower_bound <= optimum
    m_range = (0.5, 2.0)
    scaled = solve_scaled_lcpa(problem, m_range, limits=Limits(gap_tolerance=0.0))
    best = scaled_optimum(problem, m_range)
    assert scaled.upper_bound == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert scaled.lower_bound <= best * (1 + 1e-12)
