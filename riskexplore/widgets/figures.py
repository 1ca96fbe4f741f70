"""Static plotly figures built from plain data; the widgets reuse these builders.

Every function returns (or fills) a ``plotly.graph_objects.Figure``; a
:class:`~riskexplore.widgets.plot_view.PlotView` shows the same figure in the notebook, so a
figure seen live can be saved for a paper with :func:`save_figure` (self-contained HTML
always; PNG/SVG/PDF only when the ``kaleido`` renderer is installed, see
:func:`image_export_available`).

plotly is imported inside the functions: ``import riskexplore.widgets`` stays light.

Examples
--------
>>> from riskexplore.widgets.figures import bounds_figure, save_figure
>>> fig = bounds_figure(model.trace)  # doctest: +SKIP
>>> save_figure(fig, "bounds.html")  # doctest: +SKIP
"""

from __future__ import annotations

import html
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from riskexplore.errors import RiskExploreError
from riskexplore.widgets.runner import ProgressSeries

__all__ = [
    "BOUNDS_TRACES",
    "bounds_figure",
    "card_figure",
    "image_export_available",
    "incumbent_text",
    "save_figure",
    "update_bounds_figure",
]

#: Names (and order) of the traces of :func:`bounds_figure`.
BOUNDS_TRACES = ("upper bound", "lower bound", "incumbent", "gap", "nodes", "cuts")

#: At most this many points per trace are sent to the browser (evenly thinned).
MAX_POINTS = 4000

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
    (its ``trace``) or ``None`` (empty)."""
    if progress is None:
        return ProgressSeries()
    if isinstance(progress, ProgressSeries):
        return progress
    trace = getattr(progress, "trace", None)
    if trace is not None or hasattr(progress, "certificate"):
        return ProgressSeries.from_trace(trace or [])
    return ProgressSeries.from_trace(progress)


def incumbent_text(incumbent: Mapping[str, Any] | None) -> str:
    """A short plain-text description of a solver incumbent (risk score or checklist)."""
    if not incumbent:
        return ""
    if "points" in incumbent:
        points = incumbent.get("points") or {}
        terms = ", ".join(f"{name} {int(p):+d}" for name, p in points.items()) or "no features"
        return f"intercept {int(incumbent.get('intercept', 0))}; {terms}"
    if "items" in incumbent:
        items = [str(i) for i in incumbent.get("items") or []]
        return f"M = {incumbent.get('M')} of {len(items)}: " + (", ".join(items) or "no items")
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
    line = {"shape": "hv"}
    fig.add_trace(
        go.Scatter(
            name="upper bound", mode="lines", line={**line, "color": _COLORS["upper bound"]}
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            name="lower bound", mode="lines", line={**line, "color": _COLORS["lower bound"]}
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            name="incumbent",
            mode="markers",
            marker={"symbol": "star", "size": 11, "color": _COLORS["incumbent"]},
            hovertemplate="t = %{x:.2f} s<br>objective %{y:.6g}<br>%{hovertext}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(name="gap", mode="lines", line={**line, "color": _COLORS["gap"]}),
        row=2,
        col=1,
    )
    fig.add_trace(
        go.Scatter(name="nodes", mode="lines", line={"color": _COLORS["nodes"]}), row=3, col=1
    )
    fig.add_trace(
        go.Scatter(name="cuts", mode="lines", line={"color": _COLORS["cuts"]}), row=3, col=1
    )
    fig.update_yaxes(title_text="objective", row=1, col=1)
    fig.update_yaxes(title_text="gap (%)", rangemode="tozero", row=2, col=1)
    fig.update_yaxes(title_text="count", rangemode="tozero", row=3, col=1)
    fig.update_xaxes(title_text="time (s)", row=3, col=1)
    fig.update_layout(
        height=height,
        margin={"l": 60, "r": 20, "t": 60, "b": 40},
        # below the plots, at the bottom of the figure: the top holds the title and the
        # first subplot's title; plotly widens the bottom margin when the legend wraps
        legend={
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
        },
        hovermode="closest",
        title={"text": title} if title else None,
    )
    update_bounds_figure(fig, progress, log_time=log_time, max_points=max_points)
    return fig


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


def card_figure(model, *, title: str | None = None):
    """A static figure of a fitted model (score card or checklist) with its certificate.

    A risk score gives two tables (points per feature; risk per score), a checklist one
    table of check boxes; the certificate line is the subtitle.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    cert = model.certificate_line() if hasattr(model, "certificate_line") else ""
    header = {"fill_color": "#eeeeee", "align": "left", "font": {"size": 13}}
    cells = {"align": "left", "height": 26, "font": {"size": 13}}
    if hasattr(model, "score_table"):
        points = model.points
        names = list(points) or ["(no features)"]
        values = [f"{p:+d}" for p in points.values()] or ["0"]
        table = model.score_table()
        fig = make_subplots(
            rows=2,
            cols=1,
            specs=[[{"type": "table"}], [{"type": "table"}]],
            row_heights=[0.6, 0.4],
            vertical_spacing=0.05,
        )
        fig.add_trace(
            go.Table(
                header={**header, "values": ["feature", "points"]},
                cells={**cells, "values": [names, values]},
                columnwidth=[3, 1],
            ),
            row=1,
            col=1,
        )
        scores = [str(int(s)) for s in table["score"]]
        risks = [_risk(r) for r in table["risk_percent"]]
        fig.add_trace(
            go.Table(
                header={**header, "values": ["SCORE", "RISK"]},
                cells={**cells, "values": [scores, risks]},
            ),
            row=2,
            col=1,
        )
        heading = title or f"Risk score (intercept {model.intercept})"
        n_rows = len(names) + len(scores)
    else:
        items = list(getattr(model, "items", []))
        fig = go.Figure(
            go.Table(
                header={**header, "values": ["", "item"]},
                cells={**cells, "values": [["☐"] * len(items), items or ["(no items)"]]},
                columnwidth=[1, 8],
            )
        )
        heading = title or (model.title() if hasattr(model, "title") else "Checklist")
        n_rows = len(items) + 2
    fig.update_layout(
        title={"text": f"{html.escape(heading)}<br><sup>{html.escape(cert)}</sup>"},
        height=int(min(900, 140 + 30 * n_rows)),
        margin={"l": 20, "r": 20, "t": 80, "b": 10},
    )
    return fig


def _risk(percent: float) -> str:
    if percent < 0.1:
        return "<0.1%"
    if percent > 99.9:
        return ">99.9%"
    return f"{percent:.1f}%"


def image_export_available() -> bool:
    """True when plotly can write PNG/SVG/PDF here (needs the ``kaleido`` package)."""
    return importlib.util.find_spec("kaleido") is not None


_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".svg", ".pdf"}


def save_figure(fig, path: str | Path, **kwargs: Any) -> Path:
    """Save a figure (or a PlotView's figure) by file suffix.

    ``.html`` writes a self-contained page (plotly.js inlined, works offline), ``.json``
    the plotly JSON, and ``.png``/``.svg``/``.pdf``/... an image, which needs the
    ``kaleido`` package; without it a :class:`RiskExploreError` says so.
    """
    import plotly.graph_objects as go

    path = Path(path)
    suffix = path.suffix.lower()
    fig = getattr(fig, "figure", fig)  # a PlotView: its figure
    static = fig if type(fig) is go.Figure else go.Figure(fig)
    if suffix in (".html", ".htm"):
        static.write_html(path, include_plotlyjs=kwargs.pop("include_plotlyjs", True), **kwargs)
    elif suffix == ".json":
        static.write_json(path, **kwargs)
    elif suffix in _IMAGE_SUFFIXES:
        if not image_export_available():
            raise RiskExploreError(
                f"saving {suffix[1:].upper()} needs the kaleido package, which is not "
                "installed here; save as .html (self-contained) or install kaleido"
            )
        try:
            static.write_image(path, **kwargs)
        except Exception as exc:  # kaleido present but its browser/renderer is not
            raise RiskExploreError(f"could not render {path.name}: {exc}") from exc
    else:
        raise RiskExploreError(
            f"unknown figure format {suffix or '(none)'!r}; use .html, .json or an image "
            "suffix (.png, .svg, .pdf)"
        )
    return path
