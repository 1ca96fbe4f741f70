"""The model as a clinician would print it, with its certificate beside it.

:func:`model_html` and :func:`certificate_html` are plain functions (HTML strings);
:class:`ModelCardView` is the widget that shows them and is reused by the solve monitor
for the incumbent while a solve runs. Works for :class:`~riskexplore.RiskScore` and
:class:`~riskexplore.Checklist` alike.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from riskexplore.core.certificate import Certificate
from riskexplore.core.registry import family_of_incumbent
from riskexplore.figures.cards import card_figure
from riskexplore.figures.layout import plain_number
from riskexplore.figures.progress import incumbent_text

__all__ = [
    "YES_NO_ONLY",
    "ModelCardView",
    "certificate_html",
    "incumbent_model",
    "message_html",
    "model_html",
    "show_figure",
    "show_yes_no_only",
]

#: What the panels of a 0/1 outcome say in survival mode.
YES_NO_ONLY = (
    "This panel is for yes/no outcomes. For a survival score, see its risk table in step 4 "
    "and the Kaplan-Meier curves by score group."
)

_STATUS_WORDS = {
    "optimal": "certified optimal",
    "time_limit": "stopped at the time limit",
    "node_limit": "stopped at the node limit",
    "stopped": "stopped on request",
    "numerical": "search ended; some regions' LPs could not be solved exactly",
    "infeasible": "infeasible",
    "solving": "best so far (solve running)",
    "alternative": "near-optimal alternative",
    "edited": "edited by hand",
}

_BOX = (
    'style="font-family:system-ui,sans-serif;display:inline-block;vertical-align:top;'
    'border:1px solid #bbb;border-radius:6px;padding:10px 14px"'
)
#: The model and its certificate side by side, or one under the other when the page is
#: narrow: the gap keeps the boxes apart either way (a margin on one side of one box left
#: them touching, the certificate shifted right, once it wrapped under a wide card).
_SIDE_BY_SIDE = "display:flex;flex-wrap:wrap;align-items:flex-start;gap:8px 12px"


def _num(value: Any, digits: int = 6) -> str:
    if value is None:
        return "n/a"
    value = float(value)
    if not math.isfinite(value):
        return "none yet" if value > 0 else "n/a"
    return plain_number(value, digits)  # plain decimals: never 8.15708e-108


def certificate_html(model) -> str:
    """The certificate and solve statistics of a fitted model as a small HTML table.

    Parameters
    ----------
    model : RiskScore or Checklist
        The fitted model.

    Returns
    -------
    str
        HTML.
    """
    esc = html.escape
    cert = getattr(model, "certificate", None)
    stats = dict(getattr(model, "stats", None) or {})
    rows: list[tuple[str, str]] = []
    if cert is None:
        rows.append(("status", "no optimality certificate"))
    else:
        rows.append(("status", _STATUS_WORDS.get(cert.status, cert.status)))
        gap = "unknown" if not math.isfinite(cert.gap) else f"{100 * cert.gap:.2f}%"
        rows.append(("optimality gap", gap))
        rows.append(("objective (best model)", _num(cert.upper_bound)))
        rows.append(("proven lower bound", _num(cert.lower_bound)))
    if stats.get("loss") is not None:
        rows.append((getattr(model, "loss_name", "logistic loss"), _num(stats["loss"])))
    if getattr(model, "scale", None) == "learned":  # risk = sigma(score / m)
        rows.append(("risk scale: multiplier m", plain_number(model.multiplier)))
    if stats.get("train_error") is not None:
        rows.append(("training error", f"{100 * float(stats['train_error']):.1f}%"))
    for key, label in (("nodes", "nodes"), ("cuts", "cuts")):
        if stats.get(key) is not None:
            rows.append((label, str(stats[key])))
    if stats.get("time") is not None:
        rows.append(("time", f"{float(stats['time']):.2f} s"))
    td = 'style="padding:2px 8px;border-bottom:1px solid #eee"'
    body = "".join(
        f"<tr><td {td}>{esc(k)}</td><td {td} align='right'>{esc(v)}</td></tr>" for k, v in rows
    )
    return (
        f'<div class="rx-certificate" {_BOX}>'
        '<div style="font-weight:bold;margin-bottom:4px">Certificate</div>'
        f'<table style="border-collapse:collapse">{body}</table></div>'
    )


def model_html(model, heading: str | None = None) -> str:
    """The printable model (``model.to_html()``) with its certificate beside it.

    Parameters
    ----------
    model : RiskScore or Checklist
        The fitted model.
    heading : str, optional
        A heading above the card.

    Returns
    -------
    str
        HTML.
    """
    top = (
        f'<div style="font-weight:bold;margin:4px 0">{html.escape(heading)}</div>'
        if heading
        else ""
    )
    return (
        f'<div class="rx-model-card">{top}'
        f'<div style="{_SIDE_BY_SIDE}">'
        f"<div>{model.to_html()}</div>{certificate_html(model)}</div></div>"
    )


def message_html(text: str, level: str = "error") -> str:
    """A readable message box (``level`` is ``"error"``, ``"warning"`` or ``"info"``).

    Parameters
    ----------
    text : str
        The message (HTML-escaped).
    level : {"error", "warning", "info"}
        Its colours.

    Returns
    -------
    str
        HTML.
    """
    colors = {
        "error": ("#fdecea", "#b71c1c"),
        "warning": ("#fff8e1", "#8a6d00"),
        "info": ("#e8f4fd", "#0d47a1"),
    }
    bg, fg = colors.get(level, colors["info"])
    return (
        f'<div class="rx-message rx-{html.escape(level)}" style="background:{bg};color:{fg};'
        f'padding:6px 10px;border-radius:4px;font-family:system-ui,sans-serif">'
        f"{html.escape(text)}</div>"
    )


def incumbent_model(
    incumbent: Mapping[str, Any],
    upper_bound: float = math.inf,
    lower_bound: float = -math.inf,
    time: float | None = None,
    template=None,
):
    """A model object of the incumbent's family for a solver incumbent dictionary.

    The certificate has status ``"solving"`` with the bounds at that moment. ``template``
    (an earlier model of the same problem) supplies feature ranges and names.

    Parameters
    ----------
    incumbent : mapping
        The ``incumbent`` of a solve event.
    upper_bound, lower_bound : float
        The bounds at that moment.
    time : float, optional
        Seconds since the solve started.
    template : model, optional
        An earlier model of the same problem.

    Returns
    -------
    model
        A :class:`RiskScore`, :class:`Checklist`, ... of the incumbent.

    Raises
    ------
    ValueError
        If no family reports incumbents like this one.
    """
    family = family_of_incumbent(incumbent)
    if family is None:
        raise ValueError(f"unknown incumbent {dict(incumbent)!r}")
    cert = Certificate.from_bounds("solving", upper_bound, lower_bound)
    stats = {"time": float(time)} if time is not None else {}
    return family.from_incumbent(incumbent, cert, stats, template)


class ModelCardView:
    """Widget: a fitted model as printed, with its certificate beside it.

    Parameters
    ----------
    model : RiskScore or Checklist, optional
        The model to show first.

    Attributes
    ----------
    html : ipywidgets.HTML
        The card.
    widget : ipywidgets.Widget
        What to display (``display(view)`` also works).
    model : model or None
        The model shown (``None`` while an incumbent or a message is shown).

    Examples
    --------
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> from riskexplore.widgets import ModelCardView
    >>> mammo = load_dataset("mammo")
    >>> model = fit_risk_score(mammo.X, mammo.y, max_size=3, time_limit=10)
    >>> card = ModelCardView(model)
    >>> card  # doctest: +SKIP
    >>> card.model is model and "certified optimal" in card.html.value
    True
    """

    def __init__(self, model=None, *, heading: str | None = None) -> None:
        import ipywidgets as w

        self.model = None
        self.heading = heading
        self.html = w.HTML(value=_placeholder())
        self.widget = w.Box([self.html])
        if model is not None:
            self.show(model)

    def show(self, model, heading: str | None = None) -> None:
        """Show a fitted model and its certificate."""
        self.model = model
        self.html.value = model_html(model, heading if heading is not None else self.heading)

    def show_incumbent(
        self,
        incumbent: Mapping[str, Any],
        upper_bound: float = math.inf,
        lower_bound: float = -math.inf,
        time: float | None = None,
        template=None,
    ) -> None:
        """Show a solver incumbent (the best model so far) while a solve runs."""
        try:
            model = incumbent_model(incumbent, upper_bound, lower_bound, time, template)
        except Exception as exc:  # show what we can rather than break the refresh loop
            self.html.value = message_html(
                f"best so far: {incumbent_text(incumbent)} ({exc})", "info"
            )
            return
        self.html.value = model_html(model, "Best model so far")

    def clear(self) -> None:
        """Show the placeholder (no model)."""
        self.model = None
        self.html.value = _placeholder()

    def figure(self):
        """A static ``go.Figure`` of the model shown (see :func:`figures.card_figure`)."""
        if self.model is None:
            raise ValueError("no fitted model shown yet")

        return card_figure(self.model)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def _placeholder() -> str:
    return (
        '<div style="color:#777;font-family:system-ui,sans-serif">'
        "No model yet: the search shows its best model here.</div>"
    )


def show_yes_no_only(panel: Any, say_why: bool = True) -> None:
    """Empty a panel of a 0/1 outcome and say why, its figure taken off the page.

    An empty plot under the note would leave a large blank area; the panel's next
    ``show`` or ``clear`` puts the figure back (:func:`show_figure`).

    Parameters
    ----------
    panel : MetricsPanel, ReliabilityView or CompareView
        A panel with ``clear()``, ``message``, ``figure`` and ``widget`` (a box whose last
        child is the figure).
    say_why : bool
        Whether the panel shows the note (False for the second of two panels side by
        side: one note is enough).
    """
    panel.clear()
    panel.message.value = message_html(YES_NO_ONLY, "info") if say_why else ""
    panel.widget.children = tuple(c for c in panel.widget.children if c is not panel.figure)


def show_figure(panel: Any) -> None:
    """Put a panel's figure back as its box's last child (taken off by
    :func:`show_yes_no_only`).

    Parameters
    ----------
    panel : MetricsPanel, ReliabilityView or CompareView
        The panel.
    """
    if panel.figure not in panel.widget.children:
        panel.widget.children = (*panel.widget.children, panel.figure)
