"""The Explorer's "Validate on another file": a run's model on the patients of an uploaded
file (external validation), and what its report shows (no widgets).

:class:`ValidationState` keeps the file, reads it as the Explorer reads its own uploads
(:func:`~riskexplore.exploration.uploads.read_upload`), takes the outcome column chosen for
the development data and the columns the model reads, runs
:func:`~riskexplore.evaluation.validation.validate` and keeps the result for the run it
validated. :meth:`ValidationState.report_arguments` gives the arguments of the HTML report
(``riskexplore.report.report_html``, composed by the widget above this layer): the model,
the development rows, the validation, the run's settings and its rules in words.

A survival score (a family whose ``outcome`` is ``"survival"``) is validated on the file's
event column (the development data's outcome) and its follow-up time column (the run's
``time_column``, same name), at the model's horizon.

Every failure is an :class:`~riskexplore.errors.InputError` in plain words: no model yet,
a file without the outcome column, the time column or a column the model uses (named), an
outcome with values other than the development data's two, times that are not follow-up
times.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.registry import get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.metrics import as_binary_outcome
from riskexplore.evaluation.survival.result import SurvivalValidation
from riskexplore.evaluation.validation.result import Validation
from riskexplore.evaluation.validation.run import validate
from riskexplore.exploration.audit import AuditState
from riskexplore.exploration.explorer import COMMON_SETTINGS, ExplorerState, RunRecord
from riskexplore.exploration.survival_outcome import (
    TIME_SETTING,
    check_time_column,
    survival_outcome,
)
from riskexplore.exploration.uploads import read_upload

__all__ = ["RUN_WORDS", "ValidationState", "outcome_codes", "run_settings", "used_columns"]

#: The Explorer's runs in words ("the score without rules").
RUN_WORDS = {"unconstrained": "without rules", "constrained": "with your rules"}

#: The rows a subgroup audit ran on, in words (its ``data`` setting).
_AUDIT_ROWS = {"train": "training patients", "test": "patients kept aside"}


def outcome_codes(development: pd.Series) -> dict[Any, int]:
    """How the development data's outcome values read as 0/1 (as the Explorer read them:
    :func:`~riskexplore.evaluation.metrics.as_binary_outcome`).

    Parameters
    ----------
    development : Series
        The outcome column of the development table (two values).

    Returns
    -------
    dict
        Value -> 0 or 1 (``{0: 0, 1: 1}``, ``{"no": 0, "yes": 1}``).
    """
    values = pd.unique(development.dropna())
    return {v: int(c) for v, c in zip(values, as_binary_outcome(values), strict=True)}


def used_columns(state: ExplorerState, record: RunRecord) -> list[str] | None:
    """The columns of the development table that a run's model reads.

    Parameters
    ----------
    state : ExplorerState
        The Explorer's state (its table and binarization).
    record : RunRecord
        The run.

    Returns
    -------
    list of str or None
        The columns, in the table's order; None when a feature of the model cannot be
        traced to a column (then every column is needed).
    """
    family = get_family(record.family)
    binarizer = state.binarizer(family) if family.raw_table is not None else None
    source = {} if binarizer is None else {i.name: i.column for i in binarizer.items_}
    columns = {source.get(f, f) for f in family.alternatives.features_of(record.model)}
    names = state.feature_names
    if not columns <= set(names):
        return None
    return [c for c in names if c in columns]


@dataclass
class ValidationState:
    """The other file a model is validated on, and the latest validation.

    Attributes
    ----------
    file_name : str or None
        The uploaded file's name.
    frame : DataFrame or None
        Its table.
    run : str or None
        The run validated (``"unconstrained"`` or ``"constrained"``).
    record : RunRecord or None
        That run's record (a newer run or new data make the validation stale).
    validation : Validation, SurvivalValidation or None
        The result (:func:`~riskexplore.evaluation.validation.validate`).
    filled : tuple of str
        The development table's columns the file lacks and the model does not read
        (each filled with one value of the development data, which changes no score).

    Examples
    --------
    >>> state = ExplorerState()  # doctest: +SKIP
    >>> state.load_dataset("mammo")  # doctest: +SKIP
    >>> state.record("unconstrained", model, ...)  # doctest: +SKIP
    >>> checks = ValidationState()
    >>> checks.load_file(open("other_hospital.csv", "rb").read(), "other.csv")  # doctest: +SKIP
    >>> checks.validate(state, "unconstrained").to_dict()["auc"]  # doctest: +SKIP
    {'estimate': 0.81, 'lower': 0.75, 'upper': 0.87, 'method': 'DeLong'}
    """

    file_name: str | None = None
    frame: pd.DataFrame | None = None
    run: str | None = None
    record: RunRecord | None = None
    validation: Validation | SurvivalValidation | None = None
    filled: tuple[str, ...] = field(default=())

    def load_file(self, content: bytes, name: str = "validation.csv") -> None:
        """Keep an uploaded CSV file (validated by :meth:`validate`); nothing changes if
        it cannot be read.

        Parameters
        ----------
        content : bytes
            The file's bytes.
        name : str
            Its name.
        """
        frame = read_upload(content, name)
        if len(frame) == 0:
            raise InputError(f"{name} has no rows")
        self.file_name, self.frame = name, frame
        self.clear()

    def clear(self) -> None:
        """Forget the validation (the file stays)."""
        self.run = self.record = self.validation = None
        self.filled = ()

    def model_record(self, state: ExplorerState, run: str) -> RunRecord:
        """The record of ``run`` on the current data, or an InputError in plain words."""
        record = state.runs.get(run)
        if record is None or record.data_version != state.data_version:
            noun = state.model_family.noun
            raise InputError(
                f"there is no {noun} {RUN_WORDS.get(run, run)} on these data yet: find one "
                "first, then validate it on another file"
            )
        return record

    def validate(self, state: ExplorerState, run: str) -> Validation | SurvivalValidation:
        """Validate ``run``'s model on the file's patients (a survival score at its
        horizon, on the file's follow-up times and events).

        Parameters
        ----------
        state : ExplorerState
            The Explorer's state (its data, outcome and runs).
        run : {"unconstrained", "constrained"}
            The run.

        Returns
        -------
        Validation or SurvivalValidation
            The result (also kept in :attr:`validation`).

        Raises
        ------
        InputError
            Without a file or a model, for a file without the outcome column (or a survival
            score's time column) or a column the model reads, an outcome other than the
            development data's two values, or anything
            :func:`~riskexplore.evaluation.validation.validate` refuses.
        """
        record = self.model_record(state, run)
        if self.frame is None:
            raise InputError("upload the file of the other patients first (a CSV file)")
        X, y, filled = self.rows(state, record)
        result = validate(record.model, X, y)
        self.run, self.record, self.validation, self.filled = run, record, result, filled
        return result

    def rows(self, state: ExplorerState, record: RunRecord) -> tuple[pd.DataFrame, Any, tuple]:
        """The file's features (the development table's columns) and outcome: 0/1, or for
        a survival score the structured array of follow-up time and event."""
        frame, name, outcome = self.frame, self.file_name, state.outcome
        _require_column(frame, name, outcome, "the outcome of the development data")
        y = _outcome(frame[outcome], state.frame[outcome], name)
        if get_family(record.family).outcome == "survival":
            y = _survival_outcome(frame, name, record.settings.get(TIME_SETTING), y)
        needed = used_columns(state, record)
        needed = state.feature_names if needed is None else needed
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            noun = get_family(record.family).noun
            raise InputError(
                f"{name} lacks the column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(c) for c in missing)} that the {noun} uses; add "
                f"{'them' if len(missing) > 1 else 'it'} with the same name as in the "
                "development data"
            )
        filled = tuple(c for c in state.feature_names if c not in frame.columns)
        X = frame.reindex(columns=state.feature_names)
        for column in filled:  # not read by the model: any value of the development data
            known = state.X[column].dropna()
            X[column] = known.iloc[0] if len(known) else np.nan
        return X, y, filled

    def current(self, state: ExplorerState, run: str) -> Validation | None:
        """The validation of ``run``'s latest model on the current data, or None."""
        if self.validation is None or self.run != run:
            return None
        record = state.runs.get(run)
        fresh = record is self.record and record.data_version == state.data_version
        return self.validation if fresh else None

    def report_arguments(
        self, state: ExplorerState, run: str, audit: AuditState | None = None
    ) -> dict[str, Any]:
        """The arguments of the report (``riskexplore.report.report_html(**arguments)``)
        of ``run``'s model: the development rows, the validation on the file when it is
        current, the subgroup audit when it audits that run, the run's settings and its
        rules in words.

        Parameters
        ----------
        state : ExplorerState
            The Explorer's state.
        run : {"unconstrained", "constrained"}
            The run.
        audit : AuditState, optional
            The subgroup audit shown beside (the Explorer's "By group").

        Returns
        -------
        dict
            ``model``, ``development`` (``(X, y)``), ``validation`` (or None), ``audit``
            (``{rows in words: AuditResult}`` or None), ``settings`` (name -> value),
            ``rules`` (sentences), ``title``.

        Raises
        ------
        InputError
            Without a model of ``run`` on the current data.
        """
        record = self.model_record(state, run)
        family = get_family(record.family)
        return {
            "model": record.model,
            "development": (state.X, state.training_outcome()),
            "validation": self.current(state, run),
            "audit": _audit_of(audit, run),
            "settings": run_settings(record, family.settings),
            "rules": [state.describe_rule(c) for c in record.constraints],
            "title": f"{family.label} {RUN_WORDS.get(run, run)}: development and validation",
        }


def _audit_of(audit: AuditState | None, run: str) -> dict[str, Any] | None:
    """The audit of ``run``'s model, named by the rows it ran on; None without one."""
    if audit is None or audit.result is None or audit.settings["run"] != run:
        return None
    return {_AUDIT_ROWS.get(audit.settings["data"], audit.settings["data"]): audit.result}


def _require_column(frame: pd.DataFrame, name: str, column: str, what: str) -> None:
    """Raise :class:`InputError` unless the file has ``column`` (``what`` it is, in words)."""
    if column not in frame.columns:
        raise InputError(
            f"{name} has no column {column!r}, {what}; add it with the same name (one value "
            "per patient)"
        )


def _survival_outcome(frame: pd.DataFrame, name: str, time: str | None, event) -> np.ndarray:
    """The file's follow-up times (the run's time column) with its 0/1 events, as the
    survival outcome ``[("event", bool), ("time", float)]``."""
    if time is None:
        raise InputError("choose the follow-up time column in the settings and search again")
    _require_column(frame, name, time, "the follow-up time of the development data")
    try:
        check_time_column(frame, time, None)
    except InputError:
        raise InputError(
            f"the follow-up time {time!r} of {name} must hold numbers >= 0 (in the same unit "
            "as the development data), none missing; fill or drop the rows without it"
        ) from None
    return survival_outcome(frame[time], event)


def _outcome(values: pd.Series, development: pd.Series, name: str) -> np.ndarray:
    """The file's outcome as 0/1, read as the development data's outcome was."""
    column = values.name
    if values.isna().any():
        raise InputError(
            f"the outcome {column!r} of {name} has {int(values.isna().sum())} missing "
            "values; fill or drop those rows"
        )
    codes = outcome_codes(development)
    unknown = [v for v in pd.unique(values) if v not in codes]
    if unknown:
        no, yes = (repr(_plain(v)) for v in sorted(codes, key=codes.get))
        shown = ", ".join(repr(_plain(v)) for v in unknown[:5])
        raise InputError(
            f"the outcome {column!r} of {name} must be {no} or {yes}, as in the development "
            f"data ({yes}: the outcome happened); it also holds {shown}"
        )
    return values.map(codes).to_numpy(dtype=np.int64)


def _plain(value: Any) -> Any:
    """A numpy scalar as a Python value (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def run_settings(record: RunRecord, family_settings: dict[str, Any]) -> dict[str, Any]:
    """A run's data and settings for the report: the common ones and its family's.

    Parameters
    ----------
    record : RunRecord
        The run.
    family_settings : dict
        The settings of the run's family (their names are read).

    Returns
    -------
    dict
        Setting name -> value (sequences as comma-separated words).
    """
    out: dict[str, Any] = {"data": record.dataset, "outcome": record.outcome}
    for key in (*COMMON_SETTINGS, *family_settings):
        if key in record.settings:
            value = record.settings[key]
            if isinstance(value, (tuple, list)):
                value = ", ".join(str(v) for v in value) or "none"
            out[key] = value
    return out
