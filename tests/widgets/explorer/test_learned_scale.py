"""The learned scale in the Explorer: its settings (state and widgets), both runs with the
multiplier on every card, the certified price of a fixed scale in the comparison, the
size path, and the background price job giving way to a new search."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore.errors import InputError  # noqa: E402
from riskexplore.exploration.explorer import ExplorerState  # noqa: E402
from riskexplore.risk_score import constraints as C  # noqa: E402
from riskexplore.risk_score.scale_price import ScalePrice  # noqa: E402
from riskexplore.widgets.cards import incumbent_model  # noqa: E402
from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402


def test_state_settings_of_the_scale():
    st = ExplorerState()
    st.load_dataset("mammo")
    assert st.settings["scale"] == "fixed"
    assert "scale" not in st.fit_kwargs()  # the default fit, as before
    st.update_settings(scale="learned", multiplier_min=0.5, multiplier_max=4)
    kwargs = st.fit_kwargs()
    assert (kwargs["scale"], kwargs["multiplier_min"], kwargs["multiplier_max"]) == (
        "learned",
        0.5,
        4.0,
    )
    for bad, message in (
        ({"scale": "steep"}, "scale must be one of 'fixed', 'learned'"),
        ({"multiplier_min": 4, "multiplier_max": 2}, r"multiplier_min \(4\) must be less"),
        ({"multiplier_min": 0}, "multiplier_min must be a positive number"),
    ):
        with pytest.raises(InputError, match=message):
            st.update_settings(**bad)
        assert st.settings["scale"] == "learned" and st.settings["multiplier_min"] == 0.5


def test_state_prices_a_fixed_scale_and_only_same_scale_runs_are_nested():
    st = ExplorerState()
    st.load_dataset("mammo")
    st.update_settings(max_size=2, time_limit=20, scale="learned")
    assert st.scale_price_function() is None  # nothing solved yet
    model = st.solve_function()(callbacks=(), stop=None)
    assert model.scale == "learned"
    st.record("unconstrained", model, "risk_score", st.settings, [], st.data_version)
    job = st.scale_price_function()
    price = job()
    assert isinstance(price, ScalePrice) and price.learned is model
    assert price.fixed.scale == "fixed" and 0 <= price.lower <= price.upper
    assert st.current_scale_price() is None
    st.record_scale_price(job.run, price)
    assert st.current_scale_price() is price
    # a constrained run with the other scale: the price of the constraints is not certified
    st.update_settings(scale="fixed")
    rule = [C.Exclude("IrregularShape")]
    other = st.solve_function(rule)(callbacks=(), stop=None)
    st.record("constrained", other, "risk_score", st.settings, rule, st.data_version)
    comparison = st.comparison()
    assert comparison.price_of_constraints is None
    assert any("different settings" in n for n in comparison.notes)
    st.set_outcome(st.outcome)  # new data version: the price no longer applies
    assert st.current_scale_price() is None and st.scale_price_function() is None


def test_explorer_with_the_learned_scale():
    ex = Explorer("mammo", time_limit=20, max_size=3, auto_refresh=False)
    assert ex.multiplier_range.layout.display == "none"
    ex.scale.value = "learned"  # the page's choice
    assert ex.settings["scale"] == "learned" and ex.multiplier_range.layout.display is None
    ex.multiplier_range.value = (0.5, 8.0)
    assert (ex.settings["multiplier_min"], ex.settings["multiplier_max"]) == (0.5, 8.0)
    assert ex.add_constraint(C.Exclude("Age_geq_60")), ex.last_message
    ex.solve(constrained=False, wait=True)
    ex.solve(constrained=True, wait=True)
    free, bound = ex.results["unconstrained"], ex.results["constrained"]
    for model in (free, bound):
        assert model.scale == "learned" and 0.5 <= model.multiplier <= 8.0
    m = f"{free.multiplier:.4g}"
    card = ex.monitors["unconstrained"].card.html.value
    assert f"multiplier m = {m}" in card and "risk scale: multiplier m" in card
    # the live incumbents carry the multiplier, and so do their cards
    last = ex.monitors["unconstrained"].series.incumbents[-1]
    assert incumbent_model(last).multiplier == last["multiplier"]
    # the comparison: same scale on both runs, so the price of the rules is certified
    assert ex.comparison.price_of_constraints is not None
    ex.wait(120)  # the price of a fixed scale is worked out in the background
    price = ex.scale_price
    assert price is not None and price.learned is free
    assert 0 <= price.lower <= price.upper
    assert price.upper <= price.fixed.certificate.upper_bound - free.certificate.lower_bound + 1e-12
    line = ex.compare.scale_label.value
    assert "Price of a fixed scale (without your rules)" in line and "rx-scale-price" in line
    # the size path with the same scale
    assert ex.compute_path(sizes=[1, 2], time_limit_per_size=5, wait=True)
    assert sorted(ex.pareto.models) == [1, 2]
    assert all(model.scale == "learned" for model in ex.pareto.models.values())


def test_a_new_search_stops_the_price_job():
    ex = Explorer("mammo", time_limit=2, max_size=1, auto_refresh=False)
    stopped = threading.Event()

    def slow_job(stop):
        if stop.wait(30):
            stopped.set()
        return "never shown"

    results = []
    ex.compare.run_scale_price(slow_job, results.append, key="k")
    assert "Working out what a fixed scale costs" in ex.compare.scale_label.value
    ex.solve(constrained=False, wait=True)
    assert stopped.wait(5) and results == []  # cancelled: its result is dropped
    assert "worked out again when the search ends" in ex.compare.scale_label.value
