"""Calibration on other rows: calibration-in-the-large, the calibration slope, O/E and the
calibration plot's table.

With ``logit`` the model's log-odds of each row and ``y`` the outcome (Steyerberg,
*Clinical Prediction Models*, 2nd ed., ch. 15; Van Calster et al. 2016, *J Clin Epidemiol*
74:167):

* **calibration intercept** (calibration-in-the-large): ``a`` of
  ``logit P(y = 1) = a + logit`` (the logit as offset); ideal 0, negative when the model
  predicts too high risks;
* **calibration slope**: ``b`` of ``logit P(y = 1) = a + b logit``; ideal 1, below 1 when
  the predicted risks are too extreme;
* **O/E**: observed events over the sum of the predicted risks; ideal 1.

Both logistic fits are exact (Newton's method, :mod:`riskexplore.core.logistic_fit`) with
Wald intervals ``coef -+ z se``; O/E has the interval ``exp(log(O/E) -+ z / sqrt(O))``
(the events taken as Poisson). A figure that does not exist on the rows (a separated
outcome, every row with the same risk) is ``nan`` and :func:`calibration_notes` says why.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from riskexplore.core.logistic_fit import logistic_fit
from riskexplore.evaluation.intervals import z_value
from riskexplore.evaluation.metrics import reliability_table
from riskexplore.evaluation.validation.estimate import Estimate

__all__ = [
    "RELIABILITY_COLUMNS",
    "calibration_intercept",
    "calibration_slope",
    "clipped_logit",
    "observed_expected",
    "reliability",
]

#: Risks are clipped to ``[RISK_CLIP, 1 - RISK_CLIP]`` before taking their logit.
RISK_CLIP = 1e-12
#: The columns of :func:`reliability`.
RELIABILITY_COLUMNS = ("score", "n", "predicted", "observed", "lower", "upper")


def clipped_logit(risk) -> np.ndarray:
    """``log(p / (1 - p))`` of the risks clipped to ``[1e-12, 1 - 1e-12]``.

    Parameters
    ----------
    risk : array-like (n,)
        Predicted risks.

    Returns
    -------
    ndarray (n,)
        Their log-odds (finite).
    """
    p = np.clip(np.asarray(risk, dtype=float), RISK_CLIP, 1 - RISK_CLIP)
    return np.log(p) - np.log1p(-p)


def _wald(coef: float, se: float, confidence: float) -> Estimate:
    if not (math.isfinite(coef) and math.isfinite(se)):
        return Estimate(math.nan)
    z = z_value(confidence)
    return Estimate(coef, coef - z * se, coef + z * se)


def calibration_intercept(y, logit, confidence: float = 0.95) -> Estimate:
    """Calibration-in-the-large: the intercept of a logistic regression of the outcome
    with the model's logit as offset, with its Wald interval.

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    logit : array-like (n,)
        The model's log-odds of each row.
    confidence : float
        The interval's level.

    Returns
    -------
    Estimate
        The intercept (ideal 0); ``nan`` when the fit has no finite optimum.
    """
    yv = np.asarray(y, dtype=float)
    fit = logistic_fit(np.ones((len(yv), 1)), yv, offset=logit)
    if not fit.converged:
        return Estimate(math.nan)
    return _wald(float(fit.coef[0]), float(fit.standard_errors()[0]), confidence)


def calibration_slope(y, logit, confidence: float = 0.95) -> Estimate:
    """The calibration slope: the coefficient of the model's logit in a logistic regression
    of the outcome on it (with an intercept), with its Wald interval.

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    logit : array-like (n,)
        The model's log-odds of each row.
    confidence : float
        The interval's level.

    Returns
    -------
    Estimate
        The slope (ideal 1); ``nan`` when every row has the same logit or the outcome is
        separated by it.
    """
    yv = np.asarray(y, dtype=float)
    lv = np.asarray(logit, dtype=float)
    if len(lv) == 0 or np.ptp(lv) == 0:
        return Estimate(math.nan)
    fit = logistic_fit(np.column_stack([np.ones(len(yv)), lv]), yv)
    if not fit.converged:
        return Estimate(math.nan)
    return _wald(float(fit.coef[1]), float(fit.standard_errors()[1]), confidence)


def observed_expected(y, risk, confidence: float = 0.95) -> Estimate:
    """O/E: observed events over expected events (the sum of the predicted risks), with
    the interval ``exp(log(O/E) -+ z / sqrt(O))``.

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    risk : array-like (n,)
        Predicted risks.
    confidence : float
        The interval's level.

    Returns
    -------
    Estimate
        O/E (ideal 1); ``nan`` when no risk is expected; without events the estimate is
        0 and there is no interval.
    """
    observed = float(np.sum(y))
    expected = float(np.sum(risk))
    if expected <= 0:
        return Estimate(math.nan)
    ratio = observed / expected
    if observed == 0:
        return Estimate(ratio)
    half = z_value(confidence) / math.sqrt(observed)
    return Estimate(ratio, ratio * math.exp(-half), ratio * math.exp(half))


def reliability(y, risk, score, confidence: float = 0.95) -> pd.DataFrame:
    """The calibration plot as a table: one row per card score (per count of a checklist).

    The rows of :func:`~riskexplore.evaluation.metrics.reliability_table` grouped by the
    card's score, with its exact (Clopper--Pearson) intervals of the observed rate; above
    30 distinct scores they are 10 equal-frequency bins (``score`` is then the bin's mean
    score).

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    risk : array-like (n,)
        Predicted risks.
    score : array-like (n,)
        The card's score of each row.
    confidence : float
        The intervals' level.

    Returns
    -------
    DataFrame
        Columns ``score``, ``n``, ``predicted`` (mean predicted risk), ``observed``
        (outcome rate), ``lower``, ``upper``.
    """
    table = reliability_table(y, risk, scores=score, confidence=confidence)
    out = table.rename(
        columns={
            "count": "n",
            "predicted_risk": "predicted",
            "observed_risk": "observed",
            "ci_low": "lower",
            "ci_high": "upper",
        }
    )[list(RELIABILITY_COLUMNS)]
    out.attrs.update(table.attrs)
    return out
