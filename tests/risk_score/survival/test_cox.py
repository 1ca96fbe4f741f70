"""The Cox loss: scikit-survival's Breslow likelihood, finite differences, weights, stability."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _survival_data import survival_data

from riskexplore.errors import InputError
from riskexplore.risk_score.survival import CoxLoss, cox_loss_bounds


def _lam(points):
    return np.r_[0.0, points]


@pytest.mark.parametrize("seed,scale", [(0, 1.0), (1, 1.0), (2, 7.0)])
def test_value_and_gradient_match_scikit_survival_breslow(seed, scale):
    from sksurv.linear_model.coxph import CoxPHOptimizer

    X, time, event, points = survival_data(seed=seed)
    points = points * scale
    loss = CoxLoss.from_data(X, time, event)
    value, grad = loss.value_and_grad(_lam(points))
    reference = CoxPHOptimizer(X, event, time, np.zeros(X.shape[1]), "breslow")
    with np.errstate(over="ignore", invalid="ignore"):
        expected = reference.nlog_likelihood(points)
        reference.update(points)
    assert value == pytest.approx(expected, abs=1e-12)
    assert grad[0] == 0.0  # the intercept is ignored
    np.testing.assert_allclose(grad[1:], np.ravel(reference.gradient), atol=1e-12)
    assert loss.value(_lam(points)) == pytest.approx(value, abs=1e-14)


def test_gradient_matches_finite_differences_at_real_points():
    X, time, event, _ = survival_data(seed=3)
    loss = CoxLoss.from_data(X, time, event)
    lam = _lam(np.random.default_rng(0).normal(size=X.shape[1]))
    _, grad = loss.value_and_grad(lam)
    h = 1e-6
    for j in range(1, len(lam)):
        step = np.zeros_like(lam)
        step[j] = h
        fd = (loss.value(lam + step) - loss.value(lam - step)) / (2 * h)
        assert grad[j] == pytest.approx(fd, abs=1e-7)


def test_weights_equal_duplicated_rows():
    X, time, event, points = survival_data(n=120, seed=4)
    counts = np.random.default_rng(1).integers(0, 4, size=len(time))
    counts[np.flatnonzero(event)[0]] = 2  # keep at least one event
    weighted = CoxLoss.from_data(X, time, event, weights=counts)
    repeat = np.repeat(np.arange(len(time)), counts)
    duplicated = CoxLoss.from_data(X[repeat], time[repeat], event[repeat])
    v1, g1 = weighted.value_and_grad(_lam(points))
    v2, g2 = duplicated.value_and_grad(_lam(points))
    assert v1 == pytest.approx(v2, abs=1e-13)
    np.testing.assert_allclose(g1, g2, atol=1e-13)
    assert weighted.loss_floor() == pytest.approx(duplicated.loss_floor(), abs=1e-13)


def test_shift_invariance_batch_and_engine_conventions():
    X, time, event, points = survival_data(seed=5)
    loss = CoxLoss.from_data(X, time, event)
    s = loss.scores(_lam(points))
    assert loss.scores(np.r_[9.0, points]) == pytest.approx(s)  # lam[0] ignored
    value, g_s = loss.value_and_grad_scores(s)
    assert loss.from_scores(s + 123.5) == pytest.approx(value, abs=1e-12)
    assert g_s.sum() == pytest.approx(0.0, abs=1e-12)  # the gradient of a shift is 0
    np.testing.assert_allclose(g_s @ loss.X, loss.value_and_grad(_lam(points))[1][1:])
    assert not loss.has_intercept and loss.n_rows == len(time)
    assert np.all(loss.column(0) == 0.0)
    np.testing.assert_array_equal(loss.column(2), X[loss.rows.order, 1])
    # a move along one column, as the engine's heuristics make it
    moved = s + 2.0 * loss.column(3)
    assert loss.from_scores(moved) == pytest.approx(loss.value(_lam(points + 2 * np.eye(5)[2])))
    S = np.column_stack([s, s + 1.0, moved, np.zeros_like(s)])
    expected = [loss.from_scores(S[:, k]) for k in range(S.shape[1])]
    np.testing.assert_allclose(loss.batch_from_scores(S), expected, atol=1e-14)


def test_huge_scores_stay_finite():
    X, time, event, points = survival_data(seed=6)
    loss = CoxLoss.from_data(X, time, event)
    for scale in (100.0, 1000.0, 1e6):
        value, grad = loss.value_and_grad(_lam(points * scale))
        assert np.isfinite(value) and np.isfinite(grad).all()
        assert value >= loss.loss_floor() - 1e-12


def test_fingerprint_follows_the_data_not_the_row_order():
    X, time, event, _ = survival_data(n=80, seed=7)
    rows = np.random.default_rng(2).permutation(len(time))
    a = CoxLoss.from_data(X, time, event)
    # a permutation keeps the data; ties may reorder rows of equal time, so compare
    # on distinct times
    distinct = np.arange(len(time)) / 7.0 + 0.1
    b = CoxLoss.from_data(X, distinct, event)
    c = CoxLoss.from_data(X[rows], distinct[rows], event[rows])
    assert b.fingerprint() == c.fingerprint()
    assert a.fingerprint() != b.fingerprint()
    w = np.ones(len(time))
    w[0] = 2.0
    assert CoxLoss.from_data(X, time, event, w).fingerprint() != a.fingerprint()


def _all_models(d: int, lo: int, hi: int, max_size: int):
    for support in itertools.chain.from_iterable(
        itertools.combinations(range(d), k) for k in range(max_size + 1)
    ):
        values = [v for v in range(lo, hi + 1) if v != 0]
        for chosen in itertools.product(values, repeat=len(support)):
            points = np.zeros(d)
            points[list(support)] = chosen
            yield points


@pytest.mark.parametrize("weighted", [False, True])
def test_box_bounds_and_floor_hold_for_every_model_by_brute_force(weighted):
    X, time, event, _ = survival_data(n=60, d=4, seed=8)
    X[:, 3] = np.round(np.random.default_rng(3).normal(size=len(time)), 1)  # a real column
    weights = np.random.default_rng(4).uniform(0.2, 1.5, len(time)) if weighted else None
    loss = CoxLoss.from_data(X, time, event, weights)
    lower, upper = np.r_[0.0, -2, -2, -2, -2], np.r_[0.0, 2, 2, 2, 2]
    S = np.column_stack([loss.scores(_lam(p)) for p in _all_models(4, -2, 2, 2)])
    values = loss.batch_from_scores(S)
    low, high = cox_loss_bounds(loss, lower, upper, max_size=2)
    assert low <= values.min() + 1e-12 and high >= values.max() - 1e-12
    assert loss.loss_floor() <= values.min() + 1e-12
    assert low > loss.value(np.zeros(5)) - 1.0  # not a vacuous bound
    # real points in the box, at most 2 non-zero
    rng = np.random.default_rng(5)
    for _ in range(200):
        lam = np.zeros(5)
        lam[1 + rng.choice(4, size=2, replace=False)] = rng.uniform(-2, 2, size=2)
        assert low - 1e-12 <= loss.value(lam) <= high + 1e-12


def test_box_bounds_with_a_feature_forced_in():
    X, time, event, _ = survival_data(n=50, d=3, seed=9)
    loss = CoxLoss.from_data(X, time, event)
    lower, upper = np.r_[0.0, 1, -2, -2], np.r_[0.0, 2, 2, 2]
    models = [p for p in _all_models(3, -2, 2, 2) if p[0] >= 1]
    values = [loss.value(_lam(p)) for p in models]
    low, high = cox_loss_bounds(loss, lower, upper, max_size=2)
    assert low <= min(values) + 1e-12 and high >= max(values) - 1e-12


def test_floor_is_zero_for_distinct_rows_and_unit_weights():
    X = np.eye(4)
    loss = CoxLoss.from_data(X, [1.0, 2.0, 3.0, 4.0], [1, 1, 0, 1])
    assert loss.loss_floor() == 0.0


def test_weights_below_one_make_the_loss_negative_and_the_floor_follows():
    X = np.eye(4)
    loss = CoxLoss.from_data(X, [1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1], weights=np.full(4, 0.5))
    value = loss.value(np.r_[0.0, 30.0, 20.0, 10.0, 0.0])  # each event far above the rest
    assert value < 0.0  # so the LP's usual L >= 0 would cut this model off
    assert loss.loss_floor() == pytest.approx(np.log(0.5))
    assert loss.loss_floor() <= value


def test_bad_inputs_name_the_fault():
    X, time, event, _ = survival_data(n=20, seed=10)
    with pytest.raises(InputError, match="one row per time"):
        CoxLoss.from_data(X[:5], time, event)
    with pytest.raises(InputError, match="weights"):
        CoxLoss.from_data(X, time, event, weights=-np.ones(20))
    with pytest.raises(InputError, match="weight 0"):
        CoxLoss.from_data(X, time, event, weights=np.where(event, 0.0, 1.0))
    X_bad = X.copy()
    X_bad[0, 0] = np.nan
    with pytest.raises(InputError, match="missing"):
        CoxLoss.from_data(X_bad, time, event)
