"""The Explorer's survival outcome: which columns can be a follow-up time and an event, the
outcome a survival family's fit takes, and the default horizon (the median follow-up).

A family whose :attr:`~riskexplore.core.registry.ModelFamily.outcome` is ``"survival"`` takes
``y`` as scikit-survival's structured array; the Explorer keeps its outcome column as the
0/1 event (so the held-out split is stratified on the event) and the follow-up time in the
setting :data:`TIME_SETTING`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from riskexplore.core.registry import families
from riskexplore.data.survival import time_unit_of
from riskexplore.errors import InputError

__all__ = [
    "HORIZON_SETTING",
    "SurvivalOutcome",
    "TIME_SETTING",
    "check_time_column",
    "event_column_options",
    "format_time",
    "median_follow_up",
    "survival_outcome",
    "time_column_options",
]

#: The setting naming the follow-up time column.
TIME_SETTING = "time_column"
#: The setting of the horizon of the risk (None: :func:`median_follow_up`).
HORIZON_SETTING = "horizon"


def _is_time(values: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return False
    finite = values.notna().all() and np.isfinite(values.to_numpy(dtype=float)).all()
    return bool(finite and (values >= 0).all() and values.nunique() > 2)


def _is_event(values: pd.Series) -> bool:
    if values.isna().any() or values.nunique() != 2:
        return False
    return set(pd.unique(values.astype(float, errors="ignore"))) <= {0, 1}


def _columns_where(frame: pd.DataFrame | None, test: Callable[[pd.Series], bool]) -> list[str]:
    """The names of the columns of ``frame`` (none without a table) that pass ``test``."""
    if frame is None:
        return []
    return [str(c) for c in frame.columns if test(frame[c])]


def time_column_options(frame: pd.DataFrame | None) -> list[str]:
    """Columns that can be a follow-up time: numbers ``>= 0``, none missing, more than two
    distinct values.

    Parameters
    ----------
    frame : DataFrame or None
        The table.

    Returns
    -------
    list of str
        The column names, in the table's order.
    """
    return _columns_where(frame, _is_time)


def event_column_options(frame: pd.DataFrame | None) -> list[str]:
    """Columns that can be an event indicator: 0/1 (or True/False), none missing.

    Parameters
    ----------
    frame : DataFrame or None
        The table.

    Returns
    -------
    list of str
        The column names, in the table's order.
    """
    return _columns_where(frame, _is_event)


def check_time_column(frame: pd.DataFrame, column: str, event: str | None) -> None:
    """Raise :class:`InputError` unless ``column`` can be the follow-up time.

    Parameters
    ----------
    frame : DataFrame
        The table.
    column : str
        The time column.
    event : str or None
        The event column (the Explorer's outcome), which the time column must differ from.
    """
    if column not in frame.columns:
        raise InputError(f"unknown time column {column!r}")
    if column == event:
        raise InputError(f"{column!r} is the event column; choose another column as the time")
    if not _is_time(frame[column]):
        raise InputError(
            f"the time column {column!r} must hold follow-up times: numbers >= 0, none "
            "missing (choose the column of days, months or years until the event or the "
            "last visit)"
        )


def survival_outcome(time, event) -> np.ndarray:
    """scikit-survival's outcome ``[("event", bool), ("time", float)]``.

    Parameters
    ----------
    time, event : array-like
        Follow-up times and 0/1 events, one per row.

    Returns
    -------
    ndarray
        The structured array.
    """
    y = np.empty(len(time), dtype=[("event", bool), ("time", float)])
    y["event"] = np.asarray(event, dtype=float) == 1
    y["time"] = np.asarray(time, dtype=float)
    return y


def median_follow_up(time) -> float:
    """The median of the follow-up times (the default horizon: about half the rows are
    still followed then, so the risk there rests on many rows).

    Parameters
    ----------
    time : array-like
        Follow-up times.

    Returns
    -------
    float
        The median (a positive time).
    """
    values = np.asarray(time, dtype=float)
    middle = float(np.median(values))
    return middle if middle > 0 else float(values.max())


def format_time(value: float) -> str:
    """A time in plain digits (``"365"``, ``"2.5"``, ``"12,000"``; never ``"1.2e+04"``).

    Parameters
    ----------
    value : float
        The time.

    Returns
    -------
    str
        The text.
    """
    if abs(value) >= 100 or float(value).is_integer():
        return f"{round(value):,}"
    return f"{value:.2f}".rstrip("0").rstrip(".")


class SurvivalOutcome:
    """The survival side of :class:`~riskexplore.exploration.explorer.ExplorerState` (a
    mixin: it reads the state's ``frame``, ``outcome``, ``settings``, ``X``, ``y``,
    ``X_test``, ``y_test`` and ``model_family``).

    In survival mode (a family whose outcome is ``"survival"``) the outcome column is the
    0/1 event and :data:`TIME_SETTING` names the follow-up time, which is then no feature.
    """

    @property
    def survival_mode(self) -> bool:
        """Whether the chosen family takes a survival outcome."""
        return self.model_family.outcome == "survival"

    @property
    def time_column_options(self) -> list[str]:
        """Columns that can be the follow-up time (see :func:`time_column_options`)."""
        return time_column_options(self.frame)

    @property
    def event_column_options(self) -> list[str]:
        """Columns that can be the event (see :func:`event_column_options`)."""
        return event_column_options(self.frame)

    @property
    def family_options(self) -> list:
        """The families the data allow: those of a 0/1 outcome, and those of a survival
        outcome when the table has a time column and a different 0/1 event column."""
        times, events = self.time_column_options, self.event_column_options
        survival = any(t != e for t in times for e in events)
        return [
            f for f in families() if f.outcome == "binary" or (f.outcome == "survival" and survival)
        ]

    def _outcome_columns(self) -> list[str]:
        """The columns that are the outcome (no features): the outcome, and in survival
        mode the time column."""
        time = self.settings.get(TIME_SETTING) if self.survival_mode else None
        return [c for c in (self.outcome, time) if c is not None]

    def set_time_column(self, column: str) -> None:
        """Choose the follow-up time column (survival mode); the data are split again.

        Parameters
        ----------
        column : str
            The column of times until the event or the last visit.
        """
        if self.frame is None:
            raise InputError("load a dataset or a CSV file first")
        self.update_settings(**{TIME_SETTING: str(column)})

    def _check_time_setting(self, column: str | None) -> None:
        if column is not None and self.frame is not None:
            check_time_column(self.frame, column, self.outcome)

    def training_outcome(self, test: bool = False):
        """The outcome the family's fit takes for the training (or held-out) rows: the 0/1
        Series, or in survival mode the structured array of time and event.

        Parameters
        ----------
        test : bool
            The held-out rows instead.

        Returns
        -------
        Series, ndarray or None
            None before the outcome (and, in survival mode, the time column) is chosen.
        """
        y = self.y_test if test else self.y
        if y is None or not self.survival_mode:
            return y
        time = self.settings.get(TIME_SETTING)
        if time is None:
            return None
        return survival_outcome(self.frame.loc[y.index, time], y)

    def horizon(self) -> float | None:
        """The horizon of the risk: the setting, or the training rows' median follow-up.

        Returns
        -------
        float or None
            None outside survival mode or before the time column is chosen.
        """
        y = self.training_outcome() if self.survival_mode else None
        if y is None:
            return None
        chosen = self.settings.get(HORIZON_SETTING)
        return float(chosen) if chosen is not None else median_follow_up(y["time"])

    def describe_horizon(self) -> str:
        """The horizon in plain words (``"risk of the event by 365 days (the median
        follow-up)"``; ``"... by 365, in the unit of futime"`` when the time column's name
        gives no unit), or ``""`` when there is none yet.

        Returns
        -------
        str
            The words.
        """
        horizon = self.horizon()
        if horizon is None:
            return ""
        default = " (the median follow-up)" if self.settings.get(HORIZON_SETTING) is None else ""
        column = self.settings.get(TIME_SETTING)
        unit = time_unit_of(column)
        if unit:
            return f"risk of the event by {format_time(horizon)} {unit}{default}"
        return f"risk of the event by {format_time(horizon)}{default}, in the unit of {column}"

    def _survival_settings(self, settings: dict) -> dict:
        """``settings`` with the horizon resolved (its default is the median follow-up)."""
        if not self.survival_mode:
            return settings
        return {**settings, HORIZON_SETTING: self.horizon()}
