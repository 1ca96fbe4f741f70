"""A fitted model's card as a static figure (score card or checklist)."""

from __future__ import annotations

import html

from riskexplore.core.registry import family_of
from riskexplore.figures.layout import HEADER_FILL

__all__ = ["card_figure"]


def card_figure(model, *, title: str | None = None):
    """A static figure of a fitted model (score card or checklist) with its certificate.

    A risk score gives two tables (points per feature; risk per score), a checklist one
    table of check boxes; the certificate line is the subtitle. A risk score fitted on a
    raw table lists its items by source variable (``age | ≥ 75 | +2``), and says
    "per unit" only for a feature used as a number.

    Parameters
    ----------
    model : RiskScore or Checklist
        The fitted model.
    title : str, optional
        The figure's title (default: the model's own ``title()``, e.g. a risk score's
        intercept as on its text card).

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    cert = model.certificate_line()
    header = {"fill_color": HEADER_FILL, "align": "left", "font": {"size": 13}}
    cells = {"align": "left", "height": 26, "font": {"size": 13}}
    if hasattr(model, "score_table"):
        columns, values, widths = _points_columns(model)
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
                header={**header, "values": columns},
                cells={**cells, "values": values},
                columnwidth=widths,
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
        n_rows = len(values[0]) + len(scores)
    else:
        items = list(getattr(model, "items", []))
        fig = go.Figure(
            go.Table(
                header={**header, "values": ["", "item"]},
                cells={**cells, "values": [["☐"] * len(items), items or ["(no items)"]]},
                columnwidth=[1, 8],
            )
        )
        n_rows = len(items) + 2
    heading = title or (model.title() if hasattr(model, "title") else family_of(model).label)
    fig.update_layout(
        title={"text": f"{html.escape(heading)}<br><sup>{html.escape(cert)}</sup>"},
        height=int(min(900, 140 + 30 * n_rows)),
        margin={"l": 20, "r": 20, "t": 80, "b": 10},
    )
    return fig


def _points_columns(model) -> tuple[list[str], list[list[str]], list[int]]:
    """The header, columns and widths of a score card's points table: by source variable
    (each variable once, above its items) for a model fitted on a raw table, else one
    column of feature names; points as ``+2`` (``+1 per unit`` for a number)."""
    rows = model.card_rows() if hasattr(model, "card_rows") else []
    points = [f"{r.points:+d}" + (" per unit" if r.per_unit else "") for r in rows] or ["0"]
    if getattr(model, "binarizer", None) is None:
        return ["feature", "points"], [[r.name for r in rows] or ["(no features)"], points], [3, 1]
    shown = [
        r.variable if k == 0 or rows[k - 1].variable != r.variable else ""
        for k, r in enumerate(rows)
    ]
    return (
        ["variable", "item", "points"],
        [shown or ["(no features)"], [r.label for r in rows] or [""], points],
        [2, 2, 1],
    )


def _risk(percent: float) -> str:
    if percent < 0.1:
        return "<0.1%"
    if percent > 99.9:
        return ">99.9%"
    return f"{percent:.1f}%"
