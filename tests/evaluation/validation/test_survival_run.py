"""validate / recalibrate on a SurvivalScore: the model's route equals validate_survival on
arrays, the Breslow refit, and the outcome forms each family refuses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _survival_data import structured

from riskexplore import RiskScore, audit, fit_survival_score, recalibrate, validate
from riskexplore.errors import InputError
from riskexplore.evaluation.survival import SurvivalValidation, kaplan_meier, validate_survival
from riskexplore.report import report_html


def _cohort(n: int, seed: int):
    """Three 0/1 columns; exponential times with log hazard a - b; uniform censoring."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)).astype(float), columns=["a", "b", "c"])
    latent = rng.exponential(np.exp(-(X["a"] - X["b"]).to_numpy()))
    censor = rng.uniform(0, 3, n)
    return X, np.minimum(latent, censor), latent <= censor


@pytest.fixture(scope="module")
def split():
    X, time, event = _cohort(300, 1)
    model = fit_survival_score(
        X, time, event, max_size=2, horizon=[0.5, 1.0], c0=0.001, n_jobs=1, time_limit=120
    )
    assert model.certificate.is_optimal, model.certificate  # room for a busy machine
    return (model, *_cohort(400, 3))


def test_validate_a_survival_score_equals_validate_survival_on_its_arrays(split):
    model, X, time, event = split
    got = validate(model, X, structured(time, event), n_boot=20)
    want = validate_survival(
        model.total_points(X), model.predict_risk(X, 0.5), time, event, 0.5, n_boot=20
    )
    assert isinstance(got, SurvivalValidation) and got.horizon == 0.5
    assert got.to_dict() == want.to_dict()
    assert "these rows (the training rows were not given)" in got.notes[0]
    page = got._repr_html_()
    assert "Harrell&#x27;s C" in page and "<li>censoring distribution" in page
    assert got.to_text().splitlines()[0] in page.replace("&#x27;", "'")
    by_keywords = validate(model, X, time=time, event=event, horizon=1.0, n_boot=0)
    assert by_keywords.horizon == 1.0
    assert by_keywords.harrell_c.estimate == pytest.approx(got.harrell_c.estimate)
    assert by_keywords.predicted_risk > got.predicted_risk
    doc = model.to_dict()
    in_days = type(model).from_dict({**doc, "stats": {**doc["stats"], "time_unit": "days"}})
    named = validate(in_days, X, time=time, event=event, n_boot=0)
    assert named.time_unit == "days" and got.time_unit is None
    assert "by the horizon 0.5 days;" in named.to_text()


def test_recalibrate_refits_the_baseline_so_that_observed_over_expected_is_one(split):
    model, X, time, event = split
    shifted = time * 0.5  # the new hospital's events come twice as fast
    before = validate(model, X, time=shifted, event=event, n_boot=0)
    local = recalibrate(model, X, structured(shifted, event))
    after = validate(local, X, time=shifted, event=event, n_boot=0)
    assert local.points == model.points and local.certificate is model.certificate
    assert local.stats["recalibrated"] == {"rows": 400, "events": int(event.sum())}
    assert "recalibrated on 400 patients" in local.to_text() and "400" in local.summary()
    assert before.observed_expected.estimate > 1.1
    assert after.observed_expected.estimate == pytest.approx(1.0, abs=0.02)
    observed = kaplan_meier(shifted, event).risk_at(0.5).estimate
    assert local.predict_risk(X).mean() == pytest.approx(observed, rel=0.02)
    assert local.risk_table()["risk_percent_at_0.5"].iloc[0] > model.risk_table().iloc[0, 1]


def test_each_family_refuses_the_other_kind_of_outcome(split):
    model, X, time, event = split
    with pytest.raises(InputError, match="time to event, not on 0/1"):
        validate(model, X, event.astype(int))
    with pytest.raises(InputError, match="time to event, not on 0/1"):
        recalibrate(model, X, event.astype(int))
    with pytest.raises(InputError, match="one horizon at a time"):
        validate(model, X, time=time, event=event, horizon=[0.5, 1])
    binary = RiskScore(list(X.columns), {"a": 1, "b": -1}, -1)
    with pytest.raises(InputError, match="predicts a 0/1 outcome"):
        validate(binary, X, structured(time, event))
    with pytest.raises(InputError, match="predicts a 0/1 outcome"):
        recalibrate(binary, X, time=time, event=event)
    with pytest.raises(InputError, match="no horizon"):
        validate(binary, X, event.astype(int), horizon=1.0)


def test_the_report_of_a_survival_score_takes_its_validation_and_its_audit(split):
    model, X, time, event = split
    v = validate(model, X, time=time, event=event, n_boot=0)
    page = report_html(model, validation=v)
    assert 'id="survival-curves"' in page and "Calibration at the horizon" in page
    assert "risk by 0.5" in page and "not given" in page  # no rows: no data summary
    assert "no subgroup audit was run" in page
    by_a = audit(model, X, structured(time, event), "a", n_boot=20)
    page = report_html(model, validation=v.to_dict(), audit=by_a)
    assert '<a href="#audit">Subgroup audit</a>' in page and "<h3>By a</h3>" in page
    assert "c_index" in page and "no subgroup audit was run" not in page
