"""Static figures (riskexplore.figures, plotly only) on real small fits.

The fits (``mammo_fits``, ``heart_fit``, ``mammo_path``) are shared fixtures of
``tests/conftest.py``: mammo risk scores (max_size 3) with and without a constraint, a
heart checklist (max_items 3), and a short mammo size path.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("plotly")

from riskexplore.evaluation.compare import comparison_from_models  # noqa: E402
from riskexplore.evaluation.metrics import model_metrics, reliability_table  # noqa: E402
from riskexplore.evaluation.tables import METRIC_COLUMNS, metrics_table  # noqa: E402
from riskexplore.figures.compare import compare_figure, counts_mistakes  # noqa: E402
from riskexplore.figures.metrics import metrics_figure  # noqa: E402
from riskexplore.figures.paths import pareto_figure, pareto_traces, update_pareto_figure  # noqa: E402
from riskexplore.figures.reliability import RELIABILITY_TRACES, reliability_figure  # noqa: E402
from riskexplore.risk_score.constraints import Exclude  # noqa: E402


# --- static figures ---------------------------------------------------------------------
def test_reliability_figure_train_and_test(mammo_fits):
    m, X, y, Xt, yt = (
        mammo_fits["free"],
        mammo_fits["X"],
        mammo_fits["y"],
        mammo_fits["Xt"],
        mammo_fits["yt"],
    )
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


def test_reliability_figure_checklist(heart_fit):
    fig = reliability_figure(heart_fit["model"], heart_fit["X"], heart_fit["y"])
    assert set(np.asarray(fig.data[1].x).tolist()) <= {0.0, 1.0}
    assert np.all((np.asarray(fig.data[1].y) >= 0) & (np.asarray(fig.data[1].y) <= 1))


def test_metrics_figure_and_table(mammo_fits, heart_fit):
    args = (mammo_fits["X"], mammo_fits["y"], mammo_fits["Xt"], mammo_fits["yt"])
    models = {"unconstrained": mammo_fits["free"], "constrained": mammo_fits["bound"]}
    table = metrics_table(models, *args)
    assert list(table.columns) == list(METRIC_COLUMNS)
    expected = model_metrics(mammo_fits["free"], mammo_fits["Xt"], mammo_fits["yt"])
    assert table.at["unconstrained", "test AUC"] == pytest.approx(expected["auc"])
    assert table.at["unconstrained", "test CAL"] == pytest.approx(expected["cal"])
    assert table.at["constrained", "size"] == mammo_fits["bound"].size
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
    ct = metrics_table(heart_fit["model"], heart_fit["X"], heart_fit["y"])
    assert 0.5 < ct.iloc[0]["train AUC"] <= 1 and math.isnan(ct.iloc[0]["train CAL"])


def test_pareto_figure(mammo_path):
    frame = mammo_path.to_frame()
    fig = pareto_figure(mammo_path, selected=2)
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
    partial = pareto_figure(mammo_path.to_records()[:1])
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
    # a survival path: two rows (Cox loss, C-index), the sizes under the second
    cox = [{"size": 1, "model_size": 1, "cox_loss": 2.7, "loss_lower": 2.6, "loss_upper": 2.7,
            "train_c_index": 0.61, "test_c_index": 0.58}]  # fmt: skip
    surv = pareto_figure(cox, kind="survival_score")
    assert [t.name for t in surv.data] == ["training loss", "train C-index", "test C-index",
                                           "selected"]  # fmt: skip
    assert surv.layout.xaxis2.title.text == "size limit" and "xaxis3" not in surv.layout
    assert list(surv.data[2].y) == [0.58]


def test_comparison_price_and_figure(mammo_fits):
    free, bound = mammo_fits["free"], mammo_fits["bound"]
    cmp = comparison_from_models(
        free,
        bound,
        mammo_fits["X"],
        mammo_fits["y"],
        X_test=mammo_fits["Xt"],
        y_test=mammo_fits["yt"],
        constraints=[Exclude("IrregularShape")],
    )
    fc, bc = free.certificate, bound.certificate
    lo, hi = cmp.price_of_constraints
    assert lo == pytest.approx(max(0.0, bc.lower_bound - fc.upper_bound))
    assert hi == pytest.approx(max(0.0, bc.upper_bound - fc.lower_bound))
    assert 0 <= lo <= hi
    assert cmp.constraints == ["Do not use IrregularShape"]
    fig = compare_figure(cmp, mammo_fits["X"], mammo_fits["y"], mammo_fits["Xt"], mammo_fits["yt"])
    assert "certified price of the constraints" in fig.layout.title.text
    assert not counts_mistakes(cmp)  # a risk score's price stays in its objective
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
    none = comparison_from_models(free, None, mammo_fits["X"], mammo_fits["y"])
    assert none.price_of_constraints == (0.0, math.inf)
    assert "no model" in compare_figure(none).data[1].cells.values[0][0]
    assert (
        comparison_from_models(
            free, bound, mammo_fits["X"], mammo_fits["y"], nested=False
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
def test_reliability_figure_layout(mammo_fits, heart_fit, title):
    for fig in (
        reliability_figure(
            mammo_fits["free"],
            mammo_fits["X"],
            mammo_fits["y"],
            mammo_fits["Xt"],
            mammo_fits["yt"],
            title=title,
        ),
        reliability_figure(heart_fit["model"], heart_fit["X"], heart_fit["y"], title=title),
        reliability_figure(None, title=title),
    ):
        _assert_legend_at_bottom(fig)
        assert [t.name for t in fig.data] == list(RELIABILITY_TRACES)
        assert fig.layout.margin.b >= 40  # the x axis title, above the legend


def test_metrics_figure_table_is_readable(mammo_fits, heart_fit):
    args = (mammo_fits["X"], mammo_fits["y"], mammo_fits["Xt"], mammo_fits["yt"])
    models = {"Best risk score (no rules)": mammo_fits["free"], "constrained": mammo_fits["bound"]}
    for fig in (
        metrics_figure(models, *args),
        metrics_figure(models, mammo_fits["X"], mammo_fits["y"], title=None, height=300),
        metrics_figure(
            {"checklist": heart_fit["model"]}, heart_fit["X"], heart_fit["y"]
        ),  # time_limit
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


def test_pareto_figure_legend_below(mammo_path):
    rows = [{"size": 1, "model_size": 1, "M": 1, "objective": 5.0, "train_error": 0.2}]
    for fig in (
        pareto_figure(mammo_path, selected=2),
        pareto_figure(mammo_path, title="Best risk score of each size: " + "x" * 60),
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


def test_compare_figure_layout(mammo_fits, heart_fit):
    free, bound = mammo_fits["free"], mammo_fits["bound"]
    X, y, Xt, yt = mammo_fits["X"], mammo_fits["y"], mammo_fits["Xt"], mammo_fits["yt"]
    many = [Exclude(n) for n in ("IrregularShape", "Age_geq_60", "OvalShape", "SpiculatedMargin")]
    cmp = comparison_from_models(free, bound, X, y, X_test=Xt, y_test=yt, constraints=many[:1])
    long = comparison_from_models(
        free, bound, X, y, constraints=many * 2, names=("Best (no rules)", "Best with your rules")
    )
    hx, hy = heart_fit["X"], heart_fit["y"]
    ck = comparison_from_models(
        heart_fit["model"], heart_fit["model"], hx, hy, X_test=hx, y_test=hy
    )
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


def test_checklist_price_said_in_training_mistakes(heart_fit):
    """A checklist's objective counts mistakes: the certified price is said as the
    number of extra training mistakes, which equals the difference of the two models'
    mistakes when both are certified."""
    from riskexplore import fit_checklist
    from riskexplore.checklist.constraints import MaxItems
    from riskexplore.figures.compare import price_text

    free = heart_fit["model"]
    bound = fit_checklist(
        heart_fit["X"], heart_fit["y"], max_items=3, time_limit=10, constraints=[MaxItems(1)]
    )
    cmp = comparison_from_models(
        free, bound, heart_fit["X"], heart_fit["y"], constraints=[MaxItems(1)]
    )
    assert counts_mistakes(cmp)
    extra = bound.stats["train_errors"] - free.stats["train_errors"]
    assert extra >= 1  # one item makes more mistakes than three on heart
    text = price_text(cmp.price_of_constraints, in_mistakes=True)
    assert text == f"certified price of the rules: {extra:g} more training mistakes", text
    assert text in compare_figure(cmp, heart_fit["X"], heart_fit["y"]).layout.title.text
    # the price interval is read with its tie-breaking margin of one half on each side
    assert price_text((0.0, 0.0004), in_mistakes=True).endswith("no more training mistakes)")
    assert price_text((0.9996, 1.0), in_mistakes=True).endswith(": 1 more training mistake")
    assert price_text((1.2, 3.4), in_mistakes=True).endswith(
        "between 1 and 3 more training mistakes"
    )


def test_card_figure_lists_items_by_variable():
    import pandas as pd

    from riskexplore import Binarizer, RiskScore
    from riskexplore.figures.cards import card_figure

    X = pd.DataFrame(
        {"age": [50, 66, 80, 72], "sex": ["F", "M", "M", "F"], "bmi": [20, 31, 25, 28]}
    )
    binarizer = Binarizer(thresholds={"age": [65, 75]}, complements=False).fit(X[["age", "sex"]])
    names = ["age ≥ 65", "age ≥ 75", "sex = M", "bmi"]
    info = {n: {"min": 0, "max": 1, "integer": True} for n in names[:3]}
    info["bmi"] = {"min": 20, "max": 31, "integer": True}
    model = RiskScore(
        names, {"age ≥ 65": 1, "age ≥ 75": 2, "bmi": 1}, -30, binarizer=binarizer, feature_info=info
    )
    table = card_figure(model).data[0]
    assert list(table.header.values) == ["variable", "item", "points"]
    assert [list(column) for column in table.cells.values] == [
        ["age", "", "bmi"],
        ["≥ 65", "≥ 75", ""],
        ["+1", "+2", "+1 per unit"],
    ]
    assert model.title() in card_figure(model).layout.title.text  # "intercept -30"


def test_card_figure_heading_shows_a_recalibrated_intercept_like_the_text_card():
    from riskexplore import Checklist, RiskScore
    from riskexplore.figures.cards import card_figure

    model = RiskScore(["a", "b"], {"a": 2, "b": 1}, -3.271948215)  # a recalibrated intercept
    heading = card_figure(model).layout.title.text
    assert heading.startswith("Risk score (intercept -3.272)<br>")
    assert "intercept -3.272 is included in every RISK" in model.to_text()
    checklist = Checklist(["a", "b"], 1)
    assert card_figure(checklist).layout.title.text.startswith(checklist.title())
