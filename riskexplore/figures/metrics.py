"""ROC curves and a table of train/test AUC, CAL, loss, size, gap and status."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from riskexplore.evaluation.metrics import roc_curve
from riskexplore.evaluation.tables import (
    METRIC_COLUMNS,
    as_models,
    metrics_table,
    model_scores_or_predictions,
)
from riskexplore.figures.layout import (
    METRIC_WIDTHS,
    MODEL_COLORS,
    column_kind,
    diagonal_line,
    fmt,
    metrics_stack,
    place_subplot_titles,
    table_cells,
    table_header,
    wrapped_table_px,
)

__all__ = ["metrics_figure"]

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

    Parameters
    ----------
    models : model, list or dict, optional
        The models (None: the empty figure a widget starts from).
    X, y : optional
        Training data.
    X_test, y_test : optional
        Held-out data.
    title : str, optional
        The title.
    height : int, optional
        Pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    models = as_models(models)
    fig = make_subplots(
        rows=2,
        cols=1,
        specs=[[{"type": "xy"}], [{"type": "table"}]],
        subplot_titles=_METRICS_TITLES,
    )
    fig.add_trace(go.Scatter(**diagonal_line("chance")), row=1, col=1)
    for trace in _roc_traces(go, models, X, y, X_test, y_test):
        fig.add_trace(trace, row=1, col=1)
    cells = _table_cells(models, X, y, X_test, y_test)
    fig.add_trace(
        go.Table(
            header=table_header(["model", *METRIC_COLUMNS]),
            cells=table_cells(cells),
            columnwidth=METRIC_WIDTHS,
        ),
        row=2,
        col=1,
    )
    # the table shows every row (a clipped table scrolls, and hides rows in a saved
    # figure); "train AUC" etc. wrap in narrow columns
    stack = metrics_stack(bool(title), wrapped_table_px(cells[0], 24, header_lines=2), height)
    roc = stack.domain(0)
    fig.update_xaxes(title_text="false positive rate", range=[0, 1], domain=[0, 0.5], row=1, col=1)
    fig.update_yaxes(title_text="true positive rate", range=[0, 1.02], domain=roc, row=1, col=1)
    fig.data[-1].domain = {"x": [0, 1], "y": stack.domain(1)}
    place_subplot_titles(fig, _METRICS_TITLES, [(0.25, roc[1]), (0.5, fig.data[-1].domain.y[1])])
    fig.update_layout(
        height=stack.height,
        title={"text": title} if title else None,
        margin={"l": 60, "r": 20, "t": stack.top, "b": stack.bottom},
        # beside the ROC plot, in the room the plot leaves on its right
        legend={"orientation": "v", "x": 0.55, "xanchor": "left", "y": roc[1], "yanchor": "top"},
    )
    return fig


def _roc_traces(go, models: dict, X, y, X_test, y_test) -> Iterator[Any]:
    """Each model's ROC curve on each split (a colour a model, a dash a split)."""
    splits = [("train", X, y, "solid")]
    if X_test is not None and y_test is not None:
        splits.append(("test", X_test, y_test, "dot"))
    for i, (name, model) in enumerate(models.items()):
        color = MODEL_COLORS[i % len(MODEL_COLORS)]
        for split, Xs, ys, dash in splits:
            fpr, tpr = roc_curve(ys, model_scores_or_predictions(model, Xs))
            yield go.Scatter(
                name=f"{name} {split}",
                x=fpr,
                y=tpr,
                mode="lines+markers",
                marker={"size": 4},
                line={"color": color, "dash": dash, "shape": "linear"},
                hovertemplate="FPR %{x:.2f}, TPR %{y:.2f}<extra>%{fullData.name}</extra>",
            )


def _table_cells(models: dict, X, y, X_test, y_test) -> list[list[str]]:
    """The columns of the metrics table: the models' names, then each metric."""
    table = metrics_table(models, X, y, X_test, y_test) if models else None
    if table is None or table.empty:
        return [[] for _ in range(1 + len(METRIC_COLUMNS))]
    return [list(table.index)] + [
        [fmt(v, column_kind(c)) for v in table[c]] for c in METRIC_COLUMNS
    ]
