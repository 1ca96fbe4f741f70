"""The support screen's kernel against SciPy: valid and tight bounds on small boxes (where
the optimum sits on the box's surface and warm starts begin there)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.screen import SupportData, screen_supports


def box_minimum(problem: RiskScoreProblem, support, lo, hi) -> float:
    """Least loss over the box on ``support`` (L-BFGS-B on the raw weighted data)."""
    y = np.where(problem.y > 0, 1.0, -1.0)
    w = problem.sample_weight / problem.sample_weight.sum()
    Xs = problem.X[:, support]
    cols = [0, *(j + 1 for j in support)]

    def loss(theta):
        z = y * (theta[0] + Xs @ theta[1:])
        value = float(w @ np.logaddexp(0.0, -z))
        q = -w * y / (1.0 + np.exp(z))
        return value, np.concatenate([[q.sum()], Xs.T @ q])

    bounds = [(lo[c], hi[c]) for c in cols]
    start = np.clip(np.zeros(len(cols)), lo[cols], hi[cols])
    res = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds, tol=1e-14)
    return float(res.fun)


@pytest.mark.parametrize("seed", range(6))
def test_screen_bounds_are_valid_and_tight_on_small_boxes(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(100, 400)), 5
    X = rng.integers(0, 2, (n, d)).astype(float)
    X[:, 1] = rng.integers(0, 4, n)
    if seed % 2:
        X[:, 2] = rng.normal(size=n)  # rows do not merge on this feature
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ rng.normal(size=d) * 1.5 - 0.3)))).astype(int)
    problem = RiskScoreProblem(X, y, c0=0.0)
    width = float(rng.choice([0.2, 0.5, 3.0]))
    lo = np.concatenate([[-2.0], np.full(d, -width)])
    hi = np.concatenate([[2.0], np.full(d, width * rng.choice([0.5, 1.0]))])
    result = screen_supports(
        SupportData(problem.loss), forced=(), free=range(d), k_min=1, k_max=3,
        w_lower=lo, w_upper=hi, c0=np.zeros(d),
    )  # fmt: skip
    assert len(result) == 5 + 10 + 10
    for s in range(len(result)):
        support = [int(j) for j in result.support(s)]
        best = box_minimum(problem, support, lo, hi)
        assert result.bounds[s] <= best + 1e-9
        assert result.bounds[s] >= best - 1e-6
        assert result.fits[s] >= best - 1e-9


def test_threads_give_the_serial_screen_and_solve(small_batches):
    from riskexplore.core.limits import Limits
    from riskexplore.risk_score.scaled.search import ScaledLCPASettings, solve_scaled_lcpa

    rng = np.random.default_rng(7)
    n, d = 600, 16
    X = rng.integers(0, 2, (n, d)).astype(float)
    beta = np.zeros(d)
    beta[:4] = [1.5, -1.0, 1.0, 0.7]
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    problem = RiskScoreProblem(X, y, max_size=5, coef_min=-3, coef_max=3)
    lo = np.concatenate([[-5.0], np.full(d, -3.0)])
    hi = np.concatenate([[5.0], np.full(d, 3.0)])
    data = SupportData(problem.loss)
    kwargs = dict(forced=(), free=range(d), k_min=0, k_max=5, w_lower=lo, w_upper=hi)
    one = screen_supports(data, **kwargs, c0=problem.c0)
    two = screen_supports(data, **kwargs, c0=problem.c0, n_jobs=2)
    assert len(one) == len(two) > 4 * small_batches  # several batches
    np.testing.assert_array_equal(one.supports, two.supports)
    np.testing.assert_array_equal(one.bounds, two.bounds)
    np.testing.assert_array_equal(one.thetas, two.thetas)
    results = [
        solve_scaled_lcpa(
            problem,
            (0.5, 2.0),
            limits=Limits(gap_tolerance=0.0),
            settings=ScaledLCPASettings(n_jobs=jobs),
        )  # fmt: skip
        for jobs in (1, 2)
    ]
    assert results[0].status == results[1].status == "optimal"
    assert results[0].upper_bound == results[1].upper_bound
    np.testing.assert_array_equal(results[0].solution, results[1].solution)
