"""Calibration of predicted risks at a horizon, per score group, against Kaplan-Meier.

For each group of rows with the same score (total points), the predicted risk of the
event by the horizon ``h`` (the group's mean) beside the observed risk ``1 - S(h)``, ``S``
the group's Kaplan-Meier estimate, with its log(-log) interval: censored rows count for
as long as they were followed, which a plain event rate by ``h`` would not allow.

A group in which no row was followed up to ``h`` and whose curve has not reached 0 has no
observed risk at ``h`` (``nan``): the Kaplan-Meier curve is not defined beyond its last
time.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.product_limit import kaplan_meier

__all__ = ["SURVIVAL_CALIBRATION_COLUMNS", "survival_calibration"]

#: The columns of :func:`survival_calibration`.
SURVIVAL_CALIBRATION_COLUMNS = (
    "score",
    "patients",
    "events",
    "followed",
    "predicted_risk",
    "observed_risk",
    "lower",
    "upper",
)


def _row(score, risk, time, event, horizon: float, confidence: float) -> dict:
    curve = kaplan_meier(time, event, confidence)
    observed = curve.risk_at(horizon)
    if time.max() < horizon and curve.survival[-1] > 0:
        observed_values = (math.nan, math.nan, math.nan)
    else:
        observed_values = (observed.estimate, observed.lower, observed.upper)
    return dict(
        zip(
            SURVIVAL_CALIBRATION_COLUMNS,
            (
                score,
                len(time),
                int((event & (time <= horizon)).sum()),
                int((time >= horizon).sum()),
                float(np.mean(risk)),
                *observed_values,
            ),
            strict=True,
        )
    )


def survival_calibration(
    score, risk, time, event, horizon: float, confidence: float = 0.95
) -> pd.DataFrame:
    """Predicted against observed risk by ``horizon``, one row per score, lowest first.

    Parameters
    ----------
    score : array-like
        Each row's score (the groups; total points).
    risk : array-like
        Each row's predicted risk of the event by ``horizon`` (in [0, 1]).
    time, event : array-like
        The survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`).
    horizon : float
        The time ``h``.
    confidence : float
        The level of the Kaplan-Meier intervals.

    Returns
    -------
    DataFrame
        The columns of :data:`SURVIVAL_CALIBRATION_COLUMNS`: the score, its patients, their
        events by ``h``, those followed to ``h`` or beyond, the mean predicted risk, and the
        observed risk ``1 - KM(h)`` with its interval.

    Raises
    ------
    InputError
        For a bad outcome, scores or risks of another length, risks outside [0, 1], or a
        horizon that is not a finite number ``>= 0``.
    """
    time, event = check_survival_outcome(time, event)
    score = np.asarray(score)
    risk = np.asarray(risk, dtype=float)
    if score.shape != time.shape or risk.shape != time.shape:
        raise InputError(f"score and risk must have one value per row ({len(time)} rows)")
    if np.issubdtype(score.dtype, np.number) and not np.isfinite(score).all():
        raise InputError("scores must be finite numbers (missing scores cannot be grouped)")
    if not np.isfinite(risk).all() or (risk < 0).any() or (risk > 1).any():
        raise InputError("predicted risks must be numbers between 0 and 1")
    if not isinstance(horizon, (int, float, np.number)) or not 0 <= horizon < math.inf:
        raise InputError(f"horizon must be a finite time >= 0, got {horizon!r}")
    rows = []
    for value in np.unique(score):
        g = score == value
        rows.append(_row(value.item(), risk[g], time[g], event[g], float(horizon), confidence))
    return pd.DataFrame(rows, columns=list(SURVIVAL_CALIBRATION_COLUMNS))
