"""A solve's progress: upper and lower bounds, the gap, nodes and cuts over time.

The live monitor (:class:`~riskexplore.widgets.monitor.SolveMonitor`) shows the same
figure and refills it with :func:`update_bounds_figure`.

Examples
--------
>>> from riskexplore.figures.progress import bounds_figure
>>> from riskexplore.figures.export import save_figure
>>> fig = bounds_figure(model.trace)  # doctest: +SKIP
>>> save_figure(fig, "bounds.html")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskexplore.core.progress import ProgressSeries
from riskexplore.core.registry import family_of_incumbent
from riskexplore.figures.layout import bottom_legend

__all__ = [
    "BOUNDS_TRACES",
    "as_series",
    "bounds_figure",
    "incumbent_text",
    "update_bounds_figure",
]

#: Names (and order) of the traces of :func:`bounds_figure`.
BOUNDS_TRACES = ("upper bound", "lower bound", "incumbent", "gap", "nodes", "cuts")

#: At most this many points per trace are sent to the browser (evenly thinned).
MAX_POINTS = 4000

#: The subplot of each trace, and the traces drawn as steps.
_ROWS = dict(zip(BOUNDS_TRACES, (1, 1, 1, 2, 3, 3), strict=True))
_STEPS = ("upper bound", "lower bound", "gap")

_COLORS = {
    "upper bound": "#1f77b4",
    "lower bound": "#d62728",
    "incumbent": "#ff7f0e",
    "gap": "#2ca02c",
    "nodes": "#9467bd",
    "cuts": "#8c564b",
}


def as_series(progress: Any) -> ProgressSeries:
    """A :class:`ProgressSeries` from a series, a Trace, a list of events, a fitted model
    (its ``trace``) or ``None`` (empty).

    Parameters
    ----------
    progress : ProgressSeries, Trace, list of SolveEvent, fitted model or None
        The progress.

    Returns
    -------
    ProgressSeries
        The series.
    """
    if progress is None:
        return ProgressSeries()
    if isinstance(progress, ProgressSeries):
        return progress
    trace = getattr(progress, "trace", None)
    if trace is not None or hasattr(progress, "certificate"):
        return ProgressSeries.from_trace(trace or [])
    return ProgressSeries.from_trace(progress)


def incumbent_text(incumbent: Mapping[str, Any] | None) -> str:
    """A short plain-text description of a solver incumbent, by its family.

    Parameters
    ----------
    incumbent : mapping or None
        The ``incumbent`` of a solve event.

    Returns
    -------
    str
        The description (``""`` for none).
    """
    if not incumbent:
        return ""
    family = family_of_incumbent(incumbent)
    if family is not None:
        return family.describe_incumbent(incumbent)
    return ", ".join(f"{k}={v}" for k, v in incumbent.items())


def bounds_figure(
    progress: Any = None,
    *,
    log_time: bool = False,
    title: str | None = "Solve progress",
    height: int = 600,
    max_points: int = MAX_POINTS,
):
    """Bounds against time (incumbent changes marked), gap, and nodes/cuts as subplots.

    Parameters
    ----------
    progress : ProgressSeries, Trace, list of SolveEvent, fitted model or None
        The data; ``None`` gives the empty figure the monitor starts from.
    log_time : bool
        Logarithmic time axis.
    title : str, optional
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces in the order of :data:`BOUNDS_TRACES`: upper bound, lower bound (row 1),
        incumbent markers (row 1; hover shows the model), gap in percent (row 2), nodes
        and cuts (row 3).
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(
        rows=3,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.07,
        row_heights=[0.55, 0.2, 0.25],
        subplot_titles=("Objective: best model and proven bound", "Optimality gap", "Work"),
    )
    for name in BOUNDS_TRACES:
        fig.add_trace(_bounds_trace(go, name), row=_ROWS[name], col=1)
    fig.update_yaxes(title_text="objective", row=1, col=1)
    fig.update_yaxes(title_text="gap (%)", rangemode="tozero", row=2, col=1)
    fig.update_yaxes(title_text="count", rangemode="tozero", row=3, col=1)
    fig.update_xaxes(title_text="time (s)", row=3, col=1)
    fig.update_layout(
        height=height,
        margin={"l": 60, "r": 20, "t": 60, "b": 40},
        legend=bottom_legend(),
        hovermode="closest",
        title={"text": title} if title else None,
    )
    update_bounds_figure(fig, progress, log_time=log_time, max_points=max_points)
    return fig


def _bounds_trace(go, name: str):
    """The (empty) trace ``name`` of :data:`BOUNDS_TRACES`: the incumbents as stars, the
    bounds and the gap as steps (they hold until the next event), the work as lines."""
    if name == "incumbent":
        return go.Scatter(
            name=name,
            mode="markers",
            marker={"symbol": "star", "size": 11, "color": _COLORS[name]},
            hovertemplate="t = %{x:.2f} s<br>objective %{y:.6g}<br>%{hovertext}<extra></extra>",
        )
    line = {"shape": "hv"} if name in _STEPS else {}
    return go.Scatter(name=name, mode="lines", line={**line, "color": _COLORS[name]})


def update_bounds_figure(
    fig,
    progress: Any,
    *,
    log_time: bool | None = None,
    title: str | None = None,
    max_points: int = MAX_POINTS,
) -> None:
    """Put ``progress`` into a figure made by :func:`bounds_figure` (or a PlotView of it).

    Only data (numpy arrays) change, plus the time axis type when ``log_time`` is given
    and the title when ``title`` is given, so a live widget can call this inside
    ``fig.batch_update()`` without resetting the user's zoom.

    Parameters
    ----------
    fig : Figure or PlotView
        A figure of :func:`bounds_figure`.
    progress : ProgressSeries, Trace, list of SolveEvent, fitted model or None
        The progress.
    log_time : bool, optional
        A logarithmic time axis.
    title : str, optional
        A new title.
    max_points : int
        The most points per trace.
    """
    series = as_series(progress)
    a = series.arrays(finite=True, max_points=max_points)
    t = a["time"]
    data = fig.data
    data[0].x, data[0].y = t, a["upper"]
    data[1].x, data[1].y = t, a["lower"]
    data[2].x, data[2].y = a["incumbent_time"], a["incumbent_upper"]
    data[2].hovertext = [incumbent_text(inc) for inc in series.incumbents]
    data[3].x, data[3].y = t, 100.0 * a["gap"]
    data[4].x, data[4].y = t, a["nodes"]
    data[5].x, data[5].y = t, a["cuts"]
    if log_time is not None:  # only when asked: a user's zoom survives data refreshes
        fig.update_xaxes(type="log" if log_time else "linear", autorange=True)
    if title is not None:
        fig.layout.title.text = title
