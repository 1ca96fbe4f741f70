"""Near-optimal sets from data (``near_optimal_risk_scores``, ``near_optimal_checklists``)
against brute-force enumeration computed here from the data alone: the same models,
nothing missing, nothing outside the tolerance, each with its objective, its certified
distance to the best model and its metrics."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from riskexplore import (
    InputError,
    fit_checklist,
    fit_risk_score,
    near_optimal_checklists,
    near_optimal_risk_scores,
)
from riskexplore.core.registry import get_family
from riskexplore.evaluation.near_optimal import alternatives_of, near_optimal_models


def _risk_data(seed: int):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(60, 200)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, d)).astype(float)
    beta = rng.normal(size=d) * 1.5
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.3)))).astype(int)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    settings = dict(
        coef_min=-2,
        coef_max=2,
        intercept_min=-3,
        intercept_max=3,
        c0=float(rng.choice([1e-6, 0.01])),
        max_size=int(rng.integers(1, d + 1)),
    )
    return frame, pd.Series(y, name="y"), settings


def _risk_objective(X: np.ndarray, y: np.ndarray, lam, c0: float) -> float:
    """Mean logistic loss plus c0 per feature used, computed from the data alone."""
    scores = lam[0] + X @ np.asarray(lam[1:], dtype=float)
    signs = 2 * y - 1
    return float(np.mean(np.logaddexp(0.0, -signs * scores))) + c0 * np.count_nonzero(lam[1:])


def _all_risk_scores(X, y, s) -> dict[tuple[int, ...], float]:
    d = X.shape[1]
    out = {}
    for b in range(s["intercept_min"], s["intercept_max"] + 1):
        for pts in itertools.product(range(s["coef_min"], s["coef_max"] + 1), repeat=d):
            if np.count_nonzero(pts) <= s["max_size"]:
                lam = (b, *pts)
                out[lam] = _risk_objective(X, y, lam, s["c0"])
    return out


@pytest.mark.parametrize("seed", range(8))
def test_risk_score_sets_match_enumeration(seed):
    X, y, settings = _risk_data(seed)
    everything = _all_risk_scores(X.to_numpy(), y.to_numpy(), settings)
    optimum = min(everything.values())
    tolerance = [0.0, 0.01, 0.03, 0.1][seed % 4]
    found = near_optimal_risk_scores(
        X, y, tolerance=tolerance, max_models=10_000, X_test=X, y_test=y, **settings
    )
    expected = {lam for lam, v in everything.items() if v <= optimum * (1 + tolerance) + 1e-12}
    got = {(m.intercept, *(m.all_points[c] for c in X.columns)) for m in found.models}
    assert found.complete and found.reason is None and found.certified
    assert got == expected  # nothing missing, nothing outside the tolerance
    assert found.optimum == pytest.approx(optimum, rel=1e-9)
    assert found.lower_bound <= optimum + 1e-12  # a valid bound
    objectives = [a.objective for a in found]
    assert objectives == sorted(objectives)
    for a in found:
        lam = (a.model.intercept, *(a.model.all_points[c] for c in X.columns))
        assert a.objective == pytest.approx(everything[lam], rel=1e-10)
        assert a.distance.absolute == pytest.approx(a.objective - found.lower_bound)
        assert a.distance.absolute >= -1e-9 and not a.distance.breaks
        assert a.features == tuple(a.model.points)
        assert {"train_auc", "train_cal", "train_loss", "test_auc"} <= set(a.metrics)
    best = fit_risk_score(X, y, **settings)
    assert found.best.objective == pytest.approx(best.objective, rel=1e-9)
    assert found[0].model.certificate.status == "optimal"
    assert all(a.model.certificate.status == "alternative" for a in found.alternatives[1:])
    report = json.loads(json.dumps(found.to_dict(), allow_nan=False))
    assert report["complete"] is True and len(report["models"]) == len(found)
    assert set(report["models"][0]) >= {"objective", "intercept", "coefficients", "distance"}


def test_max_models_keeps_the_best_and_says_so():
    X, y, settings = _risk_data(3)
    settings["max_size"] = X.shape[1]
    everything = sorted(_all_risk_scores(X.to_numpy(), y.to_numpy(), settings).values())
    found = near_optimal_risk_scores(X, y, tolerance=0.5, max_models=4, **settings)
    assert not found.complete and found.reason == "max_models"
    assert [a.objective for a in found] == pytest.approx(everything[:4], rel=1e-10)
    assert "not complete" in found.describe() and "most asked for" in found.describe()


def test_a_time_limit_says_the_set_is_incomplete():
    from riskexplore import load_dataset

    data = load_dataset("mammo")
    found = near_optimal_risk_scores(data.X, data.y, max_size=5, time_limit=0.5)
    assert not found.complete
    assert found.reason in ("time_limit", "optimum_not_certified")
    assert found.lower_bound <= found.optimum


# --- checklists ----------------------------------------------------------------------
def _checklist_data(seed: int):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(40, 120)), int(rng.integers(3, 6))
    items = rng.integers(0, 2, (n, d))
    y = ((items[:, : max(2, d - 2)].sum(axis=1) + rng.integers(0, 2, n)) >= 2).astype(int)
    return pd.DataFrame(items, columns=[f"i{j}" for j in range(d)]), pd.Series(y, name="y")


def _all_checklists(items: np.ndarray, y: np.ndarray, max_items: int) -> dict:
    """(items, M) -> mistakes, for every N from 1 to max_items and M from 1 to N."""
    d = items.shape[1]
    out = {}
    for N in range(1, max_items + 1):
        for subset in itertools.combinations(range(d), N):
            checked = items[:, list(subset)].sum(axis=1)
            for M in range(1, N + 1):
                pred = checked >= M
                out[(subset, M)] = int(np.sum(pred != (y == 1)))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_checklist_sets_match_enumeration(seed):
    X, y = _checklist_data(seed)
    max_items = min(3, X.shape[1])
    tolerance = [0.0, 1.0, 2.0, 3.0][seed % 4]
    found = near_optimal_checklists(
        X, y, binarize=None, max_items=max_items, tolerance=tolerance, max_models=10_000
    )
    everything = _all_checklists(X.to_numpy(), y.to_numpy(), max_items)
    best = min(everything.values())
    expected = {
        (tuple(X.columns[list(s)]), M) for (s, M), e in everything.items() if e <= best + tolerance
    }
    got = {(tuple(sorted(a.model.items)), a.model.M) for a in found}
    assert found.complete and found.reason is None
    assert got == {(tuple(sorted(i)), M) for i, M in expected}
    assert found.optimum == best
    for a in found:
        subset = tuple(sorted(int(i[1:]) for i in a.model.items))
        assert a.model.stats["train_errors"] == everything[(subset, a.model.M)]
        assert a.distance.unit == "mistakes"
        assert a.distance.absolute == pytest.approx(everything[(subset, a.model.M)] - best)
        assert a.objective == everything[(subset, a.model.M)]  # the set's unit, no tie-breaks
        assert "train_error" in a.metrics and "train_fnr" in a.metrics
    report = json.loads(json.dumps(found.to_dict(), allow_nan=False))
    assert {"items", "M", "train_errors", "objective"} <= set(report["models"][0])
    assert all(row["objective"] == row["train_errors"] for row in report["models"])
    assert found.best.objective == pytest.approx(
        fit_checklist(X, y, binarize=None, max_items=max_items).objective
    )


def test_diversity_views():
    X, y = _checklist_data(1)
    found = near_optimal_checklists(X, y, binarize=None, max_items=3, tolerance=3.0)
    counts = found.feature_counts()
    assert sum(counts.values()) == sum(len(set(a.features)) for a in found)
    assert list(counts.values()) == sorted(counts.values(), reverse=True)
    groups = found.by_features()
    assert sum(len(v) for v in groups.values()) == len(found)
    for features, members in groups.items():
        assert all(tuple(sorted(a.features)) == features for a in members)
    sizes = [len(v) for v in groups.values()]
    assert sizes == sorted(sizes, reverse=True)
    frame = found.to_frame()
    assert list(frame.index) == list(range(1, len(found) + 1))
    assert {"distance", "relative_distance", "items", "M", "train_error"} <= set(frame.columns)


def test_describe_names_the_family_and_the_tolerance():
    X, y = _checklist_data(2)
    for tolerance, unit in [(1.0, "weighted mistake of"), (2.0, "weighted mistakes of")]:
        found = near_optimal_checklists(X, y, binarize=None, max_items=3, tolerance=tolerance)
        noun = "checklist" if len(found) == 1 else "checklists"
        text = found.describe()
        assert text.startswith(f"{len(found)} {noun} within {tolerance:g} {unit} the best")
        assert f"({found.optimum:g} weighted mistakes)" in text and "complete: no other" in text
    X, y, settings = _risk_data(1)
    found = near_optimal_risk_scores(X, y, tolerance=0.05, **settings)
    noun = "risk score" if len(found) == 1 else "risk scores"
    assert found.describe().startswith(f"{len(found)} {noun} within 5% of the best (objective ")


def test_bad_input_is_one_clear_error_early():
    X, y, settings = _risk_data(0)
    with pytest.raises(InputError, match="tolerance"):
        near_optimal_risk_scores(X, y, tolerance=-1, **settings)
    with pytest.raises(InputError, match="max_models"):
        near_optimal_risk_scores(X, y, max_models=0, **settings)
    with pytest.raises(InputError, match="time_limit"):
        near_optimal_risk_scores(X, y, time_limit=-3, **settings)
    with pytest.raises(InputError, match="X_test and y_test"):
        near_optimal_risk_scores(X, y, X_test=X, **settings)
    with pytest.raises(InputError, match="unknown model family"):
        near_optimal_models(X, y, family="trees")
    with pytest.raises(TypeError):
        near_optimal_risk_scores(X, y, max_itemz=3)


def test_every_builtin_family_offers_alternatives():
    for name in ("risk_score", "checklist"):
        spec = alternatives_of(name)
        assert spec is get_family(name).alternatives
        assert spec.tolerance_unit in ("relative", "mistakes") and math.isfinite(spec.tolerance)
