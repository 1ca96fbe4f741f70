"""The Explorer's plain-Python state: data, settings, results and messages (no widgets).

:class:`ExplorerState` validates every choice and raises
:class:`~riskexplore.errors.InputError` with a readable message; the
:class:`~riskexplore.widgets.explorer.widget.Explorer` shows those messages on the page. Tests,
scripts and other front ends can drive it without Jupyter.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.params import Interval, validate
from riskexplore.core.registry import DEFAULT_FAMILY, ModelFamily, families, get_family
from riskexplore.datasets import dataset_info, load_dataset
from riskexplore.errors import InputError
from riskexplore.evaluation.audit.binned import group_data, is_group_column
from riskexplore.evaluation.compare import comparison_from_models
from riskexplore.evaluation.metrics import as_binary_outcome
from riskexplore.exploration.binarization import Binarization, changes_nothing
from riskexplore.exploration.runner import solve_function
from riskexplore.exploration.study.data import StudyWarning, resolve_data
from riskexplore.exploration.study.document import Study
from riskexplore.exploration.survival_outcome import TIME_SETTING, SurvivalOutcome
from riskexplore.exploration.uploads import MAX_UPLOAD_BYTES, read_upload
from riskexplore.exploration.variable_rules import describe_rule, variable_rule

__all__ = [
    "COMMON_SETTINGS",
    "MAX_UPLOAD_BYTES",
    "ExplorerState",
    "RunRecord",
    "default_settings",
]

#: Settings of every family: the time limit, the held-out split and the protected-group
#: columns; each family adds its own (:attr:`~riskexplore.core.registry.ModelFamily.settings`).
COMMON_SETTINGS: dict[str, Any] = {
    "time_limit": 60.0,
    "test_fraction": 0.25,
    "seed": 0,
    "group_columns": (),
}

#: What the common settings may be (see :mod:`riskexplore.core.params`).
COMMON_CONSTRAINTS = {
    "time_limit": [Interval(float, 0, None, closed="neither")],
    "test_fraction": [Interval(float, 0, 0.9, closed="left")],
    "seed": [Interval(int, 0, None)],
}


def default_settings() -> dict[str, Any]:
    """Every setting and its default: the common ones, then each family's.

    Returns
    -------
    dict
        Setting -> default.
    """
    out = dict(COMMON_SETTINGS)
    for family in families():
        out.update(family.settings)
    return out


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
class ExplorerState(SurvivalOutcome):
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
        The outcome column (binary; in survival mode the 0/1 event, with the follow-up
        time in ``settings["time_column"]``: see
        :class:`~riskexplore.exploration.survival_outcome.SurvivalOutcome`).
    family : str
        The model family (a name of :mod:`riskexplore.core.registry`).
    settings : dict
        ``time_limit`` (s), ``test_fraction`` and ``seed`` (held-out split; 0 for none),
        ``group_columns`` (protected-group columns, e.g. for checklist group-rate
        constraints), and every family's own settings (risk scores: ``max_size``,
        ``coef_min``, ``coef_max``; checklists: ``max_items``, ``binarize``).
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
    scale_price : ScalePrice or None
        The certified price of a fixed scale for the unconstrained run (see
        :meth:`scale_price_function`; a
        :class:`~riskexplore.risk_score.scale_price.ScalePrice`), once computed.
    same_data_as_study : bool
        False when the state was opened from a study (:meth:`from_study`) on a table
        that differs from the study's (its hash).
    binarization : Binarization
        How the raw table becomes items (the user's cut points, columns read as
        categories or kept as numbers: :mod:`riskexplore.exploration.binarization`), for
        every family with a :attr:`~riskexplore.core.registry.ModelFamily.raw_table` spec;
        changed with :meth:`set_cut_points` and :meth:`set_column_use`.

    Examples
    --------
    The Explorer's steps without widgets (a script, a test, a server):

    >>> from riskexplore.widgets import ExplorerState
    >>> state = ExplorerState()
    >>> state.load_dataset("mammo")
    >>> state.update_settings(max_size=3, time_limit=10)
    >>> model = state.solve_function([])(callbacks=[], stop=None)
    >>> model.certificate.status
    'optimal'
    """

    dataset: str | None = None
    source: str = "bundled"
    frame: pd.DataFrame | None = None
    outcome: str | None = None
    family: str = DEFAULT_FAMILY
    settings: dict[str, Any] = field(default_factory=default_settings)
    X: pd.DataFrame | None = None
    y: pd.Series | None = None
    X_test: pd.DataFrame | None = None
    y_test: pd.Series | None = None
    results: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, RunRecord] = field(default_factory=dict)
    messages: list[tuple[str, str]] = field(default_factory=list)
    data_version: int = 0
    categorical: tuple[str, ...] = ()
    scale_price: Any = None
    same_data_as_study: bool = True
    binarization: Binarization = field(default_factory=Binarization)
    _scale_price_run: RunRecord | None = field(default=None, repr=False)

    # --- data ------------------------------------------------------------------------
    def load_dataset(self, name: str) -> None:
        """Load a bundled dataset; its outcome column is chosen."""
        data = load_dataset(name)
        frame = data.frame
        self._set_frame(frame, data.name, "bundled")
        self.categorical = tuple(dataset_info(data.name).get("categorical") or ())
        self.set_outcome(str(data.y.name))

    def load_csv(self, content: bytes, name: str = "upload.csv") -> None:
        """Read an uploaded CSV (at most :data:`MAX_UPLOAD_BYTES`); choose the outcome
        with :meth:`set_outcome` next. Nothing changes if the file cannot be used."""
        frame = read_upload(content, name)
        if frame.shape[1] < 2:
            raise InputError(
                f"{name} has {frame.shape[1]} column; need an outcome column and at least one "
                "feature (is the separator a comma?)"
            )
        if len(frame) < 4:
            raise InputError(f"{name} has {len(frame)} rows; need more data to fit a model")
        self._set_frame(frame, name, "upload")

    def _set_frame(self, frame: pd.DataFrame, name: str, source: str) -> None:
        self.frame, self.dataset, self.source = frame, name, source
        self.categorical = ()
        self.outcome = None
        self.X = self.y = self.X_test = self.y_test = None
        self.binarization = Binarization()
        self.settings["group_columns"] = ()
        self.data_version += 1

    @property
    def columns(self) -> list[str]:
        """The table's column names (outcome included)."""
        return [] if self.frame is None else [str(c) for c in self.frame.columns]

    @property
    def feature_names(self) -> list[str]:
        """The table's columns other than the outcome (and the time in survival mode)."""
        return [c for c in self.columns if c not in self._outcome_columns()]

    @property
    def group_column_options(self) -> list[str]:
        """The group columns one may choose: the features, then the columns cut into
        ranges chosen (:mod:`riskexplore.evaluation.audit.binned`, e.g. by a rule of the
        "By group" view)."""
        names = self.feature_names
        chosen = self.settings.get("group_columns") or ()
        return names + [c for c in chosen if c not in names]

    def set_outcome(self, column: str | None) -> None:
        """Choose the outcome column (binary, no missing values) and split the data."""
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
        self.outcome = column
        X = self.frame.drop(columns=self._outcome_columns())
        self._split(X, y)
        self.binarization = self.binarization.restricted(self.feature_names)
        self.settings["group_columns"] = tuple(
            c for c in self.settings.get("group_columns", ()) if is_group_column(c, X.columns)
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
    @property
    def model_family(self) -> ModelFamily:
        """The :class:`~riskexplore.core.registry.ModelFamily` of :attr:`family`."""
        return get_family(self.family)

    def set_family(self, family: str) -> None:
        """Choose the model family (raises :class:`InputError` for an unknown one)."""
        kind = self.model_family.outcome
        self.family = get_family(family).name
        if kind != self.model_family.outcome and self.outcome is not None:
            self.set_outcome(self.outcome)  # the time column is a feature in one mode only

    def update_settings(self, **settings: Any) -> None:
        """Change settings (all checked first; nothing changes on an error)."""
        new = dict(self.settings)
        known = default_settings()
        for key, value in settings.items():
            if key not in known:
                raise InputError(f"unknown setting {key!r}; settings are {', '.join(known)}")
            new[key] = value
        try:
            new["time_limit"] = float(new["time_limit"])
        except (TypeError, ValueError):
            raise InputError(f"time_limit must be a number, got {new['time_limit']!r}") from None
        if not math.isfinite(new["time_limit"]):
            raise InputError(f"time_limit must be positive seconds, got {new['time_limit']}")
        validate(COMMON_CONSTRAINTS, {k: new[k] for k in COMMON_CONSTRAINTS})
        for family in families():
            family.check_settings({k: new[k] for k in family.settings})
        new["group_columns"] = tuple(str(c) for c in new["group_columns"] or ())
        missing = [c for c in new["group_columns"] if not is_group_column(c, self.feature_names)]
        if missing:
            raise InputError(f"unknown group column(s): {', '.join(missing)}")
        if self.X is not None:  # a column cut into ranges must be numeric
            group_data(self.X.iloc[:0], new["group_columns"])
        self._check_time_setting(new[TIME_SETTING])
        keys = ("test_fraction", "seed", TIME_SETTING)
        resplit = any(new[k] != self.settings[k] for k in keys)
        self.settings = new
        if resplit and self.outcome is not None:
            self.set_outcome(self.outcome)

    # --- studies (the format: riskexplore.exploration.study.document) -----------------------------
    def to_study(
        self,
        constraints=(),
        *,
        size_path=None,
        selected: int | None = None,
        alternatives=None,
        audit=None,
        include_data: bool = False,
    ) -> Study:
        """The exploration as a :class:`~riskexplore.exploration.study.Study` (data's identity,
        settings, constraints, the runs on the current data with their models,
        certificates and traces, the size path, the near-optimal set and the settings of
        the "By group" view).

        Parameters
        ----------
        constraints : sequence
            The active constraints (the Explorer's builder holds them).
        size_path : SizePath, optional
            The size path shown.
        selected : int, optional
            The size selected on the path.
        alternatives : (NearOptimalSet, int or None), optional
            The near-optimal set of the current settings and constraints, and the index
            of the model selected in it.
        audit : dict, optional
            The settings of the "By group" view
            (:meth:`~riskexplore.exploration.audit.AuditState.settings_dict`).
        include_data : bool
            Keep the patients' rows in the study (never by default: the study names the
            data and keeps a hash of the table).

        Returns
        -------
        Study
            Write it with :meth:`~riskexplore.exploration.study.Study.to_json`.

        Raises
        ------
        InputError
            Without data and outcome, or for a constraint that cannot be saved (a Pyomo
            model).
        """
        return Study.capture(
            self,
            constraints,
            size_path=size_path,
            selected=selected,
            alternatives=alternatives,
            audit=audit,
            include_data=include_data,
        )

    @classmethod
    def from_study(
        cls, study, *, data=None, data_name: str | None = None, current=None
    ) -> ExplorerState:
        """A state with the data, settings and runs of a study.

        The data are, in order: ``data`` when given, the rows saved in the study, the
        bundled dataset it names, or the table of ``current`` (an uploaded file loaded
        before opening a study saved without its rows). When the table's hash differs
        from the study's, a :class:`~riskexplore.exploration.study.document.StudyWarning` is issued
        (and kept in :attr:`messages`); the models are then shown on these data.

        Parameters
        ----------
        study : Study, str, Path, bytes or dict
            The study, a study file, its text or its document.
        data : DataFrame, bytes, str or Path, optional
            The table to open it on (a CSV file's bytes or path).
        data_name : str, optional
            The name of ``data``.
        current : ExplorerState, optional
            The state open now (its table is used for a study of an uploaded file).

        Returns
        -------
        ExplorerState
            The state; the study's constraints and size path are
            ``study.constraints`` and ``study.size_path``.

        Raises
        ------
        InputError
            For a malformed or edited study, missing data, or settings this version
            refuses.
        """
        study = study if isinstance(study, Study) else Study.read(study)
        now = None
        if current is not None and current.frame is not None:
            now = (current.frame, current.dataset, current.source)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resolved = resolve_data(study, data, data_name=data_name, current=now)
        state = cls(same_data_as_study=resolved.same)
        for w in caught:
            state.messages.append(("warning", str(w.message)))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        state.set_family(study.family)
        state._set_frame(resolved.frame, resolved.name, resolved.source)
        state.categorical = resolved.categorical
        try:
            state.update_settings(**study.settings)
        except InputError as exc:
            raise InputError(f"the study's settings cannot be used: {exc}") from None
        state.set_outcome(study.data.outcome)
        if not study.binarization.is_default():
            try:
                state._choose(study.binarization)
            except InputError as exc:
                raise InputError(f"the study's binarization cannot be used: {exc}") from None
        for run, saved in study.runs.items():
            state.record(
                run,
                saved.model,
                saved.family,
                saved.settings,
                saved.constraints,
                state.data_version,
            )
        if study.scale_price is not None and "unconstrained" in state.runs:
            state.record_scale_price(state.runs["unconstrained"], study.scale_price)
        return state

    def open_study(
        self, source, *, data=None, name: str | None = None
    ) -> tuple[ExplorerState, Study, list[str]]:
        """The state of a study, to show instead of this one (which stays as it is).

        The study is read (:meth:`Study.read
        <riskexplore.exploration.study.document.Study.read>`) and opened on its data
        (:meth:`from_study`; this state's table for a study of an uploaded file saved
        without its rows). The new state follows this one: its data version is newer than
        every run of this state (their results are never shown as the study's) and its
        messages come after this state's.

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
        (ExplorerState, Study, list of str)
            The new state, the study (its constraints, size path, near-optimal set and
            "By group" settings are for the views), and the texts of the
            :class:`~riskexplore.exploration.study.data.StudyWarning` issued while opening
            it (e.g. the data differ from the study's); they are not issued again.

        Raises
        ------
        InputError
            For a malformed or edited study, missing data, or settings this version
            refuses.
        """
        study = source if isinstance(source, Study) else Study.read(source, name=name)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", StudyWarning)
            state = ExplorerState.from_study(study, data=data, current=self)
        notes = [str(w.message) for w in caught if issubclass(w.category, StudyWarning)]
        state.data_version += self.data_version  # newer than every earlier run
        for record in state.runs.values():
            record.data_version = state.data_version
        state.messages = self.messages + state.messages
        return state, study, notes

    # --- solving ---------------------------------------------------------------------
    def check_ready(self) -> None:
        """Raise a readable error unless data and outcome can be solved now."""
        if self.frame is None:
            raise InputError("load a dataset or a CSV file first")
        if self.outcome is None or self.X is None:
            raise InputError("choose the outcome column")
        if self.training_outcome() is None:
            raise InputError("choose the time column (the follow-up time of each row)")
        if self.X.shape[1] == 0:
            raise InputError("there are no feature columns besides the outcome")
        if self.y.nunique() < 2:
            raise InputError("the training data hold a single outcome value")
        self.model_family.check_data(self.features(), self.training_outcome(), self.settings)

    def groups(self, test: bool = False):
        """The protected-group columns of the training (or held-out) rows, or None.

        Parameters
        ----------
        test : bool
            The held-out rows instead of the training rows.

        Returns
        -------
        DataFrame or None
            The columns chosen in ``settings["group_columns"]``; a column cut into
            ranges (``"age (ranges at 40, 60)"``) is computed from its numeric column
            (:func:`~riskexplore.evaluation.audit.binned.group_data`), a group column
            only, never a feature.
        """
        cols = list(self.settings.get("group_columns") or ())
        X = self.X_test if test else self.X
        return None if not cols or X is None else group_data(X, cols)

    def categorical_columns(self) -> list[str]:
        """The dataset's integer-coded categorical columns among the features."""
        if self.X is None:
            return []
        return [c for c in self.categorical if c in self.X.columns]

    def fit_kwargs(self) -> dict[str, Any]:
        """Arguments of the family's fit function (``fit_risk_score``, ``fit_checklist``)
        from the settings, with ``time_limit``."""
        out = self.model_family.fit_arguments(
            self._survival_settings(self.settings),
            categorical=self.categorical_columns(),
            groups=self.groups(),
            **self._raw_arguments(self.model_family),
        )
        out["time_limit"] = float(self.settings["time_limit"])
        return out

    # --- the raw table's items (the binarization of step 2) ----------------------------
    def binarizer(self, family: ModelFamily | None = None):
        """The family's binarizer with the user's choices, fitted on the training rows.

        Parameters
        ----------
        family : ModelFamily, optional
            The family (default: the one chosen).

        Returns
        -------
        Binarizer or None
            None before the outcome is chosen, or when the family binarizes nothing
            (no :attr:`~riskexplore.core.registry.ModelFamily.raw_table` spec, or a
            checklist without binarization).

        Raises
        ------
        InputError
            When the table cannot be binarized with these choices.
        """
        family = self.model_family if family is None else family
        if self.X is None:
            return None
        return self.binarization.fitted(
            family, self.X, self.settings, self.categorical_columns(), self.data_version
        )

    def _raw_arguments(self, family: ModelFamily) -> dict[str, Any]:
        """``binarizer`` and ``linear`` for the family's fit arguments (nothing for a family
        without a raw-table spec): no binarizer when it would change nothing."""
        if family.raw_table is None or self.X is None:
            return {}
        binarizer = self.binarizer(family)
        linear = self.binarization.linear_for(family, self.X)
        if binarizer is not None and not linear and changes_nothing(binarizer):
            binarizer = None  # an all-yes/no table: its columns, as they are
        if binarizer is not None and not binarizer.items_ and set(linear) == set(self.X):
            binarizer, linear = None, ()  # every column a number: the table as it is
        return {"binarizer": binarizer, "linear": linear if binarizer is not None else ()}

    def features(self):
        """The training features as the family's fit sees them: the items of the raw
        table and its linear columns (or the table as it is).

        Returns
        -------
        DataFrame or None
            None before the outcome is chosen.
        """
        if self.X is None:
            return None
        raw = self._raw_arguments(self.model_family)
        binarizer, linear = raw.get("binarizer"), list(raw.get("linear", ()))
        if binarizer is None:
            return self.X
        items = binarizer.transform(self.X.drop(columns=linear))
        return pd.concat([items, self.X[linear]], axis=1)

    def item_groups(self) -> dict[str, str]:
        """Each feature of the family's fit -> the column of the table it comes from.

        Returns
        -------
        dict
            Item name -> column (a column used as it is is its own).
        """
        if self.X is None:
            return {}
        raw = self._raw_arguments(self.model_family)
        binarizer = raw.get("binarizer")
        if binarizer is None:
            return {str(c): str(c) for c in self.X.columns}
        groups = {item.name: item.column for item in binarizer.items_}
        return groups | {str(c): str(c) for c in raw.get("linear", ())}

    def column_views(self) -> list:
        """What each feature column became (kind, cut points, items, or why skipped).

        Returns
        -------
        list of ColumnView
            One per feature column (empty before the outcome is chosen).

        Raises
        ------
        InputError
            When the table cannot be binarized with these choices.
        """
        if self.X is None:
            return []
        family = self.model_family
        linear = self.binarization.linear_for(family, self.X)
        return self.binarization.columns(self.binarizer(), self.feature_names, linear)

    def set_cut_points(self, column: str, cuts) -> None:
        """Replace a numeric column's cut points (``"65, 75"``; None or ``""``: the data's
        own). The runs so far are of other items: the data version changes.

        Parameters
        ----------
        column : str
            A numeric feature column.
        cuts : str, sequence or None
            The cut points (see :func:`~riskexplore.exploration.binarization.parse_cut_points`).
        """
        self._choose(self.binarization.with_cut_points(column, cuts), column, "cuts")

    def set_column_use(self, column: str, use: str) -> None:
        """How a column is used: ``"items"`` (as the data say), ``"categories"`` (one item
        per value) or ``"number"`` (points per unit, for families whose models can).

        Parameters
        ----------
        column : str
            A feature column.
        use : {"items", "categories", "number"}
            The use.
        """
        self._choose(self.binarization.with_use(column, use), column, use)

    def _choose(self, choices: Binarization, column: str | None = None, what: str = "") -> None:
        """Adopt new choices if the table can be binarized with them (else nothing
        changes and an InputError says why); the runs so far are of other items."""
        if self.X is None:
            raise InputError("load data and choose the outcome first")
        choices.check_columns(self.feature_names)
        family = self.model_family
        if what == "number" and (family.raw_table is None or not family.raw_table.linear):
            raise InputError(f"a {family.label.lower()} cannot use {column!r} as a number")
        numeric = column is None or pd.api.types.is_numeric_dtype(self.X[column])
        categories = {*self.categorical_columns(), *choices.categorical}
        if what in ("number", "cuts", "categories") and not numeric:
            raise InputError(f"{column!r} holds categories, not numbers: use its items")
        if what == "cuts" and column in categories and column in choices.cut_points:
            raise InputError(f"{column!r} is read as categories, so it has no cut points")
        try:
            choices.fitted(family, self.X, self.settings, self.categorical_columns())
        except InputError as exc:
            raise InputError(f"{column!r}: {exc}" if column else str(exc)) from None
        self.binarization = choices.copy()
        self.data_version += 1

    def describe_rule(self, constraint) -> str:
        """A rule in plain words ("Do not use age", "Use age only as age ≥ 65").

        Parameters
        ----------
        constraint : object
            A readable constraint of the family.

        Returns
        -------
        str
            The words.
        """
        try:
            groups = self.item_groups()
        except InputError:
            groups = {}
        return describe_rule(constraint, self.model_family, groups)

    def variable_rule(self, column: str, keep=None):
        """The rule "do not use ``column``" (or "use it only as ``keep``") of the family.

        Parameters
        ----------
        column : str
            A feature column.
        keep : str or sequence of str, optional
            Its items that stay allowed.

        Returns
        -------
        constraint
            A readable constraint (see :mod:`riskexplore.exploration.variable_rules`).
        """
        return variable_rule(self.model_family, self.item_groups(), column, keep)

    def solve_function(self, constraints=()):
        """A ``solve(callbacks, stop)`` for the current data, family and settings."""
        self.check_ready()
        return solve_function(
            self.family,
            self.X,
            self.training_outcome(),
            constraints=list(constraints),
            **self.fit_kwargs(),
        )

    def record(self, run: str, model, family, settings, constraints, data_version) -> None:
        """Keep a finished run's model and what it used (see :class:`RunRecord`).

        Parameters
        ----------
        run : {"unconstrained", "constrained"}
            The run.
        model : RiskScore or Checklist
            Its model.
        family : str
            Its model family.
        settings : dict
            The settings it used.
        constraints : list
            Its constraints.
        data_version : int
            The data it was fitted on.
        """
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

    def current_results(self) -> dict[str, Any]:
        """The models of the runs on the current data (a run on earlier data is kept in
        :attr:`runs` but never shown as a result of these data).

        Returns
        -------
        dict
            ``"unconstrained"`` / ``"constrained"`` -> fitted model.
        """
        v = self.data_version
        return {r: rec.model for r, rec in self.runs.items() if rec.data_version == v}

    def comparison(self):
        """The :class:`~riskexplore.evaluation.compare.Comparison` of the two runs, with
        the certified price when they solved the same problem apart from the
        constraints; None until both ran on the current data."""
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

    # --- the price of a fixed scale (risk scores) -------------------------------------
    def scale_price_function(self):
        """A ``solve(callbacks=(), stop=None) -> ScalePrice`` that certifies what a fixed
        scale costs for the unconstrained run, or None when there is nothing to price.

        The run's model is one side of the price; the other scale is solved with the
        run's data, settings and time limit (see
        :func:`~riskexplore.risk_score.scale_price.price_of_fixed_scale`). Only families
        with such a price (:attr:`~riskexplore.core.registry.ModelFamily.scale_price`:
        risk scores) are priced.

        Returns
        -------
        callable or None
            The job; pass its result to :meth:`record_scale_price`.
        """
        run = self.runs.get("unconstrained")
        if run is None or run.data_version != self.data_version or run.constraints:
            return None
        family = get_family(run.family)
        if family.scale_price is None or self.X is None:
            return None
        settings = run.settings
        kwargs = family.fit_arguments(
            settings,
            categorical=self.categorical_columns(),
            groups=self.groups(),
            **self._raw_arguments(family),
        )
        kwargs["time_limit"] = float(settings["time_limit"])
        X, y, price = self.X, self.y, family.scale_price.of_run

        def solve(callbacks=(), stop=None):
            return price(X, y, run.model, settings, kwargs, callbacks=callbacks, stop=stop)

        solve.run = run  # type: ignore[attr-defined]
        return solve

    def record_scale_price(self, run: RunRecord, price) -> None:
        """Keep the price computed by :meth:`scale_price_function` for ``run``.

        Parameters
        ----------
        run : RunRecord
            The unconstrained run it prices (the job's ``run`` attribute).
        price : ScalePrice
            The result.
        """
        self.scale_price, self._scale_price_run = price, run

    def current_scale_price(self):
        """The price of a fixed scale for the current unconstrained run, or None.

        Returns
        -------
        ScalePrice or None
            The price, if it was computed for the run on the current data.
        """
        run = self.runs.get("unconstrained")
        if run is None or self._scale_price_run is not run:
            return None
        return self.scale_price if run.data_version == self.data_version else None


def _problem_settings(run: RunRecord) -> dict[str, Any]:
    """The settings that define a run's problem (apart from its constraints)."""
    return {k: run.settings.get(k) for k in get_family(run.family).comparable}
