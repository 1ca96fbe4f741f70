"""validate_survival on whas500 against scikit-survival, score groups, slope, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _survival_data import structured

from riskexplore.errors import InputError
from riskexplore.evaluation.survival.cox_slope import cox_slope
from riskexplore.evaluation.survival.score_groups import group_label, score_groups
from riskexplore.evaluation.survival.validation import validate_survival

HORIZON = 365.0


@pytest.fixture(scope="module")
def whas():
    """whas500 with a fixed integer score, a 60/40 split and a Breslow risk by 1 year."""
    from sksurv.datasets import load_whas500
    from sksurv.linear_model.coxph import BreslowEstimator

    X, y = load_whas500()
    score = (
        (X["age"].to_numpy() / 20).round()
        + X["chf"].to_numpy().astype(float)
        + 2 * X["sho"].to_numpy().astype(float)
        + X["av3"].to_numpy().astype(float)
    )
    time, event = y["lenfol"].astype(float), y["fstat"].astype(bool)
    train = np.random.default_rng(0).random(len(time)) < 0.6
    test = ~train & (time < time[train].max())  # scikit-survival needs G > 0 at test times
    # an independent risk: scikit-survival's Breslow baseline of the score on the train rows
    base = BreslowEstimator().fit(score[train], event[train], time[train])
    risk = 1 - np.array([f(HORIZON) for f in base.get_survival_function(score[test])])
    v = validate_survival(
        score[test],
        risk,
        time[test],
        event[test],
        HORIZON,
        train_time=time[train],
        train_event=event[train],
    )
    return {
        "v": v,
        "s": score[test],
        "risk": risk,
        "time": time[test],
        "event": event[test],
        "y_train": y[train],
        "y_test": y[test],
    }


def test_discrimination_matches_scikit_survival(whas):
    from sksurv.metrics import (
        concordance_index_censored,
        concordance_index_ipcw,
        cumulative_dynamic_auc,
    )

    v, s, time, event = whas["v"], whas["s"], whas["time"], whas["event"]
    assert v.harrell_c.estimate == pytest.approx(
        concordance_index_censored(event, time, s)[0], abs=1e-6
    )
    uno = concordance_index_ipcw(whas["y_train"], whas["y_test"], s, tau=HORIZON)[0]
    assert v.uno_c.estimate == pytest.approx(uno, abs=1e-6)
    auc = cumulative_dynamic_auc(whas["y_train"], whas["y_test"], s, [HORIZON])[0][0]
    assert v.time_auc.estimate == pytest.approx(auc, abs=1e-6)
    for e in (v.harrell_c, v.uno_c, v.time_auc):
        assert e.lower < e.estimate < e.upper
        assert 0.5 < e.lower and e.upper < 1
    assert v.censoring_from == "training rows"


def _km_at(time, event, t):
    from sksurv.nonparametric import kaplan_meier_estimator

    times, surv, (low, high) = kaplan_meier_estimator(event, time, conf_type="log-log")
    k = np.searchsorted(times, t, side="right") - 1
    return (1.0, 1.0, 1.0) if k < 0 else (surv[k], low[k], high[k])


def test_calibration_and_curves_match_scikit_survival(whas):
    from sksurv.nonparametric import kaplan_meier_estimator

    v, s, risk, time, event = (whas[k] for k in ("v", "s", "risk", "time", "event"))
    surv, low, high = _km_at(time, event, HORIZON)
    assert (v.observed_risk.estimate, v.observed_risk.lower, v.observed_risk.upper) == (
        pytest.approx((1 - surv, 1 - high, 1 - low), abs=1e-6)
    )
    assert v.predicted_risk == pytest.approx(risk.mean(), abs=1e-12)
    oe = v.observed_expected
    assert oe.estimate == pytest.approx((1 - surv) / risk.mean(), abs=1e-9)
    assert oe.lower < oe.estimate < oe.upper
    for row in v.calibration.itertuples():
        rows = s == row.score
        assert row.patients == rows.sum()
        assert row.predicted_risk == pytest.approx(risk[rows].mean(), abs=1e-12)
        if event[rows].any():
            km = _km_at(time[rows], event[rows], HORIZON)
            assert row.observed_risk == pytest.approx(1 - km[0], abs=1e-6)
            assert row.lower <= row.observed_risk <= row.upper
    assert v.calibration["patients"].sum() == len(s)
    for curve in v.km_curves:
        rows = (s >= curve["low"]) & (s <= curve["high"])
        assert curve["patients"] == rows.sum() >= v.min_group_rows
        times, surv_g, (lo, hi) = kaplan_meier_estimator(
            event[rows], time[rows], conf_type="log-log"
        )
        np.testing.assert_allclose(curve["time"], times, atol=0)
        np.testing.assert_allclose(curve["survival"], surv_g, atol=1e-6)
        np.testing.assert_allclose(curve["lower"], lo, atol=1e-6)
        np.testing.assert_allclose(curve["upper"], hi, atol=1e-6)
    assert sum(c["patients"] for c in v.km_curves) == len(s)
    assert list(v.group_calibration["group"]) == [c["label"] for c in v.km_curves]


def test_calibration_slope_matches_scikit_survival_cox(whas):
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.linear_model.coxph import CoxPHOptimizer

    v, s, time, event = whas["v"], whas["s"], whas["time"], whas["event"]
    cox = CoxPHSurvivalAnalysis(ties="breslow", alpha=0).fit(s.reshape(-1, 1), whas["y_test"])
    slope = v.calibration_slope
    assert slope.estimate == pytest.approx(cox.coef_[0], abs=1e-4)
    opt = CoxPHOptimizer(s.reshape(-1, 1), event, time, alpha=np.zeros(1), ties="breslow")
    opt.update(cox.coef_)
    se = 1 / math.sqrt(opt.hessian[0, 0] * len(s))  # its Hessian is per row
    assert (slope.upper - slope.lower) / 2 == pytest.approx(1.959963984540054 * se, rel=1e-4)
    assert slope.lower < slope.estimate < slope.upper


def test_the_document_and_the_table(whas):
    v = whas["v"]
    doc = json.loads(json.dumps(v.to_dict(), allow_nan=False))
    assert doc["harrell_c"]["estimate"] == pytest.approx(v.harrell_c.estimate)
    assert doc["horizon"] == HORIZON and doc["censoring_from"] == "training rows"
    assert len(doc["calibration"]) == len(v.calibration)
    assert doc["group_calibration"][0]["group"].startswith("score ")
    table = v.table()
    assert list(table["metric"])[:3] == ["harrell_c", "uno_c", "time_auc"]
    assert "Harrell's C" in str(v) and "training rows" in str(v)


def test_without_training_rows_the_censoring_comes_from_these_rows():
    from sksurv.metrics import concordance_index_ipcw

    rng = np.random.default_rng(3)
    s = rng.integers(0, 5, 150).astype(float)
    time = np.ceil(rng.exponential(np.exp(-0.4 * s)) * 10)
    event = rng.random(150) < 0.7
    h = float(np.median(time))
    risk = np.clip(0.1 * s, 0, 1)
    v = validate_survival(s, risk, time, event, h, n_boot=20, min_group_rows=40)
    y = structured(time, event)
    assert v.censoring_from == "validation rows"
    assert v.uno_c.estimate == pytest.approx(concordance_index_ipcw(y, y, s, tau=h)[0], abs=1e-6)
    again = validate_survival(s, risk, time, event, h, n_boot=20, min_group_rows=40)
    assert again.harrell_c == v.harrell_c  # the same seed, the same interval
    bare = validate_survival(s, risk, time, event, h, n_boot=0)
    assert math.isnan(bare.harrell_c.lower) and bare.harrell_c.estimate == v.harrell_c.estimate


def test_score_groups_merge_adjacent_scores_by_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(30):
        s = rng.integers(-4, 6, rng.integers(1, 120)).astype(float)
        m = int(rng.integers(1, 40))
        group, ranges = score_groups(s, m)
        counts = np.bincount(group)
        assert len(counts) == len(ranges)
        if len(s) >= m:
            assert (counts >= m).all()
        for g, (low, high) in enumerate(ranges):  # a group is exactly the rows of its range
            np.testing.assert_array_equal(group == g, (s >= low) & (s <= high))
        assert all(ranges[k][1] < ranges[k + 1][0] for k in range(len(ranges) - 1))
        # greedy: a group but the last, without its highest score, has fewer than m rows
        for low, high in ranges[:-1]:
            assert ((s >= low) & (s < high)).sum() < m
    assert group_label(0, 1) == "score 0 to 1" and group_label(3, 3) == "score 3"
    assert group_label(-2, 1) == "score −2 to 1"
    with pytest.raises(InputError, match="min_rows"):
        score_groups([1.0, 2.0], 0)


def test_cox_slope_without_a_finite_maximum_is_nan():
    time = np.array([1.0, 2.0, 3.0, 4.0])
    event = np.ones(4, dtype=bool)
    assert math.isnan(cox_slope([1.0, 1.0, 1.0, 1.0], time, event).estimate)  # one score
    assert math.isnan(cox_slope([4.0, 3.0, 2.0, 1.0], time, event).estimate)  # separated
    assert np.isfinite(cox_slope([4.0, 2.0, 3.0, 1.0], time, event).estimate)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"horizon": 50.0}, "outside the follow-up"),
        ({"horizon": 0.0}, "outside the follow-up"),
        ({"horizon": "1 year"}, "horizon must be a time"),
        ({"event": np.zeros(6)}, "every one of the 6 rows is censored"),
        ({"scores": np.arange(5.0)}, "scores must be 6 finite numbers"),
        ({"risk": np.full(6, 1.5)}, "between 0 and 1"),
        ({"risk": np.full(5, 0.5)}, "risk must be 6 finite numbers"),
        ({"scores": ["a"] * 6}, "scores must be 6 finite numbers.*not numbers"),
        ({"train_time": np.arange(6.0)}, "train_time and train_event"),
        ({"n_boot": -1}, "n_boot"),
    ],
)
def test_bad_input_is_refused_clearly(change, message):
    args = {
        "scores": np.array([0.0, 1, 1, 2, 2, 3]),
        "risk": np.full(6, 0.3),
        "time": np.array([1.0, 2, 3, 4, 5, 6]),
        "event": np.array([1, 0, 1, 1, 0, 1]),
        "horizon": 4.0,
    }
    args.update(change)
    with pytest.raises(InputError, match=message):
        validate_survival(
            args.pop("scores"), args.pop("risk"), args.pop("time"), args.pop("event"),
            args.pop("horizon"), **args,
        )  # fmt: skip
