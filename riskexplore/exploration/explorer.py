"""The Explorer's plain-Python state: data, settings, results and messages (no widgets).

:class:`ExplorerState` validates every choice and raises
:class:`~riskexplore.errors.InputError` with a readable message; the
:class:`~riskexplore.widgets.explorer.widget.Explorer` shows those messages on the page. Tests,
scripts and other front ends can drive it without Jupyter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.params import Interval, validate
from riskexplore.core.registry import DEFAULT_FAMILY, ModelFamily, families, get_family
from riskexplore.datasets import dataset_info, load_dataset
from riskexplore.errors import InputError
from riskexplore.evaluation.audit.binned import group_data, is_group_column
from riskexplore.evaluation.metrics import as_binary_outcome
from riskexplore.exploration.binarization import Binarization
from riskexplore.exploration.explorer_items import ItemChoices
from riskexplore.exploration.explorer_runs import RunRecord, RunResults
from riskexplore.exploration.explorer_study import StudyFiles
from riskexplore.exploration.runner import solve_function
from riskexplore.exploration.survival_outcome import TIME_SETTING, SurvivalOutcome
from riskexplore.exploration.uploads import MAX_UPLOAD_BYTES, read_upload

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


@dataclass
class ExplorerState(SurvivalOutcome, StudyFiles, ItemChoices, RunResults):
    """Plain-Python state of an :class:`Explorer` (no widgets; every method validates and
    raises :class:`~riskexplore.errors.InputError` with a readable message).

    The data, settings and solving are here; survival mode, study files, the raw table's
    items and the finished runs are its bases
    (:class:`~riskexplore.exploration.survival_outcome.SurvivalOutcome`,
    :class:`~riskexplore.exploration.explorer_study.StudyFiles`,
    :class:`~riskexplore.exploration.explorer_items.ItemChoices`,
    :class:`~riskexplore.exploration.explorer_runs.RunResults`).

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
