"""Result views alone: static figure builders and their widgets on real small fits.

Fits: mammo risk scores (max_size 3, a few seconds) with and without a constraint, a
heart checklist (max_items 3), and a short mammo size path.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore import fit_checklist, fit_risk_score, load_dataset  # noqa: E402
from riskexplore.checklist import constraints as cc  # noqa: E402
from riskexplore.evaluation.compare import comparison_from_models  # noqa: E402
from riskexplore.evaluation.metrics import (  # noqa: E402
    auc,
    model_metrics,
    reliability_table,
    roc_curve,  # noqa: E402
)
from riskexplore.evaluation.paths import risk_score_size_path  # noqa: E402
from riskexplore.evaluation.tables import METRIC_COLUMNS, metrics_table  # noqa: E402
from riskexplore.figures.compare import compare_figure  # noqa: E402
from riskexplore.figures.layout import fmt  # noqa: E402
from riskexplore.figures.metrics import metrics_figure  # noqa: E402
from riskexplore.figures.paths import pareto_figure, pareto_traces, update_pareto_figure  # noqa: E402
from riskexplore.figures.reliability import RELIABILITY_TRACES, reliability_figure  # noqa: E402
from riskexplore.risk_score.constraints import Exclude  # noqa: E402


@pytest.fixture(scope="module")
def mammo():
    d = load_dataset("mammo")
    X, y = d.X.iloc[:700], d.y.iloc[:700]
    Xt, yt = d.X.iloc[700:], d.y.iloc[700:]
    free = fit_risk_score(X, y, max_size=3, time_limit=3)
    bound = fit_risk_score(X, y, max_size=3, time_limit=3, constraints=[Exclude("IrregularShape")])
    return {"X": X, "y": y, "Xt": Xt, "yt": yt, "free": free, "bound": bound}


@pytest.fixture(scope="module")
def heart():
    d = load_dataset("heart")
    model = fit_checklist(d.X, d.y, max_items=3, time_limit=2)
    return {"X": d.X, "y": d.y, "model": model}


@pytest.fixture(scope="module")
def path(mammo):
    return risk_score_size_path(
        mammo["X"],
        mammo["y"],
        sizes=3,
        time_limit_per_size=2,
        X_test=mammo["Xt"],
        y_test=mammo["yt"],
    )


# --- static figures ---------------------------------------------------------------------
def test_reliability_figure_train_and_test(mammo):
    m, X, y, Xt, yt = mammo["free"], mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"]
    fig = reliability_figure(m, X, y, Xt, yt)
    assert type(fig).__name__ == "Figure"
    assert [t.name for t in fig.data] == list(RELIABILITY_TRACES)
    diag = fig.data[0]
    assert list(diag.x) == [0, 1] and list(diag.y) == [0, 1]
    table = reliability_table(y, m.predict_risk(X), m.decision_function(X))
    train = fig.data[1]
    np.testing.assert_allclose(train.x, table["predicted_risk"])
    np.testing.assert_allclose(train.y, table["observed_risk"])
    np.testing.assert_allclose(np.asarray(train.y) + train.error_y.array, table["ci_high"])
    np.testing.assert_allclose(np.asarray(train.y) - train.error_y.arrayminus, table["ci_low"])
    sizes = np.asarray(train.marker.size)
    order = np.argsort(table["count"].to_numpy())
    assert np.all(np.diff(sizes[order]) >= 0)  # bigger groups, bigger points
    assert len(fig.data[2].x) > 0  # test split overlaid
    assert fig.layout.xaxis.title.text == "predicted risk"
    assert fig.layout.yaxis.title.text == "observed risk"
    # from tables, and the empty figure
    again = reliability_figure({"train": table})
    np.testing.assert_allclose(again.data[1].x, train.x)
    assert len(again.data[2].x) == 0
    assert len(reliability_figure(None).data[1].x) == 0


def test_reliability_figure_checklist(heart):
    fig = reliability_figure(heart["model"], heart["X"], heart["y"])
    assert set(np.asarray(fig.data[1].x).tolist()) <= {0.0, 1.0}
    assert np.all((np.asarray(fig.data[1].y) >= 0) & (np.asarray(fig.data[1].y) <= 1))


def test_roc_curve_area_is_auc(mammo):
    m, X, y = mammo["free"], mammo["X"], mammo["y"]
    fpr, tpr = roc_curve(y, m.decision_function(X))
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1)
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    assert area == pytest.approx(auc(y, m.decision_function(X)))


def test_metrics_figure_and_table(mammo, heart):
    args = (mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"])
    models = {"unconstrained": mammo["free"], "constrained": mammo["bound"]}
    table = metrics_table(models, *args)
    assert list(table.columns) == list(METRIC_COLUMNS)
    expected = model_metrics(mammo["free"], mammo["Xt"], mammo["yt"])
    assert table.at["unconstrained", "test AUC"] == pytest.approx(expected["auc"])
    assert table.at["unconstrained", "test CAL"] == pytest.approx(expected["cal"])
    assert table.at["constrained", "size"] == mammo["bound"].size
    fig = metrics_figure(models, *args)
    names = [t.name for t in fig.data]
    assert names[:5] == [
        "chance",
        "unconstrained train",
        "unconstrained test",
        "constrained train",
        "constrained test",
    ]
    cells = fig.data[-1].cells.values
    assert fig.data[-1].type == "table" and list(cells[0]) == ["unconstrained", "constrained"]
    assert fig.data[-1].header.values[1] == "train AUC"
    assert cells[2][0] == f"{expected['auc']:.4g}"
    assert fig.layout.xaxis.title.text == "false positive rate"
    # a checklist has AUC of its item count, no CAL
    ct = metrics_table(heart["model"], heart["X"], heart["y"])
    assert 0.5 < ct.iloc[0]["train AUC"] <= 1 and math.isnan(ct.iloc[0]["train CAL"])


def test_pareto_figure(path):
    frame = path.to_frame()
    fig = pareto_figure(path, selected=2)
    assert [t.name for t in fig.data] == list(pareto_traces("risk_score"))
    loss = fig.data[0]
    np.testing.assert_allclose(loss.x, [1, 2, 3])
    np.testing.assert_allclose(loss.y, frame["loss"])
    np.testing.assert_allclose(np.asarray(loss.y) + loss.error_y.array, frame["loss_upper"])
    np.testing.assert_allclose(np.asarray(loss.y) - loss.error_y.arrayminus, frame["loss_lower"])
    np.testing.assert_allclose(loss.customdata, [1, 2, 3])
    assert all("certified" in t for t in loss.hovertext)
    np.testing.assert_allclose(fig.data[2].y, frame["test_auc"])
    assert list(fig.data[-1].x) == [2]
    assert fig.layout.xaxis3.title.text == "size limit"
    # partial rows (as the path is computed) and checklist rows
    partial = pareto_figure(path.to_records()[:1])
    assert list(partial.data[0].x) == [1]
    rows = [
        {
            "size": 1,
            "model_size": 1,
            "M": 1,
            "objective": 50.0,
            "lower_bound": 40.0,
            "upper_bound": 50.0,
            "status": "time_limit",
            "train_error": 0.2,
        }
    ]
    ck = pareto_figure(rows)
    assert ck.data[0].name == "objective (mistakes)"
    assert ck.data[0].error_y.arrayminus[0] == pytest.approx(10.0)


def test_comparison_price_and_figure(mammo):
    free, bound = mammo["free"], mammo["bound"]
    cmp = comparison_from_models(
        free,
        bound,
        mammo["X"],
        mammo["y"],
        X_test=mammo["Xt"],
        y_test=mammo["yt"],
        constraints=[Exclude("IrregularShape")],
    )
    fc, bc = free.certificate, bound.certificate
    lo, hi = cmp.price_of_constraints
    assert lo == pytest.approx(max(0.0, bc.lower_bound - fc.upper_bound))
    assert hi == pytest.approx(max(0.0, bc.upper_bound - fc.lower_bound))
    assert 0 <= lo <= hi
    assert cmp.constraints == ["Do not use IrregularShape"]
    fig = compare_figure(cmp, mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"])
    assert "certified price of the constraints" in fig.layout.title.text
    types = [t.type for t in fig.data]
    assert types == ["table", "table"] + ["scatter"] * 6 + ["table"]
    card_a = fig.data[0].cells.values
    assert card_a[0][0] == "(intercept)" and set(free.points) <= set(card_a[0])
    assert "IrregularShape" not in fig.data[1].cells.values[0]
    deltas = fig.data[-1]
    assert list(deltas.header.values) == [
        "metric",
        "unconstrained",
        "constrained",
        "constrained − unconstrained",
    ]
    assert "train auc" in list(deltas.cells.values[0])
    assert len(fig.data[3].x) > 0 and len(fig.data[6].x) > 0  # both reliability diagrams
    none = comparison_from_models(free, None, mammo["X"], mammo["y"])
    assert none.price_of_constraints == (0.0, math.inf)
    assert "no model" in compare_figure(none).data[1].cells.values[0][0]
    assert (
        comparison_from_models(
            free, bound, mammo["X"], mammo["y"], nested=False
        ).price_of_constraints
        is None
    )


# --- layout: what a reader sees ---------------------------------------------------------
#: Plotly's defaults when a table sets no header/cell height.
_PLOTLY_HEADER_PX, _PLOTLY_ROW_PX = 28, 20


def _plot_px(fig) -> float:
    """Height of the plot area (between the top and bottom margins), in pixels."""
    return fig.layout.height - fig.layout.margin.t - fig.layout.margin.b


def _assert_legend_at_bottom(fig):
    """The legend sits at the bottom of the figure, below the plots and their axis
    titles, clear of the title and subplot titles at the top (as bounds_figure)."""
    legend = fig.layout.legend
    assert (legend.orientation, legend.yref, legend.y, legend.yanchor) == (
        "h",
        "container",
        0,
        "bottom",
    ), legend


def _assert_tables_fit(fig):
    """Every table's domain is tall enough for its header and all its rows (plotly
    scrolls a table that does not fit: rows are hidden, for good in a saved figure)."""
    for trace in fig.data:
        if trace.type != "table":
            continue
        rows = len(trace.cells.values[0]) if trace.cells.values else 0
        need = (trace.header.height or _PLOTLY_HEADER_PX) + rows * (
            trace.cells.height or _PLOTLY_ROW_PX
        )
        y0, y1 = trace.domain.y
        assert (y1 - y0) * _plot_px(fig) >= need, (list(trace.header.values), rows)


def _assert_columns_fit(fig, trace, width=900, char_px=7.0, pad_px=16):
    """At a figure ``width`` px wide, each column of ``trace`` is wider than its widest
    word (header or cell) at about ``char_px`` per character of the 12 px font."""
    values = [
        trace.header.values[i : i + 1] + tuple(col) for i, col in enumerate(trace.cells.values)
    ]
    weights = list(trace.columnwidth or [1] * len(values))
    assert len(weights) == len(values)  # a weight per column: none shares the rest
    x0, x1 = trace.domain.x
    table_px = (x1 - x0) * (width - fig.layout.margin.l - fig.layout.margin.r)
    for weight, column in zip(weights, values, strict=True):
        words = [w for text in column for w in str(text).split()]
        need = max(len(w) for w in words) * char_px + pad_px
        assert table_px * weight / sum(weights) >= need, (column[0], need)


@pytest.mark.parametrize("title", ["Reliability diagram", "x" * 90, None])
def test_reliability_figure_layout(mammo, heart, title):
    for fig in (
        reliability_figure(
            mammo["free"], mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"], title=title
        ),
        reliability_figure(heart["model"], heart["X"], heart["y"], title=title),
        reliability_figure(None, title=title),
    ):
        _assert_legend_at_bottom(fig)
        assert [t.name for t in fig.data] == list(RELIABILITY_TRACES)
        assert fig.layout.margin.b >= 40  # the x axis title, above the legend


def test_metrics_figure_table_is_readable(mammo, heart):
    args = (mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"])
    models = {"Best risk score (no rules)": mammo["free"], "constrained": mammo["bound"]}
    for fig in (
        metrics_figure(models, *args),
        metrics_figure(models, mammo["X"], mammo["y"], title=None, height=300),
        metrics_figure({"checklist": heart["model"]}, heart["X"], heart["y"]),  # time_limit
        metrics_figure(None),
    ):
        table = fig.data[-1]
        assert list(table.header.values) == ["model", *METRIC_COLUMNS]
        if len(table.cells.values[0]):
            for width in (900, 1100):
                _assert_columns_fit(fig, table, width=width)
        _assert_tables_fit(fig)
        # the table below the ROC plot, the legend beside the plot, not over the table
        roc = fig.layout.yaxis.domain
        assert table.domain.y[1] < roc[0]
        assert fig.layout.legend.x >= fig.layout.xaxis.domain[1]
        assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y <= roc[1]


def test_pareto_figure_legend_below(path):
    rows = [{"size": 1, "model_size": 1, "M": 1, "objective": 5.0, "train_error": 0.2}]
    for fig in (
        pareto_figure(path, selected=2),
        pareto_figure(path, title="Best risk score of each size: " + "x" * 60),
        pareto_figure(rows, kind="checklist", title=None),
        pareto_figure(None, kind="checklist"),
    ):
        _assert_legend_at_bottom(fig)
        assert fig.layout.margin.b >= 40  # "size limit", above the legend
    # the traces the widgets refill by index are unchanged
    fig = pareto_figure(None, kind="checklist")
    assert [t.name for t in fig.data] == list(pareto_traces("checklist"))
    update_pareto_figure(fig, rows, kind="checklist", selected=1)
    assert list(fig.data[0].x) == [1] and list(fig.data[-1].x) == [1]


def test_compare_figure_layout(mammo, heart):
    free, bound = mammo["free"], mammo["bound"]
    X, y, Xt, yt = mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"]
    many = [Exclude(n) for n in ("IrregularShape", "Age_geq_60", "OvalShape", "SpiculatedMargin")]
    cmp = comparison_from_models(free, bound, X, y, X_test=Xt, y_test=yt, constraints=many[:1])
    long = comparison_from_models(
        free, bound, X, y, constraints=many * 2, names=("Best (no rules)", "Best with your rules")
    )
    hx, hy = heart["X"], heart["y"]
    ck = comparison_from_models(heart["model"], heart["model"], hx, hy, X_test=hx, y_test=hy)
    figs = [
        compare_figure(cmp, X, y, Xt, yt),
        compare_figure(cmp, X, y, Xt, yt, height=500),  # raised to fit the tables
        compare_figure(long, X, y, title="A long title " * 5),
        compare_figure(ck, hx, hy, hx, hy),
        compare_figure(comparison_from_models(free, None, X, y)),
    ]
    for fig in figs:
        assert [t.type for t in fig.data] == ["table", "table"] + ["scatter"] * 6 + ["table"]
        _assert_tables_fit(fig)
        plot = _plot_px(fig)
        # the title (heading and subtitle lines) anchored at the top, above the cards'
        # titles: the top margin holds every line and the subplot titles
        title = fig.layout.title
        lines = title.text.count("<br>") + 1
        assert (title.yref, title.yanchor) == ("container", "top")
        title_top = (1 - title.y) * fig.layout.height
        assert fig.layout.margin.t >= title_top + 18 + 22 * (lines - 1) + 25
        # the legend between the diagrams (and their x axis titles) and the metrics table
        legend, metrics = fig.layout.legend, fig.data[-1]
        diagrams = fig.layout.yaxis.domain
        assert fig.layout.yaxis2.domain == diagrams
        assert legend.yanchor == "top"
        assert (diagrams[0] - legend.y) * plot >= 40  # tick labels and axis title
        assert (legend.y - metrics.domain.y[1]) * plot >= 25 + 30  # legend, table title
        # no overlap: cards above diagrams above the table
        assert fig.data[0].domain.y[0] > diagrams[1] and metrics.domain.y[1] < diagrams[0]
    assert figs[1].layout.height > 500
    # wrapped constraints: more subtitle lines, a taller top margin
    assert figs[2].layout.title.text.count("<br>") >= 3
    assert figs[2].layout.margin.t > figs[0].layout.margin.t


# --- widgets ----------------------------------------------------------------------------
def test_reliability_view(mammo, heart):
    from riskexplore.widgets.reliability import ReliabilityView

    view = ReliabilityView()
    assert type(view.figure).__name__ == "PlotView" and len(view.figure.data[1].x) == 0
    assert view.show(mammo["free"], mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"])
    shown = np.asarray(view.figure.data[1].x).copy()
    assert len(shown) and len(view.figure.data[2].x)
    np.testing.assert_allclose(view.figure.sent_figure().data[1].x, shown)  # reached the page
    # a model that cannot be evaluated on these data: message, diagram kept
    assert not view.show(mammo["free"], heart["X"], heart["y"])
    assert "rx-error" in view.message.value
    np.testing.assert_allclose(view.figure.data[1].x, shown)
    static = view.static_figure()
    assert type(static).__name__ == "Figure"
    np.testing.assert_allclose(static.data[1].x, shown)


def test_metrics_panel_and_compare_view(mammo):
    from riskexplore.widgets.compare_view import CompareView
    from riskexplore.widgets.metrics_panel import MetricsPanel

    args = (mammo["X"], mammo["y"], mammo["Xt"], mammo["yt"])
    panel = MetricsPanel({"a": mammo["free"], "b": mammo["bound"]}, *args)
    assert [t.name for t in panel.figure.data][1:5] == ["a train", "a test", "b train", "b test"]
    assert list(panel.table.index) == ["a", "b"]
    assert panel.static_figure().data[-1].type == "table"
    view = CompareView()
    assert view.price is None
    assert view.show_models(
        mammo["free"], mammo["bound"], *args, constraints=[Exclude("IrregularShape")]
    )
    lo, hi = view.price
    assert f"[{fmt(lo)}, {fmt(hi)}]" in view.price_label.value
    assert "certified price" in view.price_label.value
    assert view.cards.value.count("rx-model-card") == 2
    assert len(view.figure.data) == 9
    assert "certified price" in view.static_figure().layout.title.text


def test_pareto_view_fills_progressively_and_selects(mammo):
    from riskexplore.widgets.pareto import ParetoView

    view = ParetoView(auto_refresh=False)
    assert view.start(mammo["X"], mammo["y"], sizes=3, time_limit_per_size=1.5)
    assert not view.start(mammo["X"], mammo["y"], sizes=3)  # refused while running
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


def test_pareto_view_auto_refresh_thread_and_errors(mammo):
    from riskexplore.widgets.pareto import ParetoView

    view = ParetoView()  # no running loop: a daemon thread drains the queue
    view.start(mammo["X"], mammo["y"], sizes=[1, 2], time_limit_per_size=1)
    deadline = time.perf_counter() + 60
    while view.running and time.perf_counter() < deadline:
        time.sleep(0.05)
    assert list(view.figure.data[0].x) == [1, 2]
    bad = ParetoView(auto_refresh=False)
    bad.start(mammo["X"], mammo["y"], sizes=[1], time_limit_per_size=1, max_size=2)
    assert not bad.wait(30)
    assert "rx-error" in bad.message.value and "Traceback" not in bad.message.value


# --- checklist constraint builder ------------------------------------------------------
def _choose(builder, kind, **values):
    builder.select_kind(kind)
    for key, value in values.items():
        getattr(builder, key).value = value
    builder.add_button.click()


def test_checklist_builder_every_type_and_fit(heart):
    from riskexplore.checklist.binarize import Binarizer
    from riskexplore.widgets.checklist_builder import (
        CHECKLIST_CONSTRAINT_TYPES,
        ChecklistConstraintBuilder,
        data_checker,
    )

    X, y = heart["X"], heart["y"]
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
