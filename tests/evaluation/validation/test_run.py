"""validate() on a raw table: every figure against an independent computation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _validation_data import checklist, risk_score, split
from scipy.optimize import minimize_scalar
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, roc_auc_score

import riskexplore
from riskexplore import Validation, validate
from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import wilson_interval

KEYS = [
    "kind", "n", "events", "outcome_rate", "confidence", "auc", "calibration_intercept",
    "calibration_slope", "observed_expected", "brier", "reliability", "score_table",
    "net_benefit", "notes",
]  # fmt: skip
Z = 1.959963984540054


def _models():
    return {
        "fixed": risk_score("fixed"),
        "learned": risk_score("learned"),
        "checklist": checklist(),
    }


def _risk_and_score(name, model, X):
    if name == "checklist":
        counts = model.count_checked(X)
        return np.array([model.count_risk[int(c)] for c in counts]), counts
    return model.predict_risk(X), model.total_points(X)


def _intercept_by_hand(y, logit):
    """Calibration-in-the-large by scipy: the offset logistic fit, and its Wald se."""

    def nll(a):
        eta = a + logit
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    a = minimize_scalar(nll, bracket=(-1, 1), tol=1e-12).x
    p = 1 / (1 + np.exp(-(a + logit)))
    return a, 1 / math.sqrt(np.sum(p * (1 - p)))


def _slope_by_hand(y, logit):
    """Calibration slope by scikit-learn, and its Wald se from the Fisher information."""
    fit = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(logit[:, None], y)
    a, b = float(fit.intercept_[0]), float(fit.coef_[0, 0])
    p = 1 / (1 + np.exp(-(a + b * logit)))
    design = np.column_stack([np.ones(len(y)), logit])
    info = design.T @ (design * (p * (1 - p))[:, None])
    return b, math.sqrt(np.linalg.inv(info)[1, 1])


@pytest.mark.parametrize("name", ["fixed", "learned", "checklist"])
def test_every_figure_equals_an_independent_computation(name):
    model = _models()[name]
    _, _, X, y = split()
    v = validate(model, X, y)
    risk, score = _risk_and_score(name, model, X)
    logit = np.log(risk / (1 - risk))
    assert v.n == len(y) and v.events == int(y.sum())
    assert v.auc.estimate == pytest.approx(roc_auc_score(y, score), abs=1e-6)
    assert v.auc.estimate == pytest.approx(roc_auc_score(y, risk), abs=1e-6)
    assert v.brier.estimate == pytest.approx(brier_score_loss(y, risk), abs=1e-6)
    assert v.observed_expected.estimate == pytest.approx(y.sum() / risk.sum(), abs=1e-6)
    oe = y.sum() / risk.sum()
    assert v.observed_expected.lower == pytest.approx(oe * math.exp(-Z / math.sqrt(y.sum())))
    a, se_a = _intercept_by_hand(y, logit)
    assert v.calibration_intercept.estimate == pytest.approx(a, abs=1e-3)
    assert v.calibration_intercept.upper == pytest.approx(a + Z * se_a, abs=1e-3)
    b, se_b = _slope_by_hand(y, logit)
    assert v.calibration_slope.estimate == pytest.approx(b, abs=1e-3)
    assert v.calibration_slope.lower == pytest.approx(b - Z * se_b, abs=1e-3)
    for metric in (v.auc, v.calibration_intercept, v.calibration_slope, v.observed_expected):
        assert metric.lower < metric.estimate < metric.upper
    _check_net_benefit(v, y, risk)
    _check_score_table(v, y, score, risk)


def _check_net_benefit(v, y, risk):
    n = len(y)
    assert list(v.net_benefit["threshold"]) == pytest.approx([k / 100 for k in range(1, 100)])
    for t, row in zip(range(1, 100), v.net_benefit.itertuples(), strict=True):
        t = t / 100
        tp = sum(1 for r, o in zip(risk, y, strict=True) if r >= t and o == 1)
        fp = sum(1 for r, o in zip(risk, y, strict=True) if r >= t and o == 0)
        assert row.model == pytest.approx(tp / n - fp / n * t / (1 - t), abs=1e-6)
        prev = y.mean()
        assert row.treat_all == pytest.approx(prev - (1 - prev) * t / (1 - t), abs=1e-6)
        assert row.treat_none == 0


def _check_score_table(v, y, score, risk):
    table = v.score_table
    assert list(table["score"]) == sorted(set(score.tolist()))
    for row in table.itertuples():
        here = score == row.score
        pos = score >= row.score
        assert row.patients == here.sum() and row.events == y[here].sum()
        assert row.predicted_risk == pytest.approx(risk[here].mean())
        assert (row.lower, row.upper) == pytest.approx(wilson_interval(y[here].sum(), here.sum()))
        assert row.lower <= row.observed_rate <= row.upper
        assert row.sensitivity == pytest.approx((pos & (y == 1)).sum() / y.sum())
        assert row.specificity == pytest.approx((~pos & (y == 0)).sum() / (y == 0).sum())
        assert row.ppv == pytest.approx((pos & (y == 1)).sum() / pos.sum())
        if (~pos).sum():
            assert row.npv == pytest.approx((~pos & (y == 0)).sum() / (~pos).sum())
        else:
            assert math.isnan(row.npv)


def test_the_document_keeps_the_contract():
    _, _, X, y = split()
    v = validate(checklist(), X, y)
    doc = v.to_dict()
    assert list(doc) == KEYS
    assert doc["kind"] == "checklist" and validate(risk_score(), X, y).kind == "risk score"
    assert doc["auc"]["method"] == "DeLong" and doc["brier"]["upper"] is None
    assert set(doc["reliability"][0]) == {"score", "n", "predicted", "observed", "lower", "upper"}
    assert doc["score_table"][0]["npv"] is None  # nobody scores below the lowest score
    assert len(doc["net_benefit"]) == 99 and doc["notes"] == []
    json.dumps(doc, allow_nan=False)  # JSON-safe: nan became None
    assert list(v.table()["metric"]) == [
        "auc", "calibration_intercept", "calibration_slope", "observed_expected", "brier",
    ]  # fmt: skip
    assert "AUC" in v.to_text() and "rx-validation" in v._repr_html_()
    for row in doc["reliability"]:
        assert row["lower"] <= row["observed"] <= row["upper"]
    assert isinstance(v, Validation) and riskexplore.validate is validate


def test_a_checklist_saved_before_it_kept_its_risks():
    _, _, X, y = split()
    doc = checklist().to_dict()
    doc.pop("count_risk")
    old = riskexplore.Checklist.from_dict(doc)
    assert old.count_risk is None
    v = validate(old, X, y).to_dict()
    assert v["calibration_slope"]["estimate"] is None and v["brier"]["estimate"] is None
    assert v["reliability"] == [] and v["auc"]["estimate"] is not None
    assert v["notes"][0].startswith("calibration not available: this checklist was saved")
    assert all(row["model"] is None for row in v["net_benefit"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda X, y: (X.iloc[:-1], y), "X has 249 rows but y has 250"),
        (lambda X, y: (X, np.where(y == 1, 2, 0)), "y must be 0/1"),
        (lambda X, y: (X, np.where(y == 1, 1.0, np.nan)), "missing outcome"),
        (lambda X, y: (X, np.zeros(len(y))), "with and without the outcome"),
        (lambda X, y: (X.drop(columns="age"), y), "age"),
    ],
)
def test_bad_input_is_named(change, message):
    _, _, X, y = split()
    X, y = change(X, y)
    with pytest.raises(InputError, match=message):
        validate(risk_score(), X, y)


def test_a_model_that_is_not_fitted_is_refused():
    _, _, X, y = split()
    with pytest.raises(InputError, match="RiskSlimClassifier is not fitted"):
        validate(riskexplore.RiskSlimClassifier(), X, y)
    with pytest.raises(InputError, match="not the class RiskScore"):
        validate(riskexplore.RiskScore, X, y)
    with pytest.raises(InputError, match="validate needs a fitted model"):
        validate("model.json", X, y)
    with pytest.raises(InputError, match="confidence"):
        validate(risk_score(), X, y, confidence=95)
