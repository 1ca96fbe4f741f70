"""The reliability diagram: predicted against observed risk per score, train and test.

Checklists have no predicted risk: their diagram groups examples by the number of items
checked and plots the observed risk against the checklist's 0/1 prediction (so a good
checklist has points near (0, 0) and (1, 1)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.evaluation.tables import reliability_tables
from riskexplore.figures.layout import (
    SPLIT_COLORS,
    XAXIS_PX,
    bottom_legend,
    diagonal_line,
    fmt,
    risk_axis,
)

__all__ = [
    "RELIABILITY_TRACES",
    "fill_reliability_trace",
    "reliability_figure",
    "reliability_traces",
    "update_reliability_figure",
]

#: Trace names (and order) of :func:`reliability_figure`.
RELIABILITY_TRACES = ("perfect calibration", "train", "test")


def _as_tables(model_or_table, X, y, X_test, y_test) -> dict[str, pd.DataFrame]:
    if model_or_table is None:
        return {}
    if isinstance(model_or_table, pd.DataFrame):
        return {"train": model_or_table}
    if isinstance(model_or_table, Mapping):
        return {str(k): v for k, v in model_or_table.items() if v is not None}
    return reliability_tables(model_or_table, X, y, X_test, y_test)


def _reliability_arrays(table: pd.DataFrame | None) -> dict[str, Any]:
    if table is None or len(table) == 0:
        empty = np.zeros(0)
        return {"x": empty, "y": empty, "plus": empty, "minus": empty, "size": empty, "text": []}
    x = table["predicted_risk"].to_numpy(float)
    obs = table["observed_risk"].to_numpy(float)
    count = table["count"].to_numpy(float)
    size = 6.0 + 24.0 * np.sqrt(count / max(count.max(), 1.0))
    text = [
        f"score {fmt(s)}<br>n = {int(c)}, positives {int(p)}<br>"
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


def fill_reliability_trace(trace, table) -> None:
    """Put one reliability table into a marker trace (points, error bars, sizes, hover text).

    Parameters
    ----------
    trace : plotly Scatter
        A split's trace of :func:`reliability_traces`.
    table : DataFrame or None
        The table (None empties the trace).
    """
    a = _reliability_arrays(table)
    trace.x, trace.y = a["x"], a["y"]
    trace.error_y = {"type": "data", "array": a["plus"], "arrayminus": a["minus"], "visible": True}
    trace.marker.size = a["size"]
    trace.hovertext = a["text"]


def reliability_traces(go, label_prefix: str = "", showlegend: bool = True) -> list:
    """The traces of a reliability diagram: the diagonal, then ``train`` and ``test``.

    Parameters
    ----------
    go : module
        ``plotly.graph_objects``.
    label_prefix : str
        Prefix of the splits' trace names.
    showlegend : bool
        Whether the traces appear in the legend.

    Returns
    -------
    list
        The three traces (empty markers).
    """
    traces = [go.Scatter(**diagonal_line(RELIABILITY_TRACES[0]), showlegend=showlegend)]
    for split in ("train", "test"):
        traces.append(
            go.Scatter(
                name=f"{label_prefix}{split}",
                mode="markers",
                marker={"color": SPLIT_COLORS[split], "opacity": 0.75, "line": {"width": 1}},
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

    fig = go.Figure(reliability_traces(go))
    fig.update_xaxes(**risk_axis("predicted risk"))
    fig.update_yaxes(**risk_axis("observed risk"))
    fig.update_layout(
        height=height,
        title={"text": title} if title else None,
        margin={"l": 60, "r": 20, "t": 60 if title else 30, "b": XAXIS_PX},
        legend=bottom_legend(),
    )
    update_reliability_figure(fig, _as_tables(model_or_table, X, y, X_test, y_test))
    return fig


def update_reliability_figure(fig, tables: Mapping[str, pd.DataFrame] | None) -> None:
    """Put ``{"train": table, "test": table}`` into a :func:`reliability_figure`.

    Parameters
    ----------
    fig : Figure or PlotView
        A figure of :func:`reliability_figure`.
    tables : mapping or None
        The tables by split.
    """
    tables = tables or {}
    for trace in fig.data[1:3]:
        fill_reliability_trace(trace, tables.get(trace.name))
