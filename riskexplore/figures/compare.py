"""Two models side by side: their cards, reliability diagrams, metrics and the certified
price of the constraints that separate them."""

from __future__ import annotations

import math
from typing import Any

from riskexplore.core.registry import family_of
from riskexplore.evaluation.tables import reliability_tables
from riskexplore.figures.layout import (
    BOX_ROW_PX,
    COMPARE_TITLE_TOP_PX,
    ROW_PX,
    XAXIS_PX,
    Stack,
    compare_stack,
    fmt,
    header_lines,
    place_subplot_titles,
    risk_axis,
    table_cells,
    table_header,
    table_px,
    title_with_subtitle,
    wrap_words,
    wrapped_table_px,
)
from riskexplore.figures.reliability import fill_reliability_trace, reliability_traces

__all__ = ["compare_figure", "model_card_table", "price_text"]


def model_card_table(model) -> tuple[list[str], list[list[str]]]:
    """``(header, columns)`` of a model's card as a table (see
    :attr:`~riskexplore.core.registry.ModelFamily.card_table`).

    Parameters
    ----------
    model : fitted model or None
        The model.

    Returns
    -------
    tuple
        The header and the columns.
    """
    if model is None:
        return ["", ""], [["(no model)"], [""]]
    return family_of(model).card_table(model)


def price_text(price, *, in_mistakes: bool = False) -> str:
    """The certified price interval in words.

    Parameters
    ----------
    price : (float, float) or None
        The certified interval, or None when not certified.
    in_mistakes : bool, default False
        Say the price in training mistakes (checklists whose objective counts mistakes,
        see :func:`counts_mistakes`) rather than in the objective.

    Returns
    -------
    str
        The text.
    """
    if in_mistakes and price is not None and all(map(math.isfinite, price)):
        return _mistakes_text(price)
    if price is None:
        return "price of the constraints: not certified (the two problems are not nested)"
    lo, hi = price
    if math.isinf(lo):
        return "price of the constraints: infinite (the constraints admit no model)"
    head = "certified price of the constraints"
    if math.isinf(hi):
        return f"{head}: at least {fmt(lo)} in the objective (the search with them found none)"
    if hi <= 1e-9:
        return f"{head}: nothing (the best model with them is as good as the best without)"
    if lo <= 1e-9:
        most = fmt(hi)
        most = f"less than {most[2:]}" if most.startswith("<") else f"at most {most}"
        return f"{head}: {most} in the objective the search minimises"
    if fmt(lo) == fmt(hi):
        return f"{head}: {fmt(hi)} in the objective the search minimises"
    return f"{head}: between {fmt(lo)} and {fmt(hi)} in the objective the search minimises"


def counts_mistakes(comparison) -> bool:
    """Whether both models' objective is their number of training mistakes (checklists
    with unit weights: the objective adds only tie-breaking terms below one half).

    Parameters
    ----------
    comparison : Comparison
        The comparison.

    Returns
    -------
    bool
        True when the price can be said in mistakes.
    """
    for model in comparison.models:
        stats = getattr(model, "stats", None) or {}
        objective, errors = stats.get("objective"), stats.get("train_errors")
        if getattr(model, "M", None) is None or objective is None or errors is None:
            return False
        if not abs(float(objective) - float(errors)) < 0.5:
            return False
        if not float(errors).is_integer():  # weighted rows: the price is not whole mistakes
            return False
    return True


def _mistakes_text(price: tuple[float, float]) -> str:
    # the objective is mistakes plus tie-breaking terms below one half, so the difference
    # in mistakes D meets lo - 1/2 < D < hi + 1/2
    lo, hi = price
    fewest, most = max(0, math.ceil(lo - 0.5)), math.floor(hi + 0.5)
    head = "certified price of the rules"
    if most <= 0:
        return f"{head}: none (the best checklist with them makes no more training mistakes)"

    def many(n: int) -> str:
        return f"{n} more training mistake" + ("" if n == 1 else "s")

    if fewest >= most:
        return f"{head}: {many(most)}"
    return f"{head}: between {fewest} and {many(most)}"


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
        va.append(fmt(x, kind))
        vb.append(fmt(z, kind))
        try:
            d = float(z) - float(x)
            delta.append(("+" if d > 0 else "") + fmt(d, kind))
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

    Parameters
    ----------
    comparison : Comparison
        Two models (see :mod:`riskexplore.evaluation.compare`).
    X, y : optional
        Training data (for the reliability diagrams).
    X_test, y_test : optional
        Held-out data.
    title : str, optional
        The title (default: ``"<a> vs <b>"``).
    height : int, optional
        Pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    a, b = comparison.names
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
    cards = [_card_table(go, model) for model in comparison.models]
    for col, (card, _) in enumerate(cards, start=1):
        fig.add_trace(card, row=1, col=col)
    for col, model in enumerate(comparison.models, start=1):
        for trace in _reliability(go, model, X, y, X_test, y_test, showlegend=col == 1):
            fig.add_trace(trace, row=2, col=col)
    metrics, metrics_px = _metrics_table(go, comparison)
    fig.add_trace(metrics, row=3, col=1)
    sub_lines = _subtitle_lines(comparison)
    stack = compare_stack(max(px for _, px in cards), metrics_px, len(sub_lines), height)
    _place_bands(fig, stack, titles)
    _frame(fig, stack, title_with_subtitle(title or f"{a} vs {b}", sub_lines))
    return fig


def _frame(fig, stack: Stack, title: str) -> None:
    """The figure's height and margins, the title at the top and the legend under the
    diagrams' axis titles (above the metrics table's title)."""
    fig.update_layout(
        height=stack.height,
        title={
            "text": title,
            "yref": "container",
            "y": stack.container_y(COMPARE_TITLE_TOP_PX),
            "yanchor": "top",
        },
        margin={"l": 60, "r": 20, "t": stack.top, "b": stack.bottom},
        legend={
            "orientation": "h",
            "x": 0.5,
            "xanchor": "center",
            "y": stack.below(1, XAXIS_PX),
            "yanchor": "top",
        },
    )


def _card_table(go, model) -> tuple[Any, int]:
    """A model's card as a table, and the height it needs to show every row."""
    head, cells = model_card_table(model)
    if head == ["", "item"]:  # a checklist: its box column narrow, its items wide
        widths, text, chars, row_px = [1, 9], cells[1], 40, BOX_ROW_PX
    else:  # a score: its features wide
        widths, text, chars, row_px = [3, 1], cells[0], 30, ROW_PX
    table = go.Table(
        header=table_header(head),
        cells=table_cells(cells, row_px),
        columnwidth=widths,
    )
    return table, wrapped_table_px(text, chars, row_px=row_px)


def _reliability(go, model, X, y, X_test, y_test, *, showlegend: bool) -> list:
    """A model's reliability diagram (empty without a model or data)."""
    tables = {}
    if model is not None and X is not None and y is not None:
        tables = reliability_tables(model, X, y, X_test, y_test)
    traces = reliability_traces(go, showlegend=showlegend)
    traces[1].legendgroup, traces[2].legendgroup = "train", "test"
    for trace in traces[1:]:
        fill_reliability_trace(trace, tables.get(trace.name))
    return traces


def _metrics_table(go, comparison) -> tuple[Any, int]:
    """Both models' metrics and their deltas as a table, and the height it needs."""
    head, cells = _delta_table(comparison)
    table = go.Table(
        header=table_header(head), cells=table_cells(cells), columnwidth=[1.2, 1, 1, 1]
    )
    return table, table_px(len(cells[0]), header_lines=header_lines(head, 28))


def _subtitle_lines(comparison) -> list[str]:
    """The certified price of the constraints, then the constraints (wrapped)."""
    price = price_text(comparison.price_of_constraints, in_mistakes=counts_mistakes(comparison))
    constraints = "; ".join(comparison.constraints)
    return [price] + (wrap_words(f"constraints: {constraints}") if constraints else [])


def _place_bands(fig, stack: Stack, titles) -> None:
    """Give the cards, the diagrams and the metrics table the heights of ``stack`` (the
    tables every row: a clipped table scrolls, and hides rows in a saved figure), with
    their titles just above them."""
    cards, diagrams, metrics = (stack.domain(k) for k in range(3))
    fig.data[0].domain.y = fig.data[1].domain.y = cards
    fig.data[-1].domain.y = metrics
    for col in (1, 2):
        fig.update_xaxes(**risk_axis("predicted risk"), row=2, col=col)
        fig.update_yaxes(**risk_axis("observed risk"), domain=diagrams, row=2, col=col)
    centers = [sum(fig.data[0].domain.x) / 2, sum(fig.data[1].domain.x) / 2]
    place_subplot_titles(
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
