"""Tests for riskexplore.evaluation.paths (risk score and checklist size paths)."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pandas as pd
import pytest

from riskexplore.errors import InputError
from riskexplore.evaluation.paths import SizePath, checklist_size_path, risk_score_size_path
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.problem import RiskScoreProblem

BOUNDS = dict(coef_min=-2, coef_max=2, intercept_min=-4, intercept_max=4, c0=0.01)
TOL = 1e-7


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)), columns=["a", "b", "c"])
    s = -1 + 1.5 * X["a"] - 1.0 * X["b"] + 0.7 * X["c"]
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    return X, y


@pytest.fixture(scope="module")
def brute_force(tiny):
    """Optimal objective V*(R) and optimal loss L*(R) for R = 0..3, by enumeration."""
    X, y = tiny
    problem = RiskScoreProblem(X, y, **BOUNDS)
    objective, loss = {R: np.inf for R in range(4)}, {R: np.inf for R in range(4)}
    for lam in itertools.product(range(-4, 5), *[range(-2, 3)] * 3):
        lam = np.array(lam, dtype=float)
        k = int(np.count_nonzero(lam[1:]))
        value, fit = problem.objective(lam), problem.loss.value(lam, integral=True)
        for R in range(k, 4):
            objective[R] = min(objective[R], value)
            loss[R] = min(loss[R], fit)
    return objective, loss


def _check_intervals(frame: pd.DataFrame, objective, loss) -> None:
    for _, row in frame.iterrows():
        R = row["size"]
        assert row["lower_bound"] - TOL <= objective[R] <= row["upper_bound"] + TOL
        assert row["objective_lower"] - TOL <= objective[R] <= row["objective_upper"] + TOL
        assert row["loss_lower"] - TOL <= loss[R] <= row["loss_upper"] + TOL
        assert row["objective_lower"] >= row["lower_bound"] - TOL
        assert row["objective_upper"] <= row["upper_bound"] + TOL
        assert row["model_size"] <= R
    # Objective (of the models found) is non-increasing in the size limit.
    assert np.all(np.diff(frame["objective"].to_numpy()) <= TOL)
    assert np.all(np.diff(frame["upper_bound"].to_numpy()) <= TOL)


def test_size_path_certified_intervals_contain_brute_force_optimum(tiny, brute_force):
    X, y = tiny
    objective, loss = brute_force
    rows = []
    path = risk_score_size_path(
        X, y, sizes=range(0, 4), time_limit_per_size=20, callback=rows.append, **BOUNDS
    )
    frame = path.to_frame()
    assert list(frame["size"]) == [0, 1, 2, 3]
    assert (frame["status"] == "optimal").all()
    _check_intervals(frame, objective, loss)
    for R in range(4):
        assert frame.loc[R, "objective"] == pytest.approx(objective[R], abs=1e-7)
    # Callback ran once per size, in order, with the model.
    assert [r["size"] for r in rows] == [0, 1, 2, 3]
    assert rows[2]["model"] is path.models[2] and path.model(2) is path.models[2]
    assert not any(k.startswith("_") for k in frame.columns)
    assert {"train_cal", "train_auc", "time", "nodes", "cuts"} <= set(frame.columns)


def test_size_path_intervals_stay_valid_when_solves_are_cut_short(tiny, brute_force):
    X, y = tiny
    objective, loss = brute_force
    for node_limit in (0, 1):
        path = risk_score_size_path(
            X, y, sizes=[0, 1, 2, 3], time_limit_per_size=5, node_limit=node_limit, **BOUNDS
        )
        _check_intervals(path.to_frame(), objective, loss)


def test_size_path_shares_one_cut_pool_and_warm_starts(tiny):
    X, y = tiny
    pool = CutPool()
    path = risk_score_size_path(X, y, sizes=3, time_limit_per_size=10, cut_pool=pool, **BOUNDS)
    assert list(path.to_frame()["size"]) == [1, 2, 3]
    assert len(pool) > 0 and pool.fingerprint is not None
    # Models of every size are in the pool (each solve added its incumbents).
    pooled = {tuple(m) for m in pool.models()}
    assert all(tuple(m.coefficients) in pooled for m in path.models)


def test_size_path_with_test_data_and_pareto(tiny):
    X, y = tiny
    path = risk_score_size_path(
        X.iloc[:200],
        y[:200],
        sizes=[1, 2, 3],
        time_limit_per_size=10,
        X_test=X.iloc[200:],
        y_test=y[200:],
        **BOUNDS,
    )
    frame = path.to_frame(include_models=True)
    assert {"test_cal", "test_auc", "test_loss", "model"} <= set(frame.columns)
    assert frame["test_auc"].between(0.5, 1).all()
    pareto = path.pareto()
    sizes, losses = pareto["model_size"].to_numpy(), pareto["loss"].to_numpy()
    # Along the frontier, larger models have strictly smaller loss.
    assert np.all(np.diff(sizes) > 0) and np.all(np.diff(losses) < 0)
    assert "size <= 1" in path.summary()


def test_pareto_drops_dominated_and_duplicate_models():
    path = SizePath(
        rows=[
            {"size": 1, "model_size": 1, "loss": 0.5},
            {"size": 2, "model_size": 1, "loss": 0.5},
            {"size": 3, "model_size": 3, "loss": 0.6},
            {"size": 4, "model_size": 2, "loss": 0.4},
        ],
        models=[None] * 4,
    )
    assert list(path.pareto()["size"]) == [1, 4]


def test_size_path_rejects_arguments_it_sets(tiny):
    X, y = tiny
    with pytest.raises(InputError):
        risk_score_size_path(X, y, max_size=2)
    with pytest.raises(InputError):
        risk_score_size_path(X, y, X_test=X)
    with pytest.raises(InputError):
        risk_score_size_path(X, y, sizes=[-1])


def test_size_path_stop_before_start(tiny):
    X, y = tiny
    stop = threading.Event()
    stop.set()
    assert len(risk_score_size_path(X, y, sizes=3, stop=stop, **BOUNDS)) == 0


def test_checklist_size_path():
    rng = np.random.default_rng(2)
    n = 240
    X = pd.DataFrame(rng.integers(0, 2, (n, 5)), columns=[f"i{j}" for j in range(5)])
    y = ((X["i0"] + X["i1"] + X["i2"] >= 2) ^ (rng.random(n) < 0.1)).astype(int)
    rows = []
    path = checklist_size_path(
        X.iloc[:160],
        y.iloc[:160],
        n_values=3,
        time_limit_per_size=10,
        X_test=X.iloc[160:],
        y_test=y.iloc[160:],
        callback=rows.append,
        binarize=None,
    )
    frame = path.to_frame()
    assert list(frame["size"]) == [1, 2, 3]
    assert (frame["model_size"] <= frame["size"]).all()
    assert {"M", "objective", "gap", "train_error", "test_error", "test_fnr"} <= set(frame)
    assert [r["size"] for r in rows] == [1, 2, 3]
    # Larger limits can only lower the optimal objective.
    optimal = frame[frame["status"] == "optimal"]
    assert np.all(np.diff(optimal["objective"].to_numpy()) <= 1e-6)
    assert frame["train_error"].iloc[-1] < 0.2
    assert path.kind == "checklist" and "N=" in path.summary()
