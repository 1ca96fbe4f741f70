"""The figures of a validation (:func:`riskexplore.validate`): the calibration plot and the
decision curve, both drawn from the validation's dict (``Validation.to_dict()``), so a
report, a page or a script draws the same figures from a saved JSON document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from riskexplore.errors import InputError
from riskexplore.figures.labels import Canvas, label_positions
from riskexplore.figures.layout import (
    MODEL_COLORS,
    TWO_LINE_TOP_PX,
    XAXIS_PX,
    bottom_legend,
    diagonal_line,
    fmt,
    plain_number,
    risk_axis,
    title_with_subtitle,
)

__all__ = [
    "NET_BENEFIT_FLOOR",
    "calibration_figure",
    "calibration_points_figure",
    "calibration_words",
    "decision_curve_figure",
    "interval_words",
    "validation_dict",
]

#: The width assumed for a figure drawn as wide as its place (``width=None``) when its
#: labels are placed: a narrow notebook cell's, so that they keep apart when wider too.
ASSUMED_WIDTH_PX = 600
#: The font size of the scores written beside the calibration plot's points.
LABEL_FONT_PX = 11

#: The lowest net benefit a decision curve shows: below it, "treat all" falls steeply to
#: minus infinity and would squeeze the curves that matter into a thin band.
NET_BENEFIT_FLOOR = -0.05


def validation_dict(validation: Any) -> dict[str, Any]:
    """The dict of a validation: a ``Validation`` (its ``to_dict()``) or the dict itself.

    Parameters
    ----------
    validation : Validation or mapping
        The validation.

    Returns
    -------
    dict
        The dict of the contract (``auc``, ``calibration_slope``, ``reliability``, ...).

    Raises
    ------
    InputError
        For anything else, or a dict without the keys the figures read.
    """
    return result_dict(
        validation, ("n", "reliability", "net_benefit"), "validation", "riskexplore.validate"
    )


def result_dict(result: Any, keys: Sequence[str], what: str, made_by: str) -> dict[str, Any]:
    """The dict of a result: its ``to_dict()`` or the dict itself, with ``keys`` checked.

    Parameters
    ----------
    result : object or mapping
        The result, or its ``to_dict()``.
    keys : sequence of str
        The keys the figures read.
    what, made_by : str
        The result's name and the function that makes it, for the error message.

    Returns
    -------
    dict
        A copy of the dict.

    Raises
    ------
    InputError
        For anything else, or a dict without one of ``keys``.
    """
    if hasattr(result, "to_dict") and not isinstance(result, Mapping):
        result = result.to_dict()
    if not isinstance(result, Mapping):
        raise InputError(
            f"expected a {what} ({made_by}(...)) or its to_dict(), got {type(result).__name__}"
        )
    missing = [k for k in keys if k not in result]
    if missing:
        raise InputError(f"the {what} dict lacks {', '.join(missing)}: pass v.to_dict()")
    return dict(result)


def interval_words(metric: Mapping[str, Any] | None, kind: str = "num") -> str:
    """A metric with its interval in plain words: ``0.93 (0.81 to 1.05)``, ``—`` without
    an estimate.

    Parameters
    ----------
    metric : mapping or None
        ``{"estimate", "lower", "upper"}``.
    kind : {"num", "pct"}
        How the numbers are shown (:func:`~riskexplore.figures.layout.fmt`).

    Returns
    -------
    str
        The text.
    """
    if not metric or metric.get("estimate") is None:
        return "—"

    def show(value) -> str:
        if kind == "pct":
            return fmt(value, kind)
        return plain_number(float(value), 3).replace("-", "−")

    text = show(metric["estimate"])
    low, high = metric.get("lower"), metric.get("upper")
    if low is not None and high is not None:
        text += f" ({show(low)} to {show(high)})"
    return text


def calibration_words(v: Mapping[str, Any]) -> list[str]:
    """The calibration in plain words, one line per measure, with their ideal values.

    Parameters
    ----------
    v : mapping
        A validation dict.

    Returns
    -------
    list of str
        ``calibration slope 0.93 (0.81 to 1.05), ideal 1`` and the intercept's line
        (with the confidence of the intervals named once).
    """
    level = f"{100 * float(v.get('confidence') or 0.95):.0f}%"
    return [
        f"calibration slope {interval_words(v.get('calibration_slope'))}, ideal 1; "
        f"observed/expected {interval_words(v.get('observed_expected'))}, ideal 1",
        f"calibration-in-the-large (intercept) {interval_words(v.get('calibration_intercept'))}"
        f", ideal 0 ({level} intervals)",
    ]


def _reliability_points(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Marker arrays of the reliability rows that have a predicted risk."""
    rows = [r for r in rows if r.get("predicted") is not None and r.get("observed") is not None]
    x = np.array([float(r["predicted"]) for r in rows])
    obs = np.array([float(r["observed"]) for r in rows])
    n = np.array([float(r["n"]) for r in rows])
    low = np.array([obs[i] if r.get("lower") is None else r["lower"] for i, r in enumerate(rows)])
    high = np.array([obs[i] if r.get("upper") is None else r["upper"] for i, r in enumerate(rows)])
    size = 7.0 + 23.0 * np.sqrt(n / max(n.max(initial=1.0), 1.0))
    text = [
        f"score {fmt(r['score'])}: {int(c)} patients<br>predicted {fmt(p, 'pct')}, "
        f"observed {fmt(o, 'pct')} ({fmt(lo, 'pct')} to {fmt(hi, 'pct')})"
        for r, c, p, o, lo, hi in zip(rows, n, x, obs, low, high, strict=True)
    ]
    return {
        "x": x,
        "y": obs,
        "plus": np.clip(high - obs, 0, None),
        "minus": np.clip(obs - low, 0, None),
        "size": size,
        "text": text,
        "labels": [fmt(r["score"]).replace("-", "−") for r in rows],
        "n": n,
    }


def _calibration_canvas(size: np.ndarray, width: int | None, height: int, margin) -> Canvas:
    """The plot area of a calibration plot, its risk axes widened just enough that the
    largest marker at 0% or 100% is drawn whole."""
    plot_w = (width or ASSUMED_WIDTH_PX) - margin["l"] - margin["r"]
    plot_h = height - margin["t"] - margin["b"]
    room = float(size.max(initial=0.0)) / 2 + 2

    def span(pixels: float) -> tuple[float, float]:
        pad = max(0.02, room / max(pixels - 2 * room, 1.0))
        return (-pad, 1 + pad)

    return Canvas(plot_w, plot_h, span(plot_w), span(plot_h))


def _score_labels(a: Mapping[str, Any], canvas: Canvas) -> tuple[list[str], list[str]]:
    """The scores written beside the points, where they fit (the most patients first),
    and their ``textposition``; a score that fits nowhere is only in the hover text."""
    where = label_positions(
        a["x"], a["y"], a["size"], a["labels"], canvas,
        lower=a["y"] - a["minus"], upper=a["y"] + a["plus"],
        font_size=LABEL_FONT_PX, order=np.argsort(-a["n"], kind="stable"),
    )  # fmt: skip
    text = [label if w else "" for label, w in zip(a["labels"], where, strict=True)]
    return text, [w or "middle right" for w in where]


def calibration_figure(
    validation: Any,
    *,
    title: str | None = None,
    name: str = "patients with each score (the number beside the point)",
    height: int = 480,
    width: int | None = None,
):
    """Predicted against observed risk per score, with Wilson intervals, the diagonal of
    perfect calibration, and the calibration slope and intercept in the title.

    Parameters
    ----------
    validation : Validation or mapping
        The validation (or its ``to_dict()``).
    title : str, optional
        The heading (default ``Calibration on N patients``).
    name : str
        The legend's name of the points.
    height, width : int
        The figure's size in pixels (width None: as wide as its place; its labels are
        placed for :data:`ASSUMED_WIDTH_PX`).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: the diagonal, then one marker per score (area by patients, labelled with
        the score where the label touches no other label, marker or error bar; error bars
        the Wilson interval of the observed rate).
    """
    v = validation_dict(validation)
    return calibration_points_figure(
        v["reliability"],
        heading=title or f"Calibration on {fmt(v['n'], 'int')} patients",
        subtitle=calibration_words(v),
        name=name,
        height=height,
        width=width,
    )


def calibration_points_figure(
    rows: Sequence[Mapping[str, Any]],
    *,
    heading: str,
    subtitle: Sequence[str] = (),
    name: str = "patients with each score (the number beside the point)",
    axis_titles: tuple[str, str] = ("predicted risk", "observed risk (95% Wilson interval)"),
    height: int = 480,
    width: int | None = None,
):
    """Predicted against observed risk per row of a calibration table, with the observed
    risk's interval and the diagonal of perfect calibration (shared by the binary and the
    survival validation).

    Parameters
    ----------
    rows : sequence of mapping
        ``score`` (a number or a group's name), ``n``, ``predicted``, ``observed``,
        ``lower``, ``upper``; rows without a predicted or observed risk are left out.
    heading : str
        The title.
    subtitle : sequence of str
        The lines under the title.
    name : str
        The legend's name of the points.
    axis_titles : tuple of str
        The x (predicted) and y (observed) axis titles.
    height, width : int
        The figure's size in pixels (width None: as wide as its place; its labels are
        placed for :data:`ASSUMED_WIDTH_PX`).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: the diagonal, then one marker per row (area by patients, labelled with
        the score where the label touches no other label, marker or error bar).
    """
    import plotly.graph_objects as go

    a = _reliability_points(rows)
    margin = {"l": 70, "r": 20, "t": TWO_LINE_TOP_PX + 22, "b": XAXIS_PX}
    canvas = _calibration_canvas(a["size"], width, height, margin)
    text, where = _score_labels(a, canvas)
    fig = go.Figure([go.Scatter(**diagonal_line("perfect calibration"))])
    fig.add_trace(
        go.Scatter(
            name=name,
            x=a["x"],
            y=a["y"],
            mode="markers+text",
            text=text,
            textposition=where,
            textfont={"size": LABEL_FONT_PX, "color": "#444"},
            error_y={"type": "data", "array": a["plus"], "arrayminus": a["minus"]},
            marker={"size": a["size"], "color": MODEL_COLORS[0], "opacity": 0.75},
            hovertext=a["text"],
            hovertemplate="%{hovertext}<extra></extra>",
            cliponaxis=False,  # a large marker at 0% or 100% is drawn whole, with its label
        )
    )
    fig.update_xaxes({**risk_axis(axis_titles[0]), "range": list(canvas.x_range)})
    fig.update_yaxes({**risk_axis(axis_titles[1]), "range": list(canvas.y_range)})
    fig.update_layout(
        height=height,
        width=width,
        title={"text": title_with_subtitle(heading, subtitle), "x": 0.02},
        margin=margin,
        legend=bottom_legend(),
        plot_bgcolor="white",
    )
    fig.update_xaxes(gridcolor="#eee")
    fig.update_yaxes(gridcolor="#eee")
    return fig


def _net_benefit_range(rows: Sequence[Mapping[str, Any]], floor: float) -> list[float]:
    """The y range: from ``floor`` to a little above the best net benefit shown."""
    best = max(
        (float(r[k]) for r in rows for k in ("model", "treat_all") if r.get(k) is not None),
        default=0.0,
    )
    top = max(best, 0.01)
    return [floor, top + 0.08 * (top - floor)]


def decision_curve_figure(
    validation: Any,
    *,
    title: str | None = None,
    floor: float = NET_BENEFIT_FLOOR,
    height: int = 440,
    width: int | None = None,
):
    """The decision curve: net benefit of the model, of treating everyone and of treating
    no one, for each threshold risk at which one would treat.

    Parameters
    ----------
    validation : Validation or mapping
        The validation (or its ``to_dict()``).
    title : str, optional
        The heading (default ``Decision curve on N patients``).
    floor : float
        The lowest net benefit shown (:data:`NET_BENEFIT_FLOOR`).
    height, width : int
        The figure's size in pixels (width None: as wide as its place).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces ``model``, ``treat all``, ``treat none`` over the thresholds.
    """
    import plotly.graph_objects as go

    v = validation_dict(validation)
    rows = v["net_benefit"]
    t = [float(r["threshold"]) for r in rows]
    heading = title or f"Decision curve on {fmt(v['n'], 'int')} patients"
    words = [
        "net benefit = true positives/n − false positives/n × t/(1 − t), "
        "treating when the predicted risk ≥ threshold t",
    ]
    fig = go.Figure()
    for key, label, color, dash in (
        ("model", "the model", MODEL_COLORS[0], None),
        ("treat_all", "treat all", "#888", "dash"),
        ("treat_none", "treat none", "#222", "dot"),
    ):
        fig.add_trace(
            go.Scatter(
                name=label,
                x=t,
                y=[None if r.get(key) is None else float(r[key]) for r in rows],
                mode="lines",
                line={"color": color, "dash": dash, "width": 2.5 if key == "model" else 1.5},
                hovertemplate="threshold %{x:.0%}: net benefit %{y:.3f}<extra>"
                + label
                + "</extra>",
            )
        )
    fig.update_xaxes(title_text="threshold risk t", range=[0, 1], tickformat=".0%")
    fig.update_yaxes(
        title_text="net benefit (per patient)",
        range=_net_benefit_range(rows, floor),
        tickformat=".2f",
        zeroline=True,
    )
    fig.update_layout(
        height=height,
        width=width,
        title={"text": title_with_subtitle(heading, words), "x": 0.02},
        margin={"l": 70, "r": 20, "t": TWO_LINE_TOP_PX, "b": XAXIS_PX},
        legend=bottom_legend(),
        plot_bgcolor="white",
    )
    fig.update_xaxes(gridcolor="#eee")
    fig.update_yaxes(gridcolor="#eee", zerolinecolor="#bbb")
    return fig
