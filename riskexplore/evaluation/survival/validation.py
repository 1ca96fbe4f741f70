"""Validate a survival score on other rows: discrimination and calibration at a horizon.

:func:`validate_survival` works on plain arrays, so any survival model plugs in: the
scores are its total points (``model.total_points(X)``), the risks its predicted risk of
the event by the horizon (``model.predict_risk(X, horizon)``, from its Breslow baseline).

* **Discrimination**: Harrell's C, Uno's C with pairs whose first event is before the
  horizon, and the time-dependent AUC at the horizon
  (:mod:`~riskexplore.evaluation.survival.concordance`,
  :mod:`~riskexplore.evaluation.survival.time_auc`); the censoring distribution of the
  last two is estimated on the training rows when they are given, else on these rows
  (the result says which). Their intervals are bootstrap percentile intervals over
  resampled rows (resamples without an event are skipped).
* **Calibration at the horizon**: per total score and per score group, the mean
  predicted risk beside the observed ``1 - KM(h)`` with its log(-log) interval
  (:mod:`~riskexplore.evaluation.survival.calibration`); O/E, the observed risk of all
  rows over their mean predicted risk (its interval: the observed risk's interval over
  the same mean, the predictions taken as fixed); the calibration slope
  (:mod:`~riskexplore.evaluation.survival.cox_slope`).
* **Kaplan-Meier curves** per score group, adjacent scores merged until each group has
  ``min_group_rows`` rows (:mod:`~riskexplore.evaluation.survival.score_groups`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import percentile_interval, z_value
from riskexplore.evaluation.survival.calibration import survival_calibration
from riskexplore.evaluation.survival.concordance import harrell_c, uno_c
from riskexplore.evaluation.survival.cox_slope import cox_slope
from riskexplore.evaluation.survival.product_limit import kaplan_meier
from riskexplore.evaluation.survival.result import SurvivalValidation
from riskexplore.evaluation.survival.score_groups import (
    DEFAULT_MIN_GROUP_ROWS,
    group_label,
    km_by_group,
    score_groups,
)
from riskexplore.evaluation.survival.time_auc import time_dependent_auc
from riskexplore.evaluation.validation.estimate import Estimate

__all__ = ["DEFAULT_N_BOOT", "validate_survival"]

#: Bootstrap resamples of the discrimination intervals.
DEFAULT_N_BOOT = 200


def _numbers(values, n: int, what: str, source: str) -> np.ndarray:
    """``values`` as ``n`` finite floats, or an InputError naming ``what`` and its source."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != (n,) or not np.isfinite(array).all():
        raise InputError(
            f"{what} must be {n} finite numbers, one per row ({source}), got "
            f"{np.shape(values) if array is not None else 'values that are not numbers'}"
        )
    return array


def _checked(scores, risk, time, event, horizon):
    """The outcome, scores and risks as arrays, and the horizon, checked."""
    time, event = check_survival_outcome(time, event)
    s = _numbers(scores, len(time), "scores", "model.total_points(X)")
    p = _numbers(risk, len(time), "risk", "model.predict_risk(X, horizon)")
    if (p < 0).any() or (p > 1).any():
        raise InputError("predicted risks must be numbers between 0 and 1")
    if isinstance(horizon, bool) or not isinstance(horizon, (int, float, np.number)):
        raise InputError(f"horizon must be a time (a number), got {horizon!r}")
    if not 0 < horizon <= time.max():
        raise InputError(
            f"horizon {horizon!r} is outside the follow-up of these rows (0 to "
            f"{time.max():g}); choose a horizon > 0 that some rows were followed up to"
        )
    return time, event, s, p, float(horizon)


def _train_outcome(train_time, train_event):
    """The training rows' outcome, or None."""
    if train_time is None and train_event is None:
        return None
    if train_time is None or train_event is None:
        raise InputError("give both train_time and train_event (or neither)")
    return check_survival_outcome(train_time, train_event)


def _discrimination(time, event, s, train, horizon):
    """Harrell's C, Uno's C up to the horizon and the time-dependent AUC at it."""
    return (
        harrell_c(time, event, s).estimate,
        uno_c(time, event, s, train=train, tau=horizon).estimate,
        time_dependent_auc(time, event, s, horizon, train=train).estimate,
    )


def _with_bootstrap(time, event, s, train, horizon, n_boot, confidence, seed):
    """The three discrimination figures, each with its bootstrap percentile interval."""
    point = _discrimination(time, event, s, train, horizon)
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(time), len(time))
        if event[idx].any():
            samples.append(_discrimination(time[idx], event[idx], s[idx], train, horizon))
    boot = np.array(samples, dtype=float).reshape(-1, 3)
    return [
        Estimate(value, *percentile_interval(boot[:, k], confidence), "bootstrap percentile")
        for k, value in enumerate(point)
    ]


def _observed_expected(observed: Estimate, predicted: float) -> Estimate:
    if predicted <= 0:
        return Estimate(math.nan)
    return Estimate(
        observed.estimate / predicted, observed.lower / predicted, observed.upper / predicted
    )


def _group_calibration(group, ranges, risk, time, event, horizon, confidence):
    frame = survival_calibration(group, risk, time, event, horizon, confidence)
    labels = [group_label(*ranges[int(g)]) for g in frame["score"]]
    frame.insert(0, "high", [ranges[int(g)][1] for g in frame["score"]])
    frame.insert(0, "low", [ranges[int(g)][0] for g in frame["score"]])
    frame.insert(0, "group", labels)
    return frame.drop(columns="score")


def _notes(train, discrimination, slope, calibration: pd.DataFrame, n_groups) -> list[str]:
    notes = [
        "censoring distribution of Uno's C and the time-dependent AUC estimated on "
        + (
            "the training rows"
            if train is not None
            else "these rows (the training rows were not given)"
        )
    ]
    names = ("Harrell's C", "Uno's C", "the time-dependent AUC")
    for name, value in zip(names, discrimination, strict=True):
        if not math.isfinite(value.estimate):
            notes.append(f"{name} is not available: no comparable pairs (cases and controls)")
    if not math.isfinite(slope.estimate):
        notes.append(
            "the calibration slope is not available: every row has the same score, or the "
            "scores order the events perfectly"
        )
    unknown = calibration["observed_risk"].isna().sum()
    if unknown:
        notes.append(
            f"{unknown} score(s) have no observed risk: none of their rows was followed up "
            "to the horizon"
        )
    if n_groups == 1:
        notes.append("all scores form one group: too few rows to split them")
    return notes


def validate_survival(
    scores,
    risk,
    time,
    event,
    horizon: float,
    *,
    train_time=None,
    train_event=None,
    level: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    min_group_rows: int = DEFAULT_MIN_GROUP_ROWS,
    random_state: int = 0,
) -> SurvivalValidation:
    """A survival score's discrimination and calibration on other rows, at a horizon.

    Parameters
    ----------
    scores : array-like
        Each row's score (total points; higher means a higher risk).
    risk : array-like
        Each row's predicted risk of the event by ``horizon`` (in [0, 1]).
    time, event : array-like
        The rows' survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`).
    horizon : float
        The time the risks are predicted for: ``0 < horizon <=`` the longest follow-up.
    train_time, train_event : array-like, optional
        The training rows' outcome: its censoring distribution weighs Uno's C and the
        time-dependent AUC (default: these rows').
    level : float
        The confidence level of every interval.
    n_boot : int
        Bootstrap resamples of the discrimination intervals (0: no intervals).
    min_group_rows : int
        The fewest rows of a score group of the Kaplan-Meier curves.
    random_state : int
        The seed of the bootstrap.

    Returns
    -------
    SurvivalValidation
        The figures, tables, curves and notes.

    Raises
    ------
    InputError
        For a bad outcome (no event, different lengths), scores or risks of another length,
        risks outside [0, 1], a horizon outside the follow-up, or a bad level or ``n_boot``.
    """
    z_value(level)
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise InputError(f"n_boot must be a whole number >= 0, got {n_boot!r}")
    time, event, s, p, h = _checked(scores, risk, time, event, horizon)
    train = _train_outcome(train_time, train_event)
    discrimination = _with_bootstrap(time, event, s, train, h, n_boot, level, random_state)
    observed = kaplan_meier(time, event, level).risk_at(h)
    slope = cox_slope(s, time, event, level)
    calibration = survival_calibration(s, p, time, event, h, level)
    group, ranges = score_groups(s, min_group_rows)
    return SurvivalValidation(
        n=len(time),
        events=int(event.sum()),
        horizon=h,
        events_by_horizon=int((event & (time <= h)).sum()),
        confidence=level,
        censoring_from="training rows" if train is not None else "validation rows",
        harrell_c=discrimination[0],
        uno_c=discrimination[1],
        time_auc=discrimination[2],
        observed_risk=observed,
        predicted_risk=float(p.mean()),
        observed_expected=_observed_expected(observed, float(p.mean())),
        calibration_slope=slope,
        calibration=calibration,
        group_calibration=_group_calibration(group, ranges, p, time, event, h, level),
        km_curves=km_by_group(time, event, group, ranges, level),
        min_group_rows=min_group_rows,
        n_boot=n_boot,
        notes=_notes(train, discrimination, slope, calibration, len(ranges)),
    )
