"""The Cox support bound and the root's feature floors: valid lower bounds, by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _survival_data import survival_data

from riskexplore import fit_survival_score
from riskexplore.risk_score.constraints import AtMostKOf
from riskexplore.risk_score.lcpa.settings import LCPASettings
from riskexplore.risk_score.survival import CoxLoss, SurvivalProblem
from riskexplore.risk_score.survival.support import cox_feature_floors, cox_support_bound


def _loss(seed=3):
    X, time, event, _ = survival_data(n=160, d=5, seed=seed)
    X[:, 4] = np.round(np.random.default_rng(seed).normal(size=160), 1)  # real-valued
    return CoxLoss.from_data(X, time, event)


@pytest.mark.parametrize("seed", [3, 4])
def test_the_support_bound_is_below_every_model_of_its_box(seed):
    loss = _loss(seed)
    rng = np.random.default_rng(seed)
    for support in [(0,), (1, 4), (0, 2, 3), (0, 1, 3, 4)]:
        lo = -rng.integers(1, 3, len(support)).astype(float)
        hi = rng.integers(1, 3, len(support)).astype(float)
        bound = cox_support_bound(loss, support, lo, hi)
        least = np.inf
        for points in itertools.product(
            *(range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True))
        ):
            lam = np.zeros(6)
            lam[np.array(support) + 1] = points
            least = min(least, loss.value(lam))
        assert bound <= least
        assert bound >= least - 0.1  # and close: the box's continuous optimum is near


def test_feature_floors_are_below_every_model_using_the_feature():
    loss, d, c0 = _loss(), 5, 0.01
    lower = np.r_[0.0, -2.0 * np.ones(d), np.zeros(d)]
    upper = np.r_[0.0, 2.0 * np.ones(d), np.ones(d)]
    floors = cox_feature_floors(
        loss, lower, upper, c0=np.full(d, c0), k_min=0, k_max=3, max_supports=1000
    )
    best = np.full(d, np.inf)
    for points in itertools.product(range(-2, 3), repeat=d):
        points = np.array(points, dtype=float)
        if 0 < np.count_nonzero(points) <= 3:
            objective = loss.value(np.r_[0.0, points]) + c0 * np.count_nonzero(points)
            best[points != 0] = np.minimum(best[points != 0], objective)
    assert np.all(floors <= best)
    assert (
        cox_feature_floors(loss, lower, upper, c0=np.full(d, c0), k_min=0, k_max=3, max_supports=10)
        is None
    )  # too many supports: no floors


def test_root_fixing_fixes_features_and_keeps_the_optimum():
    X, time, event, _ = survival_data(n=300, d=8, seed=4)
    kwargs = {"coef_min": -3, "coef_max": 3, "c0": 0.005, "max_size": 3, "n_jobs": 1}
    fixed = fit_survival_score(X, time, event, **kwargs)
    plain = fit_survival_score(X, time, event, settings=LCPASettings(root_fixing=False), **kwargs)
    assert fixed.stats["solver"]["fixed_features"] > 0
    assert plain.stats["solver"]["fixed_features"] == 0
    assert fixed.certificate.is_optimal and plain.certificate.is_optimal
    assert fixed.objective == pytest.approx(plain.objective, abs=1e-9)
    assert fixed.points == plain.points and len(fixed.points) == 3


def test_supports_that_break_an_indicator_row_hold_no_model():
    X, time, event, _ = survival_data(n=120, d=3, seed=1)
    problem = SurvivalProblem(X, time, event, constraints=[AtMostKOf(["x0", "x1"], 1)])
    d = 3
    lower = np.r_[0.0, -5.0 * np.ones(d), np.zeros(d)]
    upper = np.r_[0.0, 5.0 * np.ones(d), np.ones(d)]
    from riskexplore.risk_score.support.fixing import alpha_rows

    kwargs = {"c0": np.full(d, 0.01), "k_min": 2, "k_max": 2, "max_supports": 100}
    floors = problem.loss.feature_floors(lower, upper, alpha_rows=alpha_rows(problem), **kwargs)
    both = problem.loss.feature_floors(lower, upper, **kwargs)
    # size 2 without {x0, x1}: fewer supports, so floors at least as high
    assert np.all(floors >= both) and np.isfinite(floors).all()
