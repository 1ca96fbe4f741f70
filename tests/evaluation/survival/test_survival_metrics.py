"""Survival metrics against scikit-survival and against their definitions by brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _survival_data import structured

from riskexplore.errors import InputError
from riskexplore.evaluation.survival import (
    censoring_kaplan_meier,
    harrell_c,
    kaplan_meier,
    survival_calibration,
    time_dependent_auc,
    uno_c,
)


def _data(seed: int, n: int = 400):
    """Integer scores (ties), integer times (ties), censoring; a train/test split."""
    rng = np.random.default_rng(seed)
    score = rng.integers(-3, 4, n).astype(float)
    time = np.ceil(rng.exponential(np.exp(-0.3 * score)) * 8)
    event = rng.random(n) < 0.6
    train = rng.random(n) < 0.6
    test = ~train & (time < time[train].max())  # scikit-survival needs G > 0 at test times
    return score, time, event, train, test


def _harrell_by_pairs(time, event, score):
    num = den = 0.0
    for i in np.flatnonzero(event):
        partners = (time > time[i]) | ((time == time[i]) & ~event)
        diff = score[i] - score[partners]
        num += np.sum(diff > 0) + 0.5 * np.sum(diff == 0)
        den += partners.sum()
    return num / den


@pytest.mark.parametrize("seed", [0, 1])
def test_harrell_c_matches_scikit_survival_and_the_pair_definition(seed):
    from sksurv.metrics import concordance_index_censored

    score, time, event, _, _ = _data(seed)
    c = harrell_c(time, event, score)
    expected = concordance_index_censored(event, time, score)
    assert c.estimate == pytest.approx(expected[0], abs=1e-12)
    assert (c.concordant, c.discordant, c.tied) == tuple(float(v) for v in expected[1:4])
    assert c.estimate == pytest.approx(_harrell_by_pairs(time, event, score), abs=1e-12)
    assert harrell_c(time, event, -score).estimate == pytest.approx(1 - c.estimate, abs=1e-12)
    noisy = score + np.random.default_rng(0).normal(0, 1e-12, len(score))  # float noise
    assert harrell_c(time, event, noisy).estimate == pytest.approx(c.estimate, abs=1e-12)
    assert c.to_dict()["pairs"] == c.pairs


@pytest.mark.parametrize("seed", [0, 1])
def test_uno_c_and_time_dependent_auc_match_scikit_survival(seed):
    from sksurv.metrics import concordance_index_ipcw, cumulative_dynamic_auc

    score, time, event, train, test = _data(seed)
    y_train, y_test = structured(time[train], event[train]), structured(time[test], event[test])
    for tau in (None, float(np.quantile(time[test], 0.7))):
        mine = uno_c(time[test], event[test], score[test], train=y_train, tau=tau)
        expected = concordance_index_ipcw(y_train, y_test, score[test], tau)[0]
        assert mine.estimate == pytest.approx(expected, abs=1e-12)
    for horizon in np.quantile(time[test], [0.25, 0.5, 0.75]):
        auc = time_dependent_auc(
            time[test], event[test], score[test], float(horizon), train=(time[train], event[train])
        )
        expected = cumulative_dynamic_auc(y_train, y_test, score[test], [horizon])[0][0]
        assert auc.estimate == pytest.approx(expected, abs=1e-12)


def test_uno_c_without_censoring_is_harrell_c():
    score, time, _, _, _ = _data(2)
    event = np.ones(len(time), dtype=bool)
    assert uno_c(time, event, score).estimate == pytest.approx(
        harrell_c(time, event, score).estimate, abs=1e-12
    )


def test_time_dependent_auc_edges():
    time = np.array([1.0, 2.0, 3.0, 4.0])
    event = np.array([True, True, False, True])
    score = np.array([3.0, 2.0, 1.0, 0.0])
    assert math.isnan(time_dependent_auc(time, event, score, 0.5).estimate)  # no case
    assert math.isnan(time_dependent_auc(time, event, score, 4.0).estimate)  # no control
    assert time_dependent_auc(time, event, score, 2.0).estimate == 1.0
    with pytest.raises(InputError, match="horizon"):
        time_dependent_auc(time, event, score, math.nan)


def test_censoring_survival_of_zero_is_refused():
    time = np.array([1.0, 2.0, 3.0])
    event = np.array([True, True, True])
    train = (np.array([1.0, 1.5]), np.array([False, False]))  # G = 0 after 1.5
    with pytest.raises(InputError, match="censoring survival of the training rows is 0"):
        uno_c(time, event, [3.0, 2.0, 1.0], train=train)


def test_kaplan_meier_and_its_interval_match_scikit_survival():
    from sksurv.nonparametric import kaplan_meier_estimator

    _, time, event, _, _ = _data(3)
    curve = kaplan_meier(time, event)
    times, survival, (lower, upper) = kaplan_meier_estimator(event, time, conf_type="log-log")
    np.testing.assert_array_equal(curve.times, times)
    np.testing.assert_allclose(curve.survival, survival, atol=1e-12)
    np.testing.assert_allclose(curve.lower, lower, atol=1e-10)
    np.testing.assert_allclose(curve.upper, upper, atol=1e-10)
    g_times, g = kaplan_meier_estimator(event, time, reverse=True)
    np.testing.assert_allclose(censoring_kaplan_meier(time, event).survival, g, atol=1e-12)
    t = float(times[len(times) // 2])
    k = len(times) // 2
    at = curve.at(t)
    assert (at.estimate, at.lower, at.upper) == pytest.approx((survival[k], lower[k], upper[k]))
    risk = curve.risk_at(t)
    assert (risk.estimate, risk.lower, risk.upper) == pytest.approx(
        (1 - survival[k], 1 - upper[k], 1 - lower[k])
    )
    assert curve.at(float(times[0]) - 1).to_dict()["estimate"] == 1.0


def test_kaplan_meier_greenwood_by_hand():
    # at risk 4, 1 event at t=1; at risk 3 (one censored at 2), then 2 at risk, 1 event at 3
    curve = kaplan_meier([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0])
    assert curve.survival.tolist() == pytest.approx([0.75, 0.75, 0.375, 0.375])
    assert curve.greenwood[-1] == pytest.approx(1 / (4 * 3) + 1 / (2 * 1))
    s, v = 0.375, 1 / 12 + 1 / 2
    z = 1.959963984540054
    assert curve.at(3.0).lower == pytest.approx(s ** math.exp(z * math.sqrt(v) / abs(math.log(s))))
    assert curve.at(3.0).upper == pytest.approx(s ** math.exp(-z * math.sqrt(v) / abs(math.log(s))))


def test_calibration_per_score_against_each_groups_kaplan_meier():
    score, time, event, _, _ = _data(4)
    risk = np.clip((score + 4) / 10, 0, 1)
    horizon = float(np.median(time))
    table = survival_calibration(score, risk, time, event, horizon)
    assert table["score"].tolist() == sorted(set(score))
    assert table["patients"].sum() == len(score)
    for row in table.itertuples():
        group = score == row.score
        expected = kaplan_meier(time[group], event[group]).risk_at(horizon)
        assert row.observed_risk == pytest.approx(expected.estimate)
        assert row.lower <= row.observed_risk <= row.upper
        assert row.predicted_risk == pytest.approx(risk[group].mean())
        assert row.events == int((event[group] & (time[group] <= horizon)).sum())
    late = survival_calibration([0, 0, 1], [0.1, 0.1, 0.2], [1.0, 2.0, 9.0], [1, 0, 1], 5.0)
    assert math.isnan(late["observed_risk"][0])  # nobody of score 0 followed to 5
    assert late["observed_risk"][1] == 0.0
    with pytest.raises(InputError, match="between 0 and 1"):
        survival_calibration(score, risk + 1, time, event, horizon)
