"""The figures of a survival validation
(:func:`~riskexplore.evaluation.survival.validation.validate_survival`): Kaplan-Meier curves
by score group and calibration at the horizon, both drawn from the validation's dict
(``SurvivalValidation.to_dict()``), so a report, a page or a script draws the same figures
from a saved JSON document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskexplore.errors import InputError
from riskexplore.evaluation.survival.result import horizon_words
from riskexplore.figures.layout import (
    TWO_LINE_TOP_PX,
    XAXIS_PX,
    bottom_legend,
    fmt,
    plain_number,
    title_with_subtitle,
)
from riskexplore.figures.validation import (
    calibration_points_figure,
    interval_words,
    result_dict,
)

__all__ = [
    "km_figure",
    "survival_calibration_figure",
    "survival_validation_dict",
]

#: The part of the Viridis scale the groups' colours come from (its light yellow end is
#: hard to see on white), lowest scores darkest.
COLOR_SPAN = (0.0, 0.8)
#: The opacity of an interval band.
BAND_OPACITY = 0.15


def survival_validation_dict(validation: Any) -> dict[str, Any]:
    """The dict of a survival validation: its ``to_dict()`` or the dict itself.

    Parameters
    ----------
    validation : SurvivalValidation or mapping
        The validation.

    Returns
    -------
    dict
        The dict (``n``, ``horizon``, ``km_curves``, ``group_calibration``, ...).

    Raises
    ------
    InputError
        For anything else, or a dict without the keys the figures read.
    """
    keys = ("n", "horizon", "km_curves", "calibration", "group_calibration")
    return result_dict(validation, keys, "survival validation", "validate_survival")


def _colors(k: int) -> list[str]:
    """``k`` colours in order, dark (low scores) to light (high scores)."""
    from plotly.colors import sample_colorscale

    low, high = COLOR_SPAN
    points = [low + (high - low) * i / max(k - 1, 1) for i in range(k)]
    return sample_colorscale("Viridis", points)


def _band_color(rgb: str) -> str:
    """``rgb(r, g, b)`` as the translucent fill of a band."""
    return rgb.replace("rgb(", "rgba(").replace(")", f", {BAND_OPACITY})")


def _curve_traces(curve: Mapping[str, Any], color: str, time_label: str) -> list[dict]:
    """A group's interval band (two traces) and its step curve, from time 0."""
    t = [0.0, *curve["time"]]
    survival = [1.0, *curve["survival"]]
    lower = [1.0, *(v if v is not None else 0.0 for v in curve["lower"])]
    upper = [1.0, *(v if v is not None else 0.0 for v in curve["upper"])]
    at_risk = [curve["patients"], *curve["at_risk"]]
    name = f"{curve['label']} ({curve['patients']} patients)"
    common = {"x": t, "mode": "lines", "legendgroup": curve["label"]}
    hover = [
        f"{curve['label']}: {fmt(s, 'pct')} free of the event at {time_label} "
        f"{plain_number(float(x))} ({fmt(lo, 'pct')} to {fmt(hi, 'pct')}); "
        f"{int(n)} still followed"
        for x, s, lo, hi, n in zip(t, survival, lower, upper, at_risk, strict=True)
    ]
    band = {
        "showlegend": False,
        "hoverinfo": "skip",
        "line": {"width": 0, "color": color, "shape": "hv"},
    }
    return [
        {**common, **band, "y": upper, "name": f"{name}, upper"},
        {**common, **band, "y": lower, "name": f"{name}, lower", "fill": "tonexty",
         "fillcolor": _band_color(color)},
        {**common, "y": survival, "name": name,
         "line": {"width": 2.5, "color": color, "shape": "hv"}, "hovertext": hover,
         "hovertemplate": "%{hovertext}<extra></extra>"},
    ]  # fmt: skip


def km_figure(
    validation: Any,
    *,
    title: str | None = None,
    time_label: str = "time",
    height: int = 480,
    width: int | None = None,
):
    """Kaplan-Meier curves of the score groups, with their interval bands and the horizon.

    Parameters
    ----------
    validation : SurvivalValidation or mapping
        The validation (or its ``to_dict()``).
    title : str, optional
        The heading (default ``Survival by score group on N patients``).
    time_label : str
        The time axis' name with its unit (``"days since the heart attack"``).
    height, width : int
        The figure's size in pixels (width None: as wide as its place).

    Returns
    -------
    plotly.graph_objects.Figure
        Per group (lowest scores first): the band's upper and lower edge (filled between),
        then the step curve, named ``score 0 to 1 (120 patients)`` in the legend below the
        plot; a dotted vertical line at the horizon.
    """
    import plotly.graph_objects as go

    v = survival_validation_dict(validation)
    curves = v["km_curves"]
    fig = go.Figure()
    for curve, color in zip(curves, _colors(len(curves)), strict=True):
        for trace in _curve_traces(curve, color, time_label):
            fig.add_trace(go.Scatter(**trace))
    horizon = float(v["horizon"])
    fig.add_vline(x=horizon, line={"dash": "dot", "color": "#666", "width": 1})
    fig.add_annotation(
        x=horizon, y=1.0, yref="y", text=f"horizon {horizon_words(horizon, v.get('time_unit'))}",
        showarrow=False,
        xanchor="left", yanchor="bottom", xshift=4, font={"size": 11, "color": "#444"},
    )  # fmt: skip
    level = f"{plain_number(100 * float(v.get('confidence') or 0.95))}%"
    words = [
        f"shaded: {level} interval; adjacent scores grouped so that each group has at least "
        f"{fmt(v.get('min_group_rows'), 'int')} patients",
    ]
    heading = title or f"Survival by score group on {fmt(v['n'], 'int')} patients"
    fig.update_xaxes(title_text=time_label, rangemode="tozero", gridcolor="#eee")
    fig.update_yaxes(
        title_text="free of the event", range=[0, 1.06], tickformat=".0%", gridcolor="#eee"
    )
    fig.update_layout(
        height=height,
        width=width,
        title={"text": title_with_subtitle(heading, words), "x": 0.02},
        margin={"l": 70, "r": 20, "t": TWO_LINE_TOP_PX, "b": XAXIS_PX},
        legend=bottom_legend(),
        plot_bgcolor="white",
        hovermode="closest",
    )
    return fig


def _calibration_rows(v: Mapping[str, Any], by: str) -> list[dict[str, Any]]:
    """The calibration table's rows in the shape of the binary calibration plot's."""
    if by not in ("group", "score"):
        raise InputError(f"by must be 'group' or 'score', got {by!r}")
    rows = v["group_calibration"] if by == "group" else v["calibration"]
    return [
        {
            "score": r["group"].removeprefix("score ") if by == "group" else r["score"],
            "n": r["patients"],
            "predicted": r["predicted_risk"],
            "observed": r["observed_risk"],
            "lower": r["lower"],
            "upper": r["upper"],
        }
        for r in rows
    ]


def survival_calibration_figure(
    validation: Any,
    *,
    by: str = "group",
    title: str | None = None,
    height: int = 480,
    width: int | None = None,
):
    """Predicted against observed risk by the horizon, per score group (or score), with
    the observed risk's Kaplan-Meier interval and the diagonal of perfect calibration.

    Parameters
    ----------
    validation : SurvivalValidation or mapping
        The validation (or its ``to_dict()``).
    by : {"group", "score"}
        One point per score group (the Kaplan-Meier curves' groups) or per total score.
    title : str, optional
        The heading (default ``Calibration by 365 days on N patients``: the horizon with the
        model's time unit; ``by time 365`` without one).
    height, width : int
        The figure's size in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        The diagonal, then one marker per group or score (area by patients); the
        calibration slope and O/E in the subtitle.
    """
    v = survival_validation_dict(validation)
    # "by 365 days" with the model's unit; "by time 365" when the unit is unknown
    horizon = horizon_words(float(v["horizon"]), v.get("time_unit") or None)
    when = f"by {horizon}" if v.get("time_unit") else f"by time {horizon}"
    level = f"{plain_number(100 * float(v.get('confidence') or 0.95))}%"
    words = [
        f"calibration slope {interval_words(v.get('calibration_slope'))}, ideal 1; "
        f"observed/expected {interval_words(v.get('observed_expected'))}, ideal 1",
        f"observed: 1 − Kaplan-Meier at {horizon} ({level} intervals)",
    ]
    what, beside = ("score group", "its scores") if by == "group" else ("score", "the score")
    return calibration_points_figure(
        _calibration_rows(v, by),
        heading=title or f"Calibration {when} on {fmt(v['n'], 'int')} patients",
        subtitle=words,
        name=f"patients in each {what} ({beside} beside the point)",
        axis_titles=(f"predicted risk {when}", f"observed risk {when}"),
        height=height,
        width=width,
    )
