"""Exact small logistic regressions against scikit-learn, and separated outcomes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from riskexplore.core.logistic_fit import logistic_fit


def test_matches_scikit_learn_with_weights():
    rng = np.random.default_rng(3)
    x = rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-(0.4 + 1.2 * x)))).astype(int)
    w = rng.uniform(0.5, 2.0, 300)
    fit = logistic_fit(np.column_stack([np.ones(300), x]), y, weights=w)
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x[:, None], y, w)
    assert fit.converged and fit.steps < 15
    assert fit.coef == pytest.approx([ref.intercept_[0], ref.coef_[0, 0]], abs=1e-6)
    p = 1 / (1 + np.exp(-(fit.coef[0] + fit.coef[1] * x)))
    design = np.column_stack([np.ones(300), x])
    info = design.T @ (design * (w * p * (1 - p))[:, None])
    assert fit.covariance == pytest.approx(np.linalg.inv(info), rel=1e-6)


def test_an_offset_fits_only_the_intercept():
    rng = np.random.default_rng(4)
    offset = rng.normal(-1, 1, 200)
    y = (rng.random(200) < 1 / (1 + np.exp(-(offset + 0.7)))).astype(int)
    fit = logistic_fit(np.ones(200), y, offset=offset)
    p = 1 / (1 + np.exp(-(offset + fit.coef[0])))
    assert fit.converged and p.sum() == pytest.approx(y.sum(), abs=1e-9)


@pytest.mark.parametrize(
    ("design", "y"),
    [
        (np.ones((5, 1)), np.zeros(5)),  # one outcome only
        (np.column_stack([np.ones(6), np.arange(6)]), [0, 0, 0, 1, 1, 1]),  # separated
        (np.ones((6, 2)), [0, 1, 0, 1, 0, 1]),  # singular design
    ],
)
def test_no_finite_optimum_is_reported(design, y):
    assert not logistic_fit(design, y).converged
