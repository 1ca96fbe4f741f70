"""The Explorer's "Validation" view: validate a run's model on another file, and download
its report.

A thin view over :class:`~riskexplore.exploration.validation.ValidationState`:

* which model (the search without or with the rules) and **Validate on another file**
  (an upload: a CSV file of other patients with the development data's outcome column);
* the results in plain words (AUC with its interval, calibration slope and intercept,
  observed/expected events) and the calibration plot and decision curve of
  :mod:`riskexplore.figures.validation`, each in a
  :class:`~riskexplore.widgets.plot_view.PlotView`; for a survival score, its figures at
  the horizon (Harrell's and Uno's C, the AUC at the horizon, observed/expected risk, the
  calibration slope), its calibration plot and Kaplan-Meier curves by score group
  (:mod:`riskexplore.figures.survival`);
* **Prepare the report**, then **Download report**: the HTML report of
  :func:`riskexplore.report.report_html` (the card, its certificate, the settings and
  rules, the development data and the validation side by side, and the subgroup audit of
  the "By group" view when it audits that model) as a link that saves it
  (:func:`~riskexplore.widgets.downloads.download_link`; no server round trip).

A page opens with one empty box: the controls are made on first use (:meth:`build
<ValidationView.build>`), the two plots at the first validation, and plotly's JavaScript
is read only when a report is written (page load budget: ``benchmarks/dashboard_load.py``).

The blocks carry CSS classes for pages and browser tests: ``rx-validation-controls``,
``rx-validation-summary``, ``rx-validation-figures``, ``rx-report-controls`` (its link
``rx-report-download``).
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from riskexplore.exploration.audit import AuditState
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.runner import describe_error
from riskexplore.exploration.survival_outcome import TIME_SETTING
from riskexplore.exploration.uploads import MAX_UPLOAD_BYTES
from riskexplore.exploration.validation import RUN_WORDS, ValidationState
from riskexplore.figures.layout import fmt, plain_number
from riskexplore.figures.survival import km_figure, survival_calibration_figure
from riskexplore.figures.validation import (
    calibration_figure,
    decision_curve_figure,
    interval_words,
)
from riskexplore.report.page import report_html
from riskexplore.widgets._tab import ExplorerTab
from riskexplore.widgets.cards import message_html
from riskexplore.widgets.downloads import download_link

if TYPE_CHECKING:
    from riskexplore.widgets.plot_view import PlotView

__all__ = ["ValidationView", "summary_html"]

log = logging.getLogger(__name__)

_FONT = "font-family:system-ui,sans-serif"

#: What each headline figure says, and its ideal value, in plain words.
_MEANINGS = (
    ("auc", "Telling patients apart (AUC)", "0.5 is guessing, 1 is perfect"),
    (
        "calibration_slope",
        "Calibration slope",
        "ideal 1; below 1 the predicted risks are too extreme, above 1 too timid",
    ),
    (
        "calibration_intercept",
        "Calibration-in-the-large",
        "ideal 0; below 0 the predicted risks are too high on average, above 0 too low",
    ),
    (
        "observed_expected",
        "Observed / expected events",
        "ideal 1; 0.8 means 80 patients had the outcome for every 100 predicted",
    ),
)


#: The same for a survival score, at the horizon.
_SURVIVAL_MEANINGS = (
    (
        "harrell_c",
        "Telling patients apart (Harrell's C)",
        "the chance that of two patients, the one with the event first had the higher "
        "score: 0.5 is guessing, 1 is perfect",
    ),
    ("uno_c", "The same, up to the horizon (Uno's C)", "0.5 is guessing, 1 is perfect"),
    (
        "time_auc",
        "AUC at the horizon",
        "patients with the event by then against those still free of it: 0.5 is "
        "guessing, 1 is perfect",
    ),
    (
        "observed_expected",
        "Observed / expected risk by the horizon",
        "ideal 1; 0.8 means 80 events for every 100 predicted",
    ),
    (
        "calibration_slope",
        "Calibration slope",
        "ideal 1; below 1 the predicted risks are too extreme, above 1 too timid",
    ),
)


def summary_html(
    validation: Mapping[str, Any], file_name: str, filled=(), time_label: str = "time"
) -> str:
    """A validation's headline figures in plain words (an HTML table).

    Parameters
    ----------
    validation : mapping
        The validation's dict (``Validation.to_dict()``, or a survival score's
        ``SurvivalValidation.to_dict()``: its figures at the horizon).
    file_name : str
        The file validated on.
    filled : sequence of str
        Columns the file lacks that the model does not read.
    time_label : str
        The unit of a survival score's horizon (``"days"``).

    Returns
    -------
    str
        HTML: the patients, one row per figure (estimate, interval, meaning), the notes.
    """
    v = validation
    level = f"{100 * float(v.get('confidence') or 0.95):.0f}%"
    patients = f"<b>{fmt(v['n'], 'int')} patients</b> of {html.escape(file_name)}, "
    if "harrell_c" in v:
        horizon = html.escape(f"{plain_number(float(v['horizon']))} {time_label}")
        head = patients + (
            f"{fmt(v['events'], 'int')} with the event, {fmt(v['events_by_horizon'], 'int')} "
            f"of them by {horizon} (the horizon); mean predicted risk by then "
            f"{fmt(v.get('predicted_risk'), 'pct')}"
        )
        meanings = _SURVIVAL_MEANINGS
    else:
        head = patients + (
            f"{fmt(v['events'], 'int')} with the outcome ({fmt(v['outcome_rate'], 'pct')})"
        )
        meanings = _MEANINGS
    cell = 'style="padding:3px 10px 3px 0;vertical-align:top"'
    rows = [
        f"<tr><th {cell} align=left>{label}</th><td {cell}>{interval_words(v.get(key))}</td>"
        f'<td {cell} style="color:#555">{meaning}</td></tr>'
        for key, label, meaning in meanings
    ]
    notes = list(v.get("notes") or [])
    if filled:
        notes.append(
            "not in the file and not used by the model (so not needed): " + ", ".join(filled)
        )
    note_html = "".join(f'<div style="color:#555">{html.escape(str(n))}</div>' for n in notes)
    return (
        f'<div style="{_FONT};font-size:14px;margin:6px 0">{head}<table '
        f'style="border-collapse:collapse;margin:4px 0">'
        f"<tr><th></th><th align=left>estimate ({level} interval)</th><th></th></tr>"
        f"{''.join(rows)}</table>{note_html}</div>"
    )


class ValidationView(ExplorerTab):
    """Validate a model of the Explorer on another file, and download its report.

    The page opens with :attr:`widget` alone (an empty box): its controls are made by
    :meth:`build`, on first use (the first search that ends, the tab's first selection,
    or any action), so that a page that never validates pays nothing for them.

    Parameters
    ----------
    state : callable
        ``() -> ExplorerState``: the Explorer's state now (opening a study replaces it).
    audit : callable, optional
        ``() -> AuditState``: the Explorer's subgroup audit ("By group"); the report shows
        it when it audits the model reported.

    Attributes
    ----------
    validation_state : ValidationState
        The file and the latest validation (plain Python).
    run_options : list of (str, str)
        The labels of the two models (set them before :meth:`build`).
    run_button_width : str
        The width of each model's button (likewise).
    built : bool
        Whether :meth:`build` made the controls below.
    run : ipywidgets.ToggleButtons
        The model validated: ``"unconstrained"`` or ``"constrained"``.
    upload : ipywidgets.FileUpload
        "Validate on another file".
    message : ipywidgets.HTML
        What went wrong, in plain words (or what was done).
    summary : ipywidgets.HTML
        The headline figures (:func:`summary_html`).
    calibration, decision : PlotView or None
        The calibration plot and the decision curve (a survival score: the Kaplan-Meier
        curves), made at the first validation.
    figures : ipywidgets.HBox
        Where they are shown.
    report_button : ipywidgets.Button
        "Prepare the report".
    report_link : ipywidgets.HTML
        The "Download report" link, once prepared.
    widget : ipywidgets.VBox
        The whole view.
    """

    tab_title = "Validation"

    def __init__(
        self,
        state: Callable[[], ExplorerState],
        audit: Callable[[], AuditState | None] | None = None,
    ) -> None:
        import ipywidgets as w

        self._state, self._audit = state, audit
        self.validation_state = ValidationState()
        self.run_options = [(f"the model {words}", run) for run, words in RUN_WORDS.items()]
        self.run_button_width = "200px"
        self.built = False
        self._building = threading.Lock()  # a search's end and the tab's choice may race
        self.calibration: PlotView | None = None
        self.decision: PlotView | None = None
        self.widget = w.VBox([], layout=w.Layout(width="100%"))

    @classmethod
    def explorer_arguments(cls, explorer) -> dict[str, Any]:
        """The Explorer's state and its subgroup audit (read at each use)."""
        return {"state": lambda: explorer.state, "audit": lambda: explorer.audit.state}

    def _repr_mimebundle_(self, **kwargs):
        self.build()
        return self.widget._repr_mimebundle_(**kwargs)

    def selected(self) -> None:
        """The tab is shown: its controls are made."""
        self.build()

    def build(self) -> ValidationView:
        """Make the view's controls and put them in :attr:`widget` (once).

        Returns
        -------
        ValidationView
            The view.
        """
        with self._building:
            if not self.built:
                self._make_controls()
                self.built = True
        return self

    def _make_controls(self) -> None:
        import ipywidgets as w

        self.run = w.ToggleButtons(
            options=list(self.run_options),
            value="unconstrained",
            style={"button_width": self.run_button_width},
        )
        self.upload = w.FileUpload(
            accept=".csv,text/csv",
            multiple=False,
            description="Validate on another file",
            layout=w.Layout(width="260px"),
        )
        self.message, self.summary = w.HTML(), w.HTML()
        self.report_button = w.Button(
            description="Prepare the report", icon="file", layout=w.Layout(width="220px")
        )
        self.report_link = w.HTML()
        self.run.observe(lambda _c: self.refresh(), names="value")
        self.upload.observe(self._on_upload, names="value")
        self.report_button.on_click(lambda _b: self.prepare_report())
        self.widget.children = _blocks(self)

    # --- actions --------------------------------------------------------------------
    def load_file(self, content: bytes, name: str = "validation.csv") -> bool:
        """Validate the model chosen on an uploaded CSV file (what the upload does).

        Parameters
        ----------
        content : bytes
            The file's bytes.
        name : str
            Its name.

        Returns
        -------
        bool
            Whether the model was validated (else :attr:`message` says why).
        """
        self.build()
        try:
            self.validation_state.load_file(content, name)
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return False
        return self.refresh()

    def refresh(self) -> bool:
        """Validate the model chosen on the file kept (after a search, or a new choice);
        the report prepared before is dropped. The first search that ends makes the
        view's controls (:meth:`build`).

        Returns
        -------
        bool
            Whether a validation is shown.
        """
        if not self.built:
            if not self._state().current_results():
                return False
            self.build()
        self.report_link.value = ""
        checks, st, run = self.validation_state, self._state(), self.run.value
        if checks.frame is None:
            return False
        try:
            result = checks.current(st, run) or checks.validate(st, run)
        except Exception as exc:
            self._clear_results()
            self.message.value = message_html(describe_error(exc))
            return False
        self._show(result.to_dict())
        return True

    def clear(self) -> None:
        """Clear the results and the report (new data: the file is kept, validated again
        when a model of the new data is found)."""
        self.validation_state.clear()
        if self.built:
            self._clear_results()
            self.message.value = self.report_link.value = ""

    def prepare_report(self) -> bool:
        """Make the report of the model chosen, offered by :attr:`report_link`: with its
        validation on the file, and with the subgroup audit when the "By group" view
        audits this model.

        Returns
        -------
        bool
            Whether the report was made (else :attr:`message` says why).
        """
        self.build()
        st, run = self._state(), self.run.value
        audit = self._audit() if self._audit is not None else None
        try:
            arguments = self.validation_state.report_arguments(st, run, audit)
            page = report_html(**arguments)
        except Exception as exc:
            log.debug("report failed", exc_info=True)
            self.report_link.value = ""
            self.message.value = message_html(describe_error(exc))
            return False
        validated = arguments["validation"] is not None
        what = f"validated on {self.validation_state.file_name}" if validated else "no validation"
        self.report_link.value = download_link(
            f"Download report ({what}; HTML)",
            "report.html",
            page,
            "text/html",
            css_class="rx-report-download",
        )
        if not validated:
            self.message.value = message_html(
                "The report shows the development data only: validate the model on another "
                "file first to add the validation.",
                "info",
            )
        return True

    # --- drawing --------------------------------------------------------------------
    def _show(self, v: dict[str, Any]) -> None:
        name = self.validation_state.file_name or "the file"
        unit = self._time_label()
        self.message.value = ""
        self.summary.value = summary_html(v, name, self.validation_state.filled, unit)
        calibration, decision = self._figure_views()
        if "harrell_c" in v:  # a survival score: its calibration and survival curves
            calibration.update(survival_calibration_figure(v, height=460))
            decision.update(km_figure(v, time_label=unit, height=460))
        else:
            calibration.update(calibration_figure(v, height=460))
            decision.update(decision_curve_figure(v, height=460))

    def _time_label(self) -> str:
        """The unit of a survival score's times: its time column's name (``"days"``)."""
        record = self.validation_state.record
        column = record.settings.get(TIME_SETTING) if record is not None else None
        return str(column) if column else "time"

    def _figure_views(self):
        """The calibration and decision-curve views, made on first use."""
        if self.calibration is None:
            import ipywidgets as w

            from riskexplore.widgets.plot_view import PlotView

            self.calibration, self.decision = PlotView(), PlotView()
            # (a PlotView's ``layout`` is its figure's: each sits in a box taking its share)
            self.figures.children = [
                w.VBox(
                    [figure],
                    layout=w.Layout(flex="1 1 420px", min_width="0", margin="0 12px 0 0"),
                )
                for figure in (self.calibration, self.decision)
            ]
        return self.calibration, self.decision

    def _clear_results(self) -> None:
        import plotly.graph_objects as go

        self.summary.value = ""
        for view in (self.calibration, self.decision):
            if view is not None:
                view.update(go.Figure())

    def _on_upload(self, change) -> None:
        files = change["new"]
        if not files:
            return
        f = files[0] if isinstance(files, (list, tuple)) else next(iter(files.values()))
        size = f.get("size") or len(f.get("content", b""))
        if size and size > MAX_UPLOAD_BYTES:
            self.message.value = message_html(f"{f.get('name')} is too large (over 20 MB)")
        else:
            self.load_file(bytes(f["content"]), f.get("name") or "validation.csv")
        try:
            self.upload.value = ()  # the same file can be uploaded again
        except Exception:  # pragma: no cover - older ipywidgets keep the value
            log.debug("could not reset the upload widget", exc_info=True)


def _blocks(view: ValidationView) -> list:
    """The view's blocks: the controls, the results, the figures, the report."""
    import ipywidgets as w

    def block(css_class, children, **layout):
        box = (w.HBox if layout else w.VBox)(children, layout=w.Layout(width="100%", **layout))
        box.add_class(css_class)
        return box

    view.figures = block(
        "rx-validation-figures", [], flex_flow="row wrap", align_items="flex-start"
    )
    return [
        block("rx-validation-controls", [view.run, view.upload]),
        view.message,
        block("rx-validation-summary", [view.summary]),
        view.figures,
        block(
            "rx-report-controls",
            [view.report_button, view.report_link],
            flex_flow="row wrap",
            align_items="center",
        ),
    ]
