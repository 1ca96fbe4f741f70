"""fit_checklist, iter_fit_checklist and ChecklistClassifier (scikit-learn CV, grid search)."""

from __future__ import annotations

import importlib
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import riskexplore
from riskexplore import Binarizer, ChecklistClassifier, fit_checklist, iter_fit_checklist
from riskexplore.checklist.model import Checklist
from riskexplore.core.events import SolveEvent
from riskexplore.datasets import load_dataset
from riskexplore.errors import InputError

CATEGORICAL = ["cp", "restecg", "slope", "ca", "thal"]


@pytest.fixture(scope="module")
def heart():
    return load_dataset("heart")


# --- fit_checklist ----------------------------------------------------------------------
def test_public_names():
    assert callable(riskexplore.fit_checklist)
    # importing the submodule of the same name must not shadow the function
    module = importlib.import_module("riskexplore.checklist.fit")
    assert module.fit_checklist is fit_checklist
    assert riskexplore.fit_checklist is fit_checklist
    for name in ("Checklist", "ChecklistClassifier", "Binarizer", "FNRLimit", "MaxItems"):
        assert getattr(riskexplore, name).__name__ == name
    assert riskexplore.ChecklistImplies.__module__ == "riskexplore.checklist.constraints"


def test_fit_checklist_with_fnr_limit(heart):
    model = fit_checklist(
        heart.X,
        heart.y,
        categorical=CATEGORICAL,
        max_items=3,
        fnr_max=0.1,
        time_limit=2,
        groups=heart.X["sex"],
        outcome_name="heart disease",
    )
    assert isinstance(model, Checklist)
    assert 1 <= model.M <= model.N <= 3
    assert model.stats["fnr"] <= 0.1 + 1e-12
    assert model.certificate.status in ("optimal", "time_limit")
    # one item per source column
    groups = [model.item_groups[i] for i in model.items]
    assert len(set(groups)) == len(groups)
    # statistics agree with scoring the raw training data again
    m = model.metrics(heart.X, heart.y, groups=heart.X["sex"])
    for key in ("fp", "fn", "fnr", "fpr", "max_fnr_gap", "max_fpr_gap"):
        assert m[key] == pytest.approx(model.stats[key])
    assert model.stats["train_errors"] == m["errors"]
    # the training statistics label groups as the group constraints do
    assert set(model.stats["groups"]) == {"sex=0", "sex=1"}
    assert model.stats["settings"]["fnr_max"] == 0.1
    assert model.to_text().startswith("Predict heart disease if ")
    assert Checklist.from_json(model.to_json()) == model


def test_binary_items_without_binarizing_and_warm_start():
    data = load_dataset("mammo")
    X = data.X.drop(columns=["Density"])  # the other columns are 0/1
    start = (["IrregularShape", "SpiculatedMargin"], 1)
    model = fit_checklist(X, data.y, binarize=None, max_items=2, time_limit=1, warm_start=start)
    assert model.binarizer is None and model.item_names == list(X.columns)
    assert set(model.items) <= set(X.columns)
    assert model.predict(X).shape == (len(data.y),)
    assert model.predict(X.to_numpy()).tolist() == model.predict(X).tolist()
    assert model.stats["settings"]["n_warm_starts"] >= 1


def test_iter_fit_checklist_events_and_stop(heart):
    stop = threading.Event()
    events = iter_fit_checklist(
        heart.X, heart.y, categorical=CATEGORICAL, max_items=4, time_limit=30, stop=stop
    )
    seen = []
    while True:
        try:
            event = next(events)
        except StopIteration as done:
            model = done.value
            break
        seen.append(event)
        stop.set()  # ask to stop at the first event: the best checklist so far comes back
    assert seen and all(isinstance(e, SolveEvent) for e in seen)
    assert isinstance(model, Checklist)
    assert model.certificate.status in ("stopped", "optimal")
    assert model.stats["time"] < 20


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"binarize": "quantum"}, "binarize"),
        ({"fnr_max": 1.5}, "fnr_max"),
        ({"max_items": 0}, "max_items"),
        ({"min_m": 3, "max_m": 2}, "max_m"),
        ({"fp_weight": -1}, "fp_weight"),
        ({"time_limit": -1}, "time_limit"),
        ({"binarize": None}, "0/1"),
        ({"binarize": None, "thresholds": {"age": [50]}}, "thresholds"),
    ],
)
def test_fit_checklist_bad_input(heart, kwargs, match):
    with pytest.raises(InputError, match=match):
        fit_checklist(heart.X, heart.y, **kwargs)


# --- ChecklistClassifier ----------------------------------------------------------------
def test_cross_val_score(heart):
    clf = ChecklistClassifier(max_items=3, time_limit=0.5, categorical=CATEGORICAL)
    scores = cross_val_score(clf, heart.X, heart.y, cv=3)
    assert scores.shape == (3,)
    assert np.all((scores >= 0) & (scores <= 1)) and scores.mean() > 0.6


def test_grid_search(heart):
    grid = GridSearchCV(
        ChecklistClassifier(time_limit=0.5, categorical=CATEGORICAL),
        {"max_items": [1, 3]},
        cv=2,
    ).fit(heart.X, heart.y)
    assert grid.best_params_["max_items"] in (1, 3)
    best = grid.best_estimator_
    assert best.model_.N <= best.max_items
    assert best.to_text().startswith("Predict target = 1 if ")
    assert best.certificate is best.model_.certificate


def test_labels_arrays_and_decision_function(heart):
    labels = np.where(heart.y.to_numpy() == 1, "sick", "healthy")
    X = heart.X.to_numpy()
    clf = ChecklistClassifier(max_items=2, time_limit=1, categorical=["x2", "x12"]).fit(X, labels)
    assert list(clf.classes_) == ["healthy", "sick"]
    assert clf.n_features_in_ == 13 and not hasattr(clf, "feature_names_in_")
    pred = clf.predict(X)
    assert set(pred) <= {"healthy", "sick"}
    assert np.array_equal(pred == "sick", clf.decision_function(X) > 0)
    assert clf.model_.title() == "Predict class sick if " + f"{clf.model_.M}+ items are checked"
    assert clf.score(X, labels) > 0.6
    assert np.array_equal(clf.count_checked(X), clf.model_.count_checked(X))


def test_raw_categorical_strings():
    data = load_dataset("adult_raw")
    X = data.X[["age", "education", "sex", "hours_per_week"]].iloc[:600]
    y = data.y.iloc[:600]
    clf = ChecklistClassifier(max_items=2, time_limit=1, binarize="fixed").fit(X, y)
    pred = clf.predict(X)
    assert pred.shape == (600,) and set(np.unique(pred)) <= {0, 1}
    assert np.array_equal(pred, clf.model_.predict(X))


def test_clone_and_errors(heart):
    clf = ChecklistClassifier(max_items=4, fnr_max=0.2, time_limit=1)
    twin = clone(clf)
    assert twin.get_params() == clf.get_params()
    with pytest.raises(InputError, match="two classes"):
        clf.fit(heart.X, np.ones(len(heart.y)))
    with pytest.raises(InputError, match="binary"):
        clf.fit(heart.X, np.arange(len(heart.y)) % 3)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        clf.predict(heart.X)


def test_sample_weight_and_groups(heart):
    w = np.where(heart.y.to_numpy() == 1, 2.0, 1.0)
    clf = ChecklistClassifier(max_items=2, time_limit=1, categorical=CATEGORICAL)
    clf.fit(heart.X, heart.y, sample_weight=w, groups=pd.Series(heart.X["sex"], name="sex"))
    assert "groups" in clf.model_.stats
    assert isinstance(clf.model_.stats["fp"], float)  # weighted counts


def test_iter_fit_checklist_checks_input_before_returning(heart):
    with pytest.raises(InputError, match="time_limit"):
        iter_fit_checklist(heart.X, heart.y, time_limit=0)
    with pytest.raises(InputError, match="max_m"):
        iter_fit_checklist(heart.X, heart.y, min_m=2, max_m=1)


@parametrize_with_checks([ChecklistClassifier(max_items=3, time_limit=2.0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_weights_count_as_repeated_rows_in_the_binarizer(heart):
    rows = np.random.default_rng(0).choice(len(heart.y), size=120, replace=False)
    X, y = heart.X.iloc[rows], heart.y.iloc[rows]
    w = np.tile([0, 1, 2], 40)
    weighted = Binarizer(method="adaptive").fit(X, sample_weight=w)
    repeated = Binarizer(method="adaptive").fit(X.iloc[np.repeat(np.arange(120), w)])
    assert weighted.get_feature_names_out().tolist() == repeated.get_feature_names_out().tolist()
    # unweighted, the rows of weight 0 move the cut points
    plain = Binarizer(method="adaptive").fit(X)
    assert plain.get_feature_names_out().tolist() != weighted.get_feature_names_out().tolist()
    model_w = fit_checklist(X, y, max_items=3, sample_weight=w, time_limit=20)
    model_r = fit_checklist(
        X.iloc[np.repeat(np.arange(120), w)], y.iloc[np.repeat(np.arange(120), w)],
        max_items=3, time_limit=20,
    )  # fmt: skip
    assert (model_w.items, model_w.M) == (model_r.items, model_r.M)
    with pytest.raises(InputError, match="zero"):
        Binarizer().fit(X, sample_weight=np.zeros(120))


def test_raw_binary_column_with_missing_values_is_binarized():
    X = pd.DataFrame({"smoker": [1, 0, 1, 0, 1, 0, 1, 0] * 3, "age": np.arange(24.0)})
    y = (X["smoker"] == 1).astype(int)
    clf = ChecklistClassifier(max_items=1, time_limit=5).fit(X, y)
    assert clf.model_.items == ["smoker"]
    Xn = X.copy()
    Xn.loc[0, "smoker"] = np.nan  # the binarizer's "zero": a missing value checks no item
    assert clf.count_checked(Xn)[0] == 0 and clf.count_checked(Xn)[2] == 1


def test_fit_without_y_and_with_a_column_y(heart):
    clf = ChecklistClassifier(max_items=2, time_limit=5)
    with pytest.raises(ValueError, match="requires y to be passed"):
        clf.fit(heart.X, None)
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(DataConversionWarning):
        clf.fit(heart.X, heart.y.to_numpy().reshape(-1, 1))
