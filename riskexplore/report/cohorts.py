"""The cohorts of a report (development, validation): each one's validation dict and, when
its rows are given, a summary of its data (rows, outcome rate, missing values per column,
the period of a date column). Every figure comes from
:func:`~riskexplore.evaluation.validation.validate`; the report only shows them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.registry import family_of
from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.validation import validate
from riskexplore.figures.survival import survival_validation_dict
from riskexplore.figures.validation import validation_dict

__all__ = ["Cohort", "DataSummary", "cohort", "data_summary"]


@dataclass(frozen=True)
class DataSummary:
    """What a report says about a cohort's rows.

    Attributes
    ----------
    rows, events : int
        Rows, and rows with the outcome.
    outcome : str
        The outcome column's name ("" when the outcome has none).
    missing : tuple of (str, int)
        Columns with missing values and how many, most first.
    columns : int
        Columns of the table.
    period : (str, str) or None
        The first and last date of the date column, as ``YYYY-MM-DD``.
    date_column : str or None
        The date column.
    """

    rows: int
    events: int
    outcome: str
    missing: tuple[tuple[str, int], ...]
    columns: int
    period: tuple[str, str] | None = None
    date_column: str | None = None

    @property
    def outcome_rate(self) -> float:
        """Events per row."""
        return self.events / self.rows if self.rows else float("nan")


@dataclass(frozen=True)
class Cohort:
    """A cohort of the report: its name, its validation dict, its data summary (None when
    only the validation was given)."""

    name: str
    validation: dict[str, Any]
    data: DataSummary | None = None


def _period(X: pd.DataFrame, date_column: str) -> tuple[str, str]:
    if date_column not in X.columns:
        known = ", ".join(repr(str(c)) for c in list(X.columns)[:12])
        raise InputError(
            f"date_column {date_column!r} is not a column of the data (columns: {known}); "
            "name the column that holds each patient's date, or leave date_column out"
        )
    dates = pd.to_datetime(X[date_column], errors="coerce", format="mixed")
    if dates.notna().sum() == 0:
        raise InputError(
            f"date_column {date_column!r} holds no dates (e.g. 2021-03-14); name a column of "
            "dates, or leave date_column out"
        )
    return dates.min().strftime("%Y-%m-%d"), dates.max().strftime("%Y-%m-%d")


def _outcome_events(y: Any) -> tuple[int, int]:
    """Rows and rows with the event of an outcome: 0/1, or a survival outcome (a structured
    array, or a ``(time, event)`` pair)."""
    if (isinstance(y, tuple) and len(y) == 2) or np.asarray(y).dtype.names:
        _, event = check_survival_outcome(y, allow_all_censored=True)
        return len(event), int(event.sum())
    outcome = pd.Series(np.asarray(y).ravel())
    return len(outcome), int((pd.to_numeric(outcome, errors="coerce") == 1).sum())


def data_summary(X: Any, y: Any, date_column: str | None = None) -> DataSummary:
    """Rows, events, missing values per column and the period of the date column.

    Parameters
    ----------
    X : DataFrame
        The rows (raw columns or items).
    y : array-like
        The 0/1 outcome, or a survival outcome (structured array or ``(time, event)``).
    date_column : str, optional
        A column of ``X`` with each row's date.

    Returns
    -------
    DataSummary
        The summary.

    Raises
    ------
    InputError
        When ``X`` and ``y`` differ in length, or for a date column that is not in ``X`` or
        holds no dates.
    """
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    rows, events = _outcome_events(y)
    if rows != len(frame):
        raise InputError(f"X has {len(frame)} rows but y has {rows}; give one per row")
    counts = frame.isna().sum()
    missing = tuple(
        (str(c), int(n)) for c, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n > 0
    )
    return DataSummary(
        rows=len(frame),
        events=events,
        outcome=str(getattr(y, "name", None) or ""),
        missing=missing,
        columns=frame.shape[1],
        period=None if date_column is None else _period(frame, date_column),
        date_column=date_column,
    )


def cohort(name: str, model: Any, given: Any, date_column: str | None = None) -> Cohort | None:
    """A cohort from what the caller gave: rows ``(X, y)`` (validated here and
    summarised), rows with their validation ``(X, y, Validation)`` (summarised; not
    validated again), a ``Validation`` or its dict, or None.

    Parameters
    ----------
    name : str
        ``"development"`` or ``"validation"``.
    model : fitted model
        The model.
    given : (X, y), (X, y, Validation), Validation, mapping or None
        The cohort.
    date_column : str, optional
        The date column of the rows.

    Returns
    -------
    Cohort or None
        The cohort (None when nothing was given).

    Raises
    ------
    InputError
        For a tuple of another length, or a validation of another number of rows.
    """
    if given is None:
        return None
    as_dict = (
        survival_validation_dict if family_of(model).outcome == "survival" else validation_dict
    )
    if not isinstance(given, tuple):
        return Cohort(name, as_dict(given))
    if len(given) not in (2, 3):
        raise InputError(f"{name} must be (X, y), (X, y, its validation), a validation or its dict")
    X, y = given[:2]
    summary = data_summary(X, y, date_column)
    v = as_dict(given[2] if len(given) == 3 else validate(model, X, y))
    if int(v["n"]) != summary.rows:
        raise InputError(
            f"the {name} validation counts {v['n']} rows but X has {summary.rows}: give the "
            "validation of these rows (riskexplore.validate(model, X, y))"
        )
    return Cohort(name, v, summary)
