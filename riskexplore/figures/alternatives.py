"""Figures beyond the optimum: how diverse a near-optimal set is, and the certified price
of each feature.

* :func:`feature_frequency_figure` -- how many models of a
  :class:`~riskexplore.evaluation.near_optimal.NearOptimalSet` use each feature (the best
  model's features marked), and the models grouped by the features they use;
* :func:`feature_price_figure` -- the certified interval of the price of leaving out each
  feature of the best model and of forcing in each other one
  (:class:`~riskexplore.evaluation.prices.FeaturePrices`).
"""

from __future__ import annotations

import dataclasses
import math

from riskexplore.core.distance import percent
from riskexplore.evaluation.metrics import roc_curve
from riskexplore.evaluation.tables import METRIC_COLUMNS, metrics_table, model_scores_or_predictions
from riskexplore.figures.layout import (
    BAR_PX,
    LEGEND_PX,
    MODEL_COLORS,
    ROW_PX,
    TWO_LINE_TOP_PX,
    XAXIS_PX,
    bottom_legend,
    column_kind,
    fmt,
    frequency_stack,
    place_subplot_titles,
    table_cells,
    table_header,
    title_with_subtitle,
)

__all__ = [
    "feature_frequency_figure",
    "feature_price_figure",
    "price_words",
    "update_model_metrics",
]

#: Colours: features of the best model (left out), the others (forced in).
IN_BEST, OUTSIDE = MODEL_COLORS[0], MODEL_COLORS[2]
#: Groups of models listed in the frequency figure's table.
MAX_GROUPS = 8


def _two_lines(text: str) -> str:
    """``"head; rest"`` as a title with ``rest`` as its subtitle."""
    head, _, rest = text.partition("; ")
    return title_with_subtitle(head, [rest] if rest else [])


def _distance(distance) -> str:
    """A distance to the best model in words: ``"as good as the best"`` (rounding noise
    below a proven optimum included), ``"0.27% worse"``, ``"2 more mistakes"``."""
    lb = float(distance.lower_bound)
    if abs(distance.absolute) <= 1e-8 * max(1.0, abs(lb)):
        return "as good as the best"
    if distance.unit == "mistakes":
        return f"{distance.absolute:g} more mistake{'s' if distance.absolute != 1 else ''}"
    if lb > 0 and math.isfinite(lb):
        return f"{percent(distance.relative)} worse"
    return f"+{fmt(distance.absolute)}"


def _unit_words(unit: str) -> str:
    return "weighted mistakes" if unit == "mistakes" else "objective"


def feature_frequency_figure(
    found,
    *,
    title: str | None = None,
    max_groups: int = MAX_GROUPS,
    feature_noun: str = "feature",
    model_noun: str = "model",
):
    """How often each feature appears in a near-optimal set, and the set grouped by the
    features its models use.

    Top: one bar per feature, the number of models that use it (the best model's
    features in blue, the others in green). Bottom: a table of the groups of models that
    use the same features (at most ``max_groups``, largest first), with how many models
    each holds and the distance of its best one to the best model.

    Parameters
    ----------
    found : NearOptimalSet
        The set.
    title : str, optional
        The title (default: the set's description).
    max_groups : int
        Groups listed in the table.
    feature_noun, model_noun : str
        Words for the features and the models (``"characteristic"``, ``"score"``).

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    counts = found.feature_counts()
    groups = list(found.by_features().items())[:max_groups]
    stack = frequency_stack(len(counts), len(groups))
    titles = (
        f"How many {model_noun}s use each {feature_noun}",
        f"{model_noun.capitalize()}s grouped by the {feature_noun}s they use",
    )
    fig = make_subplots(
        rows=2, cols=1, specs=[[{"type": "xy"}], [{"type": "table"}]], subplot_titles=titles
    )
    for trace in _frequency_bars(go, found, counts, feature_noun, model_noun):
        fig.add_trace(trace, row=1, col=1)
    fig.add_trace(_groups_table(go, groups, feature_noun, model_noun), row=2, col=1)
    bars, table = stack.domain(0), stack.domain(1)
    fig.update_layout(
        yaxis={"domain": bars, "automargin": True},
        xaxis={"title": {"text": f"{model_noun}s"}, "rangemode": "tozero"},
        barmode="overlay",
        height=stack.height,
        margin={"l": 20, "r": 20, "t": stack.top, "b": LEGEND_PX + 10},
        legend=bottom_legend(),
        title={"text": _two_lines(title or found.describe())},
    )
    fig.data[-1].domain = {"x": [0, 1], "y": table}
    place_subplot_titles(fig, titles, [(0.5, bars[1]), (0.5, table[1])])
    return fig


def _frequency_bars(go, found, counts: dict, feature_noun: str, model_noun: str) -> list:
    """A bar per feature, the most used on top (the best model's in blue, the others in
    green), and an empty bar of each colour for the legend."""
    best = set(found[0].features) if len(found) else set()
    names = list(counts)[::-1]  # the most used on top
    bars = go.Bar(
        x=[counts[n] for n in names],
        y=names,
        orientation="h",
        marker_color=[IN_BEST if n in best else OUTSIDE for n in names],
        text=[f"{counts[n]} of {len(found)}" for n in names],
        textposition="auto",
        name=f"{model_noun}s using the {feature_noun}",
        hovertemplate=f"%{{y}}: %{{x}} {model_noun}s<extra></extra>",
        showlegend=False,
    )
    legend = [
        go.Bar(x=[None], y=[None], marker_color=color, name=label, showlegend=True)
        for label, color in (
            (f"in the best {model_noun}", IN_BEST),
            (f"not in the best {model_noun}", OUTSIDE),
        )
    ]
    return [bars, *legend]


def _groups_table(go, groups: list, feature_noun: str, model_noun: str):
    """The groups of models that use the same features: how many each holds, and the
    distance of its best one to the best model (two lines a row)."""
    cells = [
        [", ".join(features) or "(none)" for features, _ in groups],
        [str(len(members)) for _, members in groups],
        [_distance(members[0].distance) for _, members in groups],
    ]
    header = [f"{feature_noun}s used", f"{model_noun}s", "the closest to the best"]
    return go.Table(
        header=table_header(header),
        cells=table_cells(cells, 2 * ROW_PX),
        columnwidth=[6, 1, 2],
    )


def _scaled(price, scale: float):
    return dataclasses.replace(price, low=price.low * scale, high=price.high * scale)


def _percent_words(price) -> str:
    """:func:`price_words` of a price already in percent (below 0.01%: ``"<0.01%"``)."""
    if math.isinf(price.low):
        return price_words(price)

    def pct(value: float) -> str:
        return "<0.01%" if 0 < value < 0.005 else f"{fmt(value)}%"

    if math.isinf(price.high):
        return f"at least {pct(price.low)}"
    low, high = pct(price.low), pct(price.high)
    return high if low == high else f"{low} to {high}"


def price_words(price) -> str:
    """A certified price interval in words (``"0.0159"``, ``"0.01 to 0.02"``,
    ``"impossible"``).

    Parameters
    ----------
    price : FeaturePrice
        The price.

    Returns
    -------
    str
        The text.
    """
    if math.isinf(price.low):
        return "impossible (no model)"
    if math.isinf(price.high):
        return f"at least {fmt(price.low)}"
    if fmt(price.low) == fmt(price.high):  # (certified: equal up to the solves' gaps)
        return fmt(price.high)
    return f"{fmt(price.low)} to {fmt(price.high)}"


def feature_price_figure(prices, *, title: str | None = None, relative: bool = False):
    """The certified price of each feature: leaving out a feature of the best model
    (blue), forcing in another one (green); a bar reaches the upper end of the interval,
    the whisker spans it.

    Parameters
    ----------
    prices : FeaturePrices
        The prices (see :func:`~riskexplore.evaluation.prices.feature_prices`).
    title : str, optional
        The title.
    relative : bool
        Show the prices as a percentage of the best model's proven bound (objective
        units only; "how much worse, in %").

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go

    unit = _unit_words(prices.unit)
    rows = list(prices.prices)[::-1]  # the table's first row on top
    scale = 1.0
    bound = getattr(getattr(prices.best, "distance", None), "lower_bound", math.nan)
    if relative and prices.unit != "mistakes" and bound > 0 and math.isfinite(bound):
        scale, unit = 100.0 / bound, "% of the best"
        rows = [_scaled(p, scale) for p in rows]
    finite_high = [p.high for p in rows if math.isfinite(p.high)]
    cap = 1.1 * max(finite_high) if finite_high else 1.0
    fig = go.Figure()
    for in_best, label, color in (
        (True, "leave out (in the best model)", IN_BEST),
        (False, "force in (not in the best model)", OUTSIDE),
    ):
        chosen = [p for p in rows if p.in_best == in_best]
        if not chosen:
            continue
        high = [p.high if math.isfinite(p.high) else cap for p in chosen]
        low = [min(p.low, h) for p, h in zip(chosen, high, strict=True)]
        fig.add_trace(
            go.Bar(
                x=high,
                y=[f"{p.action} {p.feature}" for p in chosen],
                orientation="h",
                marker_color=color,
                name=label,
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [0.0] * len(chosen),
                    "arrayminus": [h - lo for h, lo in zip(high, low, strict=True)],
                    "color": "#333",
                },
                text=[_percent_words(p) if scale != 1.0 else price_words(p) for p in chosen],
                textposition="outside",
                cliponaxis=False,
                customdata=[p.status for p in chosen],
                hovertemplate="%{y}: %{text} (%{customdata})<extra></extra>",
            )
        )
    n = max(len(rows), 1)
    height = TWO_LINE_TOP_PX + n * BAR_PX + XAXIS_PX + LEGEND_PX + 20
    heading = title or "The price of each feature (certified)"
    sub = f"how much worse the best model gets ({unit})"
    if not prices.complete:
        sub += " — stopped before every feature was priced"
    fig.update_layout(
        title={"text": title_with_subtitle(heading, [sub])},
        barmode="overlay",
        height=int(height),
        margin={"l": 20, "r": 110, "t": TWO_LINE_TOP_PX, "b": LEGEND_PX + 10},
        xaxis={"title": {"text": f"price ({unit})"}, "rangemode": "tozero"},
        yaxis={
            "automargin": True,
            "categoryorder": "array",
            "categoryarray": [f"{p.action} {p.feature}" for p in rows],
        },
        legend=bottom_legend(),
    )
    return fig


def update_model_metrics(fig, position: int, model, X, y, X_test=None, y_test=None) -> None:
    """Refill, in a :func:`~riskexplore.figures.metrics.metrics_figure`, the ROC curves and
    the table row of the model at ``position`` with ``model`` (a hand edit shown beside
    the best model: only its own curves and numbers are computed again).

    The figure's traces are the chance diagonal, one ROC curve per model and split, then
    the table (as :func:`~riskexplore.figures.metrics.metrics_figure` draws them, with
    the same splits). Call it inside ``fig.batch_update()`` for one redraw.

    Parameters
    ----------
    fig : Figure or PlotView
        The metrics figure.
    position : int
        The model's place in the figure (0: the first model drawn).
    model : fitted model
        The model now in that place.
    X, y
        Training data.
    X_test, y_test : optional
        Held-out data (given when the figure was drawn with them).
    """
    splits = [(X, y)] + ([] if X_test is None or y_test is None else [(X_test, y_test)])
    for k, (Xs, ys) in enumerate(splits):
        fpr, tpr = roc_curve(ys, model_scores_or_predictions(model, Xs))
        trace = fig.data[1 + position * len(splits) + k]
        trace.x, trace.y = fpr, tpr
    table = fig.data[-1]
    name = table.cells.values[0][position]
    row = metrics_table({name: model}, X, y, X_test, y_test)
    columns = [list(c) for c in table.cells.values]
    for c, column in enumerate(METRIC_COLUMNS, start=1):
        columns[c][position] = fmt(row[column].iloc[0], column_kind(column))
    table.cells.values = columns
