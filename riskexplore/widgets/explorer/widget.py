"""The Explorer: pick data, settings and constraints, solve, and look at every result view.

:class:`Explorer` composes the views of this package into one page:

1. **Data** — a bundled dataset or an uploaded CSV (``FileUpload``; at most
   :data:`MAX_UPLOAD_BYTES`), and the outcome column;
2. **Settings** — model family (risk score or checklist), size limit, coefficient range,
   how points become a risk (risk scores: a fixed or a learned scale, and the range of
   the learned multiplier), time limit, binarization (checklists), held-out fraction;
   and the **columns** of a raw table (:attr:`Explorer.binarization`): each column's kind,
   its cut points (editable) and items, or why it was skipped;
3. **Constraints** — a :class:`~riskexplore.widgets.builders.risk_score.ConstraintBuilder`
   (risk scores) or a :class:`ChecklistConstraintBuilder
   <riskexplore.widgets.builders.checklist.ChecklistConstraintBuilder>` (checklists) over
   the current data;
4. **Solve** — unconstrained and constrained runs, each with its own
   :class:`~riskexplore.widgets.monitor.SolveMonitor`, kept side by side;
5. **Results** — reliability diagram, AUC/CAL panel, size path and the comparison with
   the certified price of the constraints (risk scores: and the certified price of a
   fixed scale, computed in the background once both runs have finished); **By group**
   (:class:`~riskexplore.widgets.audit.view.AuditView`): the audit of a run by one column
   or two, its findings in plain words, each with the rule that limits it (one click
   adds it to the constraints; the constrained run then shows its price); **Validation**
   (:class:`~riskexplore.widgets.explorer.validation.ValidationView`): **Validate on
   another file** and **Download report**.

All inputs are validated in plain Python (:class:`ExplorerState`); an invalid choice
(no outcome, a non-binary outcome, a bad CSV, a constraint on a missing feature, an
infeasible constraint set) becomes a readable message on the page — never a traceback —
and the previous results stay.

Driving it from code (tests, dashboards)::

    ex = Explorer("mammo", time_limit=5, max_size=3)
    ex.add_constraint(Exclude("Age_geq_60"))
    ex.solve(constrained=False, wait=True)
    ex.solve(constrained=True, wait=True)
    ex.results["constrained"], ex.comparison.price_of_constraints

The Explorer coordinates collaborators, one per part of the page: the settings' widgets
(:mod:`riskexplore.widgets.explorer.settings`), the runs' buttons and monitors
(:mod:`riskexplore.widgets.explorer.runs`), the result views
(:mod:`riskexplore.widgets.explorer.results`), saving and opening study files
(:meth:`Explorer.save_study`, :meth:`Explorer.open_study`;
:mod:`riskexplore.widgets.explorer.study`) and the page's layout
(:mod:`riskexplore.widgets.explorer.layout`).
"""

from __future__ import annotations

import html
import logging
import threading
from typing import Any

from riskexplore.core.registry import DEFAULT_FAMILY, families, load_plugin
from riskexplore.datasets import list_datasets
from riskexplore.errors import InputError
from riskexplore.exploration.explorer import MAX_UPLOAD_BYTES, ExplorerState
from riskexplore.exploration.runner import describe_error
from riskexplore.exploration.study.document import Study
from riskexplore.widgets.alternatives.view import AlternativesView
from riskexplore.widgets.audit.view import AuditView
from riskexplore.widgets.cards import message_html
from riskexplore.widgets.explorer.binarization import BinarizationView
from riskexplore.widgets.explorer.layout import explorer_page, results_tabs
from riskexplore.widgets.explorer.results import ResultViews
from riskexplore.widgets.explorer.runs import RunControls
from riskexplore.widgets.explorer.settings import SettingsControls
from riskexplore.widgets.explorer.study import StudyFiles
from riskexplore.widgets.explorer.validation import ValidationView

__all__ = ["Explorer"]

log = logging.getLogger(__name__)


class Explorer:
    """One page to explore risk scores and checklists on a dataset.

    Parameters
    ----------
    dataset : str, optional
        A bundled dataset to load at once (see :func:`riskexplore.list_datasets`).
    family : str
        The model family (``"risk_score"``, ``"checklist"``; see
        :mod:`riskexplore.core.registry`).
    time_limit : float
        Seconds per solve.
    **defaults
        Further settings (keys of
        :func:`~riskexplore.exploration.explorer.default_settings`), ``outcome`` (a
        column to use as outcome) and ``auto_refresh`` (monitors refresh by themselves;
        default True).

    Attributes
    ----------
    state : ExplorerState
        The plain-Python state (data, settings, results, messages).
    widget : ipywidgets.VBox
        The whole page (``display(explorer)`` also works).
    binarization : BinarizationView
        The columns of the raw table: kinds, cut points and items, edited there
        (:mod:`riskexplore.widgets.explorer.binarization`).
    settings_controls : SettingsControls
        The settings' widgets (:mod:`riskexplore.widgets.explorer.settings`; each is also
        an attribute: ``max_size``, ``scale``, ``time_limit``, ...).
    run_controls : RunControls
        The runs' Solve buttons and monitors (:mod:`riskexplore.widgets.explorer.runs`).
    monitors : dict
        ``"unconstrained"`` / ``"constrained"`` -> :class:`SolveMonitor`.
    result_views : ResultViews
        The result views (:mod:`riskexplore.widgets.explorer.results`).
    reliability, metrics, pareto, compare : the result views.
    alternatives : AlternativesView
        Near-optimal models, hand edits and feature prices (the "Alternatives" tab).
    audit : AuditView
        The model group by group, with the rules that limit its findings (the "By
        group" tab).
    validation : ValidationView
        A run's model validated on another file (an upload), and its report to download
        (the "Validation" tab; :mod:`riskexplore.widgets.explorer.validation`).
    study_files : StudyFiles
        Saving and opening study files (:mod:`riskexplore.widgets.explorer.study`).
    message : ipywidgets.HTML
        The latest message (errors in red).

    Examples
    --------
    In a notebook cell (the cell's last line shows the page):

    >>> from riskexplore.widgets import Explorer
    >>> ex = Explorer("mammo", max_size=3, time_limit=10)
    >>> ex  # doctest: +SKIP

    The page's steps from code: solve, add a rule, solve with it, compare, keep the study.

    >>> from riskexplore import Exclude
    >>> ex.solve(wait=True).status
    'optimal'
    >>> ex.add_constraint(Exclude("IrregularShape"))
    True
    >>> ex.solve(constrained=True, wait=True).status
    'optimal'
    >>> sorted(ex.results)
    ['constrained', 'unconstrained']
    >>> low, high = ex.comparison.price_of_constraints  # certified: V*(rule) - V*
    >>> 0 <= high
    True
    >>> ex.save_study("mammo_study.json")  # doctest: +SKIP
    """

    def __init__(
        self,
        dataset: str | None = None,
        family: str = DEFAULT_FAMILY,
        time_limit: float = 60,
        **defaults: Any,
    ) -> None:
        auto_refresh = bool(defaults.pop("auto_refresh", True))
        outcome = defaults.pop("outcome", None)
        self.state = ExplorerState()
        self._lock = threading.RLock()
        self._builders: dict[tuple, Any] = {}
        self._syncing = False
        self.state.set_family(family)
        self.state.update_settings(time_limit=time_limit, **defaults)
        # The page's own layout (headings, boxes, the results' tabs) is built when it is
        # first shown or asked for (``widget``, ``results_tabs``): a dashboard that lays
        # out the views itself never sends the browser these widgets it does not show.
        self._widget: Any = None
        self._results_tabs: Any = None
        self._extra_tabs: list[tuple[str, Any]] = []
        self._tab_selected: dict[str, Any] = {}  # a tab's model id -> called when chosen
        self._build(auto_refresh)
        self._wire()
        self._attach_tabs(auto_refresh)
        self._show_family_settings()
        self._refresh_builder()
        if dataset is not None:
            self.load_dataset(dataset)
            if outcome is not None:
                self.set_outcome(outcome)

    def _build(self, auto_refresh: bool) -> None:
        """Make the widgets of the data, the settings, the runs and the results."""
        import ipywidgets as w

        style = {"description_width": "130px"}
        lay = w.Layout(width="360px")
        # --- data
        self.dataset_picker = w.Dropdown(
            options=[("(choose)", "")] + [(n, n) for n in list_datasets()],
            value="",
            description="bundled dataset",
            style=style,
            layout=lay,
        )
        self.upload = w.FileUpload(accept=".csv,text/csv", multiple=False, description="Upload CSV")
        self.outcome_picker = w.Dropdown(
            options=[("(choose)", "")], value="", description="outcome", style=style, layout=lay
        )
        self.data_info = w.HTML()
        #: The outcome picker's label for a 0/1 outcome and in survival mode (a page may
        #: word them its own way).
        self.outcome_labels = ("outcome", "event column")
        # --- settings
        self.family_picker = w.ToggleButtons(
            options=_family_choices(self.state),  # survival: the event is the outcome
            value=self.state.family,
        )
        controls = self.settings_controls = SettingsControls(self.state.settings, style, lay)
        self.max_size, self.coef_range = controls.max_size, controls.coef_range
        self.scale, self.multiplier_range = controls.scale, controls.multiplier_range
        self.max_items, self.binarize = controls.max_items, controls.binarize
        self.group_columns = controls.group_columns
        self.time_limit, self.test_fraction = controls.time_limit, controls.test_fraction
        self.binarization = BinarizationView(lambda: self.state, self._data_changed)
        # --- constraints, results, runs
        self.constraints_box = w.VBox()
        # (the collaborators read the state at each use: opening a study replaces it)
        views = self.result_views = ResultViews(
            lambda: self.state, self._show, self._lock, auto_refresh=auto_refresh
        )
        self.reliability, self.reliability_run = views.reliability, views.reliability_run
        self.metrics, self.pareto, self.compare = views.metrics, views.pareto, views.compare
        runs = self.run_controls = RunControls(
            lambda: self.state,
            self._show,
            self._lock,
            on_start=views.compare.cancel_scale_price,  # the new search gets the processor
            on_result=views.refresh,
            auto_refresh=auto_refresh,
        )
        self.solve_free, self.solve_bound = runs.solve_free, runs.solve_bound
        self.monitors = runs.monitors
        self.message = w.HTML()

    def _wire(self) -> None:
        """Observe the widgets: each change goes through the plain-Python state."""
        self.dataset_picker.observe(self._on_dataset, names="value")
        self.upload.observe(self._on_upload, names="value")
        self.outcome_picker.observe(self._on_outcome, names="value")
        self.family_picker.observe(self._on_family, names="value")
        for widget in self.settings_controls.widgets:
            widget.observe(self._on_setting, names="value")
        self.solve_free.on_click(lambda _b: self.solve(constrained=False))
        self.solve_bound.on_click(lambda _b: self.solve(constrained=True))
        self.pareto.on_compute = lambda: self.compute_path()

    def _attach_tabs(self, auto_refresh: bool) -> None:
        """The tabs that follow the Explorer (after its own observers, which see a change
        first), and the study files that save and open them with the rest."""
        # beyond the optimum: near-optimal models, hand edits, feature prices (a tab)
        self.alternatives = AlternativesView.attach(self, auto_refresh=auto_refresh)
        # does it work for every group of patients? (a tab, drawn with the results)
        self.audit = AuditView.attach(self)
        # validate a run's model on another file, and download its report (a tab)
        self.validation = ValidationView.attach(self)
        self.result_views.followers += [self.audit, self.validation]
        self.study_files = StudyFiles(
            state=lambda: self.state,
            adopt=self._adopt_state,
            builder=lambda: self.constraint_builder,
            show=self._show,
            runs=self.run_controls,
            results=self.result_views,
            alternatives=self.alternatives,
            audit=self.audit,
        )

    # --- layout (built on first use) ----------------------------------------------------
    @property
    def results_tabs(self):
        """The results' tabs of :attr:`widget` (reliability, AUC / CAL, size path,
        compare, and the tabs added by :meth:`add_results_tab`); built on first use."""
        if self._results_tabs is None:
            self._results_tabs = results_tabs(self, self._extra_tabs)
            self._results_tabs.observe(self._on_tab, names="selected_index")
        return self._results_tabs

    def add_results_tab(self, title: str, widget, on_select=None) -> None:
        """Add a tab to :attr:`results_tabs` (now, or when the tabs are built).

        Parameters
        ----------
        title : str
            The tab's title.
        widget : ipywidgets.Widget
            Its content.
        on_select : callable, optional
            Called (no arguments) each time the tab is chosen.
        """
        self._extra_tabs.append((title, widget))
        if on_select is not None:
            self._tab_selected[widget.model_id] = on_select
        tabs = self._results_tabs
        if tabs is not None:
            tabs.children = (*tabs.children, widget)
            tabs.set_title(len(tabs.children) - 1, title)

    def _on_tab(self, change) -> None:
        index = change["new"]
        children = self._results_tabs.children
        if index is not None and 0 <= index < len(children):
            callback = self._tab_selected.get(children[index].model_id)
            if callback is not None:
                callback()

    @property
    def widget(self):
        """The whole page (an ``ipywidgets.VBox``); built on first use."""
        if self._widget is None:
            self._widget = explorer_page(self)
        return self._widget

    # --- display ---------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def _show(self, text: str, level: str = "error") -> None:
        self.state.messages.append((level, text))
        self.message.value = message_html(text, level) if text else ""

    @property
    def last_message(self) -> tuple[str, str] | None:
        """``(level, text)`` of the latest message, or None."""
        return self.state.messages[-1] if self.state.messages else None

    def _guard(self, action, *args, ok: str | None = None, **kwargs) -> bool:
        """Run a state change; a readable message instead of a traceback on failure."""
        try:
            action(*args, **kwargs)
        except Exception as exc:
            if not isinstance(exc, InputError):
                log.debug("explorer action failed", exc_info=True)
            self._show(describe_error(exc))
            return False
        if ok:
            self._show(ok, "info")
        return True

    # --- data ------------------------------------------------------------------------
    def load_dataset(self, name: str) -> bool:
        """Load a bundled dataset (outcome chosen); False and a message on failure."""
        if not self._guard(self.state.load_dataset, name):
            return False
        self._data_changed()
        self._show(f"Loaded {self.state.dataset}: {len(self.state.frame)} rows.", "info")
        return True

    def load_csv(self, content: bytes, name: str = "upload.csv") -> bool:
        """Load an uploaded CSV; choose the outcome next. False and a message on failure
        (the previous data stay)."""
        if not self._guard(self.state.load_csv, content, name):
            return False
        self._data_changed()
        self._show(
            f"Loaded {name}: {len(self.state.frame)} rows. Choose the outcome column.", "info"
        )
        return True

    def set_outcome(self, column: str | None) -> bool:
        """Choose the outcome column; False and a message if it cannot be used."""
        if not self._guard(self.state.set_outcome, column):
            self._sync_widgets()
            return False
        self._data_changed()
        y = self.state.y
        self._show(
            f"Outcome {column!r}: {int(y.sum())} of {len(y)} training rows positive.", "info"
        )
        return True

    def _data_changed(self) -> None:
        self._sync_widgets()
        self._refresh_builder()
        self.result_views.clear_stale()
        self.result_views.configure_path()
        self.audit.set_columns(self.state.feature_names)
        self.audit.refresh()

    def _sync_widgets(self) -> None:
        st = self.state
        self._syncing = True
        try:
            bundled = [v for _label, v in self.dataset_picker.options]
            if st.source == "bundled" and st.dataset in bundled:
                self.dataset_picker.value = st.dataset
            cols = st.columns
            self.outcome_picker.options = [("(choose)", "")] + [(c, c) for c in cols]
            self.outcome_picker.value = st.outcome or ""
            self.group_columns.options = st.group_column_options
            self.group_columns.value = tuple(st.settings.get("group_columns") or ())
            self.outcome_picker.description = self.outcome_labels[st.survival_mode]
            self.family_picker.options = _family_choices(st)
            self.family_picker.value = st.family
            self.settings_controls.show_data(st)
        finally:
            self._syncing = False
        self.data_info.value = _data_info_html(st)

    def _on_dataset(self, change) -> None:
        if not self._syncing and change["new"]:
            self.load_dataset(change["new"])

    def _on_upload(self, change) -> None:
        if self._syncing:
            return
        files = change["new"]
        if not files:
            return
        f = files[0] if isinstance(files, (list, tuple)) else next(iter(files.values()))
        size = f.get("size") or len(f.get("content", b""))
        if size and size > MAX_UPLOAD_BYTES:
            self._show(f"{f.get('name')} is too large; files up to 20 MB are accepted")
            return
        loaded = self.load_csv(f["content"], f.get("name") or "upload.csv")
        self._syncing = True
        try:
            if loaded:
                self.dataset_picker.value = ""
            self.upload.value = ()  # the same file can be uploaded again
        except Exception:  # pragma: no cover - older ipywidgets keep the value
            log.debug("could not reset the upload widget", exc_info=True)
        finally:
            self._syncing = False

    def _on_outcome(self, change) -> None:
        if not self._syncing and change["new"] != (self.state.outcome or ""):
            self.set_outcome(change["new"] or None)

    # --- settings --------------------------------------------------------------------
    def set_family(self, family: str) -> bool:
        """Choose the model family (False and a message for an unknown one).

        Parameters
        ----------
        family : str
            A family name (``"risk_score"``, ``"checklist"``).

        Returns
        -------
        bool
            Whether the family was chosen.
        """
        if not self._guard(self.state.set_family, family):
            return False
        self._syncing = True
        self.family_picker.value = family
        self._syncing = False
        self._show_family_settings()
        self._sync_widgets()
        self.result_views.clear_stale()
        self._refresh_builder()
        self.result_views.configure_path()
        return True

    def update_settings(self, **settings: Any) -> bool:
        """Change settings (keys of
        :func:`~riskexplore.exploration.explorer.default_settings`); False and a message
        if invalid (nothing changes)."""
        if not self._guard(self.state.update_settings, **settings):
            self._sync_settings()
            return False
        self._sync_settings()
        if {"test_fraction", "seed", "time_column"} & set(settings):
            self._sync_widgets()
        self._refresh_builder()
        self.result_views.configure_path()
        return True

    @property
    def settings(self) -> dict[str, Any]:
        """A copy of the current settings."""
        return dict(self.state.settings)

    def _sync_settings(self) -> None:
        self._syncing = True
        try:
            self.settings_controls.show(self.state.settings)
            self.settings_controls.show_data(self.state)
        finally:
            self._syncing = False

    def _on_family(self, change) -> None:
        if not self._syncing:
            self.set_family(change["new"])

    def _on_setting(self, _change) -> None:
        if self._syncing:
            return
        self.update_settings(**self.settings_controls.read())

    def _show_family_settings(self) -> None:
        self.settings_controls.show_family(self.state.family)

    # --- constraints -----------------------------------------------------------------
    def _builder_spec(self):
        """The family's constraint builder in the Explorer (its plug-in), or None: a family
        without one is solved with the constraints given in code."""
        path = self.state.model_family.plugins.explorer_builder
        return None if path is None else load_plugin(path)

    def _builder_key(self) -> tuple:
        spec = self._builder_spec()
        return (self.state.family, self.state.data_version) + (
            spec.key(self.state) if spec is not None else ()
        )

    @property
    def constraint_builder(self):
        """The builder of the current family and data (None before data are chosen)."""
        return self._builders.get(self._builder_key())

    @property
    def constraints(self) -> list:
        """The active constraints of the current builder."""
        builder = self.constraint_builder
        return [] if builder is None else builder.constraints

    def add_constraint(self, constraint) -> bool:
        """Add a constraint object (checked; False and a message if refused)."""
        builder = self.constraint_builder
        if builder is None:
            self._show("Load data and choose the outcome before adding constraints.")
            return False
        if not builder.add(constraint):
            self._show(builder.last_error or "constraint refused")
            return False
        self._show(f"Added: {builder.words(constraint)}", "info")
        return True

    def add_audit_rule(self, rule) -> tuple[bool, str]:
        """Add the rule of an audit finding to the constraints (the "By group" tab's
        button). A checklist's group-rate rule needs its columns as protected groups:
        they are added to the ``group_columns`` setting first (a column the audit cut into
        ranges as its binned group column, ``"age (ranges at 48, 56, 61)"``, computed from
        the data: :mod:`riskexplore.evaluation.audit.binned`).

        Parameters
        ----------
        rule : SuggestedRule
            The rule (:func:`~riskexplore.evaluation.audit.rules.rule_for_finding`).

        Returns
        -------
        (bool, str)
            Whether it was added, and what to say on the page.
        """
        if self.state.model_family.audit.rule_groups:
            chosen = tuple(self.state.settings.get("group_columns") or ())
            extra = tuple(c for c in rule.group_columns if c not in chosen)
            if extra and not self.update_settings(group_columns=chosen + extra):
                return False, self.last_message[1] if self.last_message else "refused"
        if not self.add_constraint(rule.constraint):
            return False, self.last_message[1] if self.last_message else "refused"
        text = (
            f"Added the rule: {rule.constraint.describe()}. Run the search with your rules "
            "to see the model it gives and what the rule costs."
        )
        self._show(text, "info")
        return True, text

    def clear_constraints(self) -> None:
        """Remove every constraint of the current builder."""
        if self.constraint_builder is not None:
            self.constraint_builder.clear()

    def _refresh_builder(self) -> None:
        import ipywidgets as w

        self.binarization.refresh()  # (the items the rules name)
        st = self.state
        if st.X is None:
            self.constraints_box.children = [
                w.HTML(
                    '<div style="color:#777">Load data and choose the outcome to add '
                    "constraints.</div>"
                )
            ]
            return
        spec = self._builder_spec()
        if spec is None:
            self.constraints_box.children = [
                w.HTML(
                    '<div style="color:#777">Rules cannot be set on this page for a '
                    f"{html.escape(st.model_family.label.lower())} yet: the search finds the "
                    "best one without rules.</div>"
                )
            ]
            return
        key = self._builder_key()
        builder = self._builders.get(key)
        try:
            if builder is None:
                builder = spec.make(st)
                # keep the constraints of the same family that still apply
                previous = [b for k, b in self._builders.items() if k[0] == key[0]]
                if previous:
                    for c in previous[-1].constraints:
                        builder.add(c, quiet=True)
                    builder._refresh_list()
                self._builders = {k: b for k, b in self._builders.items() if k[0] != key[0]}
                self._builders[key] = builder
            else:
                spec.refresh(builder, st)
        except Exception as exc:
            self._show(f"Constraints unavailable: {describe_error(exc)}")
            self.constraints_box.children = []
            return
        self.constraints_box.children = [builder.widget]

    # --- solving ---------------------------------------------------------------------
    def solve(self, constrained: bool = False, wait: bool = False, timeout: float | None = None):
        """Start the unconstrained or constrained run (what the Solve buttons do).

        Returns its :class:`SolveMonitor` (use ``monitor.wait()``), or None and a message
        if the data, settings or constraints cannot be solved. With ``wait=True`` blocks
        until the run ends.
        """
        run = "constrained" if constrained else "unconstrained"
        monitor, started = self.run_controls.start(run, self.constraints if constrained else [])
        if started and wait:
            self.wait(timeout)
        return monitor

    def wait(self, timeout: float | None = None) -> None:
        """Block until every running solve (and path) ends."""
        limit = timeout if timeout is not None else 3 * self.state.settings["time_limit"] + 60
        self.run_controls.wait(limit)
        self.result_views.wait(limit)

    @property
    def results(self) -> dict[str, Any]:
        """``"unconstrained"`` / ``"constrained"`` -> fitted model."""
        return self.state.results

    @property
    def comparison(self):
        """The current comparison (see :meth:`ExplorerState.comparison`), or None."""
        return self.compare.comparison

    @property
    def scale_price(self):
        """The certified price of a fixed scale for the unconstrained run
        (:class:`~riskexplore.risk_score.scale_price.ScalePrice`), or None until computed."""
        return self.state.current_scale_price()

    def figures(self) -> dict[str, Any]:
        """Static ``go.Figure`` of every view that has something to show (for papers and
        ``save_figure``): ``"unconstrained"``/``"constrained"`` (solve progress),
        ``"reliability"``, ``"metrics"``, ``"pareto"``, ``"compare"``, ``"by_group"`` (the
        forest plot of the "By group" tab)."""
        out = self.run_controls.figures()
        out.update(self.result_views.figures())
        if self.audit.state.result is not None:
            out["by_group"] = self.audit.static_figure()
        return out

    def compute_path(self, sizes=None, time_limit_per_size=None, wait: bool = False) -> bool:
        """Compute the size path of the current family (sizes 1..max by default) with the
        current constraints, filling the Size path view progressively."""
        return self.result_views.compute_path(self.constraints, sizes, time_limit_per_size, wait)

    # --- study files -----------------------------------------------------------------
    def save_study(self, path=None, *, include_data: bool = False) -> Study:
        """Save the exploration as a study file (JSON data, never code).

        The study keeps the data's identity (the bundled dataset's name or the uploaded
        file's name, with a SHA-256 hash of the table), the settings, the active
        constraints, both runs on the current data (models with their certificates and
        solve traces), the size path, the near-optimal set of the Alternatives tab
        (with the model selected in it) and the settings of the By group tab; the
        patients' rows only with ``include_data=True``. :meth:`open_study` restores it
        (the By group tab's audit is computed again).

        Parameters
        ----------
        path : str or Path, optional
            The file to write (e.g. ``"mammo_study.json"``); without it nothing is
            written (``study.to_json()`` gives the text).
        include_data : bool
            Keep the table's rows in the file (for an uploaded file that the person you
            share the study with does not have). Off by default.

        Returns
        -------
        Study
            The study (:class:`~riskexplore.exploration.study.document.Study`).

        Raises
        ------
        InputError
            Before data and outcome are chosen, or when a constraint cannot be saved
            (constraints written as Pyomo models cannot).

        Examples
        --------
        >>> ex = Explorer("mammo", max_size=3, time_limit=5)  # doctest: +SKIP
        >>> ex.solve(wait=True)  # doctest: +SKIP
        >>> study = ex.save_study("mammo_study.json")  # doctest: +SKIP
        >>> Explorer().open_study("mammo_study.json")  # doctest: +SKIP
        True
        """
        return self.study_files.save(path, include_data=include_data)

    def open_study(self, source, *, data=None, name: str | None = None) -> bool:
        """Open a study file: data, settings, constraints, both runs, the size path and the
        near-optimal set are restored and drawn (monitors with their traces, reliability,
        AUC/CAL, compare, size path, alternatives). No solve runs.

        The data are the bundled dataset the study names, the rows saved in it, ``data``,
        or — for a study of an uploaded file saved without its rows — the file loaded
        now. When the table differs from the study's (its hash), the study still opens,
        with a warning on the page (and a
        :class:`~riskexplore.exploration.study.data.StudyWarning`). A malformed or edited
        file is refused with a message and nothing changes.

        Parameters
        ----------
        source : str, Path, bytes, dict or Study
            A study file's path, its content, or a study.
        data : DataFrame, bytes, str or Path, optional
            The table to open it on (a CSV file's bytes or path).
        name : str, optional
            The file's name in messages (for bytes, as an upload gives them).

        Returns
        -------
        bool
            Whether the study was opened (else :attr:`last_message` says why).
        """
        return self.study_files.open(source, data=data, name=name)

    def _adopt_state(self, state: ExplorerState) -> None:
        """Show ``state`` instead of the current one (an opened study's): the data and
        settings' widgets, new constraint builders, the result views cleared."""
        self.state = state
        self._builders = {}
        self._syncing = True
        try:
            self.family_picker.value = state.family
            if state.source != "bundled":
                self.dataset_picker.value = ""
        finally:
            self._syncing = False
        self._show_family_settings()
        self._sync_settings()
        self.result_views.clear()
        self._data_changed()


def _data_info_html(state: ExplorerState) -> str:
    """The data's line on the page: its name, rows and columns, then the outcome and the
    training and held-out rows (empty before data are loaded).

    Parameters
    ----------
    state : ExplorerState
        The state.

    Returns
    -------
    str
        HTML.
    """
    if state.frame is None:
        return ""
    name = html.escape(str(state.dataset))
    parts = [f"<b>{name}</b>: {len(state.frame)} rows, {len(state.columns)} columns"]
    if state.y is not None:
        n_test = 0 if state.y_test is None else len(state.y_test)
        parts.append(
            f"outcome <b>{html.escape(state.outcome)}</b>; {len(state.y)} training rows "
            f"({int(state.y.sum())} positive), {n_test} held out"
        )
    return '<div style="font-family:system-ui,sans-serif">' + "<br>".join(parts) + "</div>"


def _family_choices(state: ExplorerState) -> list[tuple[str, str]]:
    """The family picker's options: the families the table allows (a survival family needs
    a time column and a 0/1 event column), and the family chosen."""
    allowed = {f.name for f in state.family_options} | {state.family}
    return [(f.label, f.name) for f in families() if f.name in allowed]
