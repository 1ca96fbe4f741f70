"""The "By group" view: does the model work for every group of patients?

A thin view over :class:`~riskexplore.exploration.audit.AuditState` (the plain-Python
audit of :mod:`riskexplore.evaluation.audit`):

* choose a column, or two to cross (every column of the data, features included), which
  search (without or with your rules) and which patients (training or kept aside);
* the **findings** in plain words, each with a button **Add the rule that limits this**
  when a rule can (a risk score's calibration: :class:`GroupCalibration
  <riskexplore.risk_score.group_calibration.GroupCalibration>`; a checklist's missed cases or
  false alarms: the group-rate limits, over the audit's ranges when it cut a numeric column
  into ranges); the rule joins the current constraints, and the search with the rules then
  shows its certified price in the comparison;
* the **table** of every group (a group too small is "too few to judge"; a survival
  score's: events, C-index, observed against predicted risk by the horizon and O/E);
* the **forest plot** of one metric (:func:`~riskexplore.figures.audit.forest_figure`)
  and the **reliability diagram of each group**
  (:func:`~riskexplore.figures.audit.group_reliability_figure`), both in
  :class:`~riskexplore.widgets.plot_view.PlotView`.

The blocks carry CSS classes for pages and browser tests: ``rx-audit-controls``,
``rx-audit-findings`` (buttons ``rx-audit-rule``), ``rx-audit-table``,
``rx-audit-forest``, ``rx-audit-reliability``.
"""

from __future__ import annotations

import html
import logging
import math
import re
from collections.abc import Callable
from typing import Any

import pandas as pd

from riskexplore.errors import InputError
from riskexplore.evaluation.audit.rules import plain_rule
from riskexplore.exploration.audit import AuditState, FindingRule
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.audit import forest_figure, group_reliability_figure
from riskexplore.widgets._tab import ExplorerTab
from riskexplore.widgets.audit.survival_table import survival_table_html
from riskexplore.widgets.cards import message_html

__all__ = ["AuditView", "audit_table_html", "explorer_audit_source", "plain_sentence"]

log = logging.getLogger(__name__)

_FONT = "font-family:system-ui,sans-serif"
_NONE = "(none)"


def explorer_audit_source(explorer) -> Callable[[], dict[str, Any]]:
    """What an Explorer's "By group" view audits: its runs on the current data, and the
    training and held-out rows.

    Parameters
    ----------
    explorer : Explorer
        The Explorer.

    Returns
    -------
    callable
        ``() -> dict`` with ``models``, ``X``, ``y``, ``X_test``, ``y_test``.
    """

    def source() -> dict[str, Any]:
        st = explorer.state
        return {
            "models": st.current_results(),
            "X": st.X,
            # (a survival score's outcome: the time and the event)
            "y": st.training_outcome(),
            "X_test": st.X_test,
            "y_test": st.training_outcome(test=True),
        }

    return source


def _pct(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{100 * value:.0f}%"


def _auc(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.2f}"


def _cell(row: pd.Series, metric: str, fmt: Callable[[float], str]) -> str:
    value = fmt(row.get(metric, math.nan))
    low, high = row.get(f"{metric}_low"), row.get(f"{metric}_high")
    if value == "–" or low is None or high is None:
        return value
    return f'{value} <span style="color:#777;font-size:12px">({fmt(low)} to {fmt(high)})</span>'


def audit_table_html(result) -> str:
    """The audit's table in plain words (percentages, intervals in brackets).

    Parameters
    ----------
    result : AuditResult
        The audit.

    Returns
    -------
    str
        An HTML table: one row per group; a group too small says "too few to judge". A
        survival score's audit: :func:`survival_table_html
        <riskexplore.widgets.audit.survival_table.survival_table_html>`.
    """
    if result.settings.get("outcome") == "survival":
        return survival_table_html(result, _FONT)
    # (a model without risks, a checklist say, predicts none)
    risk = result.table["predicted_risk"].notna().any()
    heads = ["group", "patients", "with the outcome", "telling apart (AUC)"]
    if risk:
        heads += ["observed risk", "predicted risk"]
    heads += ["missed cases", "false alarms", "right when flagged"]
    flagged = {(f.group, f.metric) for f in result.findings}
    cells = "".join(f'<th style="text-align:left;padding:2px 8px">{h}</th>' for h in heads)
    rows = [f"<tr>{cells}</tr>"]
    for _, row in result.table.iterrows():
        group = html.escape(str(row["group"]))
        if row["too_few"]:
            span = len(heads) - 2
            rows.append(
                f'<tr><td style="padding:2px 8px">{group}</td>'
                f'<td style="padding:2px 8px">{int(row["n"])}</td>'
                f'<td colspan="{span}" style="padding:2px 8px;color:#777">too few to judge '
                f"(fewer than {int(result.settings['min_size'])} patients)</td></tr>"
            )
            continue
        values = [group, str(int(row["n"])), _pct(row["prevalence"]), _cell(row, "auc", _auc)]
        metrics = [None, None, None, "auc"]
        if risk:
            values += [_cell(row, "observed_risk", _pct), _pct(row["predicted_risk"])]
            metrics += ["calibration", "calibration"]
        values += [_cell(row, m, _pct) for m in ("fnr", "fpr", "ppv")]
        metrics += ["fnr", "fpr", "ppv"]
        tds = []
        for value, metric in zip(values, metrics, strict=True):
            bad = metric is not None and (row["group"], metric) in flagged
            style = "padding:2px 8px" + (";color:#b71c1c;font-weight:bold" if bad else "")
            tds.append(f'<td style="{style}">{value}</td>')
        rows.append("<tr>" + "".join(tds) + "</tr>")
    level = f"{100 * result.settings['confidence']:g}%"
    note = (
        f'<div style="color:#555;font-size:12px;margin-top:4px">In brackets: the range that '
        f"holds the true value with {level} confidence. In red: where the group does worse "
        "than the other patients beyond chance.</div>"
    )
    return (
        f'<div style="{_FONT};overflow-x:auto"><table style="border-collapse:collapse;'
        f'font-size:13px">{"".join(rows)}</table>{note}</div>'
    )


class AuditView(ExplorerTab):
    """The "By group" view: groups, findings with their rules, table and figures.

    Parameters
    ----------
    source : callable, optional
        ``() -> dict`` with ``models`` (run -> model), ``X``, ``y``, ``X_test``,
        ``y_test`` (e.g. :func:`explorer_audit_source`), read at each refresh.
    on_rule : callable, optional
        ``(SuggestedRule) -> (bool, str)``: adds a finding's rule to the current
        constraints and says how it went (the Explorer's
        :meth:`~riskexplore.widgets.explorer.widget.Explorer.add_audit_rule`).
    state : AuditState, optional
        The state shown (a new one by default).

    Attributes
    ----------
    state : AuditState
    column, second, metric : ipywidgets.Dropdown
        The group column, a second one to cross (``(none)``), the forest plot's metric.
    run, data : ipywidgets.ToggleButtons
        Which search (without or with your rules), which patients (training or kept
        aside).
    message : ipywidgets.HTML
    findings : ipywidgets.VBox
        The findings, each with its rule button.
    table : ipywidgets.HTML
    forest, reliability : PlotView
    widget : ipywidgets.VBox

    Examples
    --------
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> from riskexplore.widgets.audit.view import AuditView
    >>> heart = load_dataset("heart")
    >>> model = fit_risk_score(heart.X, heart.y, max_size=3, time_limit=10)
    >>> view = AuditView(lambda: {"models": {"unconstrained": model}, "X": heart.X,
    ...                           "y": heart.y, "X_test": None, "y_test": None})
    >>> view.choose("sex")
    True
    >>> view  # doctest: +SKIP
    """

    def __init__(
        self,
        source: Callable[[], dict[str, Any]] | None = None,
        on_rule: Callable[[Any], tuple[bool, str]] | None = None,
        state: AuditState | None = None,
    ) -> None:
        self.source = source
        self.on_rule = on_rule
        self.state = state or AuditState()
        self._syncing = False
        self.rule_buttons: list = []
        self._build()
        self._wire()
        self._show_message()

    def _build(self) -> None:
        """The choices, the findings, the table and the figures, in their boxes."""
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        style = {"description_width": "150px"}
        self.column = w.Dropdown(
            options=[("(choose)", "")],
            value="",
            description="group patients by",
            style=style,
            layout=w.Layout(width="380px"),
        )
        self.second = w.Dropdown(
            options=[(_NONE, "")],
            value="",
            description="and by",
            style=style,
            layout=w.Layout(width="380px"),
        )
        self.run = w.ToggleButtons(
            options=[("without your rules", "unconstrained"), ("with your rules", "constrained")],
            value=self.state.settings["run"],
            style={"button_width": "170px"},
        )
        self.data = w.ToggleButtons(
            options=[("training patients", "train"), ("patients kept aside", "test")],
            value=self.state.settings["data"],
            style={"button_width": "170px"},
        )
        self.metric = w.Dropdown(
            options=self.state.metric_options(),
            value=self.state.metric(),
            description="compare the groups on",
            style={"description_width": "170px"},
            layout=w.Layout(width="560px"),
        )
        self.message = w.HTML()
        self.findings = w.VBox()
        self.findings.add_class("rx-audit-findings")
        self.table = w.HTML()
        self.table.add_class("rx-audit-table")
        self.forest = PlotView(forest_figure_placeholder())
        self.reliability = PlotView(forest_figure_placeholder("Reliability by group"))
        # (a PlotView's ``layout`` is its figure's: boxes carry the page's classes)
        forest_box = w.Box([self.forest], layout=w.Layout(width="100%"))
        forest_box.add_class("rx-audit-forest")
        self.reliability_box = w.Box([self.reliability], layout=w.Layout(width="100%"))
        self.reliability_box.add_class("rx-audit-reliability")
        controls = w.VBox(
            [
                w.HBox([self.column, self.second], layout=w.Layout(flex_flow="row wrap")),
                w.HBox([self.run, self.data], layout=w.Layout(flex_flow="row wrap")),
            ]
        )
        controls.add_class("rx-audit-controls")
        self.results = w.VBox([self.findings, self.table, self.metric, forest_box])
        self.results.layout.display = "none"
        self.widget = w.VBox([controls, self.message, self.results, self.reliability_box])
        self.reliability_box.layout.display = "none"
        self.widget.add_class("rx-audit")

    def _wire(self) -> None:
        """Observe the choices: each change shows the audit again."""
        for widget in (self.column, self.second, self.run, self.data):
            widget.observe(self._on_choice, names="value")
        self.metric.observe(self._on_metric, names="value")

    #: Its tab in the Explorer (``AuditView.attach(explorer)``: the Explorer's runs and
    #: data, its rules added with :meth:`Explorer.add_audit_rule
    #: <riskexplore.widgets.explorer.widget.Explorer.add_audit_rule>`).
    tab_title = "By group"

    @classmethod
    def explorer_arguments(cls, explorer) -> dict[str, Any]:
        """The Explorer's runs and data, and its :meth:`add_audit_rule`."""
        return {"source": explorer_audit_source(explorer), "on_rule": explorer.add_audit_rule}

    def follow(self, explorer) -> None:
        """Offer the Explorer's columns."""
        self.set_columns(explorer.state.feature_names)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    # --- choices ---------------------------------------------------------------------
    def set_columns(self, columns) -> None:
        """Offer these columns (every column of the data but the outcome); a chosen
        column that is gone is dropped.

        Parameters
        ----------
        columns : sequence of str
            The columns.
        """
        columns = [str(c) for c in columns]
        by = tuple(c for c in self.state.settings["by"] if c in columns)
        self._syncing = True
        try:
            self.column.options = [("(choose)", "")] + [(c, c) for c in columns]
            self.second.options = [(_NONE, "")] + [(c, c) for c in columns]
            self.column.value = by[0] if by else ""
            self.second.value = by[1] if len(by) > 1 else ""
        finally:
            self._syncing = False
        if by != self.state.settings["by"]:
            self.state.update(by=by)

    def choose(self, column: str, second: str | None = None, **settings: Any) -> bool:
        """Choose the column(s) (and other settings) and show the audit, as the lists do.

        Parameters
        ----------
        column : str
            The group column.
        second : str, optional
            A second column to cross with it.
        **settings
            ``run``, ``data``, ``metric``, ``min_size``.

        Returns
        -------
        bool
            Whether an audit is shown.
        """
        by = (column,) if not second else (column, second)
        try:
            offered = [v for _label, v in self.column.options if v]
            if not set(by) <= set(offered) and self.source is not None:
                X = self.source().get("X")  # a view not attached: its data's columns
                if X is not None:
                    self.set_columns(list(X.columns))
                    offered = [v for _label, v in self.column.options if v]
            unknown = [c for c in by if c not in offered]
            if unknown:
                raise InputError(f"unknown group column {unknown[0]!r}; choose one of the list")
            self.state.update(by=by, **settings)
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return False
        self._sync_controls()
        return self.refresh()

    def apply_settings(self, settings: dict[str, Any]) -> list[str]:
        """Take saved settings (of a study file); what cannot be used is said in notes.

        Parameters
        ----------
        settings : dict
            :meth:`AuditState.settings_dict` of a study.

        Returns
        -------
        list of str
            Notes (plain words) on settings left out.
        """
        notes = []
        known = [v for _label, v in self.column.options if v]
        settings = dict(settings)
        by = [c for c in settings.get("by", ()) if c in known]
        if len(by) != len(settings.get("by", ())):
            notes.append("the study's group columns are not all in these data; left out")
        settings["by"] = tuple(by)
        try:
            self.state.update(**settings)
        except Exception as exc:
            notes.append(f"the study's group settings cannot be used: {describe_error(exc)}")
        self._sync_controls()
        self.refresh()
        return notes

    def _sync_controls(self) -> None:
        s = self.state.settings
        self._syncing = True
        try:
            self.column.value = s["by"][0] if s["by"] else ""
            self.second.value = s["by"][1] if len(s["by"]) > 1 else ""
            self.run.value = s["run"]
            self.data.value = s["data"]
        finally:
            self._syncing = False

    def _on_choice(self, _change) -> None:
        if self._syncing:
            return
        by = tuple(c for c in (self.column.value, self.second.value) if c)
        try:
            self.state.update(by=by, run=self.run.value, data=self.data.value)
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return
        self.refresh()

    def _on_metric(self, change) -> None:
        if self._syncing or not change["new"]:
            return
        self.state.update(metric=change["new"])
        self._draw_forest()

    # --- showing ---------------------------------------------------------------------
    def clear(self, message: str = "") -> None:
        """Show no audit (earlier data's audit must not stay on screen).

        Parameters
        ----------
        message : str
            Why (plain words; default: what to do).
        """
        self.state.clear(message)
        self._show_message()

    def refresh(self) -> bool:
        """Audit again with the current source and settings, and redraw.

        Returns
        -------
        bool
            Whether an audit is shown.
        """
        if self.source is None:
            self.clear("Nothing to audit yet.")
            return False
        try:
            context = self.source()
            result = self.state.compute(**context)
        except Exception as exc:  # shown as a message, never a traceback
            log.debug("audit failed", exc_info=True)
            self.clear(describe_error(exc))
            return False
        if result is None:
            self._show_message()
            return False
        self.message.value = ""
        self._draw()
        return True

    def _show_message(self) -> None:
        text = self.state.message or (
            "Choose a column to see how the model does for each group of patients."
        )
        self.message.value = message_html(text, "info")
        self.results.layout.display = "none"
        self.reliability_box.layout.display = "none"
        self.findings.children = []
        self.table.value = ""
        self.rule_buttons = []

    def _draw(self) -> None:
        result = self.state.result
        self.results.layout.display = None
        self._draw_findings()
        self.table.value = audit_table_html(result)
        self._syncing = True
        try:
            self.metric.options = self.state.metric_options()
            self.metric.value = self.state.metric()
        finally:
            self._syncing = False
        self._draw_forest()
        if result.reliability:
            from riskexplore.widgets.plot_view import replace_figure

            by = " and ".join(result.settings["by"])
            fig = group_reliability_figure(result, title=f"Predicted and observed risk, by {by}")
            replace_figure(self.reliability, fig)
            self.reliability_box.layout.display = None
        else:
            self.reliability_box.layout.display = "none"

    def _draw_forest(self) -> None:
        from riskexplore.widgets.plot_view import replace_figure

        result = self.state.result
        if result is None:
            return
        metric = self.state.metric()
        label = dict((v, k) for k, v in self.state.metric_options()).get(metric, metric)
        by = " and ".join(result.settings["by"])
        replace_figure(self.forest, forest_figure(result, metric, title=f"{label}, by {by}"))

    def _draw_findings(self) -> None:
        import ipywidgets as w

        items = self.state.findings()
        self.rule_buttons = []
        if not items:
            self.findings.children = [
                w.HTML(
                    f'<div style="{_FONT}"><b>No group does worse than the other patients '
                    "beyond chance.</b></div>"
                )
            ]
            return
        rows = [
            w.HTML(
                f'<div style="{_FONT}"><b>What the audit finds</b> (differences beyond '
                "chance)</div>"
            )
        ]
        for item in items:
            rows.append(self._finding_row(w, item))
        self.findings.children = rows

    def _finding_row(self, w, item: FindingRule):
        sentence = html.escape(plain_sentence(item.finding.sentence))
        if item.rule is None:
            note = html.escape(_capital(item.reason or "no rule"))
            return w.HTML(
                f'<div style="{_FONT};max-width:760px;margin:2px 0">• {sentence}<br>'
                f'<span style="color:#777;font-size:12px">No rule can limit this: '
                f"{note}.</span></div>"
            )
        rule = html.escape(plain_rule(item.rule.constraint))
        text = w.HTML(
            f'<div style="{_FONT};max-width:640px;margin:2px 0">• {sentence}<br>'
            f'<span style="color:#555;font-size:12px">The rule: {rule}.</span></div>',
            layout=w.Layout(flex="1 1 400px"),
        )
        button = w.Button(
            description="Add the rule that limits this",
            icon="plus",
            layout=w.Layout(width="260px", flex="0 0 auto"),
            tooltip=item.rule.sentence,
        )
        button.add_class("rx-audit-rule")
        button.on_click(lambda _b, rule=item.rule: self.add_rule(rule))
        self.rule_buttons.append(button)
        return w.HBox([text, button], layout=w.Layout(flex_flow="row wrap", width="100%"))

    def add_rule(self, rule) -> bool:
        """Add a finding's rule to the current constraints (what its button does).

        Parameters
        ----------
        rule : SuggestedRule
            The rule.

        Returns
        -------
        bool
            Whether it was added.
        """
        if self.on_rule is None:
            self.message.value = message_html("No constraints to add the rule to.", "warning")
            return False
        try:
            ok, text = self.on_rule(rule)
        except Exception as exc:
            ok, text = False, describe_error(exc)
        self.message.value = message_html(text, "info" if ok else "error")
        return bool(ok)

    def static_figure(self):
        """The forest plot shown, as a static ``go.Figure`` (None without an audit).

        Returns
        -------
        plotly.graph_objects.Figure or None
            The figure.
        """
        if self.state.result is None:
            return None
        return self.forest.to_figure()


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def plain_sentence(sentence: str) -> str:
    """A finding's sentence for a page: capitalised, "CI" in words.

    Parameters
    ----------
    sentence : str
        The finding's sentence.

    Returns
    -------
    str
        ``"... (difference +9.2 points, 95% confidence range +2.6 to +16.7)"``.
    """
    return _capital(re.sub(r"(\d+(?:\.\d+)?%) CI ", r"\1 confidence range ", sentence))


def forest_figure_placeholder(title: str = "By group"):
    """An empty figure to start a :class:`PlotView` with.

    Parameters
    ----------
    title : str
        Its title.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.update_layout(title={"text": title}, height=200)
    return fig
