"""Tests for riskexplore.evaluation.compare (side-by-side models, price of constraints)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.model import Checklist
from riskexplore.errors import InputError
from riskexplore.evaluation.compare import compare, compare_models
from riskexplore.risk_score.constraints import Exclude, Include, Sign
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.problem import RiskScoreProblem

BOUNDS = dict(coef_min=-2, coef_max=2, intercept_min=-4, intercept_max=4, c0=0.01, max_size=2)
TOL = 1e-7


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(5)
    n = 300
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)), columns=["a", "b", "c"])
    s = -1 + 1.5 * X["a"] - 1.0 * X["b"] + 0.7 * X["c"]
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    return X, y


def brute_force_optimum(X, y, constraints=()) -> float:
    problem = RiskScoreProblem(X, y, constraints=constraints, **BOUNDS)
    best = math.inf
    for lam in itertools.product(range(-4, 5), *[range(-2, 3)] * 3):
        lam = np.array(lam, dtype=float)
        if problem.is_feasible(lam):
            best = min(best, problem.objective(lam))
    return best


@pytest.mark.parametrize("constraints", [[Exclude("a")], [Sign("b", 1), Include("b")]])
def test_price_interval_contains_brute_force_difference(tiny, constraints):
    X, y = tiny
    truth = brute_force_optimum(X, y, constraints) - brute_force_optimum(X, y)
    assert truth > 0.001  # the constraints do cost something here
    exact = compare_models(X, y, constraints=constraints, time_limit=20, **BOUNDS)
    lo, hi = exact.price_of_constraints
    assert lo - TOL <= truth <= hi + TOL
    assert hi - lo < 1e-6  # both certified optimal: a (near) point
    assert exact.unconstrained.certificate.is_optimal and exact.constrained.certificate.is_optimal
    # Cut short, the interval is wide but still valid and never below 0.
    for node_limit in (0, 1):
        rough = compare_models(
            X, y, constraints=constraints, time_limit=5, node_limit=node_limit, **BOUNDS
        )
        lo, hi = rough.price_of_constraints
        assert 0 <= lo <= truth + TOL and truth <= hi + TOL


def test_comparison_tables_and_summary(tiny):
    X, y = tiny
    result = compare_models(
        X.iloc[:200],
        y[:200],
        constraints=[Exclude("a")],
        X_test=X.iloc[200:],
        y_test=y[200:],
        time_limit=10,
        **BOUNDS,
    )
    points = result.points
    assert list(points.columns) == ["feature", "unconstrained", "constrained", "changed"]
    assert points.loc[0, "feature"] == "(intercept)"
    row_a = points[points["feature"] == "a"].iloc[0]
    assert row_a["unconstrained"] != 0 and row_a["constrained"] == 0 and row_a["changed"]
    frame = result.to_frame()
    assert list(frame.index) == ["unconstrained", "constrained"]
    for col in ("train_cal", "train_auc", "train_loss", "test_cal", "test_auc", "status", "gap"):
        assert col in frame, col
    # The unconstrained optimum is a reference: no constrained model fits better.
    assert frame.loc["constrained", "objective"] >= frame.loc["unconstrained", "lower_bound"]
    text = result.summary()
    assert "Do not use a" in text and "price of constraints" in text
    assert "certified optimal" in text


def test_infeasible_constraints_give_infinite_price(tiny):
    X, y = tiny
    result = compare_models(X, y, constraints=[Include("a"), Exclude("a")], time_limit=5, **BOUNDS)
    assert result.constrained is None
    assert result.price_of_constraints[1] == math.inf
    assert "no model" in result.summary() or "admit no model" in result.summary()


def test_compare_fitted_models():
    X = pd.DataFrame({"a": [0, 1, 1, 0, 1, 0], "b": [1, 0, 1, 1, 0, 0]})
    y = np.array([0, 1, 1, 0, 1, 0])
    m1 = RiskScore(["a", "b"], {"a": 2}, -1)
    m2 = RiskScore(["a", "b"], {"a": 2, "b": -1}, -1)
    result = compare(m1, m2, X, y, names=("small", "large"))
    assert result.price_of_constraints is None
    assert list(result.points["feature"]) == ["(intercept)", "a", "b"]
    assert list(result.points["changed"]) == [False, False, True]
    assert result.metrics.loc["large", "train_auc"] == pytest.approx(1.0)
    assert "small vs large" in result.summary()

    c1, c2 = Checklist(["a"], 1), Checklist(["a", "b"], 1)
    checklists = compare(c1, c2, X, y)
    assert list(checklists.points["item"]) == ["a", "b"]
    assert list(checklists.points["changed"]) == [False, True]
    assert checklists.metrics.loc["A", "train_error"] == pytest.approx(0.0)
    assert "train_cal" not in checklists.metrics
    with pytest.raises(InputError):
        compare(m1, m2, X, y, names=("x", "x"))


def test_compare_models_rejects_constraints_in_fit_kwargs(tiny):
    X, y = tiny
    with pytest.raises(InputError):
        compare_models(X, y, constraints=[Exclude("a")], warm_start=[0, 0, 0, 0])
