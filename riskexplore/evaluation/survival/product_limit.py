"""The Kaplan-Meier estimate with Greenwood's variance and the log(-log) interval.

At the distinct times ``u_k`` with ``n_k`` rows at risk and ``d_k`` events,
``S(t) = prod_{u_k <= t} (1 - d_k / n_k)``; Greenwood's sum
``V(t) = sum_{u_k <= t} d_k / (n_k (n_k - d_k))`` estimates the variance of ``log S``, and the
interval of ``S(t)`` is ``S^exp(-+z sqrt(V) / log S)`` (the log(-log) transform: inside
[0, 1], the default of scikit-survival's ``kaplan_meier_estimator(conf_type="log-log")``
and of lifelines). Where ``S = 1`` the interval is ``[1, 1]``, where ``S = 0`` it is ``[0, 0]``.

:func:`censoring_kaplan_meier` estimates the *censoring* distribution ``G`` (the
censored rows are its "events"; rows with an event at the same time are still at risk
of censoring then), whose inverse weights Uno's C and the time-dependent AUC use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from riskexplore.data.survival import check_survival_outcome
from riskexplore.evaluation.intervals import z_value
from riskexplore.evaluation.validation.estimate import Estimate

__all__ = ["KaplanMeier", "censoring_kaplan_meier", "kaplan_meier"]

_EPS = np.finfo(float).eps


@dataclass(frozen=True)
class KaplanMeier:
    """A Kaplan-Meier step function at the distinct times of its rows.

    Attributes
    ----------
    times : ndarray
        Distinct times, ascending.
    at_risk, events : ndarray
        Rows at risk just before each time, and events at it.
    survival : ndarray
        ``S`` just after each time.
    greenwood : ndarray
        Greenwood's sum (the variance of ``log S``) at each time.
    lower, upper : ndarray
        The pointwise interval of ``S`` (``nan`` for the censoring distribution).
    confidence : float
        The interval's level.
    """

    times: np.ndarray
    at_risk: np.ndarray
    events: np.ndarray
    survival: np.ndarray
    greenwood: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float

    def _index(self, t) -> np.ndarray:
        return np.searchsorted(self.times, np.asarray(t, dtype=float), side="right") - 1

    def survival_at(self, t) -> np.ndarray:
        """``S(t)``: right-continuous, 1 before the first time, the last value after it.

        Parameters
        ----------
        t : float or array-like
            Times.

        Returns
        -------
        ndarray
            One value per time.
        """
        k = self._index(t)
        return np.where(k >= 0, self.survival[np.maximum(k, 0)], 1.0)

    def at(self, t: float) -> Estimate:
        """``S(t)`` with its interval.

        Parameters
        ----------
        t : float
            A time.

        Returns
        -------
        Estimate
            ``S(t)``, ``lower``, ``upper`` (``1, 1, 1`` before the first time).
        """
        k = int(self._index(float(t)))
        if k < 0:
            return Estimate(1.0, 1.0, 1.0, method="log-log")
        return Estimate(
            float(self.survival[k]), float(self.lower[k]), float(self.upper[k]), "log-log"
        )

    def risk_at(self, t: float) -> Estimate:
        """The risk of the event by ``t``, ``1 - S(t)``, with its interval.

        Parameters
        ----------
        t : float
            A time (the horizon).

        Returns
        -------
        Estimate
            ``1 - S(t)`` and ``1 - upper``, ``1 - lower``.
        """
        s = self.at(t)
        return Estimate(1.0 - s.estimate, 1.0 - s.upper, 1.0 - s.lower, s.method)


def _counts(time: np.ndarray, event: np.ndarray):
    """Distinct times, rows at risk, events and censored rows at each."""
    times, inverse = np.unique(time, return_inverse=True)
    events = np.bincount(inverse, weights=event, minlength=len(times))
    rows = np.bincount(inverse, minlength=len(times)).astype(float)
    at_risk = np.cumsum(rows[::-1])[::-1]
    return times, at_risk, events, rows - events


def _log_log_interval(survival: np.ndarray, greenwood: np.ndarray, z: float):
    log_s = np.log(np.maximum(survival, _EPS))
    theta = np.zeros_like(survival)
    inside = (survival > _EPS) & (log_s < -_EPS)
    theta[inside] = np.sqrt(greenwood[inside]) / log_s[inside]
    lower = np.exp(np.exp(-z * theta) * log_s)
    upper = np.exp(np.exp(z * theta) * log_s)
    gone = survival <= _EPS
    lower[gone] = upper[gone] = 0.0
    return lower, upper


def _estimate(times, at_risk, d) -> tuple[np.ndarray, np.ndarray]:
    ratio = np.divide(d, at_risk, out=np.zeros(len(times)), where=at_risk > 0)
    survival = np.cumprod(1.0 - ratio)
    room = at_risk * (at_risk - d)
    terms = np.divide(d, room, out=np.zeros(len(times)), where=room > 0)
    return survival, np.cumsum(terms)


def kaplan_meier(time, event=None, confidence: float = 0.95) -> KaplanMeier:
    """The Kaplan-Meier estimate of the survival function, with its interval.

    Parameters
    ----------
    time, event : array-like
        The survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`); rows may all be censored.
    confidence : float
        The interval's level.

    Returns
    -------
    KaplanMeier
        The estimate at every distinct time.
    """
    z = z_value(confidence)
    time, event = check_survival_outcome(time, event, allow_all_censored=True)
    times, at_risk, events, _ = _counts(time, event)
    survival, greenwood = _estimate(times, at_risk, events)
    lower, upper = _log_log_interval(survival, greenwood, z)
    return KaplanMeier(times, at_risk, events, survival, greenwood, lower, upper, confidence)


def censoring_kaplan_meier(time, event=None) -> KaplanMeier:
    """The Kaplan-Meier estimate of the censoring distribution ``G`` (no interval).

    Parameters
    ----------
    time, event : array-like
        The survival outcome of the rows ``G`` is estimated on (usually the training rows).

    Returns
    -------
    KaplanMeier
        ``G`` at every distinct time (``events`` counts the censored rows).
    """
    time, event = check_survival_outcome(time, event, allow_all_censored=True)
    times, at_risk, events, censored = _counts(time, event)
    survival, greenwood = _estimate(times, at_risk - events, censored)
    nan = np.full(len(times), math.nan)
    return KaplanMeier(times, at_risk - events, censored, survival, greenwood, nan, nan, math.nan)
