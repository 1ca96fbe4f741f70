"""The learned scale through every risk-score entry point: fit, iter_fit, the model (its
multiplier, predictions, card, JSON), the estimator, warm starts, the size path's session,
the registry's incumbents, and the errors for bad settings."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _scaled_reference import scaled_optimum, scaled_value
from sklearn.base import clone

from riskexplore import RiskScore, fit_risk_score, iter_fit_risk_score
from riskexplore.core.limits import Limits
from riskexplore.core.registry import family_of_incumbent, get_family
from riskexplore.errors import InputError
from riskexplore.risk_score.baselines import plr_rd
from riskexplore.risk_score.constraints import AtMostKOf, Exclude, PredictedRisk, Sign
from riskexplore.risk_score.estimator import RiskSlimClassifier
from riskexplore.risk_score.fit import build_problem, points_feasible
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.loss import _expit
from riskexplore.risk_score.problem import RiskScoreProblem, multiplier_range
from riskexplore.risk_score.scaled.model_class import ScaledClass, scaled_risk
from riskexplore.risk_score.scaled.search import solve_scaled_lcpa
from riskexplore.risk_score.size_path import RiskScorePathSession

SMALL = {"coef_min": -2, "coef_max": 2, "intercept_min": -4, "intercept_max": 4}


def small_data(seed: int, n: int = 240, d: int = 3) -> tuple[pd.DataFrame, pd.Series]:
    """Binary features whose true risk curve is flatter than sigma(score): a learned
    multiplier above 1 fits them better."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, d)).astype(float)
    beta = rng.choice([-2.0, -1.0, 1.0, 2.0], size=d)
    y = (rng.random(n) < _expit((X @ beta - 0.5) / 2.5)).astype(int)
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(d)]), pd.Series(y, name="y")


def test_fit_with_the_learned_scale_is_the_engine():
    X, y = small_data(0)
    model = fit_risk_score(X, y, max_size=2, scale="learned", gap_tolerance=0.0, **SMALL)
    problem = build_problem(X, y, max_size=2, **SMALL)
    result = solve_scaled_lcpa(problem, (0.25, 10.0), limits=Limits(gap_tolerance=0.0))
    assert model.certificate.status == "optimal" == result.status
    assert list(model.coefficients) == list(result.solution)
    assert model.multiplier == result.stats["multiplier"] != 1.0
    assert model.objective == result.upper_bound
    assert model.certificate.lower_bound == result.lower_bound
    sclass = ScaledClass(problem, (0.25, 10.0))
    assert model.loss == pytest.approx(sclass.loss(model.coefficients, model.multiplier), rel=1e-12)
    assert model.stats["scale"] == "learned" and model.scale == "learned"
    assert (model.stats["multiplier_min"], model.stats["multiplier_max"]) == (0.25, 10.0)
    # the class's optimum, by brute force
    brute = build_problem(X, y, max_size=2, scale="learned", **SMALL)
    assert model.objective == pytest.approx(scaled_optimum(brute, (0.25, 10.0)), rel=1e-8)


def test_fixed_scale_is_unchanged_and_has_multiplier_one():
    X, y = small_data(1)
    model = fit_risk_score(X, y, max_size=2, **SMALL)
    assert model.multiplier == 1.0 and model.scale == "fixed"
    assert model.stats["scale"] == "fixed" and "multiplier_min" not in model.stats
    assert model.decision_function(X).dtype == np.int64
    assert "multiplier" not in model.to_text() and "rx-multiplier" not in model.to_html()


@pytest.mark.parametrize("m_range", [(0.5, 2.0), (2.0, 6.0)])
def test_iter_fit_events_are_valid_and_carry_the_multiplier(m_range):
    X, y = small_data(2)
    events = iter_fit_risk_score(
        X,
        y,
        max_size=3,
        scale="learned",
        multiplier_min=m_range[0],
        multiplier_max=m_range[1],
        gap_tolerance=0.0,
        **SMALL,
    )
    seen = []
    while True:
        try:
            seen.append(next(events))
        except StopIteration as done:
            model = done.value
            break
    optimum = scaled_optimum(build_problem(X, y, max_size=3, **SMALL), m_range)
    assert model.objective == pytest.approx(optimum, rel=1e-8)
    assert m_range[0] <= model.multiplier <= m_range[1]
    assert all(e.lower_bound <= optimum + 1e-12 for e in seen)  # valid at every event
    incumbents = [e.incumbent for e in seen if e.incumbent is not None]
    assert incumbents and all(m_range[0] <= i["multiplier"] <= m_range[1] for i in incumbents)
    # the registry turns such an incumbent into a risk score with its multiplier
    family = family_of_incumbent(incumbents[-1])
    assert family is get_family("risk_score")
    live = family.from_incumbent(incumbents[-1], model.certificate, {}, model)
    assert live.multiplier == incumbents[-1]["multiplier"]
    assert live.coefficients.tolist() == model.coefficients.tolist()
    assert "; m " in family.describe_incumbent(incumbents[-1])


def test_predictions_card_and_table_use_the_multiplier():
    X, y = small_data(3)
    model = fit_risk_score(X, y, max_size=3, scale="learned", **SMALL)
    m = model.multiplier
    assert m > 1.2  # the data's risk curve is flat
    raw = model.intercept + X.to_numpy() @ np.array([model.all_points[c] for c in X.columns])
    np.testing.assert_allclose(model.decision_function(X), raw / m)
    np.testing.assert_allclose(model.predict_risk(X), _expit(raw / m))
    np.testing.assert_allclose(model.predict_risk(X), scaled_risk(X, model.coefficients, m))
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], model.predict_risk(X))
    np.testing.assert_array_equal(model.predict(X), (raw >= 0).astype(int))
    table = model.score_table()
    np.testing.assert_allclose(
        table["risk_percent"], 100 * _expit((table["score"] + model.intercept) / m)
    )
    expected = _expit(np.array([model.intercept / m]))[0]
    assert model.risk_of_score(0) == pytest.approx(expected)
    text = model.to_text()
    assert f"multiplier m = {m:.4g}" in text and f"/ {m:.4g}))" in text
    assert f"m = {m:.4g}" in model.to_html() and "rx-multiplier" in model.to_html()
    assert f"multiplier m = {m:.4g}" in model.summary()
    assert "multiplier=" in repr(model)
    # the training loss of the predictions is the class's loss
    from riskexplore.evaluation.metrics import model_metrics

    assert model_metrics(model, X, y)["loss"] == pytest.approx(model.loss, rel=1e-9)
    family = get_family("risk_score")
    names, values = family.card_table(model)[1]
    assert names[-1].startswith("(multiplier m") and values[-1] == f"{m:.4g}"


def test_multiplier_round_trips_through_json_and_old_documents_load():
    X, y = small_data(4)
    model = fit_risk_score(X, y, max_size=2, scale="learned", **SMALL)
    text = model.to_json()
    back = RiskScore.from_json(text)
    assert back == model and back.multiplier == model.multiplier  # exactly
    np.testing.assert_array_equal(back.predict_risk(X), model.predict_risk(X))
    data = json.loads(text)
    assert data["multiplier"] == model.multiplier and data["version"] == 2
    old = dict(data, version=1)
    del old["multiplier"]
    assert RiskScore.from_dict(old).multiplier == 1.0
    assert RiskScore.from_dict(dict(data, version=3)) == model  # version 3: a real intercept
    with pytest.raises(InputError, match="version 4 is newer"):
        RiskScore.from_dict(dict(data, version=4))
    for bad in (0, -1.5, "2", math.inf, True):
        with pytest.raises(InputError, match="multiplier must be a positive number"):
            RiskScore.from_dict(dict(data, multiplier=bad))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"scale": "sometimes"}, "scale must be one of 'fixed', 'learned', got 'sometimes'"),
        (
            {"scale": "learned", "multiplier_min": 2, "multiplier_max": 2},
            r"multiplier_min \(2\) must be less than multiplier_max \(2\)",
        ),
        (
            {"scale": "learned", "multiplier_min": 5, "multiplier_max": 1},
            r"multiplier_min \(5\) must be less than multiplier_max \(1\)",
        ),
        ({"scale": "learned", "multiplier_min": -1}, "multiplier_min must be a positive number"),
        ({"scale": "learned", "multiplier_max": math.inf}, "multiplier_max must be a positive"),
        ({"scale": "learned", "multiplier_min": "1"}, "multiplier_min must be a positive number"),
        ({"multiplier_max": 5}, "pass scale='learned'"),
    ],
)
def test_bad_scale_settings_fail_early_with_one_line(settings, message, monkeypatch):
    X, y = small_data(5)
    calls = []
    monkeypatch.setattr(
        "riskexplore.risk_score.fit.solve_scaled_lcpa", lambda *a, **k: calls.append(1)
    )
    for entry in (fit_risk_score, iter_fit_risk_score):
        with pytest.raises(InputError, match=message) as info:
            entry(X, y, max_size=2, **settings)
        assert "\n" not in str(info.value)
    with pytest.raises(InputError, match=message):
        RiskSlimClassifier(**settings).fit(X, y)
    assert calls == []


def test_multiplier_range_helper():
    assert multiplier_range() == (1.0, 1.0)
    assert multiplier_range("learned") == (0.25, 10.0)
    assert multiplier_range("learned", 1, 3) == (1.0, 3.0)


def test_table_one_constraints_hold_with_the_learned_scale():
    X, y = small_data(6, n=300, d=3)
    case = {"f0": 1, "f1": 1}
    constraints = [
        AtMostKOf(["f1", "f2"], k=1),
        Sign("f0", 1),
        PredictedRisk(when=case, at_least=0.7),
    ]
    model = fit_risk_score(
        X, y, max_size=3, scale="learned", constraints=constraints, gap_tolerance=0.0, **SMALL
    )
    assert model.certificate.status == "optimal"
    pts = model.all_points
    assert (pts["f1"] != 0) + (pts["f2"] != 0) <= 1 and pts["f0"] >= 0
    row = pd.DataFrame([{**{c: 0.0 for c in X.columns}, **case}])
    assert model.predict_risk(row)[0] >= 0.7 - 1e-9  # the model's own risk, with m
    problem = build_problem(X, y, max_size=3, constraints=constraints, **SMALL)
    assert model.objective == pytest.approx(scaled_optimum(problem, (0.25, 10.0)), rel=1e-8)


def test_warm_starts_cross_the_scales():
    X, y = small_data(7)
    fixed = fit_risk_score(X, y, max_size=2, **SMALL)
    learned = fit_risk_score(X, y, max_size=2, scale="learned", warm_start=fixed, **SMALL)
    assert learned.objective <= fixed.objective + 1e-12  # m = 1 is in the range
    again = fit_risk_score(X, y, max_size=2, warm_start=learned, **SMALL)
    assert again.objective == pytest.approx(fixed.objective, rel=1e-12)
    # points feasible in the learned class only when some m in range meets the risk rows
    rule = [PredictedRisk(when={"f0": 1}, at_least=0.8)]
    narrow = build_problem(
        X, y, constraints=rule, scale="learned", multiplier_min=2, multiplier_max=3, **SMALL
    )
    unit = build_problem(X, y, constraints=rule, **SMALL)
    lam = np.array([0, 2, 0, 0])  # score 2 for f0: sigma(2) = 0.88, sigma(2 / 2) = 0.73
    assert points_feasible(unit, lam) and not points_feasible(narrow, lam)
    assert points_feasible(narrow, np.array([2, 2, 0, 0]))  # m = 2: sigma(4 / 2) = 0.88
    assert not points_feasible(unit, np.array([0, 2]))  # wrong length


def test_engines_of_the_fixed_scale_refuse_a_learned_problem():
    X, y = small_data(8)
    problem = RiskScoreProblem(X, y, scale="learned", **SMALL)
    with pytest.raises(InputError, match="solve_lcpa: fixed scale only"):
        solve_lcpa(problem)
    with pytest.raises(InputError, match="the baselines: fixed scale only"):
        plr_rd(X, y, scale="learned")


def test_estimator_with_the_learned_scale():
    X, y = small_data(9)
    est = RiskSlimClassifier(max_size=2, scale="learned", multiplier_max=4, time_limit=20)
    assert clone(est).get_params()["scale"] == "learned"
    est.fit(X, y)
    model = est.model_
    assert model.scale == "learned" and 0.25 <= model.multiplier <= 4
    np.testing.assert_allclose(est.decision_function(X), model.decision_function(X))
    np.testing.assert_allclose(est.predict_proba(X)[:, 1], _expit(est.decision_function(X)))
    np.testing.assert_array_equal(est.predict(X), (est.decision_function(X) >= 0).astype(int))


def test_size_path_session_learns_a_multiplier_per_size():
    X, y = small_data(10, d=3)
    session = RiskScorePathSession(X, y, scale="learned", gap_tolerance=0.0, **SMALL)
    rows = []
    for size in (1, 2, 3):
        model = session.solve(size, 30.0, None)
        assert model.scale == "learned"
        rows.append({"size": size, **session.columns(model, size)})
        session.tighten(rows)
    for row in rows:
        problem = build_problem(X, y, max_size=row["size"], **SMALL)
        optimum = scaled_optimum(problem, (0.25, 10.0))
        assert row["objective_lower"] <= optimum + 1e-12 <= row["objective_upper"] + 2e-12
        # the least loss at this size, by brute force (c0 only breaks ties)
        best_loss = min(
            scaled_value(problem, np.array(lam, float), (0.25, 10.0))[0]
            - float(problem.c0 @ (np.asarray(lam)[1:] != 0))
            for lam in _models(problem)
        )
        assert row["loss_lower"] <= best_loss + 1e-9 and best_loss <= row["loss_upper"] + 1e-9


def _models(problem):
    from _scaled_reference import region_models

    return list(region_models(problem))


def test_exclude_keeps_its_meaning():
    X, y = small_data(11)
    model = fit_risk_score(X, y, scale="learned", constraints=[Exclude("f0")], **SMALL)
    assert model.all_points["f0"] == 0


def test_stop_returns_the_best_model_with_valid_bounds():
    import threading

    from riskexplore import load_dataset

    data = load_dataset("mammo")
    stop = threading.Event()

    def on_event(event):
        if event.incumbent is not None:
            stop.set()  # Stop at the first model found

    model = fit_risk_score(
        data.X, data.y, max_size=5, scale="learned", stop=stop, callbacks=[on_event]
    )
    cert = model.certificate
    assert cert.status in ("stopped", "optimal")
    assert cert.lower_bound <= 0.4626345 + 1e-6 <= cert.upper_bound + 1e-6  # the optimum
    assert model.scale == "learned" and model.stats["time"] < 30
