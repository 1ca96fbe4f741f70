"""The size path: loss (checklists: mistakes) against the size limit with each size's
certified interval, and train/test metrics below."""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskexplore.core.registry import DEFAULT_FAMILY, families, get_family
from riskexplore.evaluation.tables import path_frame
from riskexplore.figures.layout import MODEL_COLORS, SPLIT_COLORS, XAXIS_PX, bottom_legend, fmt

__all__ = ["pareto_figure", "pareto_traces", "update_pareto_figure"]


def _path_plot(frame: pd.DataFrame, kind: str | None):
    """The family's :class:`~riskexplore.core.registry.PathPlot`; for a frame without a
    kind, the first family whose path metric is a column of it (else the default's)."""
    if kind is None:
        metrics = (f for f in families() if f.path_metric in frame.columns)
        kind = next(metrics, get_family(DEFAULT_FAMILY)).name
    return get_family(kind).path_plot


def pareto_traces(kind: str = DEFAULT_FAMILY) -> tuple[str, ...]:
    """Names (and order) of the traces of :func:`pareto_figure`: the metrics, then
    ``"selected"``.

    Parameters
    ----------
    kind : str
        The model family.

    Returns
    -------
    tuple of str
        The trace names.
    """
    return tuple(t[0] for t in get_family(kind).path_plot.traces) + ("selected",)


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

    Parameters
    ----------
    path : SizePath, DataFrame or list of dict, optional
        The path.
    kind : str, optional
        The model family (default: the path's, else guessed from the columns).
    selected : int, optional
        The size to mark.
    title : str, optional
        The title.
    height : int
        Pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    frame = path_frame(path)
    plot = _path_plot(frame, kind or getattr(path, "kind", None))
    # as many rows as the family draws (a survival path: loss and C-index), the sizes under
    # the last one
    n_rows = max(row for _name, _col, row, _interval in plot.traces)
    heights = [0.5, 0.25, 0.25][:n_rows]
    fig = make_subplots(
        rows=n_rows,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[h / sum(heights) for h in heights],
        subplot_titles=plot.titles[:n_rows],
    )
    for i, (name, _col, row, interval) in enumerate(plot.traces):
        color = MODEL_COLORS[0] if i == 0 else SPLIT_COLORS["test" if "test" in name else "train"]
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
    fig.update_xaxes(title_text="size limit", dtick=1, row=n_rows, col=1)
    fig.update_yaxes(title_text=plot.objective_label, row=1, col=1)
    if n_rows >= 2:
        fig.update_yaxes(tickformat=".0%" if plot.middle_percent else None, row=2, col=1)
    if n_rows >= 3:
        fig.update_yaxes(tickformat=".0%", row=3, col=1)
    fig.update_layout(
        height=height,
        title={"text": title} if title else None,
        margin={"l": 60, "r": 20, "t": 70 if title else 40, "b": XAXIS_PX},
        legend=bottom_legend(),
        hovermode="closest",
        clickmode="event",
    )
    update_pareto_figure(fig, frame, plot=plot, selected=selected)
    return fig


def update_pareto_figure(
    fig, path, *, kind: str | None = None, selected: int | None = None, plot=None
):
    """Refill a :func:`pareto_figure` with (new) rows; only trace data change.

    Parameters
    ----------
    fig : Figure or PlotView
        A figure of :func:`pareto_figure`.
    path : SizePath, DataFrame or list of dict
        The rows so far.
    kind : str, optional
        The model family (default: guessed from the columns).
    selected : int, optional
        The size to mark.
    plot : PathPlot, optional
        The family's plot description (instead of ``kind``).

    Returns
    -------
    Figure
        ``fig``.
    """
    frame = path_frame(path)
    plot = plot or _path_plot(frame, kind or getattr(path, "kind", None))
    if len(frame) and "model_size" in frame.columns:
        rows = np.flatnonzero(frame["model_size"].notna().to_numpy())
    else:
        rows = np.arange(0)
    sizes = frame["size"].to_numpy(float)[rows] if len(rows) else np.zeros(0)
    data = fig.data
    for i, (_name, column, _row, interval) in enumerate(plot.traces):
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
                f"certified [{fmt(a)}, {fmt(b)}] · {s}"
                for a, b, s in zip(lo, hi, status, strict=True)
            ]
    sel = data[len(plot.traces)]
    first_col = plot.traces[0][1]
    if selected is not None and len(rows) and np.any(sizes == selected):
        k = int(np.flatnonzero(sizes == selected)[0])
        sel.x, sel.y = np.array([sizes[k]]), np.array([_column(frame, first_col, rows)[k]])
    else:
        sel.x, sel.y = np.zeros(0), np.zeros(0)
    return fig
