"""Static plotly figures of the result views: reliability, metrics/ROC, size path, comparison.

Pure builder functions: each takes fitted models, data or tables and returns a plain
``plotly.graph_objects.Figure``. The widgets (:mod:`~riskexplore.widgets.reliability`,
:mod:`~riskexplore.widgets.metrics_panel`, :mod:`~riskexplore.widgets.pareto`,
:mod:`~riskexplore.widgets.compare_view`) wrap the same figures in one
:class:`~riskexplore.widgets.plot_view.PlotView` each and refill them with the ``update_*``
functions below, so everything seen live can be saved with
:func:`riskexplore.widgets.figures.save_figure`.

The table helpers (:func:`reliability_tables`, :func:`metrics_table`, :func:`roc_curve`,
:func:`path_frame`, :func:`comparison_from_models`) need neither plotly nor ipywidgets.

Checklists have no predicted risk: their reliability diagram groups examples by the
number of items checked and plots the observed risk against the checklist's 0/1
prediction (so a good checklist has points near (0, 0) and (1, 1)).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.errors import InputError

__all__ = [
    "METRIC_COLUMNS",
    "RELIABILITY_TRACES",
    "comparison_from_models",
    "compare_figure",
    "metrics_figure",
    "metrics_table",
    "model_card_table",
    "pareto_figure",
    "pareto_traces",
    "price_text",
    "path_frame",
    "reliability_figure",
    "reliability_tables",
    "replace_figure",
    "roc_curve",
    "update_pareto_figure",
    "update_reliability_figure",
]

#: Trace names (and order) of :func:`reliability_figure`.
RELIABILITY_TRACES = ("perfect calibration", "train", "test")

#: Columns of :func:`metrics_table`, in order.
METRIC_COLUMNS = (
    "train AUC",
    "test AUC",
    "train CAL",
    "test CAL",
    "train loss",
    "test loss",
    "size",
    "gap",
    "status",
)

_SPLIT_COLORS = {"train": "#1f77b4", "test": "#ff7f0e"}
_MODEL_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")

# --- layout (pixels) -------------------------------------------------------------------
#: Height of a table's header and of each of its rows (set on the tables, so a table's
#: domain can be given the height of all its rows: plotly scrolls a table that does not
#: fit, and a clipped table in a saved figure hides rows for good).
_HEADER_PX = 30
_ROW_PX = 22
#: Rows of a checklist card: its box glyph comes from a taller fallback font.
_BOX_ROW_PX = 30
#: Room for each further line of a cell or header whose text wraps.
_WRAP_PX = 24
#: Relative column widths of the metrics table: the model names, AUC, CAL and loss
#: (train/test), size, gap, status (``"time_limit"``, ``"infeasible"``).
_METRIC_WIDTHS = [2.4, 1, 1, 1, 1, 1, 1, 0.7, 0.9, 1.4]
#: A subplot title above its plot (plotly puts it just above the domain).
_SUBTITLE_PX = 30
#: Below an x axis: tick labels and the axis title.
_XAXIS_PX = 50
#: A one-line horizontal legend.
_LEGEND_PX = 30
#: A line of a title's subtitle.
_TITLE_LINE_PX = 22


def _bottom_legend() -> dict[str, Any]:
    """A horizontal legend at the bottom of the figure (as the monitor's
    :func:`~riskexplore.widgets.figures.bounds_figure`): the top holds the title and the
    first subplot's title; plotly keeps the plots and axis titles above the legend and
    widens the bottom margin when it wraps."""
    return {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "yref": "container",
        "y": 0,
        "yanchor": "bottom",
    }


def _lines(text, chars: int) -> int:
    """Lines that ``text`` takes in a table column about ``chars`` characters wide."""
    return max(1, math.ceil(len(str(text)) / chars))


def _table_px(
    n_rows: int, *, row_px: int = _ROW_PX, header_lines: int = 1, wrapped_lines: int = 0
) -> int:
    """The height a table needs to show its header and all ``n_rows`` rows (with
    ``wrapped_lines`` further lines of wrapped text in all) without scrolling."""
    lines = (header_lines - 1) + wrapped_lines
    return _HEADER_PX + max(n_rows, 1) * row_px + lines * _WRAP_PX + 6


def _domain(top_px: float, height_px: float, total_px: float) -> list[float]:
    """``[bottom, top]`` in paper fractions of a band ``height_px`` high whose top is
    ``top_px`` below the top of a plot area ``total_px`` high."""
    top = 1.0 - top_px / total_px
    bottom = 1.0 - (top_px + height_px) / total_px
    return [max(0.0, round(bottom, 6)), min(1.0, round(top, 6))]


def _place_subplot_titles(
    fig, titles: Sequence[str], positions: Sequence[tuple[float, float]]
) -> None:
    """Put the ``subplot_titles`` given to make_subplots (which makes an annotation of
    each non-empty one, in order) at ``(x, y)`` paper positions: just above the domains
    that replaced make_subplots' own."""
    shown = [p for t, p in zip(titles, positions, strict=True) if t]
    for annotation, (x, y) in zip(fig.layout.annotations, shown, strict=True):
        annotation.update(x=x, y=y, xanchor="center", yanchor="bottom")


def _wrap_words(text: str, width: int = 100, sep: str = "; ") -> list[str]:
    """``text`` cut at ``sep`` into lines of about ``width`` characters."""
    lines: list[str] = []
    for part in text.split(sep):
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return lines


# --- tables (no plotly) ----------------------------------------------------------------
def _is_risk_model(model) -> bool:
    return hasattr(model, "predict_risk") or hasattr(model, "predict_proba")


def _reliability_table(model, X, y):
    from riskexplore.evaluation.metrics import (
        model_scores,
        predicted_risk,
        reliability_table,
    )

    if _is_risk_model(model):
        risk = predicted_risk(model, X)
        return reliability_table(y, risk, model_scores(model, X, risk))
    if hasattr(model, "predict"):
        pred = np.asarray(model.predict(X), dtype=float).ravel()
        scores = (
            np.asarray(model.decision_function(X), dtype=float).ravel()
            if hasattr(model, "decision_function")
            else pred
        )
        return reliability_table(y, pred, scores)
    raise InputError(f"{type(model).__name__} has no predict_risk, predict_proba or predict")


def reliability_tables(model, X, y, X_test=None, y_test=None) -> dict[str, pd.DataFrame]:
    """``{"train": table, "test": table}`` of :func:`~riskexplore.evaluation.metrics.
    reliability_table` for a fitted model (``"test"`` only with test data)."""
    if X is None or y is None:
        raise InputError("a reliability diagram needs the data X and y")
    out = {"train": _reliability_table(model, X, y)}
    if X_test is not None and y_test is not None and len(y_test):
        out["test"] = _reliability_table(model, X_test, y_test)
    return out


def _as_tables(model_or_table, X, y, X_test, y_test) -> dict[str, pd.DataFrame]:
    if model_or_table is None:
        return {}
    if isinstance(model_or_table, pd.DataFrame):
        return {"train": model_or_table}
    if isinstance(model_or_table, Mapping):
        return {str(k): v for k, v in model_or_table.items() if v is not None}
    return reliability_tables(model_or_table, X, y, X_test, y_test)


def roc_curve(y, scores) -> tuple[np.ndarray, np.ndarray]:
    """False and true positive rates at every distinct threshold (from (0, 0) to (1, 1))."""
    from riskexplore.evaluation.metrics import as_binary_outcome

    yb = as_binary_outcome(y)
    s = np.asarray(scores, dtype=float).ravel()
    n_pos, n_neg = int(yb.sum()), int(len(yb) - yb.sum())
    if n_pos == 0 or n_neg == 0:
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    order = np.argsort(-s, kind="mergesort")
    s, yb = s[order], yb[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1]  # end of each tie group
    tp = np.cumsum(yb)[last]
    fp = (last + 1) - tp
    return np.r_[0.0, fp / n_neg], np.r_[0.0, tp / n_pos]


def _model_scores(model, X) -> np.ndarray:
    from riskexplore.evaluation.metrics import model_scores, predicted_risk

    risk = predicted_risk(model, X)
    scores = model_scores(model, X, risk)
    if scores is None:
        scores = model.predict(X)
    return np.asarray(scores, dtype=float).ravel()


def _as_models(models) -> dict[str, Any]:
    if models is None:
        return {}
    if isinstance(models, Mapping):
        return {str(k): m for k, m in models.items() if m is not None}
    if isinstance(models, (list, tuple)):
        return {f"model {i + 1}": m for i, m in enumerate(models) if m is not None}
    return {"model": models}


def metrics_table(models, X, y, X_test=None, y_test=None) -> pd.DataFrame:
    """One row per model: train/test AUC, CAL, loss (checklists: error), size, gap, status.

    ``models`` is a model, a list of models or a ``{name: model}`` dict. Checklists have
    no CAL or logistic loss; their ``loss`` columns hold the 0/1 error instead.
    """
    from riskexplore.evaluation.metrics import model_metrics

    rows = []
    names = []
    for name, model in _as_models(models).items():
        row: dict[str, Any] = {}
        splits = [("train", X, y)]
        if X_test is not None and y_test is not None:
            splits.append(("test", X_test, y_test))
        train = None
        for split, Xs, ys in splits:
            m = model_metrics(model, Xs, ys)
            train = m if split == "train" else train
            row[f"{split} AUC"] = m.get("auc", math.nan)
            row[f"{split} CAL"] = m.get("cal", math.nan)
            row[f"{split} loss"] = m.get("loss", m.get("error", math.nan))
        row["size"] = train.get("size") if train else math.nan
        row["gap"] = train.get("gap") if train else math.nan
        row["status"] = train.get("status") if train else None
        rows.append(row)
        names.append(name)
    frame = pd.DataFrame(rows, index=names, columns=list(METRIC_COLUMNS))
    frame.index.name = "model"
    return frame


def path_frame(path) -> pd.DataFrame:
    """A size path as a DataFrame: a :class:`~riskexplore.evaluation.paths.SizePath`,
    a DataFrame or a list of row dicts (``"model"`` entries are dropped)."""
    if path is None:
        return pd.DataFrame()
    if isinstance(path, pd.DataFrame):
        frame = path.copy()
    elif hasattr(path, "to_frame"):
        frame = path.to_frame()
    else:
        frame = pd.DataFrame([{k: v for k, v in dict(r).items() if k != "model"} for r in path])
    if "model" in frame.columns:
        frame = frame.drop(columns=["model"])
    if "size" in frame.columns and len(frame):
        frame = frame.sort_values("size", kind="mergesort").reset_index(drop=True)
    return frame


def comparison_from_models(
    unconstrained,
    constrained,
    X,
    y,
    *,
    X_test=None,
    y_test=None,
    constraints: Sequence = (),
    names: Sequence[str] = ("unconstrained", "constrained"),
    nested: bool = True,
):
    """A :class:`~riskexplore.evaluation.compare.Comparison` of two fitted models, with
    the certified price of the constraints when the problems are ``nested``.

    ``nested=True`` asserts that the constrained problem is the unconstrained one plus
    ``constraints`` (same data and settings), so ``V*_c >= V*_u`` and the price
    ``V*_c - V*_u`` lies in ``[max(0, LB_c - UB_u), max(0, UB_c - LB_u)]`` (as in
    :func:`~riskexplore.evaluation.compare.compare_models`). ``constrained=None`` means
    the constrained problem has no model (price ``[0, inf]``).
    """
    from riskexplore.evaluation.compare import compare

    second = constrained if constrained is not None else unconstrained
    comparison = compare(
        unconstrained, second, X, y, X_test=X_test, y_test=y_test, names=tuple(names)
    )
    descriptions = []
    for c in constraints:
        describe = getattr(c, "describe", None)
        descriptions.append(describe() if callable(describe) else str(c))
    comparison.constraints = descriptions
    if constrained is None:
        comparison.models = (unconstrained, None)
        comparison.notes.append("no constrained model")
        if nested:
            comparison.price_of_constraints = (0.0, math.inf)
        return comparison
    fc = getattr(unconstrained, "certificate", None)
    bc = getattr(constrained, "certificate", None)
    if nested and fc is not None and bc is not None:
        comparison.price_of_constraints = (
            max(0.0, float(bc.lower_bound) - float(fc.upper_bound)),
            max(0.0, float(bc.upper_bound) - float(fc.lower_bound)),
        )
    return comparison


def model_card_table(model) -> tuple[list[str], list[list[str]]]:
    """``(header, columns)`` of a model's card as a table (points or checklist items)."""
    if model is None:
        return ["", ""], [["(no model)"], [""]]
    if hasattr(model, "points") and hasattr(model, "intercept"):
        points = model.points
        names = ["(intercept)", *points]
        values = [f"{int(model.intercept):+d}", *(f"{int(p):+d}" for p in points.values())]
        return ["feature", "points"], [names, values]
    items = [str(i) for i in getattr(model, "items", [])]
    m = getattr(model, "M", None)
    rule = f"positive if at least {m} of {len(items)} checked" if m is not None else ""
    return ["", "item"], [["☐"] * len(items) + [""], items + [rule]]


# --- formatting ------------------------------------------------------------------------
def _fmt(value, kind: str = "num") -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(v):
        return "—" if math.isnan(v) else ("∞" if v > 0 else "−∞")
    if kind == "pct":
        return f"{100 * v:.1f}%"
    if kind == "int":
        return str(int(round(v)))
    return f"{v:.4g}"


def _column_kind(column: str) -> str:
    if "CAL" in column or column == "gap":
        return "pct"
    if column == "size":
        return "int"
    return "num"


def price_text(price) -> str:
    """The certified price interval in words."""
    if price is None:
        return "price of the constraints: not certified (the two problems are not nested)"
    lo, hi = price
    if math.isinf(lo):
        return "price of the constraints: infinite (the constraints admit no model)"
    return f"certified price of the constraints (objective): [{_fmt(lo)}, {_fmt(hi)}]"


# --- reliability -----------------------------------------------------------------------
def _reliability_arrays(table: pd.DataFrame | None) -> dict[str, Any]:
    if table is None or len(table) == 0:
        empty = np.zeros(0)
        return {"x": empty, "y": empty, "plus": empty, "minus": empty, "size": empty, "text": []}
    x = table["predicted_risk"].to_numpy(float)
    obs = table["observed_risk"].to_numpy(float)
    count = table["count"].to_numpy(float)
    size = 6.0 + 24.0 * np.sqrt(count / max(count.max(), 1.0))
    text = [
        f"score {_fmt(s)}<br>n = {int(c)}, positives {int(p)}<br>"
        f"predicted {100 * pr:.1f}%, observed {100 * o:.1f}%<br>"
        f"CI [{100 * lo:.1f}%, {100 * hi:.1f}%]"
        for s, c, p, pr, o, lo, hi in zip(
            table["score"],
            count,
            table["positives"],
            x,
            obs,
            table["ci_low"],
            table["ci_high"],
            strict=True,
        )
    ]
    return {
        "x": x,
        "y": obs,
        "plus": np.clip(table["ci_high"].to_numpy(float) - obs, 0, None),
        "minus": np.clip(obs - table["ci_low"].to_numpy(float), 0, None),
        "size": size,
        "text": text,
    }


def _fill_reliability_trace(trace, table) -> None:
    a = _reliability_arrays(table)
    trace.x, trace.y = a["x"], a["y"]
    trace.error_y = {"type": "data", "array": a["plus"], "arrayminus": a["minus"], "visible": True}
    trace.marker.size = a["size"]
    trace.hovertext = a["text"]


def _reliability_traces(go, label_prefix: str = "", showlegend: bool = True) -> list:
    traces = [
        go.Scatter(
            name="perfect calibration",
            x=np.array([0.0, 1.0]),
            y=np.array([0.0, 1.0]),
            mode="lines",
            line={"dash": "dash", "color": "#999999"},
            hoverinfo="skip",
            showlegend=showlegend,
        )
    ]
    for split in ("train", "test"):
        traces.append(
            go.Scatter(
                name=f"{label_prefix}{split}",
                mode="markers",
                marker={"color": _SPLIT_COLORS[split], "opacity": 0.75, "line": {"width": 1}},
                hovertemplate="%{hovertext}<extra>" + split + "</extra>",
                showlegend=showlegend,
            )
        )
    return traces


def reliability_figure(
    model_or_table=None,
    X=None,
    y=None,
    X_test=None,
    y_test=None,
    *,
    title: str | None = "Reliability diagram",
    height: int = 420,
):
    """Predicted against observed risk per score, train and test overlaid.

    Parameters
    ----------
    model_or_table : fitted model, reliability table, ``{"train": t, "test": t}`` or None
        A model is evaluated on ``(X, y)`` and ``(X_test, y_test)``; ``None`` gives the
        empty figure a widget starts from.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces :data:`RELIABILITY_TRACES`: the diagonal, then one marker trace per split
        (marker area grows with the group's count; error bars are the exact
        Clopper--Pearson intervals of the observed risk).
    """
    import plotly.graph_objects as go

    fig = go.Figure(_reliability_traces(go))
    fig.update_xaxes(title_text="predicted risk", range=[-0.02, 1.02], tickformat=".0%")
    fig.update_yaxes(title_text="observed risk", range=[-0.02, 1.02], tickformat=".0%")
    fig.update_layout(
        height=height,
        title={"text": title} if title else None,
        margin={"l": 60, "r": 20, "t": 60 if title else 30, "b": _XAXIS_PX},
        legend=_bottom_legend(),
    )
    update_reliability_figure(fig, _as_tables(model_or_table, X, y, X_test, y_test))
    return fig


def update_reliability_figure(fig, tables: Mapping[str, pd.DataFrame] | None) -> None:
    """Put ``{"train": table, "test": table}`` into a :func:`reliability_figure`."""
    tables = tables or {}
    for trace in fig.data[1:3]:
        _fill_reliability_trace(trace, tables.get(trace.name))


# --- metrics and ROC -------------------------------------------------------------------
_METRICS_TITLES = ("ROC curve", "Metrics")


def metrics_figure(
    models=None,
    X=None,
    y=None,
    X_test=None,
    y_test=None,
    *,
    title: str | None = "Performance",
    height: int | None = None,
):
    """ROC curves (top, legend at their right) and below them, across the figure's
    width so that every column is readable, a table of train/test AUC, CAL, loss, size,
    gap and status.

    ``models`` is a model, a list or a ``{name: model}`` dict. Traces: the chance
    diagonal, one ROC curve per model and split (named ``"<model> train"``/``"<model>
    test"``), then the table. ``height`` (pixels) defaults to a 300 px ROC plot plus
    whatever the table needs to show all its rows; a larger value makes the ROC plot
    taller, a smaller one is raised to that.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    models = _as_models(models)
    fig = make_subplots(
        rows=2,
        cols=1,
        specs=[[{"type": "xy"}], [{"type": "table"}]],
        subplot_titles=_METRICS_TITLES,
    )
    fig.add_trace(
        go.Scatter(
            name="chance",
            x=np.array([0.0, 1.0]),
            y=np.array([0.0, 1.0]),
            mode="lines",
            line={"dash": "dash", "color": "#999999"},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    splits = [("train", X, y, "solid")]
    if X_test is not None and y_test is not None:
        splits.append(("test", X_test, y_test, "dot"))
    for i, (name, model) in enumerate(models.items()):
        color = _MODEL_COLORS[i % len(_MODEL_COLORS)]
        for split, Xs, ys, dash in splits:
            fpr, tpr = roc_curve(ys, _model_scores(model, Xs))
            fig.add_trace(
                go.Scatter(
                    name=f"{name} {split}",
                    x=fpr,
                    y=tpr,
                    mode="lines+markers",
                    marker={"size": 4},
                    line={"color": color, "dash": dash, "shape": "linear"},
                    hovertemplate="FPR %{x:.2f}, TPR %{y:.2f}<extra>%{fullData.name}</extra>",
                ),
                row=1,
                col=1,
            )
    table = metrics_table(models, X, y, X_test, y_test) if models else None
    header = ["model", *METRIC_COLUMNS]
    if table is None or table.empty:
        cells = [[] for _ in header]
    else:
        cells = [list(table.index)] + [
            [_fmt(v, _column_kind(c)) for v in table[c]] for c in METRIC_COLUMNS
        ]
    fig.add_trace(
        go.Table(
            header={
                "values": header,
                "fill_color": "#eeeeee",
                "align": "left",
                "height": _HEADER_PX,
            },
            cells={"values": cells, "align": "left", "height": _ROW_PX},
            columnwidth=_METRIC_WIDTHS,
        ),
        row=2,
        col=1,
    )
    # pixels, top to bottom: title and subplot title, ROC plot, its x axis and the
    # table's title, the table (every row: a clipped table scrolls, and hides rows in a
    # saved figure), bottom margin
    top = (60 if title else 20) + _SUBTITLE_PX
    table_px = _table_px(
        len(cells[0]),
        header_lines=2,  # "train AUC" etc. wrap in narrow columns
        wrapped_lines=sum(_lines(n, 24) - 1 for n in cells[0]),
    )
    gap = _XAXIS_PX + _SUBTITLE_PX
    bottom = 20
    roc_px = 300
    if height is not None:
        roc_px = max(200, int(height) - top - gap - table_px - bottom)
    plot_px = roc_px + gap + table_px
    roc = _domain(0, roc_px, plot_px)
    fig.update_xaxes(title_text="false positive rate", range=[0, 1], domain=[0, 0.5], row=1, col=1)
    fig.update_yaxes(title_text="true positive rate", range=[0, 1.02], domain=roc, row=1, col=1)
    fig.data[-1].domain = {"x": [0, 1], "y": _domain(roc_px + gap, table_px, plot_px)}
    _place_subplot_titles(fig, _METRICS_TITLES, [(0.25, roc[1]), (0.5, fig.data[-1].domain.y[1])])
    fig.update_layout(
        height=top + plot_px + bottom,
        title={"text": title} if title else None,
        margin={"l": 60, "r": 20, "t": top, "b": bottom},
        # beside the ROC plot, in the room the plot leaves on its right
        legend={"orientation": "v", "x": 0.55, "xanchor": "left", "y": roc[1], "yanchor": "top"},
    )
    return fig


# --- size path -------------------------------------------------------------------------
#: (trace name, column, row) per path kind; the first trace of each carries the interval.
_PATH_TRACES = {
    "risk_score": (
        ("training loss", "loss", 1, ("loss_lower", "loss_upper")),
        ("train AUC", "train_auc", 2, None),
        ("test AUC", "test_auc", 2, None),
        ("train CAL", "train_cal", 3, None),
        ("test CAL", "test_cal", 3, None),
    ),
    "checklist": (
        ("objective (mistakes)", "objective", 1, ("lower_bound", "upper_bound")),
        ("train error", "train_error", 2, None),
        ("test error", "test_error", 2, None),
        ("train FNR", "train_fnr", 3, None),
        ("test FNR", "test_fnr", 3, None),
    ),
}
_PATH_TITLES = {
    "risk_score": ("Training loss with certified interval", "AUC", "CAL"),
    "checklist": ("Training mistakes with certified interval", "Error", "False negative rate"),
}


def _path_kind(frame: pd.DataFrame, kind: str | None) -> str:
    if kind is not None:
        if kind not in _PATH_TRACES:
            raise InputError(f"unknown path kind {kind!r}; use 'risk_score' or 'checklist'")
        return kind
    return "checklist" if "M" in frame.columns and "loss" not in frame.columns else "risk_score"


def pareto_traces(kind: str = "risk_score") -> tuple[str, ...]:
    """Names (and order) of the traces of :func:`pareto_figure`: the metrics, then
    ``"selected"``."""
    return tuple(t[0] for t in _PATH_TRACES[kind]) + ("selected",)


def _column(frame: pd.DataFrame, name: str, rows) -> np.ndarray:
    if name not in frame.columns:
        return np.full(len(rows), np.nan)
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(float)[rows]


def pareto_figure(
    path=None,
    *,
    kind: str | None = None,
    selected: int | None = None,
    title: str | None = "Model size path",
    height: int = 560,
):
    """Loss (checklists: mistakes) against the size limit with each size's certified
    interval, and train/test AUC and CAL (checklists: error, FNR) below.

    ``path`` is a :class:`~riskexplore.evaluation.paths.SizePath`, its frame or a list
    of rows (possibly partial, as the path is being computed); ``selected`` marks one
    size. Every point carries its size as ``customdata`` (clicks select a size).
    Traces: :func:`pareto_traces`.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    frame = path_frame(path)
    kind = _path_kind(frame, kind)
    fig = make_subplots(
        rows=3,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[0.5, 0.25, 0.25],
        subplot_titles=_PATH_TITLES[kind],
    )
    for i, (name, _col, row, interval) in enumerate(_PATH_TRACES[kind]):
        color = _MODEL_COLORS[0] if i == 0 else _SPLIT_COLORS["test" if "test" in name else "train"]
        fig.add_trace(
            go.Scatter(
                name=name,
                mode="lines+markers",
                marker={"size": 10 if interval else 7, "color": color},
                line={"color": color, "dash": "dot" if "test" in name else "solid"},
                hovertemplate=(
                    "size ≤ %{x}<br>%{y:.4g}"
                    + ("<br>%{hovertext}" if interval else "")
                    + "<extra>%{fullData.name}</extra>"
                ),
            ),
            row=row,
            col=1,
        )
    fig.add_trace(
        go.Scatter(
            name="selected",
            mode="markers",
            marker={"size": 18, "symbol": "circle-open", "line": {"width": 3}, "color": "#d62728"},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    fig.update_xaxes(title_text="size limit", dtick=1, row=3, col=1)
    fig.update_yaxes(title_text="loss" if kind == "risk_score" else "mistakes", row=1, col=1)
    fig.update_yaxes(tickformat=".0%" if kind == "checklist" else None, row=2, col=1)
    fig.update_yaxes(tickformat=".0%", row=3, col=1)
    fig.update_layout(
        height=height,
        title={"text": title} if title else None,
        margin={"l": 60, "r": 20, "t": 70 if title else 40, "b": _XAXIS_PX},
        legend=_bottom_legend(),
        hovermode="closest",
        clickmode="event",
    )
    update_pareto_figure(fig, frame, kind=kind, selected=selected)
    return fig


def update_pareto_figure(fig, path, *, kind: str | None = None, selected: int | None = None):
    """Refill a :func:`pareto_figure` with (new) rows; only trace data change."""
    frame = path_frame(path)
    kind = _path_kind(frame, kind)
    if len(frame) and "model_size" in frame.columns:
        rows = np.flatnonzero(frame["model_size"].notna().to_numpy())
    else:
        rows = np.arange(0)
    sizes = frame["size"].to_numpy(float)[rows] if len(rows) else np.zeros(0)
    data = fig.data
    for i, (_name, column, _row, interval) in enumerate(_PATH_TRACES[kind]):
        values = _column(frame, column, rows)
        trace = data[i]
        trace.x, trace.y = sizes, values
        trace.customdata = sizes
        if interval:
            lo, hi = (_column(frame, c, rows) for c in interval)
            trace.error_y = {
                "type": "data",
                "array": np.clip(np.nan_to_num(hi - values), 0, None),
                "arrayminus": np.clip(np.nan_to_num(values - lo), 0, None),
                "visible": True,
                "thickness": 2,
                "width": 6,
            }
            status = (
                frame["status"].astype(str).to_numpy()[rows]
                if "status" in frame
                else [""] * len(rows)
            )
            trace.hovertext = [
                f"certified [{_fmt(a)}, {_fmt(b)}] · {s}"
                for a, b, s in zip(lo, hi, status, strict=True)
            ]
    sel = data[len(_PATH_TRACES[kind])]
    first_col = _PATH_TRACES[kind][0][1]
    if selected is not None and len(rows) and np.any(sizes == selected):
        k = int(np.flatnonzero(sizes == selected)[0])
        sel.x, sel.y = np.array([sizes[k]]), np.array([_column(frame, first_col, rows)[k]])
    else:
        sel.x, sel.y = np.zeros(0), np.zeros(0)
    return fig


# --- comparison ------------------------------------------------------------------------
def _delta_table(comparison) -> tuple[list[str], list[list[str]]]:
    a, b = comparison.names
    metrics = comparison.metrics
    shown = [
        c
        for c in metrics.columns
        if c.startswith(("train_", "test_")) or c in ("size", "objective", "gap")
    ]
    names, va, vb, delta = [], [], [], []
    for c in shown:
        x = metrics.at[a, c] if a in metrics.index else None
        z = metrics.at[b, c] if b in metrics.index else None
        kind = "pct" if c.endswith(("cal", "error", "fnr", "fpr")) or c == "gap" else "num"
        names.append(c.replace("_", " "))
        va.append(_fmt(x, kind))
        vb.append(_fmt(z, kind))
        try:
            d = float(z) - float(x)
            delta.append(("+" if d > 0 else "") + _fmt(d, kind))
        except (TypeError, ValueError):
            delta.append("—")
    return ["metric", a, b, f"{b} − {a}"], [names, va, vb, delta]


def compare_figure(
    comparison,
    X=None,
    y=None,
    X_test=None,
    y_test=None,
    *,
    title: str | None = None,
    height: int | None = None,
):
    """Constrained against unconstrained side by side: both cards (row 1), both
    reliability diagrams (row 2, when ``X, y`` are given), the metrics with their deltas
    (row 3) and the certified price of the constraints and the constraints (the title).

    ``height`` (pixels) defaults to what the title, the cards and the metrics table need
    to show all their rows plus 300 px for the reliability diagrams; a larger value
    makes the diagrams taller, a smaller one is raised to that.

    Traces: card A, card B (tables); then per model the three reliability traces
    (diagonal, train, test); then the metrics table.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    a, b = comparison.names
    models = comparison.models
    titles = (a, b, f"Reliability: {a}", f"Reliability: {b}", "Metrics")
    fig = make_subplots(
        rows=3,
        cols=2,
        specs=[
            [{"type": "table"}, {"type": "table"}],
            [{"type": "xy"}, {"type": "xy"}],
            [{"type": "table", "colspan": 2}, None],
        ],
        horizontal_spacing=0.1,
        subplot_titles=titles,
    )
    header = {"fill_color": "#eeeeee", "align": "left", "height": _HEADER_PX}
    card_px = 0
    for col, model in ((1, models[0]), (2, models[1])):
        head, cells = model_card_table(model)
        checklist = head == ["", "item"]
        # a checklist's box column narrow, its items wide; a score's features wide
        widths, text, row_px = (
            ([1, 9], cells[1], _BOX_ROW_PX) if checklist else ([3, 1], cells[0], _ROW_PX)
        )
        wrapped = sum(_lines(t, 40 if checklist else 30) - 1 for t in text)
        card_px = max(card_px, _table_px(len(text), row_px=row_px, wrapped_lines=wrapped))
        fig.add_trace(
            go.Table(
                header={**header, "values": head},
                cells={"values": cells, "align": "left", "height": row_px},
                columnwidth=widths,
            ),
            row=1,
            col=col,
        )
    for col, model in ((1, models[0]), (2, models[1])):
        tables = {}
        if model is not None and X is not None and y is not None:
            tables = reliability_tables(model, X, y, X_test, y_test)
        traces = _reliability_traces(go, showlegend=col == 1)
        traces[1].legendgroup, traces[2].legendgroup = "train", "test"
        for trace in traces[1:]:
            _fill_reliability_trace(trace, tables.get(trace.name))
        for trace in traces:
            fig.add_trace(trace, row=2, col=col)
    head, cells = _delta_table(comparison)
    fig.add_trace(
        go.Table(
            header={**header, "values": head},
            cells={"values": cells, "align": "left", "height": _ROW_PX},
            columnwidth=[1.2, 1, 1, 1],
        ),
        row=3,
        col=1,
    )
    metrics_px = _table_px(len(cells[0]), header_lines=max(_lines(h, 28) for h in head))

    price = price_text(comparison.price_of_constraints)
    constraints = "; ".join(comparison.constraints)
    heading = title or f"{a} vs {b}"
    sub_lines = [price]
    if constraints:
        sub_lines += _wrap_words(f"constraints: {constraints}")
    sub = "<br>".join(html.escape(line) for line in sub_lines)

    # pixels, top to bottom: the title and its subtitle lines, the cards' titles, the
    # cards, the diagrams' titles, the diagrams, their x axes and legend, the metrics
    # table's title and the table, the bottom margin; the tables get every row (a
    # clipped table scrolls, and hides rows in a saved figure)
    title_top = 16
    top = title_top + 18 + _TITLE_LINE_PX * len(sub_lines) + _SUBTITLE_PX
    gap_cards = _SUBTITLE_PX + 20
    gap_diagrams = _XAXIS_PX + _LEGEND_PX + _SUBTITLE_PX + 10
    bottom = 20
    diagram_px = 300
    fixed = top + card_px + gap_cards + gap_diagrams + metrics_px + bottom
    if height is not None:
        diagram_px = max(220, int(height) - fixed)
    plot_px = card_px + gap_cards + diagram_px + gap_diagrams + metrics_px
    cards = _domain(0, card_px, plot_px)
    diagrams = _domain(card_px + gap_cards, diagram_px, plot_px)
    metrics = _domain(plot_px - metrics_px, metrics_px, plot_px)
    fig.data[0].domain.y = fig.data[1].domain.y = cards
    fig.data[-1].domain.y = metrics
    for col in (1, 2):
        fig.update_xaxes(
            title_text="predicted risk", range=[-0.02, 1.02], tickformat=".0%", row=2, col=col
        )
        fig.update_yaxes(
            title_text="observed risk",
            range=[-0.02, 1.02],
            tickformat=".0%",
            domain=diagrams,
            row=2,
            col=col,
        )
    centers = [sum(fig.data[0].domain.x) / 2, sum(fig.data[1].domain.x) / 2]
    _place_subplot_titles(
        fig,
        titles,
        [
            (centers[0], cards[1]),
            (centers[1], cards[1]),
            (centers[0], diagrams[1]),
            (centers[1], diagrams[1]),
            (0.5, metrics[1]),
        ],
    )
    fig.update_layout(
        height=top + plot_px + bottom,
        title={
            "text": f"{html.escape(heading)}<br><sup>{sub}</sup>",
            "yref": "container",
            "y": 1 - title_top / (top + plot_px + bottom),
            "yanchor": "top",
        },
        margin={"l": 60, "r": 20, "t": top, "b": bottom},
        # under the diagrams' axis titles, above the metrics table's title
        legend={
            "orientation": "h",
            "x": 0.5,
            "xanchor": "center",
            "y": _domain(card_px + gap_cards + diagram_px + _XAXIS_PX, 0, plot_px)[1],
            "yanchor": "top",
        },
    )
    return fig


# --- widgets support -------------------------------------------------------------------
def replace_figure(target, fig) -> None:
    """Replace the traces and layout of ``target`` (a :class:`PlotView`) by those of
    ``fig`` in one update (for views whose set of traces changes)."""
    target.update(fig)
