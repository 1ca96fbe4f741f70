"""fit_risk_score, iter_fit_risk_score and the scikit-learn RiskSlimClassifier."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from riskexplore import (
    Certificate,
    RiskScore,
    RiskSlimClassifier,
    SolveEvent,
    fit_risk_score,
    iter_fit_risk_score,
)
from riskexplore.errors import InputError
from riskexplore.risk_score.problem import RiskScoreProblem


def _synthetic(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Binary features; the outcome follows a small integer risk score."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 6)), columns=[f"f{j}" for j in range(6)])
    logit = -2 + 2 * X["f0"] + 1 * X["f1"] - 2 * X["f2"] + 2 * X["f3"] * X["f4"]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int).to_numpy()
    return X, y


def _brute_force(problem: RiskScoreProblem) -> float:
    """Best objective by enumeration (tiny problems only)."""
    import itertools

    lo, hi = problem.lam_bounds()
    d = problem.n_features
    best = np.inf
    for pts in itertools.product(*[range(int(lo[j]), int(hi[j]) + 1) for j in range(1, d + 1)]):
        if np.count_nonzero(pts) > problem.max_size:
            continue
        for b in range(int(lo[0]), int(hi[0]) + 1):
            best = min(best, problem.objective(np.array([b, *pts], dtype=float)))
    return best


def test_fit_is_certified_optimal_against_brute_force():
    X, y = _synthetic(120)
    X = X[["f0", "f1", "f2"]]
    settings = dict(max_size=2, coef_min=-2, coef_max=2, intercept_min=-4, intercept_max=4, c0=1e-3)
    model = fit_risk_score(X, y, time_limit=30, **settings)
    assert isinstance(model, RiskScore) and isinstance(model.certificate, Certificate)
    assert model.certificate.is_optimal
    problem = RiskScoreProblem(X, y, **settings)
    assert model.objective == pytest.approx(_brute_force(problem), abs=1e-9)
    assert model.objective == pytest.approx(problem.objective(model.coefficients))
    assert model.size <= 2 and all(-2 <= p <= 2 for p in model.points.values())
    assert model.stats["c0"] == 1e-3 and model.stats["max_size"] == 2
    assert model.stats["coef_min"] == -2 and model.stats["coef_max"] == 2


def test_fit_callbacks_warm_start_and_stop():
    X, y = _synthetic()
    events: list[SolveEvent] = []
    model = fit_risk_score(X, y, max_size=3, time_limit=20, callbacks=[events.append])
    assert events and all(isinstance(e, SolveEvent) for e in events)
    assert events[-1].upper_bound == pytest.approx(model.objective)
    warm = fit_risk_score(X, y, max_size=3, time_limit=20, warm_start=model)
    assert warm.objective == pytest.approx(model.objective)
    stop = threading.Event()
    stop.set()
    stopped = fit_risk_score(X, y, max_size=3, stop=stop, warm_start=model.coefficients)
    assert stopped.certificate.status in ("stopped", "optimal")
    assert stopped.objective <= model.objective + 1e-9
    with pytest.raises(InputError, match="warm start"):
        fit_risk_score(X, y, max_size=3, warm_start=[1, 2])


def test_iter_fit_yields_events_and_returns_model():
    X, y = _synthetic()
    events = iter_fit_risk_score(X, y, max_size=2, time_limit=20)
    seen = []
    while True:
        try:
            seen.append(next(events))
        except StopIteration as done:
            model = done.value
            break
    assert seen and isinstance(model, RiskScore)
    assert model.size <= 2
    assert seen[-1].lower_bound <= model.objective + 1e-12


def test_iter_fit_validates_eagerly():
    X, y = _synthetic()
    with pytest.raises(InputError):
        iter_fit_risk_score(X, np.ones(len(y)), max_size=2)


def test_classifier_fit_predict_with_labels():
    X, y = _synthetic()
    labels = np.where(y == 1, "sick", "healthy")
    clf = RiskSlimClassifier(max_size=3, time_limit=20).fit(X, labels)
    assert list(clf.classes_) == ["healthy", "sick"]
    assert clf.n_features_in_ == 6
    assert list(clf.feature_names_in_) == list(X.columns)
    pred = clf.predict(X)
    assert set(pred) <= {"healthy", "sick"}
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba[:, 1], clf.model_.predict_risk(X))
    np.testing.assert_array_equal(pred == "sick", proba[:, 1] >= 0.5)
    scores = clf.decision_function(X)
    assert scores.dtype.kind == "i"
    assert clf.score(X, labels) > 0.7
    # arrays work too, and column order of a DataFrame does not matter
    with pytest.warns(UserWarning, match="feature names"):
        np.testing.assert_array_equal(clf.predict(X.to_numpy()), pred)
    np.testing.assert_array_equal(clf.predict(X[X.columns[::-1]]), pred)
    with pytest.raises(ValueError, match="features"), pytest.warns(UserWarning):
        clf.predict(np.zeros((2, 3)))
    with pytest.raises(InputError, match="f2"):
        clf.predict(X.drop(columns="f2"))


def test_classifier_params_and_clone():
    clf = RiskSlimClassifier(max_size=2, coef_max=3, time_limit=5.0)
    params = clf.get_params()
    assert params["max_size"] == 2 and params["coef_max"] == 3 and params["constraints"] is None
    clf.set_params(max_size=4, c0=1e-4)
    assert clf.max_size == 4 and clf.c0 == 1e-4
    copy = clone(clf)
    assert copy.get_params() == clf.get_params()
    with pytest.raises(InputError, match="binary"):
        RiskSlimClassifier().fit(np.zeros((4, 2)), [0, 1, 2, 1])
    with pytest.raises(InputError, match="two classes"):
        RiskSlimClassifier().fit(np.zeros((4, 2)), [1, 1, 1, 1])


def test_classifier_in_cross_val_score_and_grid_search():
    X, y = _synthetic(180, seed=1)
    clf = RiskSlimClassifier(max_size=2, time_limit=5.0)
    scores = cross_val_score(clf, X, y, cv=3, scoring="roc_auc")
    assert scores.shape == (3,) and np.all(scores > 0.6)
    grid = GridSearchCV(
        RiskSlimClassifier(time_limit=5.0), {"max_size": [1, 3]}, cv=3, scoring="neg_log_loss"
    )
    grid.fit(X, y)
    assert grid.best_params_["max_size"] in (1, 3)
    assert grid.best_estimator_.model_.size <= grid.best_params_["max_size"]
    assert grid.predict_proba(X).shape == (len(X), 2)


def test_classifier_on_breastcancer_subset():
    from riskexplore import load_dataset

    data = load_dataset("breastcancer")
    X, y = data.X.iloc[::3], data.y.iloc[::3]
    clf = RiskSlimClassifier(max_size=2, coef_min=-3, coef_max=3, time_limit=10.0).fit(X, y)
    assert clf.model_.size <= 2
    assert all(-3 <= p <= 3 for p in clf.model_.points.values())
    assert clf.score(X, y) > 0.85


def test_classifier_on_a_raw_table():
    rng = np.random.default_rng(4)
    n = 120
    age = rng.integers(30, 90, n).astype(float)
    age[rng.random(n) < 0.1] = np.nan
    X = pd.DataFrame({"age": age, "grade": rng.choice(["I", "II", "III"], n)})
    logit = -1 + 1.5 * (age >= 60) + 1.5 * (X["grade"] == "III") + np.isnan(age)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "sick", "well")
    clf = RiskSlimClassifier(max_size=2, time_limit=10.0, thresholds={"age": [60]})
    assert clone(clf).get_params() == clf.get_params()
    assert {"binarize": "auto", "linear": None, "one_per_variable": True}.items() <= (
        clf.get_params().items()
    )
    clf.fit(X, y)
    binarizer = clf.model_.binarizer
    assert binarizer is not None and "age ≥ 60" in binarizer.item_groups_
    assert list(clf.feature_names_in_) == ["age", "grade"] and clf.n_features_in_ == 2
    proba = clf.predict_proba(X)
    assert proba.shape == (n, 2) and np.all(np.isfinite(proba))
    with pytest.warns(UserWarning, match="feature names"):  # raw rows as an array
        np.testing.assert_array_equal(clf.predict(X.to_numpy(dtype=object)), clf.predict(X))
    plain = RiskSlimClassifier(max_size=2, time_limit=10.0, binarize=False)
    plain.fit(X[["age"]].fillna(60), y)
    assert plain.model_.binarizer is None and plain.model_.feature_names == ["age"]


@parametrize_with_checks(
    [
        RiskSlimClassifier(
            max_size=3, coef_min=-2, coef_max=2, intercept_min=-10, intercept_max=10, time_limit=2.0
        )
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
