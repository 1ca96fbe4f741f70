"""The certified price of each feature against brute-force enumeration: the interval
contains the true price (the optimum with the feature left out or forced in, minus the
optimum), and shrinks to it when every solve is certified."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from riskexplore import InputError, feature_prices
from riskexplore.evaluation.prices import FeaturePrices


def _risk_data(seed):
    rng = np.random.default_rng(seed)
    n = 160
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)).astype(float), columns=["a", "b", "c"])
    y = pd.Series(
        (rng.random(n) < 1 / (1 + np.exp(-(X.to_numpy() @ [1.4, -0.9, 0.5] - 0.3)))).astype(int)
    )
    return X, y


def _risk_optima(X, y, settings):
    """feature -> (optimum without it, optimum with it), and the optimum."""
    names = list(X.columns)
    signs = 2 * y.to_numpy() - 1
    values = {}
    for b in range(settings["intercept_min"], settings["intercept_max"] + 1):
        for pts in itertools.product(range(-2, 3), repeat=len(names)):
            if np.count_nonzero(pts) <= settings["max_size"]:
                s = b + X.to_numpy() @ np.array(pts, dtype=float)
                loss = float(np.mean(np.logaddexp(0.0, -signs * s)))
                value = loss + 1e-6 * np.count_nonzero(pts)
                values[pts] = min(values.get(pts, np.inf), value)  # the best intercept
    best = min(values.values())
    out = {}
    for j, name in enumerate(names):
        out[name] = (
            min(v for p, v in values.items() if p[j] == 0),
            min(v for p, v in values.items() if p[j] != 0),
        )
    return best, out


@pytest.mark.parametrize("seed", range(3))
def test_risk_score_prices_match_enumeration(seed):
    X, y = _risk_data(seed)
    settings = dict(coef_min=-2, coef_max=2, intercept_min=-3, intercept_max=3, max_size=2)
    best, optima = _risk_optima(X, y, settings)
    prices = feature_prices(X, y, family="risk_score", time_limit=60, **settings)
    assert isinstance(prices, FeaturePrices) and prices.complete and prices.unit == "objective"
    assert prices.best.objective == pytest.approx(best, rel=1e-9)
    assert {p.feature for p in prices.prices} == {"a", "b", "c"}
    for p in prices.prices:
        assert p.in_best == (p.feature in prices.best.points)
        without, with_ = optima[p.feature]
        true = (without if p.in_best else with_) - best
        assert p.low - 1e-9 <= true <= p.high + 1e-9  # a valid interval
        assert p.certified and p.high - p.low <= 1e-8  # tight when certified
        assert p.model is not None and (p.feature in p.model.points) != p.in_best
    frame = prices.to_frame()
    assert list(frame.columns[:5]) == ["feature", "in_best", "action", "price_low", "price_high"]
    inside = frame[frame.in_best]
    assert list(inside.price_high) == sorted(inside.price_high, reverse=True)
    assert "leave out" in prices.summary()


def _checklist_data():
    rng = np.random.default_rng(2)
    n = 80
    X = pd.DataFrame(rng.integers(0, 2, (n, 4)), columns=["p", "q", "r", "s"])
    y = pd.Series(((X.p + X.q + rng.integers(0, 2, n)) >= 2).astype(int))
    return X, y


def test_checklist_prices_match_enumeration():
    X, y = _checklist_data()
    mistakes = {}
    for n in range(1, 3):
        for items in itertools.combinations(X.columns, n):
            checked = X[list(items)].sum(axis=1).to_numpy()
            for M in range(1, n + 1):
                mistakes[(items, M)] = int(np.sum((checked >= M) != (y.to_numpy() == 1)))
    best = min(mistakes.values())
    prices = feature_prices(X, y, family="checklist", binarize=None, max_items=2)
    assert prices.unit == "mistakes" and prices.complete
    for p in prices.prices:
        kept = [e for (items, _), e in mistakes.items() if (p.feature in items) != p.in_best]
        true = min(kept) - best
        assert p.low <= true <= p.high and p.low == p.high == true


def test_prices_can_start_from_a_fitted_model_and_a_subset_of_features():
    from riskexplore import fit_risk_score

    X, y = _risk_data(0)
    best = fit_risk_score(X, y, max_size=2, coef_min=-2, coef_max=2)
    seen = []
    prices = feature_prices(
        X, y, best=best, features=["a"], max_size=2, coef_min=-2, coef_max=2, callback=seen.append
    )
    assert [p.feature for p in prices.prices] == ["a"] and seen == prices.prices
    assert prices.best is best
    with pytest.raises(InputError, match="unknown feature"):
        feature_prices(X, y, best=best, features=["zz"], max_size=2)
    with pytest.raises(InputError, match="time_limit"):
        feature_prices(X, y, best=best, time_limit=0)


def test_a_stop_request_keeps_what_was_priced():
    import threading

    X, y = _risk_data(1)
    stop = threading.Event()
    prices = feature_prices(
        X, y, max_size=2, coef_min=-2, coef_max=2, callback=lambda p: stop.set(), stop=stop
    )
    assert not prices.complete and len(prices.prices) == 1
