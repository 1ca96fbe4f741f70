"""The engine's datafit seam: the logistic and Cox losses answer the same questions."""

from __future__ import annotations

import numpy as np
from _survival_data import survival_data

from riskexplore.risk_score.datafit import Datafit
from riskexplore.risk_score.lcpa.cut_pool import loss_fingerprint
from riskexplore.risk_score.loss import LogisticLoss
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.survival import CoxLoss


def _logistic():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(80, 3)).astype(float)
    y = (X[:, 0] + rng.random(80) > 1).astype(int)
    return RiskScoreProblem(X, y, max_size=2).loss


def test_both_losses_are_datafits_with_their_own_kernel_and_intercept():
    X, time, event, _ = survival_data(n=60, d=3)
    cox, logistic = CoxLoss.from_data(X, time, event), _logistic()
    assert isinstance(cox, Datafit) and isinstance(logistic, Datafit)
    assert (logistic.has_intercept, logistic.support_kernel) == (True, "logistic")
    assert (cox.has_intercept, cox.support_kernel) == (False, None)
    assert logistic.loss_floor() == 0.0


def test_columns_are_the_margin_change_per_unit_of_each_coordinate():
    X, time, event, points = survival_data(n=60, d=3)
    for loss in (CoxLoss.from_data(X, time, event), _logistic()):
        lam = np.r_[1.0, points[:3]]
        for j in range(4):
            step = np.zeros(4)
            step[j] = 2.0
            change = loss.scores(lam + step) - loss.scores(lam)
            np.testing.assert_allclose(change, 2.0 * loss.column(j))
        np.testing.assert_array_equal(
            loss.column(np.array([2, 0])), np.column_stack([loss.column(2), loss.column(0)])
        )


def test_the_cut_pool_fingerprint_is_the_datafits_own():
    logistic = _logistic()
    same = LogisticLoss(logistic.Z.copy(), logistic.weights.copy())
    assert loss_fingerprint(logistic) == loss_fingerprint(same) == logistic.fingerprint()
    X, time, event, _ = survival_data(n=60, d=3)
    cox = CoxLoss.from_data(X, time, event)
    assert loss_fingerprint(cox) == cox.fingerprint() != loss_fingerprint(logistic)
