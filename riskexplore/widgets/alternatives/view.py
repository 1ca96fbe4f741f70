"""The "Alternatives" view: the near-optimal set as cards to click through, hand edits of
the selected model with its certified distance to the best one, and the price of each
feature.

A thin view over :class:`~riskexplore.exploration.alternatives.AlternativesState`:

* **Find alternatives** computes the set in a worker thread (Stop ends it; the set is then
  marked incomplete); each model of the set is a card (a button) in a list, with how far
  it is from the best; the figure below shows how often each feature appears;
* clicking a card shows that model: its card and certificate, its distance to the best,
  its metrics and ROC curve beside the best model's, and its reliability diagram;
* the edit controls change it at once (risk scores: ``−``/``+`` points per feature;
  checklists: a checkbox per item and ``−``/``+`` for ``M``); **Back to the model** undoes
  the edits;
* **Price of each feature** computes the certified price of leaving out each feature of
  the best model and of forcing in each other one (a table, filled as prices arrive, and
  a figure).

The blocks carry CSS classes for pages and browser tests: ``rx-alt-controls``,
``rx-alt-cards`` (its buttons ``rx-alt-choice``), ``rx-alt-card``, ``rx-alt-distance``,
``rx-alt-edit``, ``rx-alt-metrics``, ``rx-alt-reliability``, ``rx-alt-frequency``,
``rx-alt-prices``.

The HTML blocks are :mod:`riskexplore.widgets.alternatives.html`, the edit controls
:mod:`riskexplore.widgets.alternatives.edit`, the page's boxes
:mod:`riskexplore.widgets.alternatives.layout`.
"""

from __future__ import annotations

import html
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from riskexplore.core.core_gate import CoreGate
from riskexplore.core.registry import get_family
from riskexplore.exploration.alternatives import DEFAULT_MAX_MODELS, AlternativesState
from riskexplore.exploration.jobs import Jobs
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.alternatives import (
    feature_frequency_figure,
    feature_price_figure,
    update_model_metrics,
)
from riskexplore.widgets._refresh import Refresher
from riskexplore.widgets._tab import ExplorerTab
from riskexplore.widgets.alternatives.edit import EditControls
from riskexplore.widgets.alternatives.html import (
    card_text,
    distance_html,
    grey_html,
    prices_html,
    set_summary_html,
    strip_tags,
)
from riskexplore.widgets.alternatives.layout import alternatives_page
from riskexplore.widgets.cards import message_html, model_html, show_yes_no_only
from riskexplore.widgets.metrics_panel import MetricsPanel
from riskexplore.widgets.reliability import ReliabilityView

__all__ = [
    "AlternativesView",
    "distance_html",
    "explorer_source",
    "prices_html",
    "set_summary_html",
]

log = logging.getLogger(__name__)


#: The tolerance's label: relative, in mistakes.
_TOLERANCE_LABELS = ("within (%)", "within (mistakes)")


def explorer_source(explorer) -> Callable[[], dict[str, Any]]:
    """What an Explorer's alternatives are computed on: its data, family, settings (with
    the time limit) and current rules.

    Parameters
    ----------
    explorer : Explorer
        The Explorer.

    Returns
    -------
    callable
        ``() -> dict`` of :meth:`AlternativesState.configure` arguments (raises
        :class:`~riskexplore.errors.InputError` before data are ready).
    """

    def source() -> dict[str, Any]:
        st = explorer.state
        st.check_ready()
        return {
            "family": st.family,
            "X": st.X,
            "y": st.training_outcome(),  # a survival family's: time and event
            "X_test": st.X_test,
            "y_test": st.training_outcome(test=True),
            "settings": st.fit_kwargs(),
            "constraints": list(explorer.constraints),
            "version": st.data_version,
        }

    return source


class AlternativesView(ExplorerTab):
    """Near-optimal models to click through and edit, and the price of each feature.

    Parameters
    ----------
    state : AlternativesState, optional
        The state shown (a new one by default).
    source : callable, optional
        ``() -> dict`` of :meth:`AlternativesState.configure` arguments, read before each
        computation (e.g. :func:`explorer_source`).
    auto_refresh : bool
        Pick up finished computations by itself (asyncio task on the kernel loop, else a
        daemon thread); scripts and tests pass False and call :meth:`poll` /
        :meth:`wait`.
    refresh_interval : float
        Seconds between polls while something is computed.

    Attributes
    ----------
    state : AlternativesState
    find_button, stop_button, prices_button : ipywidgets.Button
    tolerance, max_models : ipywidgets inputs
    status_label, message, summary, card, distance : ipywidgets.HTML
    cards : ipywidgets.VBox
        One button per model of the set.
    edits : EditControls
        The edit controls of the model shown
        (:class:`~riskexplore.widgets.alternatives.edit.EditControls`).
    edit_box : ipywidgets.VBox
        Their box (``edits.box``).
    reset_button : ipywidgets.Button
    metrics : MetricsPanel
        The model shown beside the best one.
    reliability : ReliabilityView
        The model shown.
    frequency : PlotView
        How often each feature appears in the set.
    results : ipywidgets.VBox
        The cards, the model shown and its views (folded to no height until a set is
        found).
    controls : ipywidgets.HBox
        Tolerance, most models, Find and Stop.
    prices_table : ipywidgets.HTML
    prices_figure : PlotView
    widget : ipywidgets.VBox

    Examples
    --------
    The Explorer's Alternatives tab (``ex.alternatives``), or on its own:

    >>> from riskexplore import load_dataset
    >>> from riskexplore.widgets import AlternativesState, AlternativesView
    >>> mammo = load_dataset("mammo")
    >>> state = AlternativesState()
    >>> settings = {"max_size": 3, "time_limit": 10}
    >>> state.configure(family="risk_score", X=mammo.X, y=mammo.y, settings=settings)
    True
    >>> view = AlternativesView(state, auto_refresh=False)
    >>> view  # doctest: +SKIP
    >>> view.compute(wait=True)  # what "Find other good scores" does
    True
    >>> view.select(len(state.found) - 1)  # as a click on the last model's card
    True
    """

    def __init__(
        self,
        state: AlternativesState | None = None,
        *,
        source: Callable[[], dict[str, Any]] | None = None,
        auto_refresh: bool = True,
        refresh_interval: float = 0.3,
    ) -> None:
        self.state = state or AlternativesState()
        self.source = source
        self.auto_refresh = bool(auto_refresh)
        self.refresh_interval = float(refresh_interval)
        self._jobs = Jobs()
        self._lock = threading.RLock()
        self._refresher = Refresher(
            self._safe_poll, lambda: self.refresh_interval, "riskexplore-alternatives"
        )
        self._arrived: list = []
        self._metrics_of = None  # the set whose best model the metrics figure shows
        self._family_shown: str | None = None
        self._refused = False  # a reason the settings have no alternatives is shown
        #: Words of the page: what a model is (default "score" or "checklist"), what its
        #: size counts (default the family's), what a feature is.
        self.noun: str | None = None
        self.size_noun: str | None = None
        self.feature_noun = "feature"
        #: Title of the price figure (default: the figure's own).
        self.prices_title: str | None = None
        self._build()
        self._lay_out()
        self._wire()
        self._show_family(None)
        self._show_set()

    def _build(self) -> None:
        """The controls, the set's cards, the model shown with its views, the prices."""
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        style = {"description_width": "150px"}
        self.tolerance = w.BoundedFloatText(
            value=1.0, min=0.0, max=1000.0, step=0.5, description=_TOLERANCE_LABELS[0], style=style
        )
        self.max_models = w.BoundedIntText(
            value=DEFAULT_MAX_MODELS, min=1, max=1000, description="at most (models)", style=style
        )
        self.find_button = w.Button(
            description="Find alternatives", icon="search", button_style="primary"
        )
        self.stop_button = w.Button(description="Stop", icon="stop", disabled=True)
        self.status_label = w.HTML()
        self.message = w.HTML()
        self.summary = w.HTML()
        self.cards = w.VBox(
            layout=w.Layout(max_height="460px", overflow="auto", width="100%")
        ).add_class("rx-alt-cards")
        self.card = w.HTML().add_class("rx-alt-card")
        self.distance = w.HTML().add_class("rx-alt-distance")
        self.edits = EditControls(self.change_points, self.set_item, self.change_threshold)
        self.edit_box, self.edit_title = self.edits.box, self.edits.title
        self.reset_button = w.Button(description="Back to the model", icon="undo", disabled=True)
        self.metrics = MetricsPanel(title="This model and the best one")
        self.metrics.widget.add_class("rx-alt-metrics")
        self.reliability = ReliabilityView(title="Predicted and observed risk (this model)")
        self.reliability.widget.add_class("rx-alt-reliability")
        self.frequency = PlotView().add_class("rx-alt-frequency")
        self.prices_button = w.Button(description="Price of each feature", icon="balance-scale")
        self.prices_stop = w.Button(description="Stop", icon="stop", disabled=True)
        self.prices_status = w.HTML()
        self.prices_table = w.HTML()
        self.prices_figure = PlotView()

    def _lay_out(self) -> None:
        """The boxes (:mod:`riskexplore.widgets.alternatives.layout`)."""
        page = alternatives_page(self)
        self.widget, self.controls, self.results = page.widget, page.controls, page.results
        self.prices_box, self.prices_plot = page.prices_box, page.prices_plot

    def _wire(self) -> None:
        """The buttons."""
        self.find_button.on_click(lambda _b: self.compute())
        self.stop_button.on_click(lambda _b: self.stop("set"))
        self.prices_button.on_click(lambda _b: self.compute_prices())
        self.prices_stop.on_click(lambda _b: self.stop("prices"))
        self.reset_button.on_click(lambda _b: self.reset())

    # --- the Explorer ---------------------------------------------------------------
    #: Its tab in the Explorer (``AlternativesView.attach(explorer)``: the Explorer's
    #: data, settings and rules; cleared when the data, outcome or family change).
    tab_title = "Alternatives"

    @classmethod
    def explorer_arguments(cls, explorer) -> dict[str, Any]:
        """The Explorer's data, settings and rules."""
        return {"source": explorer_source(explorer)}

    def follow(self, explorer) -> None:
        """Clear the view when the Explorer's data, outcome, family or scale change."""
        pickers = (explorer.dataset_picker, explorer.outcome_picker, explorer.family_picker)
        for picker in (*pickers, explorer.scale):  # (the scale: after the Explorer's own)
            picker.observe(lambda _change: self.sync_source(), names="value")
        self.sync_source()

    def sync_source(self) -> bool:
        """Read :attr:`source`; clear the view if the data, family, settings or rules
        changed. False (the view cleared) when the source is not ready.

        Returns
        -------
        bool
            Whether the source is ready.
        """
        if self.source is None:
            return self.state.family is not None
        try:
            context = self.source()
            changed = self.state.configure(**context)
        except Exception:  # no data yet, or a family without alternatives
            self.state.clear()
            self._show_set()
            return False
        if changed:
            self._show_set()
        self._show_support()
        return True

    def _show_support(self) -> bool:
        """Say in words why the settings have no alternatives (a risk score's learned
        scale) and disable the buttons, or enable them again; whether supported."""
        reason = self.state.unsupported(words=True)
        busy = self.running("set") or self.running("prices")
        self.find_button.disabled = busy or reason is not None
        self.prices_button.disabled = busy or reason is not None
        if reason is not None:
            self._message(reason, "info")
            self._refused = True
        elif self._refused:
            self._message("")
            self._refused = False
        return reason is None

    # --- computing ------------------------------------------------------------------
    def running(self, job: str = "set") -> bool:
        """Whether ``job`` (``"set"`` or ``"prices"``) is being computed.

        Parameters
        ----------
        job : {"set", "prices"}
            The computation.

        Returns
        -------
        bool
            True while it runs.
        """
        return self._jobs.running(job)

    def _not_ready(self) -> str:
        """Why nothing can be computed now, in words."""
        try:
            context = self.source() if self.source is not None else None
        except Exception as exc:
            return describe_error(exc)
        if context is not None:
            family = get_family(context["family"])
            if family.alternatives is None:
                return f"{family.label} models offer no alternatives."
        return "Load data and choose the outcome first."

    def _tolerance(self) -> float:
        value = float(self.tolerance.value)
        return value / 100.0 if self.state.spec.tolerance_unit == "relative" else value

    def compute(self, wait: bool = False, timeout: float = 600.0) -> bool:
        """Find the set (what **Find alternatives** does) in a worker thread.

        Parameters
        ----------
        wait : bool
            Block until it is found.
        timeout : float
            Seconds to wait.

        Returns
        -------
        bool
            False (and a message) if it could not start.
        """

        def work():
            tolerance, max_models = self._tolerance(), int(self.max_models.value)
            return lambda stop, _put: self.state.compute_set(
                tolerance=tolerance, max_models=max_models, stop=stop
            )

        return self._launch(
            "set", work, "searching every model within the tolerance…", wait, timeout
        )

    def compute_prices(self, wait: bool = False, timeout: float = 600.0) -> bool:
        """Compute the price of each feature (what **Price of each feature** does).

        Parameters
        ----------
        wait : bool
            Block until done.
        timeout : float
            Seconds to wait.

        Returns
        -------
        bool
            False (and a message) if it could not start.
        """
        self.prices_table.value = ""

        def work():
            return lambda stop, put: self.state.compute_prices(stop=stop, callback=put)

        return self._launch("prices", work, "pricing each feature…", wait, timeout)

    def _launch(self, job: str, make_work: Callable, status: str, wait: bool, timeout: float):
        """Start ``job`` unless another runs or the data are not ready (a message)."""
        if self.running("set") or self.running("prices"):
            self._message("A computation is running; press Stop first.", "warning")
            return False
        if not self.sync_source():
            self._message(self._not_ready(), "warning")
            return False
        if not self._show_support():  # (the reason is shown)
            return False
        try:
            work = make_work()
        except Exception as exc:
            self._message(describe_error(exc))
            return False
        self._message("")
        self._start(job, work, status)
        if wait:
            self.wait(timeout)
        return True

    def _start(self, job: str, work: Callable, status: str) -> None:
        with self._lock:
            thread = self._jobs.add(job, work, gate=CoreGate.from_environment())
            self._set_running(job, True)
            (self.status_label if job == "set" else self.prices_status).value = grey_html(status)
            thread.start()
        if self.auto_refresh:
            self._refresher.ensure_running()

    def stop(self, job: str = "set") -> None:
        """Stop ``job`` (``"set"`` or ``"prices"``): what it found so far is kept.

        Parameters
        ----------
        job : {"set", "prices"}
            The computation.
        """
        self._jobs.stop(job)

    def _set_running(self, job: str, running: bool) -> None:
        busy = running or any(self.running(j) for j in self._jobs if j != job)
        self.find_button.disabled = busy or self._refused
        self.prices_button.disabled = busy or self._refused
        (self.stop_button if job == "set" else self.prices_stop).disabled = not running

    def _safe_poll(self) -> bool:
        try:
            return self.poll()
        except Exception as exc:  # a refresh must not die silently
            log.exception("alternatives view refresh failed")
            self._message(f"Display update failed: {describe_error(exc)}")
            return any(self.running(j) for j in self._jobs)

    def poll(self) -> bool:
        """Show what the computations have delivered; True while one runs.

        Returns
        -------
        bool
            Whether a computation is still running.
        """
        with self._lock:
            for job, items, final in self._jobs.drain():
                if job == "prices" and items:
                    self._partial_prices(items)
                if final is not None:
                    self._set_running(job, False)
                    self._finished(job, *final)
            return self._jobs.busy()

    def wait(self, timeout: float = 600.0, interval: float = 0.05) -> None:
        """Block until every computation has finished and is shown.

        Parameters
        ----------
        timeout : float
            Seconds.
        interval : float
            Seconds between polls.
        """
        deadline = time.monotonic() + timeout
        while self.poll() or self._jobs:
            if time.monotonic() > deadline:
                raise TimeoutError(f"still computing after {timeout} s")
            time.sleep(interval)

    def _finished(self, job: str, kind: str, payload) -> None:
        label = self.status_label if job == "set" else self.prices_status
        if kind == "error":
            label.value = ""
            self._message(describe_error(payload))
            return
        if payload is None:  # stopped before a processor core was free
            label.value = grey_html("stopped before a processor core was free")
            return
        if job == "set":
            label.value = ""
            self._show_set()
        else:
            label.value = grey_html(f"done in {payload.time:.0f} s")
            self._show_prices()

    # --- showing --------------------------------------------------------------------
    def _noun(self) -> str:
        if self.noun:
            return self.noun
        if self.state.family is None:
            return "model"
        return get_family(self.state.family).noun

    def _show_family(self, family: str | None) -> None:
        relative = family is None or get_family(family).alternatives.tolerance_unit == "relative"
        if self.tolerance.description in _TOLERANCE_LABELS:  # (unless a page relabelled it)
            self.tolerance.description = _TOLERANCE_LABELS[not relative]
        if family is not None:
            spec = get_family(family).alternatives
            self.tolerance.value = 100 * spec.tolerance if relative else spec.tolerance

    def _show_set(self) -> None:
        import ipywidgets as w

        from riskexplore.widgets.plot_view import replace_figure

        state, found = self.state, self.state.found
        if state.family != self._family_shown:
            self._show_family(state.family)
            self._family_shown = state.family
        if found is None:
            self.summary.value = ""
            self.cards.children = ()
            self.card.value = ""
            self.distance.value = ""
            self.edits.clear()
            self.reset_button.disabled = True
            self.metrics.clear()
            self.reliability.clear()
            replace_figure(self.frequency, _empty_figure())
            self.prices_table.value = ""
            replace_figure(self.prices_figure, _empty_figure())
            _fold(self.results, False)
            _fold(self.prices_plot, False)
            return
        _fold(self.results, True)
        noun = self._noun()
        self.summary.value = set_summary_html(found, noun)
        buttons = []
        spec = state.spec
        for i, alternative in enumerate(found):
            fields = spec.describe_model(alternative.model)
            text = state.card_label(i, self.size_noun) + " — " + card_text(fields)
            button = w.Button(  # (a card keeps its height in the scrolled list)
                description=text, tooltip=text, layout=w.Layout(width="100%", flex="0 0 auto")
            )
            button.add_class("rx-alt-choice")
            button.on_click(lambda _b, i=i: self.select(i))
            buttons.append(button)
        self.cards.children = tuple(buttons)
        head = html.unescape(strip_tags(set_summary_html(found, noun)))
        figure = feature_frequency_figure(
            found,
            title=head.replace(". ", "; ", 1),
            feature_noun=self.feature_noun,
            model_noun=noun,
        )
        replace_figure(self.frequency, figure)
        self._show_prices()
        if state.selected is not None:
            self._show_model()

    def show_found(self, found, selected: int | None = None) -> None:
        """Show a set found before (a study's), as if it had just been found.

        Parameters
        ----------
        found : NearOptimalSet
            The set, of the family, settings and constraints configured now.
        selected : int, optional
            The index of the model to show.
        """
        self.state.adopt(found, selected)
        self._show_set()
        relative = found.tolerance_unit == "relative"  # the field says what the set is within
        self.tolerance.value = 100 * found.tolerance if relative else found.tolerance

    def select(self, index: int) -> bool:
        """Show model ``index`` of the set (what clicking its card does).

        Parameters
        ----------
        index : int
            Its position (0: the best).

        Returns
        -------
        bool
            False (and a message) if refused.
        """
        try:
            self.state.select(index)
        except Exception as exc:
            self._message(describe_error(exc))
            return False
        self._message("")
        self._show_model()
        return True

    def _show_model(self) -> None:
        state, model = self.state, self.state.model
        if model is None:
            return
        for i, button in enumerate(self.cards.children):
            button.button_style = "info" if i == state.selected else ""
        rank = (state.selected or 0) + 1
        heading = f"Model #{rank}" + (" (edited)" if state.edited else "")
        self.card.value = model_html(model, heading)
        self.distance.value = distance_html(model, self._noun())
        self.reset_button.disabled = not state.edited
        self.edits.show(state)
        if get_family(state.family).outcome == "survival":  # the panels need a 0/1 outcome
            show_yes_no_only(self.metrics)
            show_yes_no_only(self.reliability, say_why=False)
            return
        X, y, X_test, y_test = state.data
        self._show_metrics(model, X, y, X_test, y_test)
        self.reliability.show(model, X, y, X_test, y_test)

    def _show_metrics(self, model, X, y, X_test, y_test) -> None:
        """The model beside the best one: the figure is drawn once per set, then only
        this model's curves and row are computed again (an edit shows at once)."""
        state = self.state
        if self._metrics_of is not state.found or self.metrics.table is None:
            if self.metrics.show({"best": state.best, "this model": model}, X, y, X_test, y_test):
                self._metrics_of = state.found
            return
        try:
            with self.metrics.figure.batch_update():
                update_model_metrics(self.metrics.figure, 1, model, X, y, X_test, y_test)
        except Exception as exc:
            self.metrics.message.value = message_html(describe_error(exc))
            return
        self.metrics.models["this model"] = model

    def reset(self) -> None:
        """Undo the edits (what **Back to the model** does)."""
        self.state.reset()
        self._show_model()

    def _edit(self, action: Callable[[], Any]) -> bool:
        try:
            action()
        except Exception as exc:
            self._message(describe_error(exc))
            self.edits.show(self.state)
            return False
        self._message("")
        self._show_model()
        return True

    def change_points(self, feature: str, delta: int) -> bool:
        """Add ``delta`` points to ``feature`` of the model shown (its ``−``/``+``).

        Parameters
        ----------
        feature : str
            The feature.
        delta : int
            ``+1`` or ``-1``.

        Returns
        -------
        bool
            False (and a message) if refused.
        """
        return self._edit(lambda: self.state.change_points(feature, delta))

    def set_item(self, item: str, on: bool) -> bool:
        """Put ``item`` on the checklist shown or take it off (its checkbox).

        Parameters
        ----------
        item : str
            The item.
        on : bool
            On or off.

        Returns
        -------
        bool
            False (and a message) if refused.
        """
        return self._edit(lambda: self.state.set_item(item, on))

    def change_threshold(self, delta: int) -> bool:
        """Add ``delta`` to the threshold ``M`` of the checklist shown.

        Parameters
        ----------
        delta : int
            ``+1`` or ``-1``.

        Returns
        -------
        bool
            False (and a message) if refused.
        """
        return self._edit(lambda: self.state.change_threshold(delta))

    # --- edit controls --------------------------------------------------------------

    @property
    def item_boxes(self) -> dict[str, Any]:
        """Item -> its checkbox (checklists; empty for risk scores)."""
        return self.edits.item_boxes

    # --- prices ---------------------------------------------------------------------
    def _partial_prices(self, items) -> None:
        current = {p.feature: p for p in self._arrived}
        for p in items:
            current[p.feature] = p
        self._arrived = list(current.values())
        self.prices_table.value = prices_html(self._arrived, running=True, best=self.state.best)

    def _show_prices(self) -> None:
        from riskexplore.widgets.plot_view import replace_figure

        prices = self.state.prices
        self._arrived = []
        _fold(self.prices_plot, prices is not None)
        if prices is None:
            self.prices_table.value = ""
            replace_figure(self.prices_figure, _empty_figure())
            return
        self.prices_table.value = prices_html(prices)
        relative = self.state.spec.tolerance_unit == "relative"
        figure = feature_price_figure(prices, title=self.prices_title, relative=relative)
        replace_figure(self.prices_figure, figure)

    # --- messages -------------------------------------------------------------------
    def _message(self, text: str, level: str = "error") -> None:
        self.message.value = message_html(text, level) if text else ""

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def _fold(box, shown: bool) -> None:
    """Show ``box``, or fold it to no height (rather than ``display: none``, so that its
    plots keep their size and are not redrawn when they appear)."""
    box.layout.height = None if shown else "0px"
    box.layout.overflow = None if shown else "hidden"
    box.layout.visibility = None if shown else "hidden"


def _empty_figure():
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.update_layout(height=40, margin={"l": 0, "r": 0, "t": 0, "b": 0})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig
