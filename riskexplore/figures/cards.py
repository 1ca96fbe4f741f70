"""A fitted model's card as a static figure (score card or checklist)."""

from __future__ import annotations

import html

from riskexplore.figures.layout import HEADER_FILL

__all__ = ["card_figure"]


def card_figure(model, *, title: str | None = None):
    """A static figure of a fitted model (score card or checklist) with its certificate.

    A risk score gives two tables (points per feature; risk per score), a checklist one
    table of check boxes; the certificate line is the subtitle.

    Parameters
    ----------
    model : RiskScore or Checklist
        The fitted model.
    title : str, optional
        The figure's title (default: the model's).

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
