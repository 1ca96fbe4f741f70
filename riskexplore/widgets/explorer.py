"""The Explorer: pick data, settings and constraints, solve, and look at every result view.

:class:`Explorer` composes the views of this package into one page:

1. **Data** — a bundled dataset or an uploaded CSV (``FileUpload``; at most
   :data:`MAX_UPLOAD_BYTES`), and the outcome column;
2. **Settings** — model family (risk score or checklist), size limit, coefficient range,
   time limit, binarization (checklists), held-out fraction;
3. **Constraints** — a :class:`~riskexplore.widgets.constraint_builder.ConstraintBuilder`
   (risk scores) or a :class:`~riskexplore.widgets.checklist_builder.
   ChecklistConstraintBuilder` (checklists) over the current data;
4. **Solve** — unconstrained and constrained runs, each with its own
   :class:`~riskexplore.widgets.monitor.SolveMonitor`, kept side by side;
5. **Results** — reliability diagram, AUC/CAL panel, size path and the comparison with
   the certified price of the constraints.

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
"""

from __future__ import annotations

import html
import logging
import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.data.tables import read_csv_table
from riskexplore.errors import InputError
from riskexplore.widgets.cards import message_html
from riskexplore.widgets.runner import describe_error

__all__ = ["DEFAULT_SETTINGS", "MAX_UPLOAD_BYTES", "Explorer", "ExplorerState", "RunRecord"]

log = logging.getLogger(__name__)

#: Largest CSV accepted by :meth:`ExplorerState.load_csv` (20 MB).
MAX_UPLOAD_BYTES = 20 * 1024 * 1024

#: Model families.
FAMILIES = ("risk_score", "checklist")

#: Settings and their defaults (see :class:`ExplorerState`).
DEFAULT_SETTINGS: dict[str, Any] = {
    "max_size": 5,
    "coef_min": -5,
    "coef_max": 5,
    "max_items": 5,
    "binarize": "adaptive",
    "time_limit": 60.0,
    "test_fraction": 0.25,
    "seed": 0,
    "group_columns": (),
}

_RUNS = ("unconstrained", "constrained")


@dataclass
class RunRecord:
    """What a finished run used: model, family, settings, constraints, data version."""

    model: Any
    family: str
    settings: dict[str, Any]
    constraints: list
    data_version: int
    dataset: str | None
    outcome: str | None


@dataclass
class ExplorerState:
    """Plain-Python state of an :class:`Explorer` (no widgets; every method validates and
    raises :class:`~riskexplore.errors.InputError` with a readable message).

    Attributes
    ----------
    dataset : str or None
        Name of the bundled dataset or of the uploaded file.
    source : str
        ``"bundled"`` or ``"upload"``.
    frame : DataFrame or None
        The whole table (outcome and features).
    outcome : str or None
        The outcome column (binary).
    family : str
        ``"risk_score"`` or ``"checklist"``.
    settings : dict
        ``max_size``, ``coef_min``, ``coef_max`` (risk scores), ``max_items``,
        ``binarize`` (``"adaptive"``, ``"fixed"`` or ``None``; checklists),
        ``time_limit`` (s), ``test_fraction`` and ``seed`` (held-out split; 0 for none),
        ``group_columns`` (protected-group columns for checklist group-rate constraints).
    X, y, X_test, y_test : training and held-out data (y as 0/1), set with the outcome.
    results : dict
        ``"unconstrained"`` / ``"constrained"`` -> fitted model (latest successful run).
    runs : dict
        Same keys -> :class:`RunRecord`.
    messages : list of (level, text)
        Every message shown, oldest first.
    data_version : int
        Incremented whenever the data or outcome changes.
    categorical : tuple of str
        Integer-coded categorical columns of a bundled dataset (one-hot items when
        checklists binarize; from ``dataset_info``).
    """

    dataset: str | None = None
    source: str = "bundled"
    frame: pd.DataFrame | None = None
    outcome: str | None = None
    family: str = "risk_score"
    settings: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_SETTINGS))
    X: pd.DataFrame | None = None
    y: pd.Series | None = None
    X_test: pd.DataFrame | None = None
    y_test: pd.Series | None = None
    results: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, RunRecord] = field(default_factory=dict)
    messages: list[tuple[str, str]] = field(default_factory=list)
    data_version: int = 0
    categorical: tuple[str, ...] = ()

    # --- data ------------------------------------------------------------------------
    def load_dataset(self, name: str) -> None:
        """Load a bundled dataset; its outcome column is chosen."""
        from riskexplore.datasets import dataset_info, load_dataset

        data = load_dataset(name)
        frame = data.frame
        self._set_frame(frame, data.name, "bundled")
        self.categorical = tuple(dataset_info(data.name).get("categorical") or ())
        self.set_outcome(str(data.y.name))

    def load_csv(self, content: bytes, name: str = "upload.csv") -> None:
        """Read an uploaded CSV (at most :data:`MAX_UPLOAD_BYTES`); choose the outcome
        with :meth:`set_outcome` next. Nothing changes if the file cannot be used."""
        if isinstance(content, memoryview):
            content = content.tobytes()
        if not isinstance(content, (bytes, bytearray)):
            raise InputError(f"expected the file's bytes, got {type(content).__name__}")
        if len(content) > MAX_UPLOAD_BYTES:
            raise InputError(
                f"{name} is {len(content) / 2**20:.1f} MB; files up to "
                f"{MAX_UPLOAD_BYTES // 2**20} MB are accepted"
            )
        frame = read_csv_table(content, name)  # refuses a repeated column name
        if frame.shape[1] < 2:
            raise InputError(
                f"{name} has {frame.shape[1]} column; need an outcome column and at least one "
                "feature (is the separator a comma?)"
            )
        if len(frame) < 4:
            raise InputError(f"{name} has {len(frame)} rows; need more data to fit a model")
        frame.columns = [str(c) for c in frame.columns]
        self._set_frame(frame, name, "upload")

    def _set_frame(self, frame: pd.DataFrame, name: str, source: str) -> None:
        self.frame, self.dataset, self.source = frame, name, source
        self.categorical = ()
        self.outcome = None
        self.X = self.y = self.X_test = self.y_test = None
        self.settings["group_columns"] = ()
        self.data_version += 1

    @property
    def columns(self) -> list[str]:
        return [] if self.frame is None else [str(c) for c in self.frame.columns]

    @property
    def feature_names(self) -> list[str]:
        return [c for c in self.columns if c != self.outcome]

    def set_outcome(self, column: str | None) -> None:
        """Choose the outcome column (binary, no missing values) and split the data."""
        from riskexplore.evaluation.metrics import as_binary_outcome

        if self.frame is None:
            raise InputError("load a dataset or a CSV file first")
        if column is None or str(column) == "":
            raise InputError("choose the outcome column")
        column = str(column)
        if column not in self.columns:
            raise InputError(f"unknown outcome column {column!r}")
        values = self.frame[column]
        if values.isna().any():
            raise InputError(
                f"the outcome {column!r} has {int(values.isna().sum())} missing values"
            )
        distinct = values.nunique()
        if distinct != 2:
            raise InputError(
                f"the outcome {column!r} must be binary (two values); it has {distinct} "
                "distinct value" + ("s" if distinct != 1 else "")
            )
        y = pd.Series(as_binary_outcome(values.to_numpy()), index=self.frame.index, name=column)
        X = self.frame.drop(columns=[column])
        self.outcome = column
        self._split(X, y)
        self.settings["group_columns"] = tuple(
            c for c in self.settings.get("group_columns", ()) if c in X.columns
        )
        self.data_version += 1

    def _split(self, X: pd.DataFrame, y: pd.Series) -> None:
        fraction = float(self.settings.get("test_fraction") or 0.0)
        if fraction <= 0:
            self.X, self.y, self.X_test, self.y_test = X, y, None, None
            return
        rng = np.random.default_rng(int(self.settings.get("seed", 0)))
        test = np.zeros(len(y), dtype=bool)
        yv = y.to_numpy()
        for value in (0, 1):  # stratified
            idx = np.flatnonzero(yv == value)
            k = int(round(fraction * len(idx)))
            if 0 < k < len(idx):
                test[rng.choice(idx, size=k, replace=False)] = True
        self.X, self.y = X[~test], y[~test]
        self.X_test, self.y_test = X[test], y[test]

    # --- settings --------------------------------------------------------------------
    def set_family(self, family: str) -> None:
        if family not in FAMILIES:
            raise InputError(f"unknown model family {family!r}; use 'risk_score' or 'checklist'")
        self.family = family

    def update_settings(self, **settings: Any) -> None:
        """Change settings (all checked first; nothing changes on an error)."""
        new = dict(self.settings)
        for key, value in settings.items():
            if key not in DEFAULT_SETTINGS:
                raise InputError(
                    f"unknown setting {key!r}; settings are {', '.join(DEFAULT_SETTINGS)}"
                )
            new[key] = value
        for key in ("max_size", "max_items"):
            if not (isinstance(new[key], (int, np.integer)) and new[key] >= 1):
                raise InputError(f"{key} must be a positive integer, got {new[key]!r}")
        if not all(isinstance(new[k], (int, np.integer)) for k in ("coef_min", "coef_max")):
            raise InputError("the coefficient range must be integers")
        if not new["coef_min"] <= 0 <= new["coef_max"] or new["coef_min"] == new["coef_max"]:
            raise InputError(
                f"the coefficient range [{new['coef_min']}, {new['coef_max']}] must contain 0 "
                "and another value"
            )
        try:
            new["time_limit"] = float(new["time_limit"])
        except (TypeError, ValueError):
            raise InputError(f"time_limit must be a number, got {new['time_limit']!r}") from None
        if not (new["time_limit"] > 0 and math.isfinite(new["time_limit"])):
            raise InputError(f"time_limit must be positive seconds, got {new['time_limit']}")
        if new["binarize"] not in ("adaptive", "fixed", None):
            raise InputError("binarize must be 'adaptive', 'fixed' or None")
        if not 0 <= float(new["test_fraction"]) < 0.9:
            raise InputError("test_fraction must lie in [0, 0.9)")
        new["group_columns"] = tuple(str(c) for c in new["group_columns"] or ())
        missing = [c for c in new["group_columns"] if c not in self.feature_names]
        if missing:
            raise InputError(f"unknown group column(s): {', '.join(missing)}")
        resplit = (new["test_fraction"], new["seed"]) != (
            self.settings["test_fraction"],
            self.settings["seed"],
        )
        self.settings = new
        if resplit and self.outcome is not None:
            self.set_outcome(self.outcome)

    # --- solving ---------------------------------------------------------------------
    def check_ready(self) -> None:
        """Raise a readable error unless data and outcome can be solved now."""
        from riskexplore.data.validation import check_training_data

        if self.frame is None:
            raise InputError("load a dataset or a CSV file first")
        if self.outcome is None or self.X is None:
            raise InputError("choose the outcome column")
        if self.X.shape[1] == 0:
            raise InputError("there are no feature columns besides the outcome")
        if self.y.nunique() < 2:
            raise InputError("the training data hold a single outcome value")
        if self.family == "risk_score":
            check_training_data(self.X, self.y)  # numeric features, no missing values
        elif self.settings["binarize"] is None:
            bad = [c for c in self.X.columns if not set(pd.unique(self.X[c].dropna())) <= {0, 1}]
            if bad:
                raise InputError(
                    f"without binarization every feature must be 0/1; not: {', '.join(bad[:5])}"
                )

    def groups(self, test: bool = False):
        cols = list(self.settings.get("group_columns") or ())
        X = self.X_test if test else self.X
        return None if not cols or X is None else X[cols]

    def binarizer_kwargs(self) -> dict[str, Any]:
        """``categorical=`` for the Binarizer when the dataset declares coded columns."""
        if self.settings["binarize"] is None or self.X is None:
            return {}
        cols = [c for c in self.categorical if c in self.X.columns]
        return {"categorical": cols} if cols else {}

    def fit_kwargs(self) -> dict[str, Any]:
        """Arguments of ``fit_risk_score`` / ``fit_checklist`` from the settings."""
        s = self.settings
        if self.family == "risk_score":
            return {
                "max_size": int(s["max_size"]),
                "coef_min": int(s["coef_min"]),
                "coef_max": int(s["coef_max"]),
                "time_limit": float(s["time_limit"]),
            }
        out = {
            "max_items": int(s["max_items"]),
            "binarize": s["binarize"],
            "time_limit": float(s["time_limit"]),
        }
        out.update(self.binarizer_kwargs())
        if self.groups() is not None:
            out["groups"] = self.groups()
        return out

    def solve_function(self, constraints=()):
        """A ``solve(callbacks, stop)`` for the current data, family and settings."""
        from riskexplore.widgets.runner import solve_function

        self.check_ready()
        return solve_function(
            self.family, self.X, self.y, constraints=list(constraints), **self.fit_kwargs()
        )

    def record(self, run: str, model, family, settings, constraints, data_version) -> None:
        self.results[run] = model
        self.runs[run] = RunRecord(
            model,
            family,
            dict(settings),
            list(constraints),
            data_version,
            self.dataset,
            self.outcome,
        )

    def comparison(self):
        """The :class:`~riskexplore.evaluation.compare.Comparison` of the two runs, with
        the certified price when they solved the same problem apart from the
        constraints; None until both ran on the current data."""
        from riskexplore.widgets.views_figures import comparison_from_models

        free, bound = self.runs.get("unconstrained"), self.runs.get("constrained")
        if free is None or bound is None:
            return None
        if not free.data_version == bound.data_version == self.data_version:
            return None
        nested = (
            free.family == bound.family
            and not free.constraints
            and _problem_settings(free) == _problem_settings(bound)
        )
        comparison = comparison_from_models(
            free.model,
            bound.model,
            self.X,
            self.y,
            X_test=self.X_test,
            y_test=self.y_test,
            constraints=bound.constraints,
            nested=nested,
        )
        if not nested:
            comparison.notes.append(
                "the runs used different settings, so the price of the constraints is not "
                "certified; solve both with the same settings"
            )
        return comparison


def _problem_settings(run: RunRecord) -> dict[str, Any]:
    keys = (
        ("max_size", "coef_min", "coef_max")
        if run.family == "risk_score"
        else ("max_items", "binarize", "group_columns")
    )
    return {k: run.settings.get(k) for k in keys}


class Explorer:
    """One page to explore risk scores and checklists on a dataset.

    Parameters
    ----------
    dataset : str, optional
        A bundled dataset to load at once (see :func:`riskexplore.list_datasets`).
    family : {"risk_score", "checklist"}
    time_limit : float
        Seconds per solve.
    **defaults
        Further settings (keys of :data:`DEFAULT_SETTINGS`), ``outcome`` (a column to
        use as outcome) and ``auto_refresh`` (monitors refresh by themselves; default
        True).

    Attributes
    ----------
    state : ExplorerState
        The plain-Python state (data, settings, results, messages).
    widget : ipywidgets.VBox
        The whole page (``display(explorer)`` also works).
    monitors : dict
        ``"unconstrained"`` / ``"constrained"`` -> :class:`SolveMonitor`.
    reliability, metrics, pareto, compare : the result views.
    message : ipywidgets.HTML
        The latest message (errors in red).
    """

    def __init__(
        self,
        dataset: str | None = None,
        family: str = "risk_score",
        time_limit: float = 60,
        **defaults: Any,
    ) -> None:
        import ipywidgets as w

        from riskexplore.datasets import list_datasets
        from riskexplore.widgets.compare_view import CompareView
        from riskexplore.widgets.metrics_panel import MetricsPanel
        from riskexplore.widgets.monitor import SolveMonitor
        from riskexplore.widgets.pareto import ParetoView
        from riskexplore.widgets.reliability import ReliabilityView

        auto_refresh = bool(defaults.pop("auto_refresh", True))
        outcome = defaults.pop("outcome", None)
        self.state = ExplorerState()
        self._lock = threading.RLock()
        self._builders: dict[tuple, Any] = {}
        self._syncing = False
        self.state.set_family(family)
        self.state.update_settings(time_limit=time_limit, **defaults)
        s = self.state.settings

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
        # --- settings
        self.family_picker = w.ToggleButtons(
            options=[("Risk score", "risk_score"), ("Checklist", "checklist")],
            value=self.state.family,
        )
        self.max_size = w.BoundedIntText(
            value=s["max_size"],
            min=1,
            max=50,
            description="max features",
            style=style,
            layout=lay,
        )
        self.coef_range = w.IntRangeSlider(
            value=(s["coef_min"], s["coef_max"]),
            min=-20,
            max=20,
            description="points range",
            style=style,
            layout=lay,
        )
        self.max_items = w.BoundedIntText(
            value=s["max_items"], min=1, max=50, description="max items", style=style, layout=lay
        )
        self.binarize = w.Dropdown(
            options=[
                ("adaptive (quantiles)", "adaptive"),
                ("fixed (median)", "fixed"),
                ("none (0/1 columns)", None),
            ],
            value=s["binarize"],
            description="binarization",
            style=style,
            layout=lay,
        )
        self.group_columns = w.SelectMultiple(
            options=[], description="group columns", rows=3, style=style, layout=lay
        )
        self.time_limit = w.BoundedFloatText(
            value=s["time_limit"],
            min=0.5,
            max=86400,
            description="time limit (s)",
            style=style,
            layout=lay,
        )
        self.test_fraction = w.BoundedFloatText(
            value=s["test_fraction"],
            min=0,
            max=0.8,
            step=0.05,
            description="test fraction",
            style=style,
            layout=lay,
        )
        # --- constraints, solve
        self.constraints_box = w.VBox()
        self.solve_free = w.Button(
            description="Solve unconstrained",
            icon="play",
            button_style="primary",
            layout=w.Layout(width="200px"),
        )
        self.solve_bound = w.Button(
            description="Solve constrained",
            icon="play",
            button_style="warning",
            layout=w.Layout(width="200px"),
        )
        self.monitors = {
            run: SolveMonitor(title=f"{run.capitalize()} solve", auto_refresh=auto_refresh)
            for run in _RUNS
        }
        for run, monitor in self.monitors.items():
            monitor.solve_button.layout.display = "none"  # the Explorer's buttons start runs
            monitor.on_finish(lambda model, error, run=run: self._finished(run, model, error))
        # --- results
        self.reliability = ReliabilityView()
        self.reliability_run = w.ToggleButtons(options=list(_RUNS), value="unconstrained")
        self.metrics = MetricsPanel()
        self.pareto = ParetoView(auto_refresh=auto_refresh)
        self.compare = CompareView()
        self.message = w.HTML()

        self.dataset_picker.observe(self._on_dataset, names="value")
        self.upload.observe(self._on_upload, names="value")
        self.outcome_picker.observe(self._on_outcome, names="value")
        self.family_picker.observe(self._on_family, names="value")
        for widget in (
            self.max_size,
            self.coef_range,
            self.max_items,
            self.binarize,
            self.group_columns,
            self.time_limit,
            self.test_fraction,
        ):
            widget.observe(self._on_setting, names="value")
        self.solve_free.on_click(lambda _b: self.solve(constrained=False))
        self.solve_bound.on_click(lambda _b: self.solve(constrained=True))
        self.reliability_run.observe(lambda _c: self._show_reliability(), names="value")
        self.pareto.on_compute = lambda: self.compute_path()

        data_box = w.VBox(
            [
                w.HTML("<h4 style='margin:4px 0'>1 · Data</h4>"),
                w.HBox([self.dataset_picker, self.upload]),
                self.outcome_picker,
                self.data_info,
            ]
        )
        self._risk_settings = w.VBox([self.max_size, self.coef_range])
        self._checklist_settings = w.VBox([self.max_items, self.binarize, self.group_columns])
        settings_box = w.VBox(
            [
                w.HTML("<h4 style='margin:4px 0'>2 · Model and settings</h4>"),
                self.family_picker,
                self._risk_settings,
                self._checklist_settings,
                self.time_limit,
                self.test_fraction,
            ]
        )
        constraints_box = w.VBox(
            [w.HTML("<h4 style='margin:4px 0'>3 · Constraints</h4>"), self.constraints_box]
        )
        solve_box = w.VBox(
            [
                w.HTML("<h4 style='margin:4px 0'>4 · Solve</h4>"),
                w.HBox([self.solve_free, self.solve_bound]),
                w.HBox(
                    [
                        w.Box(
                            [self.monitors["unconstrained"].widget], layout=w.Layout(width="50%")
                        ),
                        w.Box([self.monitors["constrained"].widget], layout=w.Layout(width="50%")),
                    ]
                ),
            ]
        )
        self.results_tabs = w.Tab(
            children=[
                w.VBox([self.reliability_run, self.reliability.widget]),
                self.metrics.widget,
                self.pareto.widget,
                self.compare.widget,
            ]
        )
        for i, title in enumerate(("Reliability", "AUC / CAL", "Size path", "Compare")):
            self.results_tabs.set_title(i, title)
        self.widget = w.VBox(
            [
                w.HTML("<h3 style='margin:4px 0'>riskexplore · Explorer</h3>"),
                self.message,
                w.HBox([data_box, settings_box], layout=w.Layout(flex_flow="row wrap")),
                constraints_box,
                solve_box,
                w.HTML("<h4 style='margin:4px 0'>5 · Results</h4>"),
                self.results_tabs,
            ]
        )
        self._show_family_settings()
        self._refresh_builder()
        if dataset is not None:
            self.load_dataset(dataset)
            if outcome is not None:
                self.set_outcome(outcome)

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
        self._clear_results()
        self._configure_pareto()

    def _clear_results(self) -> None:
        """Results of earlier data must not stay on screen under the new data's name
        (their runs stay in ``state.runs``, tagged with the data version they used)."""
        if self._current_results():
            return
        self.reliability.clear()
        self.metrics.clear()
        self.compare.clear()
        self.pareto.clear()

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
            self.group_columns.options = st.feature_names
            self.group_columns.value = tuple(st.settings.get("group_columns") or ())
        finally:
            self._syncing = False
        if st.frame is None:
            self.data_info.value = ""
            return
        parts = [
            f"<b>{html.escape(str(st.dataset))}</b>: {len(st.frame)} rows, {len(cols)} columns"
        ]
        if st.y is not None:
            n_test = 0 if st.y_test is None else len(st.y_test)
            parts.append(
                f"outcome <b>{html.escape(st.outcome)}</b>; {len(st.y)} training rows "
                f"({int(st.y.sum())} positive), {n_test} held out"
            )
        self.data_info.value = (
            '<div style="font-family:system-ui,sans-serif">' + "<br>".join(parts) + "</div>"
        )

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
        if not self._guard(self.state.set_family, family):
            return False
        self._syncing = True
        self.family_picker.value = family
        self._syncing = False
        self._show_family_settings()
        self._refresh_builder()
        self._configure_pareto()
        return True

    def update_settings(self, **settings: Any) -> bool:
        """Change settings (keys of :data:`DEFAULT_SETTINGS`); False and a message if
        invalid (nothing changes)."""
        if not self._guard(self.state.update_settings, **settings):
            self._sync_settings()
            return False
        self._sync_settings()
        if {"test_fraction", "seed"} & set(settings):
            self._sync_widgets()
        self._refresh_builder()
        self._configure_pareto()
        return True

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.state.settings)

    def _sync_settings(self) -> None:
        s = self.state.settings
        self._syncing = True
        try:
            self.max_size.value = s["max_size"]
            self.coef_range.value = (s["coef_min"], s["coef_max"])
            self.max_items.value = s["max_items"]
            self.binarize.value = s["binarize"]
            self.time_limit.value = s["time_limit"]
            self.test_fraction.value = s["test_fraction"]
            self.group_columns.value = tuple(s.get("group_columns") or ())
        finally:
            self._syncing = False

    def _on_family(self, change) -> None:
        if not self._syncing:
            self.set_family(change["new"])

    def _on_setting(self, _change) -> None:
        if self._syncing:
            return
        lo, hi = self.coef_range.value
        self.update_settings(
            max_size=int(self.max_size.value),
            coef_min=int(lo),
            coef_max=int(hi),
            max_items=int(self.max_items.value),
            binarize=self.binarize.value,
            time_limit=float(self.time_limit.value),
            test_fraction=float(self.test_fraction.value),
            group_columns=tuple(self.group_columns.value),
        )

    def _show_family_settings(self) -> None:
        risk = self.state.family == "risk_score"
        self._risk_settings.layout.display = None if risk else "none"
        self._checklist_settings.layout.display = "none" if risk else None

    # --- constraints -----------------------------------------------------------------
    def _builder_key(self) -> tuple:
        s = self.state.settings
        if self.state.family == "risk_score":
            return ("risk_score", self.state.data_version)
        return (
            "checklist",
            self.state.data_version,
            s["binarize"],
            s["max_items"],
            tuple(s.get("group_columns") or ()),
        )

    @property
    def constraint_builder(self):
        """The builder of the current family and data (None before data are chosen)."""
        return self._builders.get(self._builder_key())

    @property
    def constraints(self) -> list:
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
        self._show(f"Added: {constraint.describe()}", "info")
        return True

    def clear_constraints(self) -> None:
        if self.constraint_builder is not None:
            self.constraint_builder.clear()

    def _refresh_builder(self) -> None:
        import ipywidgets as w

        st = self.state
        if st.X is None:
            self.constraints_box.children = [
                w.HTML(
                    '<div style="color:#777">Load data and choose the outcome to add '
                    "constraints.</div>"
                )
            ]
            return
        key = self._builder_key()
        builder = self._builders.get(key)
        try:
            if builder is None:
                builder = self._make_builder()
                # keep the constraints of the same family that still apply
                previous = [b for k, b in self._builders.items() if k[0] == key[0]]
                if previous:
                    for c in previous[-1].constraints:
                        builder.add(c, quiet=True)
                    builder._refresh_list()
                self._builders = {k: b for k, b in self._builders.items() if k[0] != key[0]}
                self._builders[key] = builder
            elif st.family == "risk_score":
                builder.problem_kwargs.update(self._risk_problem_kwargs())
        except Exception as exc:
            self._show(f"Constraints unavailable: {describe_error(exc)}")
            self.constraints_box.children = []
            return
        self.constraints_box.children = [builder.widget]

    def _risk_problem_kwargs(self) -> dict[str, Any]:
        s = self.state.settings
        return {
            "max_size": int(s["max_size"]),
            "coef_min": int(s["coef_min"]),
            "coef_max": int(s["coef_max"]),
        }

    def _make_builder(self):
        st = self.state
        if st.family == "risk_score":
            from riskexplore.widgets.constraint_builder import ConstraintBuilder

            return ConstraintBuilder(st.feature_names, **self._risk_problem_kwargs())
        from riskexplore.widgets.checklist_builder import ChecklistConstraintBuilder, data_checker

        s = st.settings
        if s["binarize"] is None:
            names = [str(c) for c in st.X.columns]
            item_groups = None
        else:
            from riskexplore.checklist.binarize import Binarizer

            binarizer = Binarizer(method=s["binarize"], **st.binarizer_kwargs()).fit(st.X)
            names = [str(n) for n in binarizer.get_feature_names_out()]
            item_groups = dict(binarizer.item_groups_)
        checker = data_checker(
            st.X,
            st.y,
            st.groups(),
            binarize=s["binarize"],
            max_items=int(s["max_items"]),
            **st.binarizer_kwargs(),
        )
        return ChecklistConstraintBuilder(
            names, item_groups, list(s.get("group_columns") or ()), checker=checker
        )

    # --- solving ---------------------------------------------------------------------
    def solve(self, constrained: bool = False, wait: bool = False, timeout: float | None = None):
        """Start the unconstrained or constrained run (what the Solve buttons do).

        Returns its :class:`SolveMonitor` (use ``monitor.wait()``), or None and a message
        if the data, settings or constraints cannot be solved. With ``wait=True`` blocks
        until the run ends.
        """
        run = "constrained" if constrained else "unconstrained"
        monitor = self.monitors[run]
        if monitor.running:
            self._show(f"The {run} solve is still running; press Stop first.", "warning")
            return monitor
        constraints = self.constraints if constrained else []
        if constrained and not constraints:
            self._show("Add at least one constraint before the constrained solve.", "warning")
            return None
        try:
            solve = self.state.solve_function(constraints)
        except Exception as exc:
            self._show(describe_error(exc))
            return None
        st = self.state
        # what this run solves; read by the finish callback (one run per monitor at a time)
        monitor._explorer_context = (
            st.family,
            dict(st.settings),
            list(constraints),
            st.data_version,
        )
        runner = monitor.start(solve)
        if runner is None:
            return None
        self._show(f"Solving {run} ({st.family.replace('_', ' ')})…", "info")
        if wait:
            self.wait(timeout)
        return monitor

    def wait(self, timeout: float | None = None) -> None:
        """Block until every running solve (and path) ends."""
        limit = timeout if timeout is not None else 3 * self.state.settings["time_limit"] + 60
        for monitor in self.monitors.values():
            if monitor.runner is not None:
                monitor.wait(timeout=limit)
        if self.pareto.running:
            self.pareto.wait(timeout=limit * 10)

    def _finished(self, run: str, model, error) -> None:
        with self._lock:
            if error is not None or model is None:
                self._show(
                    f"The {run} solve failed: {describe_error(error)}"
                    if error is not None
                    else f"The {run} solve found no model."
                )
                return
            family, settings, constraints, version = self.monitors[run]._explorer_context
            self.state.record(run, model, family, settings, constraints, version)
            self._show(
                f"The {run} solve finished: {model.certificate_line()}"
                if hasattr(model, "certificate_line")
                else f"The {run} solve finished.",
                "info",
            )
            self._refresh_results(run)

    @property
    def results(self) -> dict[str, Any]:
        """``"unconstrained"`` / ``"constrained"`` -> fitted model."""
        return self.state.results

    @property
    def comparison(self):
        """The current comparison (see :meth:`ExplorerState.comparison`), or None."""
        return self.compare.comparison

    def _current_results(self) -> dict[str, Any]:
        v = self.state.data_version
        return {r: rec.model for r, rec in self.state.runs.items() if rec.data_version == v}

    def _refresh_results(self, run: str | None = None) -> None:
        st = self.state
        current = self._current_results()
        if not current:
            return
        if run in current:
            self.reliability_run.value = run
        self._show_reliability()
        self.metrics.show(current, st.X, st.y, st.X_test, st.y_test)
        try:
            comparison = st.comparison()
        except Exception as exc:
            self._show(f"Could not compare the runs: {describe_error(exc)}")
            return
        if comparison is not None:
            self.compare.show(comparison, st.X, st.y, st.X_test, st.y_test)

    def _show_reliability(self) -> None:
        st = self.state
        run = self.reliability_run.value
        model = self._current_results().get(run)
        if model is not None:
            self.reliability.show(model, st.X, st.y, st.X_test, st.y_test)
        else:  # never the other run's diagram under this run's name
            self.reliability.clear()
            self.reliability.message.value = message_html(
                f"No {run} model on the current data yet: run that solve first.", "info"
            )

    def figures(self) -> dict[str, Any]:
        """Static ``go.Figure`` of every view that has something to show (for papers and
        ``save_figure``): ``"unconstrained"``/``"constrained"`` (solve progress),
        ``"reliability"``, ``"metrics"``, ``"pareto"``, ``"compare"``."""
        out: dict[str, Any] = {}
        for run, monitor in self.monitors.items():
            if monitor.runner is not None:
                out[run] = monitor.static_figure()
        if self.reliability.model is not None:
            out["reliability"] = self.reliability.static_figure()
        if self.metrics.models:
            out["metrics"] = self.metrics.static_figure()
        if self.pareto.rows:
            out["pareto"] = self.pareto.static_figure()
        if self.compare.comparison is not None:
            out["compare"] = self.compare.static_figure()
        return out

    # --- size path -------------------------------------------------------------------
    def _path_kwargs(self, sizes=None, time_limit_per_size=None) -> dict[str, Any]:
        st = self.state
        fit = st.fit_kwargs()
        limit = fit.pop("time_limit")
        per_size = float(time_limit_per_size or max(1.0, limit / 4))
        kw: dict[str, Any] = {"time_limit_per_size": per_size}
        if st.X_test is not None:
            kw.update(X_test=st.X_test, y_test=st.y_test)
        if st.family == "risk_score":
            kw["sizes"] = sizes if sizes is not None else fit.pop("max_size")
            fit.pop("max_size", None)
        else:
            kw["n_values"] = sizes if sizes is not None else fit.pop("max_items")
            fit.pop("max_items", None)
            if "groups" in fit:
                kw["groups"] = fit.pop("groups")
        kw.update(fit)
        return kw

    def _configure_pareto(self) -> None:
        st = self.state
        if st.X is not None:
            try:
                self.pareto.configure(st.X, st.y, kind=st.family, **self._path_kwargs())
            except Exception as exc:  # pragma: no cover - settings are validated
                self._show(describe_error(exc))

    def compute_path(self, sizes=None, time_limit_per_size=None, wait: bool = False) -> bool:
        """Compute the size path of the current family (sizes 1..max by default) with the
        current constraints, filling the Size path view progressively."""
        try:
            self.state.check_ready()
        except Exception as exc:
            self._show(describe_error(exc))
            return False
        st = self.state
        kw = self._path_kwargs(sizes, time_limit_per_size)
        if self.constraints:
            kw["constraints"] = self.constraints
        ok = self.pareto.start(st.X, st.y, kind=st.family, **kw)
        if ok and wait:
            self.pareto.wait(timeout=600)
        return ok
