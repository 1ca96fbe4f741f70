"""The Alternatives step's plain-Python state, without widgets: the set, selection, hand
edits with their distance, feature prices, and clearing when data or settings change."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from riskexplore import InputError, near_optimal_risk_scores
from riskexplore.exploration.alternatives import AlternativesState, closeness


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 200
    X = pd.DataFrame(rng.integers(0, 2, (n, 4)).astype(float), columns=list("abcd"))
    y = pd.Series(rng.random(n) < 1 / (1 + np.exp(-(X.to_numpy() @ [1.2, -1, 0.8, 0] - 0.2))))
    return X, y.astype(int)


SETTINGS = {"max_size": 2, "coef_min": -2, "coef_max": 2, "time_limit": 30}


@pytest.fixture
def state(data):
    X, y = data
    st = AlternativesState()
    st.configure(family="risk_score", X=X, y=y, X_test=X, y_test=y, settings=SETTINGS)
    return st


def test_set_selection_and_edits(state, data):
    X, y = data
    found = state.compute_set(tolerance=0.05)
    direct = near_optimal_risk_scores(X, y, tolerance=0.05, max_size=2, coef_min=-2, coef_max=2)
    assert [m.points for m in found.models] == [m.points for m in direct.models]
    assert state.selected == 0 and state.model is found.best and not state.edited
    assert state.card_label(0).startswith("#1 · ") and state.card_label(0).endswith("the best")
    assert len(found) > 1
    second = state.select(1)
    assert second is found[1].model and state.card_label(1, "things").startswith("#2 · ")
    feature = next(iter(second.points))
    edited = state.change_points(feature, +1)
    assert state.edited and state.model is edited
    assert edited.points.get(feature, 0) == second.points[feature] + 1
    assert edited.distance.absolute == pytest.approx(edited.objective - found.lower_bound)
    assert edited.distance.absolute != second.distance.absolute
    rows = {r.name: r.value for r in state.edit_rows()}
    assert rows == edited.all_points
    assert state.reset() is second and not state.edited
    with pytest.raises(InputError, match="not edited by items"):
        state.set_item("a", True)
    with pytest.raises(InputError, match="unknown feature"):
        state.change_points("zz", 1)
    with pytest.raises(InputError, match="index must be"):
        state.select(len(found))


def test_prices_reuse_the_sets_best_model(state):
    found = state.compute_set(tolerance=0.0)
    seen = []
    prices = state.compute_prices(callback=seen.append)
    assert prices.best is found.best and state.prices is prices
    assert {p.feature for p in prices.prices} == {"a", "b", "c", "d"}
    assert {p.feature for p in seen} == {"a", "b", "c", "d"}
    assert all(p.certified for p in prices.prices)


def test_configure_clears_what_no_longer_holds(state, data):
    X, y = data
    state.compute_set(tolerance=0.0)
    assert not state.configure(
        family="risk_score", X=X, y=y, X_test=X, y_test=y, settings=SETTINGS
    )  # the same: nothing cleared
    assert state.found is not None
    assert not state.configure(
        family="risk_score", X=X, y=y, X_test=X, y_test=y, settings={**SETTINGS, "time_limit": 9}
    )  # a new time limit is for the next computation: the set stays
    assert state.found is not None and state.settings["time_limit"] == 9
    assert state.configure(
        family="risk_score", X=X, y=y, X_test=X, y_test=y, settings={**SETTINGS, "max_size": 1}
    )
    assert state.found is None and state.model is None and state.prices is None
    with pytest.raises(InputError, match="select a model first"):
        state.change_points("a", 1)
    with pytest.raises(InputError, match="find the alternatives first"):
        state.select(0)
    with pytest.raises(InputError, match="unknown model family"):
        state.configure(family="trees", X=X, y=y)


def test_a_stopped_search_is_marked_incomplete(data):
    X, y = data
    st = AlternativesState()
    st.configure(family="risk_score", X=X, y=y, settings=SETTINGS)
    stop = threading.Event()
    stop.set()
    found = st.compute_set(stop=stop)
    assert not found.complete


def test_checklist_edits_by_items_and_threshold():
    rng = np.random.default_rng(9)
    X = pd.DataFrame(rng.integers(0, 2, (90, 5)), columns=[f"i{j}" for j in range(5)])
    y = pd.Series(((X.i0 + X.i1 + rng.integers(0, 2, 90)) >= 2).astype(int))
    st = AlternativesState()
    st.configure(
        family="checklist", X=X, y=y, settings={"max_items": 3, "binarize": None, "time_limit": 20}
    )
    found = st.compute_set(tolerance=2)
    assert found.tolerance_unit == "mistakes" and found.complete
    model = st.model
    outside = next(i for i in model.item_names if i not in model.items)
    added = st.set_item(outside, True)
    assert outside in added.items and st.edited
    assert st.set_item(outside, True) is added  # nothing to do
    rows = {r.name: r.value for r in st.edit_rows()}
    assert rows[outside] == 1 and sum(rows.values()) == added.N
    lowered = st.change_threshold(-1)
    assert lowered.M == added.M - 1
    assert closeness(lowered).endswith(("more mistakes", "more mistake", "as good as the best"))
    assert closeness(found.best, best=True) == "the best"
    with pytest.raises(InputError, match="not edited by points"):
        st.change_points("i0", 1)


def test_the_learned_scale_has_no_alternatives(data):
    X, y = data
    st = AlternativesState()
    st.configure(family="risk_score", X=X, y=y, settings={**SETTINGS, "scale": "learned"})
    reason = st.unsupported()
    assert reason is not None and "fixed scale only" in reason and "scale='learned'" in reason
    words = st.unsupported(words=True)  # for a page: no option names
    assert "fixed scale only" in words and "scale=" not in words and "Choose the fixed" in words
    with pytest.raises(InputError, match="fixed scale only"):
        st.compute_set()
    with pytest.raises(InputError, match="fixed scale only"):
        st.compute_prices()
    st.configure(family="risk_score", X=X, y=y, settings={**SETTINGS, "scale": "fixed"})
    assert st.unsupported() is None
