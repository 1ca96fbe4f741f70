"""Result views (riskexplore.widgets: reliability, metrics, compare, size path, checklist
constraint builder) on the shared small fits of ``tests/conftest.py``."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore import fit_checklist  # noqa: E402
from riskexplore.checklist import constraints as cc  # noqa: E402
from riskexplore.figures.layout import fmt  # noqa: E402
from riskexplore.risk_score.constraints import Exclude  # noqa: E402


# --- widgets ----------------------------------------------------------------------------
def test_reliability_view(mammo_fits, heart_fit):
    from riskexplore.widgets.reliability import ReliabilityView

    view = ReliabilityView()
    assert type(view.figure).__name__ == "PlotView" and len(view.figure.data[1].x) == 0
    assert view.show(
        mammo_fits["free"], mammo_fits["X"], mammo_fits["y"], mammo_fits["Xt"], mammo_fits["yt"]
    )
    shown = np.asarray(view.figure.data[1].x).copy()
    assert len(shown) and len(view.figure.data[2].x)
    np.testing.assert_allclose(view.figure.sent_figure().data[1].x, shown)  # reached the page
    # a model that cannot be evaluated on these data: message, diagram kept
    assert not view.show(mammo_fits["free"], heart_fit["X"], heart_fit["y"])
    assert "rx-error" in view.message.value
    np.testing.assert_allclose(view.figure.data[1].x, shown)
    static = view.static_figure()
    assert type(static).__name__ == "Figure"
    np.testing.assert_allclose(static.data[1].x, shown)


def test_metrics_panel_and_compare_view(mammo_fits):
    from riskexplore.widgets.compare_view import CompareView
    from riskexplore.widgets.metrics_panel import MetricsPanel

    args = (mammo_fits["X"], mammo_fits["y"], mammo_fits["Xt"], mammo_fits["yt"])
    panel = MetricsPanel({"a": mammo_fits["free"], "b": mammo_fits["bound"]}, *args)
    assert [t.name for t in panel.figure.data][1:5] == ["a train", "a test", "b train", "b test"]
    assert list(panel.table.index) == ["a", "b"]
    assert panel.static_figure().data[-1].type == "table"
    view = CompareView()
    assert view.price is None
    assert view.show_models(
        mammo_fits["free"], mammo_fits["bound"], *args, constraints=[Exclude("IrregularShape")]
    )
    lo, hi = view.price
    assert fmt(hi) in view.price_label.value and "e-" not in view.price_label.value
    assert "certified price" in view.price_label.value
    assert view.cards.value.count("rx-model-card") == 2
    assert len(view.figure.data) == 9
    assert "certified price" in view.static_figure().layout.title.text


def test_pareto_view_fills_progressively_and_selects(mammo_fits):
    from riskexplore.widgets.pareto import ParetoView

    view = ParetoView(auto_refresh=False)
    assert view.start(mammo_fits["X"], mammo_fits["y"], sizes=3, time_limit_per_size=1.5)
    assert not view.start(mammo_fits["X"], mammo_fits["y"], sizes=3)  # refused while running
    assert "already" in view.message.value
    seen = []
    deadline = time.perf_counter() + 60
    while view.poll():
        seen.append(len(view.figure.data[0].x))
        assert time.perf_counter() < deadline
        time.sleep(0.02)
    assert view.error is None and view.path is not None
    assert any(0 < n < 3 for n in seen) or seen == []  # rows arrive one by one
    assert list(view.figure.data[0].x) == [1, 2, 3]
    assert view.selected == 3 and list(view.figure.data[-1].x) == [3]

    # clicking a point shows that model
    class Points:
        point_inds = [0]

    view._on_click(view.figure.data[0], Points(), None)
    assert view.selected == 1
    assert "size ≤ 1" in view.card.html.value
    assert view.card.model is view.models[1]
    assert list(view.frame["size"]) == [1, 2, 3]
    static = view.static_figure()
    assert list(static.data[-1].x) == [1]


def test_pareto_view_auto_refresh_thread_and_errors(mammo_fits):
    from riskexplore.widgets.pareto import ParetoView

    view = ParetoView()  # no running loop: a daemon thread drains the queue
    view.start(mammo_fits["X"], mammo_fits["y"], sizes=[1, 2], time_limit_per_size=1)
    deadline = time.perf_counter() + 60
    while view.running and time.perf_counter() < deadline:
        time.sleep(0.05)
    assert list(view.figure.data[0].x) == [1, 2]
    bad = ParetoView(auto_refresh=False)
    bad.start(mammo_fits["X"], mammo_fits["y"], sizes=[1], time_limit_per_size=1, max_size=2)
    assert not bad.wait(30)
    assert "rx-error" in bad.message.value and "Traceback" not in bad.message.value


# --- checklist constraint builder ------------------------------------------------------
def _choose(builder, kind, **values):
    builder.select_kind(kind)
    for key, value in values.items():
        getattr(builder, key).value = value
    builder.add_button.click()


def test_checklist_builder_every_type_and_fit(heart_fit):
    from riskexplore.data.binarize import Binarizer
    from riskexplore.widgets.builders.checklist import (
        CHECKLIST_CONSTRAINT_TYPES,
        ChecklistConstraintBuilder,
        data_checker,
    )

    X, y = heart_fit["X"], heart_fit["y"]
    binarizer = Binarizer().fit(X)
    names = list(binarizer.get_feature_names_out())
    age, sex = names[0], next(n for n in names if n.startswith("sex"))
    chol = next(n for n in names if n.startswith("chol"))
    b = ChecklistConstraintBuilder(names, binarizer.item_groups_, ["sex"])
    _choose(b, "MaxItems", k=3)
    _choose(b, "MRange", m_mode="both", lo=1, hi=2)
    _choose(b, "OneItemPerGroup")
    _choose(b, "Implies", item=age, items=(sex,))
    _choose(b, "PredictPositiveWhen", items=(age, sex))
    _choose(b, "ExcludeItem", item=chol)
    _choose(b, "FNRLimit", rate_value=0.3)
    _choose(b, "FPRLimit", rate_value=0.6)
    _choose(b, "GroupRateGap", rate="fnr", rate_value=0.5, by=("sex",))
    _choose(b, "WorstGroupRate", rate="fpr", rate_value=0.8)
    assert len(b.constraints) == 10, b.last_error
    assert {type(c).__name__ for c in b.constraints} >= {
        name for name, _ in CHECKLIST_CONSTRAINT_TYPES.values() if name != "IncludeItem"
    }
    assert b.constraints[3] == cc.Implies(age, then_any=(sex,))
    assert "10 active constraints" in b.active_html.value
    # refused with readable messages, set unchanged
    assert not b.add(cc.IncludeItem("no such item"))
    assert "unknown item" in b.last_error and len(b.constraints) == 10
    assert not b.add(cc.GroupRateGap("fnr", 0.1, by=("race",)))
    assert "race" in b.last_error
    _choose(b, "Implies", item=age, items=())
    assert "then one of" in b.last_error
    b.active.value = (0,)
    b.remove_button.click()
    assert len(b.constraints) == 9
    # the constraints reach the fit
    chosen = [c for c in b.constraints if isinstance(c, (cc.MRange, cc.Implies, cc.ExcludeItem))]
    model = fit_checklist(X, y, max_items=3, time_limit=2, constraints=chosen)
    assert chol not in model.items and (age not in model.items or sex in model.items)
    assert 1 <= model.M <= 2
    # a data checker refuses an infeasible set
    checked = ChecklistConstraintBuilder(
        names, binarizer.item_groups_, checker=data_checker(X, y, max_items=3)
    )
    assert checked.add(cc.MaxItems(2))
    assert not checked.add(cc.MRange(lo=3))
    assert "infeasible" in checked.last_error
    assert "rx-error" in checked.message.value
