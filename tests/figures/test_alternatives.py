"""The figures beyond the optimum: how often each feature appears in a near-optimal set
(with its groups), and the certified price of each feature."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("plotly")

from riskexplore import feature_prices, near_optimal_checklists  # noqa: E402
from riskexplore.evaluation.prices import FeaturePrice, FeaturePrices  # noqa: E402
from riskexplore.figures.alternatives import (  # noqa: E402
    feature_frequency_figure,
    feature_price_figure,
    price_words,
)


@pytest.fixture(scope="module")
def small_set():
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.integers(0, 2, (80, 5)), columns=list("abcde"))
    y = pd.Series(((X.a + X.b + X.c + rng.integers(0, 2, 80)) >= 2).astype(int))
    return X, y, near_optimal_checklists(X, y, binarize=None, max_items=3, tolerance=3)


def test_frequency_figure_counts_every_feature(small_set):
    _, _, found = small_set
    fig = feature_frequency_figure(found)
    bars, table = fig.data[0], fig.data[-1]
    counts = found.feature_counts()
    assert dict(zip(bars.y, bars.x, strict=True)) == counts
    assert list(bars.y)[-1] == next(iter(counts))  # the most used on top
    best = set(found[0].features)
    colors = dict(zip(bars.y, bars.marker.color, strict=True))
    assert {f for f, c in colors.items() if c == colors[next(iter(best))]} == best
    groups = found.by_features()
    assert list(table.cells.values[1]) == [str(len(v)) for v in list(groups.values())[:8]]
    best_group = list(groups).index(tuple(sorted(found[0].features)))
    assert table.cells.values[2][best_group] == "as good as the best"
    assert all(v.endswith(("best", "mistake", "mistakes")) for v in table.cells.values[2])
    assert "complete" in fig.layout.title.text
    assert fig.layout.height >= 300


def test_price_figure_shows_every_interval(small_set):
    X, y, _ = small_set
    prices = feature_prices(X, y, family="checklist", binarize=None, max_items=3)
    fig = feature_price_figure(prices)
    shown = {}
    for trace in fig.data:
        for label, high, minus in zip(trace.y, trace.x, trace.error_x.arrayminus, strict=True):
            shown[label] = (high - minus, high)
    assert len(shown) == len(prices.prices)
    for p in prices.prices:
        low, high = shown[f"{p.action} {p.feature}"]
        assert (low, high) == pytest.approx((p.low, p.high))
    assert "weighted mistakes" in fig.layout.xaxis.title.text
    assert list(fig.layout.yaxis.categoryarray)[-1] == f"{prices.prices[0].action} " + (
        prices.prices[0].feature
    )  # the table's first row on top


def test_price_words_and_infinite_prices():
    assert price_words(FeaturePrice("a", True, 0.5, 0.5)) == "0.5"
    assert price_words(FeaturePrice("a", True, 0.1, 0.2)) == "0.1 to 0.2"
    assert price_words(FeaturePrice("a", False, math.inf, math.inf)).startswith("impossible")
    assert price_words(FeaturePrice("a", False, 0.0, math.inf)) == "at least 0"
    prices = FeaturePrices(
        "risk_score",
        None,
        [FeaturePrice("a", True, 0.1, 0.2), FeaturePrice("b", False, math.inf, math.inf)],
        complete=False,
    )
    fig = feature_price_figure(prices)
    assert all(np.isfinite(t.x).all() for t in fig.data)  # an impossible change is capped
    assert "stopped before every feature" in fig.layout.title.text


def test_price_figure_in_percent_of_the_best():
    from types import SimpleNamespace

    best = SimpleNamespace(distance=SimpleNamespace(lower_bound=0.5))
    prices = FeaturePrices(
        "risk_score", best, [FeaturePrice("a", True, 0.01, 0.01 + 1e-12)], unit="objective"
    )
    fig = feature_price_figure(prices, relative=True)
    assert fig.data[0].x[0] == pytest.approx(2.0)  # 0.01 of 0.5 is 2%
    assert fig.data[0].text[0] == "2%" and "% of the best" in fig.layout.xaxis.title.text
    prices = FeaturePrices(
        "risk_score",
        best,
        [
            FeaturePrice("a", True, 0.0, 1.6e-9),  # rounding noise: not 3.2e-07%
            FeaturePrice("b", False, 0.001, 0.002),
            FeaturePrice("c", False, 0.001, math.inf),
        ],
        unit="objective",
    )
    texts = {t for trace in feature_price_figure(prices, relative=True).data for t in trace.text}
    assert texts == {"0% to <0.01%", "0.2% to 0.4%", "at least 0.2%"}
