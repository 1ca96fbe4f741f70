"""Time-to-event outcomes checked before fitting or evaluating a survival score.

A survival outcome is one follow-up time and one event indicator per row: the event
(death, recurrence) happened at that time, or the row was censored then (still free of
the event when last seen). It comes in any of three shapes:

* two arrays, ``check_survival_outcome(time, event)``;
* a structured array with a boolean field and a float field, scikit-survival's convention
  (``np.dtype([("event", bool), ("time", float)])``; any two field names, the boolean
  field is the event);
* a pair ``(time, event)`` or a sequence of ``(time, event)`` pairs, one per row.

It lives in the data layer, below both the model families and the evaluation, so that
the Cox loss and the survival metrics check their outcome the same way.

**Times** must be finite and ``>= 0``. Only their order matters to the Cox partial
likelihood, the Kaplan-Meier estimate and the concordance indices, and a time of 0 is
common in real tables (an event on the day of inclusion, day counts that start at 0),
so 0 is kept; a negative time is almost always a date difference taken the wrong way
round and is refused.
"""

from __future__ import annotations

import re

import numpy as np

from riskexplore.errors import InputError

__all__ = ["TIME_UNITS", "check_survival_outcome", "check_survival_weights", "time_unit_of"]

#: The units a time column's name may give, by the words that name them.
TIME_UNITS = {
    "days": ("day", "days", "d"),
    "weeks": ("week", "weeks", "wk", "wks"),
    "months": ("month", "months", "mo", "mos"),
    "years": ("year", "years", "yr", "yrs"),
    "hours": ("hour", "hours", "h", "hr", "hrs"),
}


def _as_1d(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise InputError(
            f"{name} must be one value per row (a 1-d array), got an array of shape {array.shape}"
        )
    return array


def _checked_time(time, name: str = "time") -> np.ndarray:
    array = _as_1d(time, name)
    if array.dtype == object or not np.issubdtype(array.dtype, np.number):
        try:
            array = array.astype(float)
        except (TypeError, ValueError):
            raise InputError(
                f"{name} must be numbers (follow-up times), got values of type "
                f"{array.dtype}; convert the column to numbers (e.g. days since inclusion)"
            ) from None
    array = array.astype(float)
    bad = ~np.isfinite(array)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{name} has {int(bad.sum())} missing or infinite value(s) (first at row "
            f"position {k}: {array[k]}); every row needs a finite follow-up time, so drop "
            "those rows or fill in their last follow-up"
        )
    negative = array < 0
    if negative.any():
        k = int(np.flatnonzero(negative)[0])
        raise InputError(
            f"{name} has {int(negative.sum())} negative value(s) (first at row position "
            f"{k}: {array[k]:g}); follow-up times must be >= 0: check that the time is "
            "the event or last-contact date minus the start date, not the reverse"
        )
    return array


def _checked_event(event, name: str = "event") -> np.ndarray:
    array = _as_1d(event, name)
    if array.dtype == bool:
        return array.copy()
    try:
        numbers = array.astype(float)
    except (TypeError, ValueError):
        raise InputError(
            f"{name} must be 0/1 or True/False (1: the event happened at the time, 0: "
            f"censored), got values of type {array.dtype}"
        ) from None
    bad = ~np.isin(numbers, (0.0, 1.0))
    if bad.any():
        values = sorted({str(v) for v in array[bad]})[:5]
        raise InputError(
            f"{name} must be 0/1 or True/False (1: the event happened, 0: censored), got "
            f"{', '.join(values)} in {int(bad.sum())} row(s); missing events cannot be "
            "used, and with competing events code the event of interest 1 and every other "
            "ending 0"
        )
    return numbers == 1.0


def _split_structured(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fields = y.dtype.names or ()
    flags = [f for f in fields if y.dtype[f] == np.dtype(bool)]
    others = [f for f in fields if f not in flags]
    if len(fields) != 2 or len(flags) != 1:
        raise InputError(
            f"a structured survival outcome needs exactly two fields, a boolean event and a "
            f"numeric time (as scikit-survival's Surv.from_arrays), got fields {list(fields)}"
        )
    return y[others[0]], y[flags[0]]


def _split_outcome(time, event) -> tuple:
    if event is not None:
        return time, event
    if isinstance(time, np.ndarray) and time.dtype.names is not None:
        return _split_structured(time)
    if isinstance(time, tuple) and len(time) == 2:
        return time
    pairs = np.asarray(time, dtype=object)
    if pairs.ndim == 2 and pairs.shape[1] == 2:
        return pairs[:, 0], pairs[:, 1]
    raise InputError(
        "give the survival outcome as time and event arrays, a (time, event) pair, "
        "(time, event) pairs one per row, or a structured array with a boolean event field "
        "and a float time field (scikit-survival's convention)"
    )


def check_survival_outcome(
    time, event=None, allow_all_censored: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Follow-up times and event indicators, checked.

    Parameters
    ----------
    time : array-like, pair or structured array
        The follow-up times (finite, ``>= 0``); or, with ``event=None``, the whole outcome:
        a structured array with a boolean and a numeric field, a pair ``(time, event)``,
        or ``(time, event)`` pairs, one per row.
    event : array-like, optional
        1/True where the event happened at ``time``, 0/False where the row was censored.
    allow_all_censored : bool
        Accept rows without any event (a Kaplan-Meier curve of a small group); a model
        needs at least one event.

    Returns
    -------
    tuple of ndarray
        ``(time, event)``: float times and boolean events, one per row.

    Raises
    ------
    InputError
        Naming the value at fault and the fix: missing, infinite or negative times, events
        other than 0/1, different lengths, no rows, or no event at all.
    """
    time, event = _split_outcome(time, event)
    time = _checked_time(time)
    event = _checked_event(event)
    if len(time) != len(event):
        raise InputError(
            f"time has {len(time)} rows but event has {len(event)}; give one time and one "
            "event indicator per row"
        )
    if len(time) == 0:
        raise InputError("the survival outcome has no rows")
    if not allow_all_censored and not event.any():
        raise InputError(
            f"every one of the {len(time)} rows is censored (event is 0 everywhere); a "
            "survival score needs at least one event: check the event column's coding"
        )
    return time, event


def check_survival_weights(weights, n: int) -> np.ndarray:
    """Row weights of a survival outcome (frequency weights: a weight 2 is a duplicated row).

    Parameters
    ----------
    weights : array-like or None
        Finite, non-negative weights, one per row; None for unit weights.
    n : int
        The number of rows.

    Returns
    -------
    ndarray
        Float weights.

    Raises
    ------
    InputError
        If a weight is missing, infinite or negative, the length differs, or every weight is 0.
    """
    if weights is None:
        return np.ones(n)
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise InputError("weights must be numbers, one per row") from None
    if w.shape != (n,):
        raise InputError(f"weights has shape {w.shape} but there are {n} rows; give one per row")
    if not np.isfinite(w).all() or (w < 0).any():
        k = int(np.flatnonzero(~np.isfinite(w) | (w < 0))[0])
        raise InputError(
            f"weights must be finite and >= 0, got {w[k]} at row position {k}; fix or drop that row"
        )
    if not w.sum() > 0:
        raise InputError("every weight is 0; give some rows a positive weight")
    return w


def time_unit_of(column: str | None) -> str | None:
    """The unit a time column's name gives (``"days"`` for ``days``, ``followup_months``
    or ``time (years)``), or None when it names none (``futime``, ``time``).

    Parameters
    ----------
    column : str or None
        The column's name.

    Returns
    -------
    str or None
        One of :data:`TIME_UNITS`' keys, or None.
    """
    words = re.findall(r"[a-z]+", str(column or "").lower())
    found = [unit for unit, names in TIME_UNITS.items() if any(w in names for w in words)]
    return found[0] if len(found) == 1 else None
