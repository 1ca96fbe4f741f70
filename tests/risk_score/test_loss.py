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


@pytest.mark.parametrize("values", [(0, 1), (-2, 3)])
def test_merged_rows_give_the_loss_of_every_row(values):
    """Rows merged with summed weights (int8 signed rows, packed merge) give the loss and
    gradient of the unmerged rows, and the rows and weights of the former np.unique merge."""
    rng = np.random.default_rng(values[1])
    n, d = 3000, 12
    X = rng.integers(values[0], values[1] + 1, (40, d)).astype(float)[rng.integers(0, 40, n)]
    y = np.where(rng.random(n) < 0.3, 1, -1)
    w = rng.random(n) + 0.5
    lo, hi = np.full(d + 1, -5.0), np.full(d + 1, 5.0)
    merged = LogisticLoss.from_data(X, y, w, lo, hi)
    assert loss_module.signed_rows(X, y).dtype == np.int8
    assert merged.n_rows <= 2 * 40  # 40 patterns, each with either label
    Z = y[:, None] * np.column_stack([np.ones(n), X])
    Zu, inverse = np.unique(Z, axis=0, return_inverse=True)
    wu = np.bincount(inverse.ravel(), weights=w)
    assert np.array_equal(merged.Z, Zu[wu > 0]) and np.array_equal(merged.weights, wu / wu.sum())
    for _ in range(5):
        lam = rng.integers(-5, 6, d + 1).astype(float)
        margins = Z @ lam
        unmerged = w @ np.logaddexp(0.0, -margins) / w.sum()
        grad = -(w / w.sum() * loss_module._expit(-margins)) @ Z
        value, got_grad = merged.value_and_grad(lam, integral=True)
        assert value == pytest.approx(unmerged, rel=1e-12)
        np.testing.assert_allclose(got_grad, grad, rtol=1e-10, atol=1e-14)


def test_real_valued_rows_are_merged_as_floats():
    X = np.array([[0.5, 1.0], [0.5, 1.0], [2.0, 0.0]])
    y = np.array([1, 1, -1])
    assert loss_module.signed_rows(X, y).dtype == float
    loss = LogisticLoss.from_data(X, y, np.ones(3))
    assert loss.n_rows == 2 and np.allclose(sorted(loss.weights), [1 / 3, 2 / 3])
