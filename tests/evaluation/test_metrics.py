"""Tests for riskexplore.evaluation.metrics (CAL, AUC, losses, reliability, rates)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from riskexplore.core.certificate import Certificate
from riskexplore.errors import InputError
from riskexplore.evaluation.metrics import (
    as_binary_outcome,
    auc,
    auc_strict,
    brier_score,
    calibration_error,
    calibration_groups,
    classification_rates,
    logistic_loss,
    model_metrics,
    reliability_table,
    risk_score_metrics,
    roc_curve,
)
from riskexplore.risk_score.model import RiskScore


def test_cal_hand_computed():
    # Three scores. Score 0 -> p = 0.2 for 4 examples with outcomes 1,0,0,0: pbar = 0.25,
    #   contributes 4 * |0.2 - 0.25| = 0.20.
    # Score 1 -> p = 0.5 for 2 examples with outcomes 1,1: pbar = 1.0,
    #   contributes 2 * |0.5 - 1.0| = 1.00.
    # Score 2 -> p = 0.9 for 4 examples with outcomes 1,1,1,0: pbar = 0.75,
    #   contributes 4 * |0.9 - 0.75| = 0.60.
    # CAL = (0.20 + 1.00 + 0.60) / 10 = 0.18.
    scores = np.array([0, 0, 0, 0, 1, 1, 2, 2, 2, 2])
    risk = np.array([0.2, 0.2, 0.2, 0.2, 0.5, 0.5, 0.9, 0.9, 0.9, 0.9])
    y = np.array([1, 0, 0, 0, 1, 1, 1, 1, 1, 0])
    assert calibration_error(y, risk, scores) == pytest.approx(0.18)
    # Grouping by distinct risks gives the same groups here.
    assert calibration_error(y, risk) == pytest.approx(0.18)
    # {-1, +1} coding and booleans mean the same outcome.
    assert calibration_error(2 * y - 1, risk, scores) == pytest.approx(0.18)
    assert calibration_error(y.astype(bool), risk) == pytest.approx(0.18)


def test_cal_uses_each_examples_own_risk_within_a_group():
    # One score (group) whose examples have risks 0.1 and 0.3; outcomes 0, 1 -> pbar 0.5.
    # CAL = (|0.1 - 0.5| + |0.3 - 0.5|) / 2 = 0.3.
    assert calibration_error([0, 1], [0.1, 0.3], scores=[7, 7]) == pytest.approx(0.3)
    # Grouped by distinct risks instead: two singleton groups, pbar = 0 and 1,
    # CAL = (|0.1 - 0| + |0.3 - 1|) / 2 = 0.4.
    assert calibration_error([0, 1], [0.1, 0.3]) == pytest.approx(0.4)


def test_binning_above_30_distinct_scores_is_equal_frequency_and_keeps_ties():
    scores = np.arange(100)
    group, binned = calibration_groups(scores / 100, scores)
    assert binned
    assert np.array_equal(group, scores // 10)  # 10 bins of 10 examples each
    # Exactly 30 distinct scores: no binning.
    group, binned = calibration_groups(np.arange(30) / 30)
    assert not binned and len(set(group)) == 30
    # Ties stay together: 31 distinct scores, one of them shared by half the data.
    scores = np.concatenate([np.zeros(50), np.arange(1, 31)])
    group, binned = calibration_groups(scores / 31, scores)
    assert binned
    assert len(set(group[:50])) == 1
    assert np.all(np.diff(group[np.argsort(scores, kind="stable")]) >= 0)


def test_cal_with_bins_hand_computed():
    # 40 distinct scores, 40 examples -> 10 equal-frequency bins of 4 consecutive scores.
    # Every bin has outcomes 1,0,0,0 (pbar 0.25) and risks 0.1, 0.2, 0.3, 0.4:
    # per bin sum |p - 0.25| = 0.15 + 0.05 + 0.05 + 0.15 = 0.4, CAL = 10 * 0.4 / 40 = 0.1.
    scores = np.arange(40)
    risk = np.tile([0.1, 0.2, 0.3, 0.4], 10)
    y = np.tile([1, 0, 0, 0], 10)
    assert calibration_error(y, risk, scores) == pytest.approx(0.1)
    table = reliability_table(y, risk, scores)
    assert table.attrs["binned"] and len(table) == 10
    assert np.allclose(table["observed_risk"], 0.25)
    assert np.allclose(table["predicted_risk"], 0.25)
    assert list(table["score_min"]) == list(range(0, 40, 4))


def test_trivial_model_has_tiny_cal_but_auc_one_half():
    # Imbalanced data (10% positives) and an informative model with coarse risks.
    rng = np.random.default_rng(0)
    x = rng.random(2000) < 0.3
    y = (rng.random(2000) < np.where(x, 0.25, 0.036)).astype(int)
    base = y.mean()
    trivial = np.full(len(y), base)
    informative = np.where(x, 0.5, 0.05)
    cal_trivial = calibration_error(y, trivial)
    cal_real = calibration_error(y, informative)
    assert cal_trivial < 1e-12  # one group, predicted = observed = base rate
    assert cal_real > 0.05
    assert auc(y, trivial) == 0.5
    assert auc(y, informative) > 0.7
    # Which is why models are selected by AUC, never by CAL.


def test_auc_matches_sklearn_and_strict_counts_ties_as_zero():
    y = np.array([0, 0, 1, 1, 0, 1])
    s = np.array([1, 2, 2, 3, 0, 1])
    assert auc(y, s) == pytest.approx(roc_auc_score(y, s))
    # positives 2, 3, 1 vs negatives 1, 2, 0: strictly greater pairs
    # 2 > {1, 0} = 2, 3 > {1, 2, 0} = 3, 1 > {0} = 1 -> 6 / 9.
    assert auc_strict(y, s) == pytest.approx(6 / 9)
    assert auc_strict(y, np.zeros(6)) == 0.0
    assert math.isnan(auc([1, 1], [0.2, 0.3]))


def test_logistic_loss_and_brier():
    y = np.array([1, 0, 1, 0])
    s = np.array([2.0, -1.0, -0.5, 0.0])
    p = 1 / (1 + np.exp(-s))
    expected = np.mean(np.log1p(np.exp(-np.where(y == 1, s, -s))))
    assert logistic_loss(y, scores=s) == pytest.approx(expected)
    assert logistic_loss(y, p) == pytest.approx(expected)
    assert logistic_loss(y, p) == pytest.approx(log_loss(y, p))
    # Stable for huge scores.
    assert logistic_loss([1], scores=[1000.0]) == pytest.approx(0.0)
    assert logistic_loss([0], scores=[1000.0]) == pytest.approx(1000.0)
    assert brier_score(y, p) == pytest.approx(np.mean((p - y) ** 2))
    with pytest.raises(InputError):
        logistic_loss(y)


def test_reliability_table_clopper_pearson():
    from scipy.stats import beta

    y = np.array([1, 0, 0, 0, 1, 1])
    risk = np.array([0.2, 0.2, 0.2, 0.2, 0.6, 0.6])
    table = reliability_table(y, risk, scores=[0, 0, 0, 0, 1, 1], confidence=0.9)
    assert list(table["count"]) == [4, 2]
    assert list(table["positives"]) == [1, 2]
    assert table["observed_risk"].tolist() == pytest.approx([0.25, 1.0])
    assert table.loc[0, "ci_low"] == pytest.approx(beta.ppf(0.05, 1, 4))
    assert table.loc[0, "ci_high"] == pytest.approx(beta.ppf(0.95, 2, 3))
    assert table.loc[1, "ci_high"] == 1.0  # all positive
    assert table.loc[1, "ci_low"] == pytest.approx(beta.ppf(0.05, 2, 1))
    assert not table.attrs["binned"]
    # CAL is the count-weighted mean of abs_error.
    cal = (table["abs_error"] * table["count"]).sum() / table["count"].sum()
    assert cal == pytest.approx(calibration_error(y, risk, [0, 0, 0, 0, 1, 1]))


def test_classification_rates_with_intersectional_groups():
    y = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    pred = np.array([1, 0, 0, 1, 1, 1, 0, 0])
    groups = pd.DataFrame({"sex": list("FFFFMMMM"), "age": ["y", "y", "o", "o"] * 2})
    out = classification_rates(y, pred, groups)
    assert out["error"] == pytest.approx(2 / 8)
    assert out["fnr"] == pytest.approx(1 / 4) and out["fpr"] == pytest.approx(1 / 4)
    table = out["groups"]
    assert set(table.index) == {"sex=F & age=y", "sex=F & age=o", "sex=M & age=y", "sex=M & age=o"}
    assert table.loc["sex=F & age=y", "fnr"] == pytest.approx(0.5)
    assert math.isnan(table.loc["sex=F & age=o", "fnr"])  # no positives
    assert out["worst_group_fnr"] == pytest.approx(0.5)
    assert out["max_fnr_gap"] == pytest.approx(0.5)
    assert out["max_fnr_gap_groups"] == ("sex=F & age=y", "sex=M & age=y")
    assert out["max_fpr_gap"] == pytest.approx(0.5)
    one = classification_rates(y, pred, groups["sex"])
    assert one["groups"].loc["F", "error"] == pytest.approx(0.5)


def test_outcome_coding():
    assert as_binary_outcome([-1, 1, 1]).tolist() == [0, 1, 1]
    assert as_binary_outcome(["no", "yes"]).tolist() == [0, 1]
    assert as_binary_outcome([1, 1]).tolist() == [1, 1]
    with pytest.raises(InputError):
        as_binary_outcome([0, 1, 2])


def _certified_model():
    cert = Certificate.from_bounds("optimal", 0.3, 0.3)
    return RiskScore(["a", "b"], {"a": 2, "b": -1}, -1, certificate=cert, stats={"objective": 0.3})


def test_risk_score_metrics_of_a_model():
    model = _certified_model()
    X = pd.DataFrame({"a": [0, 1, 1, 0, 1, 0], "b": [0, 0, 1, 1, 0, 1]})
    y = np.array([0, 1, 1, 0, 1, 0])
    out = risk_score_metrics(model, X, y)
    s = model.decision_function(X)
    assert out["cal"] == pytest.approx(calibration_error(y, model.predict_risk(X), s))
    assert out["auc"] == pytest.approx(roc_auc_score(y, s))
    assert out["loss"] == pytest.approx(logistic_loss(y, model.predict_risk(X)))
    assert out["size"] == 2 and out["status"] == "optimal" and out["gap"] == 0.0
    both = model_metrics(model, X, y)
    assert both["error"] == pytest.approx(0.0) and "cal" in both


def test_model_metrics_of_a_classifier():
    class Rule:
        size = 1
        certificate = None

        def predict(self, X):
            return (np.asarray(X)[:, 0] > 0).astype(int)

    X = np.array([[1], [0], [1], [0]])
    out = model_metrics(Rule(), X, [1, 0, 0, 0], groups=["g", "g", "h", "h"])
    assert out["error"] == pytest.approx(0.25) and out["fpr"] == pytest.approx(1 / 3)
    assert "cal" not in out and out["max_fpr_gap"] == pytest.approx(0.5)


def test_auc_equals_sklearn_on_random_ties():
    rng = np.random.default_rng(3)
    for _ in range(5):
        y = rng.integers(0, 2, 200)
        s = rng.integers(-3, 4, 200)
        assert auc(y, s) == pytest.approx(roc_auc_score(y, s))


def test_roc_curve_area_is_auc(mammo_fits):
    m, X, y = mammo_fits["free"], mammo_fits["X"], mammo_fits["y"]
    fpr, tpr = roc_curve(y, m.decision_function(X))
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1)
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    assert area == pytest.approx(auc(y, m.decision_function(X)))
