"""Figures of a subgroup audit: a forest plot of one metric, and per-group reliability
diagrams.

Both take an :class:`~riskexplore.evaluation.audit.run.AuditResult`. Groups with too few
rows are named, with their size, where their point would be.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from riskexplore.evaluation.audit.findings import FINDING_METRICS
from riskexplore.figures.layout import (
    TITLE_LINE_PX,
    XAXIS_PX,
    bottom_legend,
    diagonal_line,
    fmt,
    risk_axis,
    wrap_words,
)
from riskexplore.figures.reliability import fill_reliability_trace

__all__ = ["FOREST_METRICS", "forest_figure", "group_reliability_figure"]

#: The metrics of :func:`forest_figure`: ``name -> (axis title, value format)``.
FOREST_METRICS = {
    "auc": ("AUC", "num"),
    "fnr": ("false negative rate", "pct"),
    "fpr": ("false positive rate", "pct"),
    "ppv": ("positive predictive value", "pct"),
    "prevalence": ("prevalence (observed risk)", "pct"),
    "calibration": ("observed minus predicted risk", "pct"),
    # a survival audit's (no value of the rest: each group against all rows, or 1 for O/E)
    "c_index": ("C-index", "num"),
    "observed_expected": ("observed / predicted risk by the horizon", "num"),
}

#: Metrics whose groups are red where a finding of another metric flags them (a survival
#: group's calibration finding shows on its O/E).
_FLAGGED_BY = {"observed_expected": "calibration"}
#: Metrics drawn without the rest's value: those of a survival audit.
_NO_REST = ("calibration", "c_index", "observed_expected")

_FLAG = "#d62728"
_POINT = "#1f77b4"
_REST = "#7f7f7f"


def _forest_columns(metric: str) -> tuple[str, str, str, str | None]:
    """Columns of the value, its interval, and of the rest's value."""
    if metric == "calibration":
        return "calibration_gap", "calibration_gap_low", "calibration_gap_high", None
    rest = None if metric in _NO_REST else f"{metric}_rest"
    return metric, f"{metric}_low", f"{metric}_high", rest


def _reference(result, metric: str) -> float:
    if metric == "calibration":
        return 0.0
    if metric == "observed_expected":
        return 1.0
    value = result.overall.get(metric, math.nan)
    return float(value) if value is not None else math.nan


def _flagged(result, metric: str) -> set[str]:
    metric = _FLAGGED_BY.get(metric, metric)
    return {f.group for f in result.findings if f.metric == metric}


def forest_figure(result, metric: str = "auc", *, title: str | None = None, height=None):
    """A forest plot of one metric: each group's value and interval, the rest for reference.

    Parameters
    ----------
    result : AuditResult
        The audit.
    metric : str
        One of :data:`FOREST_METRICS` (``"calibration"``: observed minus predicted risk,
        around zero; risk models only; ``"c_index"`` and ``"observed_expected"``, around 1:
        survival models only).
    title : str, optional
        The title (default: the metric and the grouping).
    height : int, optional
        Pixels (default: grows with the number of groups).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces ``"group"`` (points with interval bars; red where a finding flags the
        group), ``"rest"`` (the value of all other rows, per group), ``"too few"`` (text
        of the groups too small to judge), and a dashed line at the value over all rows
        (zero for calibration, one for O/E).

    Raises
    ------
    ValueError
        For an unknown metric.
    """
    import plotly.graph_objects as go

    if metric not in FOREST_METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(FOREST_METRICS)}")
    name, kind = FOREST_METRICS[metric]
    table = result.table
    value, low, _, rest = _forest_columns(metric)
    # (a survival group without an event has no figures either: its note says why)
    unjudged = table["too_few"].astype(bool) | table[value].isna() & _notes(table).ne("")
    judged, few = table[~unjudged], table[unjudged]
    reference = _reference(result, metric)
    fig = go.Figure()
    fig.add_trace(_group_trace(go, result, metric, judged))
    if rest is not None:
        fig.add_trace(_rest_trace(go, judged, rest))
    fig.add_trace(_too_few_trace(go, few, _left(judged, low, reference)))
    if math.isfinite(reference):
        fig.add_vline(x=reference, line={"dash": "dash", "color": _REST, "width": 1})
    order = [str(g) for g in table["group"]]
    fig.update_yaxes(categoryorder="array", categoryarray=order[::-1], automargin=True)
    fig.update_xaxes(title_text=name, tickformat=".0%" if kind == "pct" else None)
    by = " x ".join(result.settings.get("by", ()))
    fig.update_layout(
        height=height or 140 + 34 * len(table),
        title={"text": title or f"{name} by {by}"},
        margin={"l": 20, "r": 20, "t": 60, "b": XAXIS_PX},
        legend=bottom_legend(),
    )
    return fig


def _group_trace(go, result, metric: str, judged):
    """Each judged group's value with its interval (red where a finding flags it)."""
    name, kind = FOREST_METRICS[metric]
    value, low, high, _ = _forest_columns(metric)
    flagged = (
        _flagged(result, metric) if metric in FINDING_METRICS or metric in _FLAGGED_BY else set()
    )
    x = judged[value].to_numpy(float)
    groups = [str(g) for g in judged["group"]]
    hover = [
        f"{g}<br>n = {n}<br>{name}: {fmt(v, kind)} [{fmt(lo, kind)}, {fmt(hi, kind)}]"
        for g, n, v, lo, hi in zip(groups, judged["n"], x, judged[low], judged[high], strict=True)
    ]
    return go.Scatter(
        name="group",
        x=x,
        y=groups,
        mode="markers",
        marker={
            "size": 10,
            "color": [_FLAG if g in flagged else _POINT for g in groups],
            "symbol": "square",
        },
        error_x={
            "type": "data",
            "array": np.clip(judged[high].to_numpy(float) - x, 0, None),
            "arrayminus": np.clip(x - judged[low].to_numpy(float), 0, None),
            "visible": True,
        },
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
    )


def _rest_trace(go, judged, rest: str):
    """The value of all other rows, beside each group."""
    return go.Scatter(
        name="rest",
        x=judged[rest].to_numpy(float),
        y=[str(g) for g in judged["group"]],
        mode="markers",
        marker={"symbol": "line-ns-open", "size": 16, "color": _REST, "line": {"width": 2}},
        hovertemplate="the rest: %{x}<extra></extra>",
    )


def _too_few_trace(go, few, left: float):
    """The groups too small to judge (or without an event), named with their size from
    ``left`` on."""
    return go.Scatter(
        name="too few",
        x=[left] * len(few),
        y=[str(g) for g in few["group"]],
        mode="text",
        text=[
            f"{'too few to judge' if small else note.split(':')[0]} (n = {n})"
            for small, note, n in zip(few["too_few"], _notes(few), few["n"], strict=True)
        ],
        textposition="middle right",
        textfont={"color": _REST},
        hoverinfo="skip",
        showlegend=False,
    )


def _notes(table):
    """Each group's note (``""`` for a judged group; a too small group's starts "too few")."""
    if "note" not in table:
        return pd.Series("", index=table.index)
    return table["note"].fillna("").astype(str)


def _left(judged, low: str, reference: float) -> float:
    """Where the text of the groups too small to judge starts: the left of the plot."""
    values = [v for v in judged[low].to_numpy(float) if math.isfinite(v)]
    if math.isfinite(reference):
        values.append(reference)
    return min(values) if values else 0.0


def _panel_title(result, group: str) -> str:
    row = result.table.set_index("group").loc[group]
    return "<br>".join([*wrap_words(group, 34, ", "), f"n = {int(row['n'])}"])


def group_reliability_figure(result, *, columns: int = 3, title: str | None = None):
    """One reliability diagram per group: observed against predicted risk per score.

    Parameters
    ----------
    result : AuditResult
        The audit of a risk model (a checklist predicts no risk: the figure then says so).
    columns : int
        Diagrams per row.
    title : str, optional
        The title.

    Returns
    -------
    plotly.graph_objects.Figure
        Per group with enough rows, a diagonal and a marker trace named after the group
        (marker area grows with the score's count; bars are exact intervals of the
        observed risk). Groups too small to judge are listed under the title.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    groups = list(result.reliability)
    by = " x ".join(result.settings.get("by", ()))
    table = result.table
    few = [f"{g} (n = {n})" for g, n in table.loc[table["too_few"], ["group", "n"]].to_numpy()]
    text = title or f"Reliability by {by}"
    lines = wrap_words("too few to judge: " + "; ".join(few), 110) if few else []
    for line in lines:
        text += f"<br><sup>{line}</sup>"
    if not groups:
        fig = go.Figure()
        fig.add_annotation(
            text="This model predicts no risk (a checklist): no reliability diagram.",
            showarrow=False,
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
        )
        fig.update_layout(height=240, title={"text": text})
        return fig
    columns = max(1, min(columns, len(groups)))
    rows = math.ceil(len(groups) / columns)
    fig = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=[_panel_title(result, g) for g in groups],
        horizontal_spacing=0.08,
        vertical_spacing=0.35 / rows,
    )
    fig.update_annotations(font_size=12)
    panel_lines = max(t.count("<br>") + 1 for t in (a.text for a in fig.layout.annotations))
    top = 70 + TITLE_LINE_PX * len(lines) + 16 * panel_lines
    for k, group in enumerate(groups):
        r, c = k // columns + 1, k % columns + 1
        fig.add_trace(
            go.Scatter(**diagonal_line("perfect calibration"), showlegend=k == 0), row=r, col=c
        )
        trace = go.Scatter(
            name=group,
            mode="markers",
            marker={"color": _POINT, "opacity": 0.75, "line": {"width": 1}},
            hovertemplate="%{hovertext}<extra>" + group + "</extra>",
            showlegend=False,
        )
        fill_reliability_trace(trace, result.reliability[group])
        fig.add_trace(trace, row=r, col=c)
    fig.update_xaxes(**risk_axis())
    fig.update_yaxes(**risk_axis())
    for c in range(1, columns + 1):
        fig.update_xaxes(title_text="predicted risk", row=rows, col=c)
    for r in range(1, rows + 1):
        fig.update_yaxes(title_text="observed risk", row=r, col=1)
    fig.update_layout(
        height=top + 90 + 330 * rows,
        title={"text": text, "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 20}},
        margin={"l": 60, "r": 20, "t": top, "b": XAXIS_PX},
        legend=bottom_legend(),
    )
    return fig
