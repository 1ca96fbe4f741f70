"""``validate`` and ``recalibrate`` for a family whose outcome is a time to event.

The family says so (``ModelFamily.outcome == "survival"``) and gives, through its
:class:`~riskexplore.core.registry.ValidationSpec`, the card's score (total points), the
risk by a horizon and the horizon (its first by default); the figures are those of
:func:`~riskexplore.evaluation.survival.validation.validate_survival`. The outcome is
scikit-survival's structured array ``[("event", bool), ("time", float)]`` as ``y`` (the
family's outcome form), or ``time=`` and ``event=``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from riskexplore.core.registry import ModelFamily, ValidationSpec
from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.result import SurvivalValidation
from riskexplore.evaluation.survival.validation import validate_survival

__all__ = ["binary_outcome_only", "survival_outcome", "validate_time_to_event"]


def _is_survival(y) -> bool:
    return (isinstance(y, np.ndarray) and y.dtype.names is not None) or (
        isinstance(y, tuple) and len(y) == 2
    )


def survival_outcome(label: str, y=None, time=None, event=None) -> tuple[np.ndarray, np.ndarray]:
    """The survival outcome given as ``y`` or as ``time=`` and ``event=``, checked.

    Parameters
    ----------
    label : str
        The family's name for people (in messages).
    y : structured array or (time, event) pair, optional
        The outcome in the family's form.
    time, event : array-like, optional
        The outcome as two columns (instead of ``y``).

    Returns
    -------
    tuple of ndarray
        ``(time, event)``.

    Raises
    ------
    InputError
        For both forms or neither, 0/1 outcomes without times, or a bad outcome.
    """
    if time is not None or event is not None:
        if y is not None:
            raise InputError("give the outcome once: y, or time= and event=, not both")
        if time is None or event is None:
            raise InputError("give both time= and event= (or y as a structured array)")
        return check_survival_outcome(time, event)
    if y is None:
        raise InputError(f"a {label.lower()} needs its outcome: give time= and event=")
    if not _is_survival(y):
        raise InputError(
            f"a {label.lower()} is validated on a time to event, not on 0/1 outcomes: give "
            'y as a structured array [("event", bool), ("time", float)] (e.g. '
            "sksurv.util.Surv.from_arrays(event, time)) or time=... and event=..."
        )
    return check_survival_outcome(y)


def binary_outcome_only(label: str, y, time=None, event=None) -> None:
    """Raise :class:`InputError` when a 0/1-outcome family is given a survival outcome.

    Parameters
    ----------
    label : str
        The family's name for people.
    y, time, event
        What the caller gave.

    Raises
    ------
    InputError
        For ``time=``/``event=``, a structured ``y`` or a (time, event) pair.
    """
    if time is not None or event is not None or _is_survival(y):
        raise InputError(
            f"a {label.lower()} predicts a 0/1 outcome: give y as 0/1 (1 = the outcome "
            "happened), not times and events (those are for survival scores)"
        )
    if y is None:
        raise InputError("give the outcome y (0/1, one per row)")


def validate_time_to_event(
    model: Any,
    family: ModelFamily,
    spec: ValidationSpec,
    X,
    outcome: tuple[np.ndarray, np.ndarray],
    horizon=None,
    confidence: float = 0.95,
    **options: Any,
) -> SurvivalValidation:
    """A survival model's validation at a horizon on the rows ``(X, outcome)``.

    Parameters
    ----------
    model : fitted model
        A model of a family with ``outcome == "survival"``.
    family : ModelFamily
        Its family.
    spec : ValidationSpec
        The family's validation spec (with ``horizon_of``).
    X : DataFrame or array
        The rows (raw when the model keeps its binarizer).
    outcome : (ndarray, ndarray)
        ``(time, event)`` of the rows, checked.
    horizon : float, optional
        Default: the model's first horizon.
    confidence : float
        The level of every interval.
    **options
        ``n_boot``, ``min_group_rows``, ``random_state`` of
        :func:`~riskexplore.evaluation.survival.validation.validate_survival`.

    Returns
    -------
    SurvivalValidation
        The figures; the censoring distribution is that of these rows (the model keeps
        no training outcome), as its notes say.
    """
    time, event = outcome
    h = spec.horizon_of(model, horizon)
    scores = np.asarray(spec.card_score(model, X), dtype=float)
    if len(scores) != len(time):
        raise InputError(f"X has {len(scores)} rows but the outcome has {len(time)}")
    risk = spec.risk_of(model, X, h)
    result = validate_survival(scores, risk, time, event, h, level=confidence, **options)
    # (the model's unit of time, "days", names the horizon on figures and pages)
    unit = getattr(model, "time_unit", None)
    return replace(result, kind=family.label.lower(), time_unit=unit)
