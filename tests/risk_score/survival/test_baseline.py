"""The Breslow baseline hazard and the risk by a horizon, against scikit-survival."""

from __future__ import annotations

import numpy as np
import pytest
from _survival_data import survival_data

from riskexplore.errors import InputError
from riskexplore.risk_score.survival import breslow_baseline


@pytest.mark.parametrize("seed", [0, 1])
def test_baseline_and_risk_match_scikit_survival(seed):
    from sksurv.linear_model.coxph import BreslowEstimator

    X, time, event, points = survival_data(seed=seed)
    scores = X @ points
    baseline = breslow_baseline(scores, time, event)
    reference = BreslowEstimator().fit(scores, event, time)
    np.testing.assert_allclose(
        baseline.cumulative_hazard, reference.cum_baseline_hazard_(baseline.times), atol=1e-10
    )
    np.testing.assert_array_equal(baseline.times, np.unique(time[event]))
    horizon = float(np.median(time))
    expected = 1.0 - np.array([f(horizon) for f in reference.get_survival_function(scores)])
    np.testing.assert_allclose(baseline.risk(scores, horizon), expected, atol=1e-10)


def test_risk_lies_in_unit_interval_and_rises_with_the_score():
    X, time, event, points = survival_data(seed=2)
    baseline = breslow_baseline(X @ points, time, event)
    grid = np.arange(-40.0, 41.0)
    horizons = [0.0, float(time.min()) / 2, float(np.median(time)), float(time.max()) * 2]
    risk = baseline.risk(grid, horizons)
    assert risk.shape == (len(grid), len(horizons))
    assert np.all((risk >= 0) & (risk <= 1))
    assert np.all(np.diff(risk, axis=0) >= 0) and np.all(np.diff(risk, axis=1) >= 0)
    assert np.all(risk[:, 0] == 0.0)  # nothing happens before the first event time
    assert risk[-1, -1] == 1.0 and risk[0, 2] < 1e-9


def test_huge_scores_give_finite_hazards():
    X, time, event, points = survival_data(seed=3)
    baseline = breslow_baseline(X @ points * 1000.0, time, event)
    assert np.isfinite(baseline.log_cumulative_hazard).all()
    risk = baseline.risk(X @ points * 1000.0, float(np.median(time)))
    assert np.isfinite(risk).all() and np.all((risk >= 0) & (risk <= 1))


def test_weights_equal_duplicated_rows():
    X, time, event, points = survival_data(n=100, seed=4)
    counts = np.random.default_rng(0).integers(1, 4, size=len(time))
    repeat = np.repeat(np.arange(len(time)), counts)
    a = breslow_baseline(X @ points, time, event, weights=counts)
    b = breslow_baseline((X @ points)[repeat], time[repeat], event[repeat])
    np.testing.assert_allclose(a.cumulative_hazard, b.cumulative_hazard, rtol=1e-12)


def test_bad_inputs():
    X, time, event, points = survival_data(n=30, seed=5)
    with pytest.raises(InputError, match="one per row"):
        breslow_baseline(np.zeros(3), time, event)
    baseline = breslow_baseline(X @ points, time, event)
    with pytest.raises(InputError, match="horizon"):
        baseline.risk(X @ points, -1.0)
