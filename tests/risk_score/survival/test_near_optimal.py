"""Near-optimal sets and hand edits of survival scores: the set equals brute force over
every integer point vector of a small box, each distance is certified, edits recompute the
Cox loss and the baseline."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _survival_data import structured, survival_data

from riskexplore import SurvivalScore, fit_survival_score
from riskexplore.core.registry import get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.near_optimal import near_optimal_models
from riskexplore.evaluation.prices import feature_prices
from riskexplore.risk_score.constraints import Exclude, Include


def _objective(X, time, event, points, c0):
    """The mean Breslow negative partial log-likelihood plus c0 per item, row by row."""
    s = X @ points
    terms = [np.log(np.exp(s[time >= time[i]]).sum()) - s[i] for i in np.flatnonzero(event)]
    return float(np.sum(terms)) / len(time) + c0 * np.count_nonzero(points)


def _brute_force_set(X, time, event, c0, coef, tolerance, keep=lambda p: True):
    """Every point vector in the box within ``tolerance`` of the best, by objective."""
    scored = {
        points: _objective(X, time, event, np.array(points, float), c0)
        for points in itertools.product(range(-coef, coef + 1), repeat=X.shape[1])
        if keep(points)
    }
    best = min(scored.values())
    return {p: v for p, v in scored.items() if v <= best * (1 + tolerance) + 1e-12}, best


def _points(model):
    return tuple(model._points[n] for n in model.feature_names)


@pytest.mark.parametrize("seed,c0,tolerance", [(0, 0.002, 0.02), (3, 0.01, 0.05)])
def test_the_set_equals_brute_force_within_the_margin(seed, c0, tolerance):
    X, time, event, _ = survival_data(n=80, d=3, seed=seed)
    y = structured(time, event)
    found = near_optimal_models(
        X, y, family="survival_score", tolerance=tolerance, coef_min=-2, coef_max=2, c0=c0,
        horizon=1.0,
    )  # fmt: skip
    expected, best = _brute_force_set(X, time, event, c0, 2, tolerance)
    assert found.complete and found.certified and found.family == "survival_score"
    assert {_points(m) for m in found.models} == set(expected)
    assert found.optimum == pytest.approx(best, abs=1e-9)
    assert found.lower_bound <= best + 1e-9
    for alternative in found:
        model = alternative.model
        assert isinstance(model, SurvivalScore)
        assert model.objective == pytest.approx(expected[_points(model)], abs=1e-9)
        assert model.distance.lower_bound == found.lower_bound
        assert 0 <= model.distance.absolute <= tolerance * best + 1e-9  # certified interval
        assert model.certificate.lower_bound <= model.objective
        risk = model.predict_risk(X)
        assert ((0 <= risk) & (risk <= 1)).all()
        assert "train_c_index" in alternative.metrics
    frame = found.to_frame()
    assert list(frame["objective"]) == sorted(frame["objective"])
    assert "points" in frame.columns and "intercept" not in frame.columns


def test_forcing_an_item_in_or_out_gives_the_brute_force_best_of_the_rest():
    X, time, event, _ = survival_data(n=80, d=3, seed=1)
    y = structured(time, event)
    spec = get_family("survival_score").alternatives
    best = near_optimal_models(
        X, y, family="survival_score", tolerance=0.0, coef_min=-2, coef_max=2, c0=0.002
    ).best
    for name in best.feature_names:
        j = best.feature_names.index(name)
        force_in = name not in best.points
        found = near_optimal_models(
            X, y, family="survival_score", tolerance=0.0, coef_min=-2, coef_max=2, c0=0.002,
            constraints=spec.feature_constraints(best, name, force_in),
        )  # fmt: skip
        expected, value = _brute_force_set(
            X, time, event, 0.002, 2, 0.0, keep=lambda p, j=j, f=force_in: (p[j] != 0) == f
        )
        assert _points(found.best) in expected
        assert found.best.objective == pytest.approx(value, abs=1e-9)


def test_a_hand_edit_recomputes_the_loss_and_baseline_with_a_certified_distance():
    X, time, event, _ = survival_data(n=120, d=4, seed=2)
    model = fit_survival_score(X, time, event, coef_min=-3, coef_max=3, c0=0.002, horizon=1.0)
    name = model.feature_names[0]
    new = model._points[name] + 1 if model._points[name] < 3 else 0
    edited = get_family("survival_score").alternatives.edit(model, {"points": {name: new}})
    points = np.array(_points(edited), dtype=float)
    assert edited._points[name] == new and edited.certificate.status == "edited"
    assert edited.objective == pytest.approx(_objective(X, time, event, points, 0.002), abs=1e-10)
    assert edited.distance.absolute >= -1e-12  # the optimum is certified: no edit beats it
    assert edited.distance.lower_bound == model.certificate.lower_bound
    assert edited.total_points(X) == pytest.approx(X @ points)
    assert not np.allclose(edited.predict_risk(X), model.predict_risk(X))
    outside = model.with_points({name: 5})  # beyond the bounds of the search: said so
    assert outside.distance.breaks and outside.distance.absolute > 0
    again = SurvivalScore.from_dict(model.to_dict())  # read from JSON: give the rows again
    with pytest.raises(InputError, match="X=X, y=y"):
        again.with_points({name: new})
    rebuilt = again.with_points({name: new}, X=X, y=structured(time, event))
    assert rebuilt.objective == pytest.approx(edited.objective, abs=1e-12)
    with pytest.raises(InputError, match="no intercept"):
        get_family("survival_score").alternatives.edit(model, {"intercept": 1})
    with pytest.raises(InputError, match="unknown feature"):
        model.with_points({"nope": 1})
    assert Include(name) in get_family("survival_score").alternatives.feature_constraints(
        model, name, True
    )
    assert [Exclude(name)] == get_family("survival_score").alternatives.feature_constraints(
        model, name, False
    )


def test_feature_prices_contain_the_brute_force_price_of_each_item():
    """What each item is worth (``feature_prices``): the certified interval of the price of
    leaving an item of the best score out, or forcing another in, holds the brute-force one."""
    X, time, event, _ = survival_data(n=80, d=3, seed=3)
    c0, coef = 0.002, 2
    prices = feature_prices(
        X, structured(time, event), family="survival_score", time_limit=60,
        coef_min=-coef, coef_max=coef, c0=c0,
    )  # fmt: skip
    _, best = _brute_force_set(X, time, event, c0, coef, 0.0)
    assert prices.complete and prices.best.objective == pytest.approx(best, abs=1e-9)
    names = list(prices.best.feature_names)
    assert sorted(p.feature for p in prices.prices) == sorted(names)
    for p in prices.prices:
        j = names.index(p.feature)
        _, value = _brute_force_set(
            X, time, event, c0, coef, 0.0, keep=lambda q, j=j, i=p.in_best: (q[j] != 0) != i
        )
        assert p.in_best == (p.feature in prices.best.points)
        assert p.low - 1e-9 <= value - best <= p.high + 1e-9
