"""fit_survival_score: certified optima against brute force, the reported objective against
an independent Breslow computation, valid bounds when stopped, the model, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _survival_data import structured, survival_data

from riskexplore import OperatingPoint, PredictedRisk, SurvivalScore, fit_survival_score
from riskexplore.errors import InputError
from riskexplore.risk_score.constraints import NotTogether


def _breslow_objective(X, time, event, points, c0):
    """The mean Breslow negative partial log-likelihood plus c0 per item, row by row."""
    s = X @ points
    terms = [np.log(np.exp(s[time >= time[i]]).sum()) - s[i] for i in np.flatnonzero(event)]
    return float(np.sum(terms)) / len(time) + c0 * np.count_nonzero(points)


def _brute_force(X, time, event, c0, max_size, coef=3):
    best = (np.inf, None)
    for points in itertools.product(range(-coef, coef + 1), repeat=X.shape[1]):
        points = np.array(points, dtype=float)
        if np.count_nonzero(points) <= max_size:
            best = min(best, (_breslow_objective(X, time, event, points, c0), tuple(points)))
    return best


@pytest.mark.parametrize(
    "seed,d,max_size,c0", [(0, 3, 3, 0.001), (1, 4, 2, 0.01), (4, 4, 4, 0.002)]
)
def test_certified_optimum_equals_brute_force_over_every_integer_point(seed, d, max_size, c0):
    X, time, event, _ = survival_data(n=120, d=d, seed=seed)
    model = fit_survival_score(
        X, time, event, max_size=max_size, coef_min=-3, coef_max=3, c0=c0, n_jobs=1
    )
    best, best_points = _brute_force(X, time, event, c0, max_size)
    points = np.array([model._points[n] for n in model.feature_names], dtype=float)
    assert model.certificate.is_optimal
    assert model.objective == pytest.approx(best, abs=1e-9)
    assert tuple(points) == best_points
    assert model.certificate.lower_bound <= best + 1e-9
    independent = _breslow_objective(X, time, event, points, c0)
    assert model.objective == pytest.approx(independent, abs=1e-10)
    assert model.loss == pytest.approx(independent - c0 * np.count_nonzero(points), abs=1e-10)


@pytest.mark.parametrize("limit", [{"node_limit": 1}, {"time_limit": 0.001}])
def test_the_lower_bound_stays_below_the_optimum_when_stopped_early(limit):
    X, time, event, _ = survival_data(n=150, d=4, seed=5)
    model = fit_survival_score(X, time, event, coef_min=-3, coef_max=3, c0=0.001, n_jobs=1, **limit)
    best, _ = _brute_force(X, time, event, 0.001, 4)
    assert model.certificate.status in ("node_limit", "time_limit")
    assert model.certificate.lower_bound <= best + 1e-9
    assert model.objective >= best - 1e-12


def test_risk_by_horizon_lies_in_0_1_rises_with_the_score_and_survives_json():
    X, time, event, _ = survival_data(n=200, d=4, seed=2)
    y = structured(time, event)  # scikit-survival's outcome, one argument
    model = fit_survival_score(X, y, coef_min=-3, coef_max=3, c0=0.001, horizon=[0.5, 1], n_jobs=1)
    scores = model.total_points(X)
    risk = model.predict_risk(X)
    assert np.all((risk >= 0) & (risk <= 1))
    order = np.argsort(scores, kind="stable")
    assert np.all(np.diff(risk[order]) >= 0) and np.ptp(risk) > 0
    assert model.predict_risk(X, horizon=[0.5, 1]).shape == (len(X), 2)
    table = model.risk_table()
    assert list(table.columns) == ["score", "risk_percent_at_0.5", "risk_percent_at_1"]
    assert np.all(np.diff(table["risk_percent_at_0.5"]) > 0)
    assert np.all(table["risk_percent_at_1"] >= table["risk_percent_at_0.5"])
    again = SurvivalScore.from_json(model.to_json())
    assert again == model
    np.testing.assert_array_equal(again.predict_risk(X), risk)
    card = model.to_text(width=8).splitlines()  # narrower than the headings
    header = next(line for line in card if line.startswith("TOTAL SCORE"))
    assert header.split()[2:] == ["risk", "by", "0.5", "risk", "by", "1"]
    # told the unit of the times, the card names it (and keeps it in its JSON)
    years = fit_survival_score(X, y, c0=0.001, max_size=1, horizon=1, time_unit="years", n_jobs=1)
    years = SurvivalScore.from_json(years.to_json())
    assert years.time_unit == "years" and "risk by 1 years" in years.to_text()
    assert ">risk by 1 years</th>" in years.to_html()


def test_a_raw_table_is_binarized_one_item_per_variable_and_predicts_on_raw_rows():
    X, time, event, _ = survival_data(n=200, d=2, seed=6)
    rng = np.random.default_rng(6)
    raw = pd.DataFrame(
        {
            "age": 50 + 30 * X[:, 0] + rng.integers(0, 10, 200),
            "stage": np.where(X[:, 1] > 0, "III", rng.choice(["I", "II"], 200)),
        }
    )
    model = fit_survival_score(raw, time, event, max_size=2, c0=0.001, horizon=1, n_jobs=1)
    assert model.binarizer is not None and model.certificate.is_optimal
    by_variable = {name.split(" ")[0] for name in model.points}
    assert len(by_variable) == len(model.points)  # at most one item of each column
    risk = model.predict_risk(raw.iloc[:5])
    assert risk.shape == (5,) and np.all((risk >= 0) & (risk <= 1))


def test_constraints_on_the_points_are_honoured():
    X, time, event, _ = survival_data(n=150, d=3, seed=2)
    free = fit_survival_score(X, time, event, coef_min=-3, coef_max=3, c0=0.001, n_jobs=1)
    assert len(free.points) >= 2
    a, b = list(free.points)[:2]
    model = fit_survival_score(
        X, time, event, coef_min=-3, coef_max=3, c0=0.001, n_jobs=1,
        constraints=[NotTogether(a, b)],
    )  # fmt: skip
    assert not (a in model.points and b in model.points)
    assert model.objective >= free.objective - 1e-12


@pytest.mark.parametrize(
    "change,fault",
    [
        ({"time": "negative"}, "time"),
        ({"time": "nan"}, "time"),
        ({"event": "two"}, "event"),
        ({"X": "nan"}, "x1"),
        ({"X": "short"}, "rows"),
    ],
)
def test_bad_input_names_the_fault(change, fault):
    X, time, event, _ = survival_data(n=40, d=3, seed=0)
    time, event = time.copy(), event.astype(int)
    if change.get("time") == "negative":
        time[3] = -1.0
    if change.get("time") == "nan":
        time[3] = np.nan
    if change.get("event") == "two":
        event[3] = 2
    if change.get("X") == "nan":
        X[3, 1] = np.nan
    if change.get("X") == "short":
        X = X[:-1]
    with pytest.raises(InputError, match=fault):
        fit_survival_score(X, time, event, time_limit=1, n_jobs=1)


@pytest.mark.parametrize(
    "kwargs,words",
    [
        ({"scale": "learned"}, "not offered"),
        ({"constraints": [OperatingPoint(at_score=1, min_sensitivity=0.5)]}, "OperatingPoint"),
        ({"constraints": [PredictedRisk({"x0": 1}, at_most=0.5)]}, "PredictedRisk"),
        ({"horizon": -1}, "horizon"),
    ],
)
def test_what_survival_scores_do_not_offer_is_refused_clearly(kwargs, words):
    X, time, event, _ = survival_data(n=40, d=3, seed=0)
    with pytest.raises(InputError, match=words):
        fit_survival_score(X, time, event, time_limit=1, n_jobs=1, **kwargs)
