"""Two models side by side: their cards, reliability diagrams, metrics and the certified
price of the constraints that separate them."""

from __future__ import annotations

import html
import math

from riskexplore.core.registry import family_of
from riskexplore.evaluation.tables import reliability_tables
from riskexplore.figures.layout import (
    BOX_ROW_PX,
    HEADER_PX,
    LEGEND_PX,
    ROW_PX,
    SUBTITLE_PX,
    TITLE_LINE_PX,
    XAXIS_PX,
    domain,
    fmt,
    place_subplot_titles,
    table_px,
    text_lines,
    wrap_words,
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
    models = comparison.models
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
    header = {"fill_color": "#eeeeee", "align": "left", "height": HEADER_PX}
    card_px = 0
    for col, model in ((1, models[0]), (2, models[1])):
        head, cells = model_card_table(model)
        checklist = head == ["", "item"]
        # a checklist's box column narrow, its items wide; a score's features wide
        widths, text, row_px = (
            ([1, 9], cells[1], BOX_ROW_PX) if checklist else ([3, 1], cells[0], ROW_PX)
        )
        wrapped = sum(text_lines(t, 40 if checklist else 30) - 1 for t in text)
        card_px = max(card_px, table_px(len(text), row_px=row_px, wrapped_lines=wrapped))
        fig.add_trace(
            go.Table(
                header={**header, "values": head},
                cells={"values": cells, "align": "left", "height": row_px},
                columnwidth=widths,
            ),
            row=1,
            col=col,
        )
    for col, model in ((1, models[0]), (2, models[1])):
        tables = {}
        if model is not None and X is not None and y is not None:
            tables = reliability_tables(model, X, y, X_test, y_test)
        traces = reliability_traces(go, showlegend=col == 1)
        traces[1].legendgroup, traces[2].legendgroup = "train", "test"
        for trace in traces[1:]:
            fill_reliability_trace(trace, tables.get(trace.name))
        for trace in traces:
            fig.add_trace(trace, row=2, col=col)
    head, cells = _delta_table(comparison)
    fig.add_trace(
        go.Table(
            header={**header, "values": head},
            cells={"values": cells, "align": "left", "height": ROW_PX},
            columnwidth=[1.2, 1, 1, 1],
        ),
        row=3,
        col=1,
    )
    metrics_px = table_px(len(cells[0]), header_lines=max(text_lines(h, 28) for h in head))

    price = price_text(comparison.price_of_constraints, in_mistakes=counts_mistakes(comparison))
    constraints = "; ".join(comparison.constraints)
    heading = title or f"{a} vs {b}"
    sub_lines = [price]
    if constraints:
        sub_lines += wrap_words(f"constraints: {constraints}")
    sub = "<br>".join(html.escape(line) for line in sub_lines)

    # pixels, top to bottom: the title and its subtitle lines, the cards' titles, the
    # cards, the diagrams' titles, the diagrams, their x axes and legend, the metrics
    # table's title and the table, the bottom margin; the tables get every row (a
    # clipped table scrolls, and hides rows in a saved figure)
    title_top = 16
    top = title_top + 18 + TITLE_LINE_PX * len(sub_lines) + SUBTITLE_PX
    gap_cards = SUBTITLE_PX + 20
    gap_diagrams = XAXIS_PX + LEGEND_PX + SUBTITLE_PX + 10
    bottom = 20
    diagram_px = 300
    fixed = top + card_px + gap_cards + gap_diagrams + metrics_px + bottom
    if height is not None:
        diagram_px = max(220, int(height) - fixed)
    plot_px = card_px + gap_cards + diagram_px + gap_diagrams + metrics_px
    cards = domain(0, card_px, plot_px)
    diagrams = domain(card_px + gap_cards, diagram_px, plot_px)
    metrics = domain(plot_px - metrics_px, metrics_px, plot_px)
    fig.data[0].domain.y = fig.data[1].domain.y = cards
    fig.data[-1].domain.y = metrics
    for col in (1, 2):
        fig.update_xaxes(
            title_text="predicted risk", range=[-0.02, 1.02], tickformat=".0%", row=2, col=col
        )
        fig.update_yaxes(
            title_text="observed risk",
            range=[-0.02, 1.02],
            tickformat=".0%",
            domain=diagrams,
            row=2,
            col=col,
        )
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
    fig.update_layout(
        height=top + plot_px + bottom,
        title={
            "text": f"{html.escape(heading)}<br><sup>{sub}</sup>",
            "yref": "container",
            "y": 1 - title_top / (top + plot_px + bottom),
            "yanchor": "top",
        },
        margin={"l": 60, "r": 20, "t": top, "b": bottom},
        # under the diagrams' axis titles, above the metrics table's title
        legend={
            "orientation": "h",
            "x": 0.5,
            "xanchor": "center",
            "y": domain(card_px + gap_cards + diagram_px + XAXIS_PX, 0, plot_px)[1],
            "yanchor": "top",
        },
    )
    return fig
