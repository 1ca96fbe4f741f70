"""The calibration slope of a survival score: the Cox coefficient of the score on other rows.

On validation rows with scores ``s`` (the model's linear predictor, its total points),
the slope ``b`` maximises the Breslow partial log-likelihood of ``b * s``:

``l(b) = sum_{events i} [b s_i - log sum_{j: t_j >= t_i} exp(b s_j)]``

(tied times: the risk set of an event holds every row with ``t_j >= t_i``, as
scikit-survival's ``CoxPHSurvivalAnalysis(ties="breslow")``). Ideal 1; below 1 the scores
spread the risks too far apart on these rows, above 1 not enough (Van Houwelingen 2000,
*Stat Med* 19:3401). One parameter: Newton's method with step halving, on running sums
in decreasing time shifted by the largest exponent so that nothing overflows. The
interval is Wald's, ``b -+ z / sqrt(I(b))`` with ``I`` the observed information.
"""

from __future__ import annotations

import math

import numpy as np

from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import z_value
from riskexplore.evaluation.validation.estimate import Estimate

__all__ = ["cox_slope"]

#: Newton stops when a step is smaller than this.
STEP_TOL = 1e-10
#: At most this many Newton steps (a slope that keeps growing: the scores separate).
MAX_STEPS = 100


def _log_likelihood(b: float, x, event, first) -> tuple[float, float, float]:
    """``l(b)``, ``l'(b)`` and the information ``-l''(b)``; rows sorted by time ascending,
    ``first`` the position of each row's first tied time."""
    eta = b * x
    shift = eta.max()
    e = np.exp(eta - shift)
    s0 = np.cumsum(e[::-1])[::-1][first][event]  # sums over t_j >= t_i
    s1 = np.cumsum((e * x)[::-1])[::-1][first][event]
    s2 = np.cumsum((e * x * x)[::-1])[::-1][first][event]
    mean = s1 / s0
    value = float(np.sum(eta[event] - shift - np.log(s0)))
    return value, float(np.sum(x[event] - mean)), float(np.sum(s2 / s0 - mean * mean))


def _newton(x, event, first) -> tuple[float, float] | None:
    """The maximiser of ``l`` and the information there; None when there is none."""
    b = 0.0
    value, grad, info = _log_likelihood(b, x, event, first)
    for _ in range(MAX_STEPS):
        if info <= 0:
            return None
        step = grad / info
        while True:  # halve until the likelihood does not fall (it is concave)
            new = _log_likelihood(b + step, x, event, first)
            if new[0] >= value - 1e-12 * abs(value) or abs(step) < STEP_TOL:
                break
            step /= 2
        b += step
        value, grad, info = new
        if abs(step) < STEP_TOL:
            return b, info
    return None


def cox_slope(score, time, event, confidence: float = 0.95) -> Estimate:
    """The Cox coefficient of ``score`` on the rows (Breslow ties), with its Wald interval.

    Parameters
    ----------
    score : array-like
        One score per row (the model's linear predictor: its total points).
    time, event : array-like
        The survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`).
    confidence : float
        The interval's level.

    Returns
    -------
    Estimate
        The slope (ideal 1) and its interval; ``nan`` when every row has the same score
        or the likelihood has no finite maximum (the scores separate the event order).

    Raises
    ------
    InputError
        For a bad outcome, or scores that are not one finite number per row.
    """
    z = z_value(confidence)
    time, event = check_survival_outcome(time, event)
    x = np.asarray(score, dtype=float)
    if x.shape != time.shape or not np.isfinite(x).all():
        raise InputError(f"scores must be {len(time)} finite numbers, one per row")
    if np.ptp(x) == 0:
        return Estimate(math.nan, method="Wald")
    order = np.argsort(time, kind="stable")
    t = time[order]
    first = np.searchsorted(t, t, side="left")
    fit = _newton(x[order] - x.mean(), event[order], first)  # centred: same slope, no overflow
    if fit is None or not math.isfinite(fit[0]):
        return Estimate(math.nan, method="Wald")
    b, info = fit
    half = z / math.sqrt(info)
    return Estimate(b, b - half, b + half, method="Wald")
