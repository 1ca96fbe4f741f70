"""Tests for riskexplore.evaluation.cv (cross-validation and nested selection)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from riskexplore.datasets import load_dataset
from riskexplore.errors import InputError
from riskexplore.evaluation.cv import (
    cross_validate_recipe,
    fold_indices,
    nested_cv_select,
    risk_score_recipe,
)
from riskexplore.evaluation.metrics import auc, calibration_error


class ConstantRisk:
    """A trivial model: everyone gets the training base rate."""

    size = 0
    certificate = None

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def predict_risk(self, X):
        return np.full(len(X), self.rate)

    def decision_function(self, X):
        return np.zeros(len(X))


class CoarseRisk:
    """An informative but coarsely calibrated model: 50% if x else 5%."""

    size = 1
    certificate = None

    def predict_risk(self, X):
        return np.where(np.asarray(X["x"]) == 1, 0.5, 0.05)

    def decision_function(self, X):
        return np.asarray(X["x"], dtype=float)


def make_recipe(kind: str):
    if kind == "trivial":
        return lambda X, y: ConstantRisk(float(np.mean(y)))
    return lambda X, y: CoarseRisk()


@pytest.fixture(scope="module")
def imbalanced():
    # About 10% positives: P(y=1 | x=1) = 0.25, P(y=1 | x=0) = 0.036.
    rng = np.random.default_rng(1)
    x = (rng.random(1500) < 0.3).astype(int)
    y = (rng.random(1500) < np.where(x == 1, 0.25, 0.036)).astype(int)
    return pd.DataFrame({"x": x}), pd.Series(y, name="y")


def test_selecting_by_cal_would_pick_the_trivial_model(imbalanced):
    X, y = imbalanced
    trivial = cross_validate_recipe(make_recipe("trivial"), X, y)
    real = cross_validate_recipe(make_recipe("real"), X, y)
    assert list(trivial["fold"]) == [0, 1, 2, 3, 4]
    # The demonstration, with the metrics directly: on every fold the trivial model has
    # the lower test CAL, yet its AUC is 0.5 while the real model ranks well.
    assert (trivial["test_cal"] < real["test_cal"]).all()
    assert trivial["test_cal"].mean() < 0.02 < real["test_cal"].mean()
    assert np.allclose(trivial["test_auc"], 0.5)
    assert (real["test_auc"] > 0.7).all()
    # Same numbers from the metric functions on the whole data.
    assert calibration_error(y, np.full(len(y), y.mean())) < 1e-12
    assert auc(y, CoarseRisk().decision_function(X)) > 0.7

    result = nested_cv_select(make_recipe, {"kind": ["trivial", "real"]}, X, y, n_splits=3)
    assert result.best_params == {"kind": "real"}
    assert isinstance(result.model, CoarseRisk)
    grid = result.grid.set_index("kind")
    assert grid.loc["trivial", "mean_test_cal"] < grid.loc["real", "mean_test_cal"]
    assert grid.loc["real", "mean_test_auc"] > grid.loc["trivial", "mean_test_auc"]
    assert list(result.grid["selected"]) == [False, True]
    assert (result.outer["params"] == "kind='real'").all()
    assert len(result.outer) == 3 and result.outer["test_auc"].mean() > 0.7
    assert "kind='real'" in result.summary()

    with pytest.raises(InputError, match="trivial"):
        nested_cv_select(make_recipe, {"kind": ["trivial", "real"]}, X, y, selection="cal")
    with pytest.raises(InputError):
        nested_cv_select(make_recipe, {"kind": ["real"]}, X, y, selection="accuracy")


def test_selection_by_loss(imbalanced):
    X, y = imbalanced
    result = nested_cv_select(
        make_recipe, {"kind": ["trivial", "real"]}, X, y, n_splits=3, selection="loss"
    )
    grid = result.grid.set_index("kind")
    expected = grid["mean_test_loss"].idxmin()
    assert result.best_params == {"kind": expected}


def test_one_cut_pool_per_training_set(imbalanced):
    X, y = imbalanced
    seen: dict[int, set[int]] = {}

    def make(c):
        def recipe(X_train, y_train, cut_pool=None):
            assert cut_pool is not None
            seen.setdefault(id(cut_pool), set()).add(len(X_train))
            pools.append(cut_pool)
            return CoarseRisk()

        return recipe

    pools: list = []
    nested_cv_select(make, {"c": [1, 2, 3]}, X, y, n_splits=3)
    # 3 x 3 inner training sets + 3 outer training sets (= the selection folds) + all
    # data: 13 pools, each shared by every parameter setting fitted on it.
    assert len(seen) == 13
    assert len(pools) == 3 * (9 + 3) + 3 + 1


def test_cross_validate_risk_score_recipe_rows():
    data = load_dataset("breastcancer")
    X, y = data.X.iloc[:300], data.y.iloc[:300]
    frame = cross_validate_recipe(
        risk_score_recipe(max_size=2, time_limit=5), X, y, n_splits=3, return_models=True
    )
    assert len(frame) == 3
    for col in (
        "train_cal",
        "test_cal",
        "train_auc",
        "test_auc",
        "train_loss",
        "test_loss",
        "test_error",
        "size",
        "status",
        "gap",
        "lower_bound",
        "upper_bound",
        "time",
        "model",
    ):
        assert col in frame, col
    assert (frame["size"] <= 2).all()
    assert (frame["test_auc"] > 0.8).all()
    assert (frame["lower_bound"] <= frame["upper_bound"] + 1e-9).all()
    # train_loss is the solver's loss of the model on its training fold.
    for _, row in frame.iterrows():
        assert row["train_loss"] == pytest.approx(row["model"].loss, rel=1e-6)


def test_classifier_recipe_with_groups():
    class Rule:
        size = 1
        certificate = None

        def predict(self, X):
            return np.asarray(X["x"])

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.integers(0, 2, 200)})
    y = np.where(rng.random(200) < 0.8, X["x"], 1 - X["x"])
    groups = pd.DataFrame({"g": rng.integers(0, 2, 200), "h": rng.integers(0, 2, 200)})
    frame = cross_validate_recipe(lambda X, y: Rule(), X, y, n_splits=4, groups=groups)
    assert {"test_error", "test_fnr", "test_fpr", "test_max_fnr_gap"} <= set(frame.columns)
    assert "test_cal" not in frame
    assert frame["test_error"].between(0.05, 0.4).all()


def test_fold_indices_checks():
    folds = fold_indices([0, 1] * 10, n_splits=5)
    assert len(folds) == 5
    assert sorted(np.concatenate([te for _, te in folds]).tolist()) == list(range(20))
    with pytest.raises(InputError):
        fold_indices([0] * 18 + [1, 1], n_splits=5)
    with pytest.raises(InputError):
        fold_indices([0, 1], n_splits=1)
