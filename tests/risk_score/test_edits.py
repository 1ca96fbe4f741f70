"""Hand edits of risk scores: ``with_points`` recomputes the card, loss and objective, keeps
the original solve's lower bound, and names the constraints an edit breaks. Checked
against values computed from the data alone and against brute-force enumeration (every
edit of a certified optimum is at least as bad as the optimum)."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest

from riskexplore import Exclude, InputError, RiskScore, fit_risk_score


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(11)
    n, d = 150, 3
    X = pd.DataFrame(rng.integers(0, 2, (n, d)).astype(float), columns=["a", "b", "c"])
    beta = np.array([1.5, -1.0, 0.7])
    y = pd.Series((rng.random(n) < 1 / (1 + np.exp(-(X.to_numpy() @ beta - 0.4)))).astype(int))
    settings = dict(coef_min=-2, coef_max=2, intercept_min=-3, intercept_max=3, max_size=2)
    model = fit_risk_score(X, y, constraints=[Exclude("c")], **settings)
    return X, y, settings, model


def _objective(X, y, intercept, points, c0=1e-6):
    lam = np.array([points.get(c, 0) for c in X.columns], dtype=float)
    s = intercept + X.to_numpy() @ lam
    loss = float(np.mean(np.logaddexp(0.0, -(2 * y.to_numpy() - 1) * s)))
    return loss + c0 * np.count_nonzero(lam)


def test_an_edit_is_recomputed_and_keeps_the_original_bound(small):
    X, y, settings, model = small
    feature = next(iter(model.points))
    new = model.points[feature] + (1 if model.points[feature] < 2 else -1)
    edited = model.with_points({feature: new})
    assert edited is not model and model.points[feature] != new  # a new value
    assert edited.points[feature] == new
    # the intercept is the best whole number for the new points (brute force)
    pts = {**model.points, feature: new}
    losses = {b: _objective(X, y, b, pts) for b in range(-3, 4)}
    assert edited.intercept == min(losses, key=losses.get)
    assert edited.objective == pytest.approx(losses[edited.intercept], rel=1e-12)
    assert edited.loss == pytest.approx(losses[edited.intercept] - 1e-6 * len(pts), rel=1e-9)
    assert edited.certificate.status == "edited"
    assert edited.certificate.lower_bound == model.certificate.lower_bound
    assert edited.distance.absolute == pytest.approx(
        edited.objective - model.certificate.lower_bound
    )
    assert edited.distance.relative == pytest.approx(
        edited.distance.absolute / model.certificate.lower_bound
    )
    assert not edited.distance.breaks
    assert "RISK" in edited.to_text() and f"{new} point" in edited.to_text()
    assert list(edited.score_table()["score"]) != [] and "edited by hand" in edited.summary()
    fixed = model.with_points({feature: new}, intercept=-3)
    assert fixed.intercept == -3
    assert fixed.objective == pytest.approx(_objective(X, y, -3, pts), rel=1e-12)


def test_every_edit_within_the_settings_is_no_better_than_the_certified_optimum(small):
    X, y, settings, model = small
    assert model.certificate.status == "optimal"
    for a, b in itertools.product(range(-2, 3), repeat=2):
        edited = model.with_points({"a": a, "b": b, "c": 0})
        assert not edited.distance.breaks
        assert edited.distance.absolute >= -1e-9  # the lower bound holds for every model


def test_an_edit_that_breaks_the_search_names_what_it_breaks(small):
    X, y, settings, model = small
    edited = model.with_points({"c": 1, "a": 3})
    breaks = " | ".join(edited.distance.breaks)
    assert "Do not use c" in breaks and "bounds of a" in breaks and "model size 3" in breaks
    assert "breaks" in edited.distance.describe()
    assert edited.objective == pytest.approx(
        _objective(X, y, edited.intercept, edited.points), rel=1e-12
    )


def test_a_model_read_from_json_asks_for_its_data(small):
    X, y, settings, model = small
    loaded = RiskScore.from_json(model.to_json())
    assert loaded == model
    with pytest.raises(InputError, match="no training data attached.*X=X, y=y"):
        loaded.with_points({"a": 1})
    with pytest.raises(InputError, match="both X and y"):
        loaded.with_points({"a": 1}, X=X)
    again = loaded.with_points({"a": 1}, X=X, y=y)
    direct = model.with_points({"a": 1})
    assert again.objective == pytest.approx(direct.objective, rel=1e-12)
    assert again.intercept == direct.intercept
    assert any("not saved with the model" in n for n in again.distance.notes)
    assert "c" in {n for n in again.feature_names}
    restored = RiskScore.from_json(direct.to_json())  # the distance travels with the model
    assert restored.distance == direct.distance
    assert pickle.loads(pickle.dumps(direct))._problem is None  # never serialised


def test_bad_edits_are_clear_errors(small):
    _, _, _, model = small
    with pytest.raises(InputError, match="unknown feature 'aa'.*'a'"):
        model.with_points({"aa": 1})
    with pytest.raises(InputError, match="points of a must be a whole number"):
        model.with_points({"a": 1.5})
    with pytest.raises(InputError, match="intercept must be a whole number"):
        model.with_points({"a": 1}, intercept="x")
    with pytest.raises(InputError, match="points must map"):
        model.with_points([("a", 1)])


def test_the_learned_scale_is_refused_naming_the_option(small):
    """Edits, near-optimal sets and feature prices are certified with the fixed scale only:
    a learned-scale model or setting is one clear error naming ``scale``, before any solve
    (edits of a learned model used to be scored as if m were 1)."""
    from riskexplore import feature_prices, near_optimal_risk_scores
    from riskexplore.risk_score.fit import build_problem
    from riskexplore.risk_score.near_optimal import solve_near_optimal

    X, y, settings, _model = small
    learned = fit_risk_score(X, y, scale="learned", **settings)
    assert learned.scale == "learned"
    with pytest.raises(InputError, match=r"^with_points: .*fixed scale only.*scale='learned'"):
        learned.with_points({"a": 1})
    calls = [
        lambda: near_optimal_risk_scores(X, y, scale="learned", **settings),
        lambda: solve_near_optimal(build_problem(X, y, scale="learned", **settings)),
        lambda: feature_prices(X, y, scale="learned", **settings),
        lambda: feature_prices(X, y, best=learned, **settings),
    ]
    for call in calls:
        with pytest.raises(InputError, match=r"fixed scale only .*scale='fixed'"):
            call()
    # the fixed scale stays accepted when named
    found = near_optimal_risk_scores(X, y, scale="fixed", tolerance=0.0, **settings)
    assert found.complete and len(found) >= 1
