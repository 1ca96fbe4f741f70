"""recalibrate(): every point or item kept, O/E brought to 1 on the new rows."""

from __future__ import annotations

import numpy as np
import pytest
from _validation_data import checklist, risk_score, split
from sklearn.linear_model import LogisticRegression

from riskexplore import Checklist, RiskScore, recalibrate, validate
from riskexplore.core.registry import get_family
from riskexplore.errors import InputError


@pytest.mark.parametrize("scale", ["fixed", "learned"])
def test_a_risk_score_keeps_its_points_and_fits_the_new_rows(scale):
    model = risk_score(scale)
    _, _, X, y = split()
    before = validate(model, X, y).observed_expected.estimate
    local = recalibrate(model, X, y)
    assert local.all_points == model.all_points and local.binarizer == model.binarizer
    assert abs(before - 1) > 0.05  # the development rows' map was off here
    after = validate(local, X, y)
    assert abs(after.observed_expected.estimate - 1) < 0.02
    assert after.calibration_intercept.estimate == pytest.approx(0, abs=1e-6)
    assert local.stats["recalibrated"] == {"rows": len(y), "events": int(y.sum())}
    assert "recalibrated on 250 patients" in local.to_text()
    score = model.total_points(X).astype(float)
    if scale == "fixed":  # only the intercept moves, to a real number
        assert local.multiplier == 1.0 and not float(local.intercept).is_integer()
        assert get_family("risk_score").card_table(local)[1][1][0] == f"{local.intercept:+.4g}"
        assert after.calibration_slope.estimate == pytest.approx(
            validate(model, X, y).calibration_slope.estimate, abs=1e-9
        )
    else:  # intercept and multiplier: the logistic regression of the outcome on the score
        fit = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(score[:, None], y)
        assert 1 / local.multiplier == pytest.approx(fit.coef_[0, 0], abs=1e-4)
        assert local.intercept / local.multiplier == pytest.approx(fit.intercept_[0], abs=1e-4)
        assert after.calibration_slope.estimate == pytest.approx(1, abs=1e-6)
    again = RiskScore.from_json(local.to_json())
    assert again == local and again.intercept == local.intercept
    assert np.array_equal(again.predict_risk(X), local.predict_risk(X))
    assert local.to_dict()["version"] == 3 and model.to_dict()["version"] == 2


def test_a_checklist_keeps_its_items_and_re_estimates_its_risks():
    model = checklist()
    _, _, X, y = split()
    local = recalibrate(model, X, y)
    assert (local.items, local.M) == (model.items, model.M)
    assert local.count_risk != model.count_risk
    assert validate(local, X, y).observed_expected.estimate == pytest.approx(1, abs=1e-9)
    assert Checklist.from_json(local.to_json()) == local
    assert "recalibrated on 250 patients (" in local.to_text()
    doc = model.to_dict()
    doc.pop("count_risk")
    assert recalibrate(Checklist.from_dict(doc), X, y).count_risk == local.count_risk


def test_bad_input_is_named():
    _, _, X, y = split()
    with pytest.raises(InputError, match="X has 250 rows but y has 249"):
        recalibrate(risk_score(), X, y[:-1])
    with pytest.raises(InputError, match="y must be 0/1"):
        recalibrate(checklist(), X, np.where(y == 1, "yes", "no"))
    with pytest.raises(InputError, match="with and without the outcome"):
        recalibrate(risk_score(), X, np.ones(len(y)))
    with pytest.raises(InputError, match="validate needs a fitted model"):
        recalibrate(None, X, y)
