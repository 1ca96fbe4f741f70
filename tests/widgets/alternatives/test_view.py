"""The Explorer's "Alternatives" tab driven from code: find the set, click through its
cards, edit by the points' −/+ buttons and the checklist's boxes, the distance and the
metrics follow; the price of each feature; cleared when the data change."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore.widgets.alternatives.view import (  # noqa: E402
    AlternativesView,
    distance_html,
    prices_html,
)
from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402


def _click(button) -> None:
    button.click()


@pytest.fixture(scope="module")
def risk():
    ex = Explorer("mammo", time_limit=30, max_size=2, auto_refresh=False)
    view = ex.alternatives
    view.tolerance.value = 1.0
    assert view.compute(wait=True), view.message.value
    return ex, view


def test_it_is_a_tab_of_the_explorer(risk):
    ex, view = risk
    assert isinstance(view, AlternativesView)
    titles = [ex.results_tabs.get_title(i) for i in range(len(ex.results_tabs.children))]
    at = titles.index("Alternatives")
    assert ex.results_tabs.children[at] is view.widget
    assert view.tolerance.description == "within (%)"


def test_cards_selection_and_point_edits(risk):
    ex, view = risk
    found = view.state.found
    assert found is not None and len(view.cards.children) == len(found) >= 2
    assert "within 1% of the best score" in view.summary.value
    assert view.cards.children[0].button_style == "info"  # the best, selected
    _click(view.cards.children[1])
    assert view.state.selected == 1 and view.cards.children[1].button_style == "info"
    assert "Model #2" in view.card.value and "rx-card" in view.card.value
    before = view.distance.value
    feature = next(iter(view.state.model.points))
    row = next(
        line for line in view.edit_box.children[0].children if feature in line.children[0].value
    )
    minus, value, plus = row.children[1:]
    shown = view.state.model.points[feature]
    _click(plus if shown < 5 else minus)
    assert view.state.edited and view.distance.value != before
    assert "(edited)" in view.card.value and not view.reset_button.disabled
    assert value.value != "" and "pt" in value.value
    # the metrics show the edit beside the best model, in place
    assert view.metrics.models["this model"] is view.state.model
    table = view.metrics.figure.data[-1].cells.values
    assert list(table[0]) == ["best", "this model"]
    assert view.reliability.model is view.state.model
    _click(view.reset_button)
    assert not view.state.edited and view.distance.value == before


def test_feature_prices_and_figures(risk):
    ex, view = risk
    assert view.frequency.data and view.frequency.data[0].type == "bar"
    assert view.compute_prices(wait=True), view.message.value
    assert "rx-price-table" in view.prices_table.value
    assert view.state.prices is not None and len(view.prices_figure.data) >= 1
    assert "%" in prices_html(view.state.prices)  # risk prices also as a share


def test_new_data_clear_the_tab(risk):
    ex, view = risk
    ex.set_family("checklist")
    assert view.state.found is None and view.cards.children == ()
    assert view.tolerance.description == "within (mistakes)"
    ex.set_family("risk_score")


def test_checklist_items_by_checkboxes():
    ex = Explorer("heart", family="checklist", time_limit=20, max_items=3, auto_refresh=False)
    view = ex.alternatives
    view.tolerance.value = 2
    assert view.compute(wait=True), view.message.value
    view.select(1 if len(view.state.found) > 1 else 0)
    boxes = list(view.item_boxes.values())
    assert len(boxes) == len(view.state.model.item_names)
    model = view.state.model
    assert {b.description for b in boxes if b.value} == set(model.items)
    off = next(b for b in boxes if not b.value)
    off.value = True  # ticking a box puts the item on the checklist
    assert off.description in view.state.model.items and view.state.edited
    assert "more mistake" in view.distance.value or "As good" in view.distance.value
    minus, threshold, plus = view.edit_box.children[1].children
    m = view.state.model.M
    _click(minus)
    assert view.state.model.M == m - 1 and f"<b>{m - 1}</b>" in threshold.value
    assert "Outside the settings" in view.distance.value  # 4 items > max_items 3
    assert "Use at most 3 items" in distance_html(view.state.model, "checklist")


def test_without_data_it_says_what_to_do():
    ex = Explorer(time_limit=5, auto_refresh=False)
    assert not ex.alternatives.compute()
    assert "load a dataset" in ex.alternatives.message.value


def test_the_learned_scale_is_said_in_words_and_buttons_wait():
    """With the learned scale chosen the tab clears, says that alternatives need the fixed
    scale, and its buttons are disabled; back to the fixed scale they work again."""
    ex = Explorer("mammo", time_limit=20, max_size=2, auto_refresh=False)
    view = ex.alternatives
    view.tolerance.value = 0.5
    assert view.compute(wait=True), view.message.value
    assert view.state.found is not None
    ex.scale.value = "learned"  # what a click on the radio button does
    assert ex.settings["scale"] == "learned"
    assert view.state.found is None and view.cards.children == ()
    assert "fixed scale only" in view.message.value and "rx-info" in view.message.value
    assert "scale=" not in view.message.value  # plain words, no option names
    assert view.find_button.disabled and view.prices_button.disabled
    assert not view.compute() and not view.compute_prices()  # from code: refused, no thread
    assert not view.running("set") and not view.running("prices")
    assert "fixed scale only" in view.message.value
    ex.scale.value = "fixed"
    assert not view.find_button.disabled and not view.prices_button.disabled
    assert view.message.value == ""
    assert view.compute(wait=True), view.message.value
    assert view.state.found is not None and len(view.cards.children) >= 1
