"""Small logistic regressions solved exactly: Newton's method on one or two coefficients.

The validation of a model (its calibration intercept and slope) and the recalibration of a
family's score-to-risk map are logistic regressions of the outcome on the model's logit
with at most two coefficients. The negative log-likelihood is convex and smooth, so
Newton's method with step halving converges in a few steps; the fit reports whether it
did (a perfectly separated outcome has no finite maximum) and the inverse Hessian at the
optimum, the covariance of the Wald intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["LogisticFit", "logistic_fit"]

#: Newton steps before a fit is declared not converged.
MAX_STEPS = 100
#: Converged when the Newton decrement (squared) is below this ...
TOLERANCE = 1e-18
#: ... or when the Newton step is below this, relative to the coefficients (near the
#: optimum the loss changes less than its rounding, so the step is the finer test;
#: convergence is quadratic, so the error is then far smaller still).
STEP_TOLERANCE = 1e-10


@dataclass(frozen=True)
class LogisticFit:
    """The maximum-likelihood coefficients of a logistic regression and their covariance.

    Attributes
    ----------
    coef : ndarray (k,)
        The coefficients, in the order of the design's columns.
    covariance : ndarray (k, k)
        The inverse of the Hessian of the negative log-likelihood at ``coef`` (the Wald
        covariance); ``nan`` where the Hessian is singular.
    converged : bool
        Whether Newton's method reached the optimum (False for a separated outcome,
        whose likelihood has no finite maximum, recognised by every row being fitted to
        within 1e-6 of its outcome, or for a singular design).
    steps : int
        Newton steps taken.
    """

    coef: np.ndarray
    covariance: np.ndarray
    converged: bool
    steps: int

    def standard_errors(self) -> np.ndarray:
        """The square roots of the covariance's diagonal.

        Returns
        -------
        ndarray (k,)
            Standard errors (``nan`` where not defined).
        """
        with np.errstate(invalid="ignore"):
            return np.sqrt(np.diag(self.covariance))


def _loss(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The weighted negative log-likelihood ``sum w (log(1 + e^eta) - y eta)``."""
    return float(np.sum(w * (np.logaddexp(0.0, eta) - y * eta)))


def _expit(eta: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(eta))
    return np.where(eta >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def logistic_fit(design, y, offset=None, weights=None) -> LogisticFit:
    """Maximum-likelihood logistic regression ``logit P(y = 1) = offset + design @ coef``.

    Newton's method from ``coef = 0`` with step halving (each step lowers the
    negative log-likelihood), stopped when the Newton decrement ``g' H^-1 g`` is below
    :data:`TOLERANCE` or the step below :data:`STEP_TOLERANCE` (relative), or after
    :data:`MAX_STEPS` steps.

    Parameters
    ----------
    design : array-like (n, k)
        The columns (include a column of ones for an intercept).
    y : array-like (n,)
        0/1 outcome.
    offset : array-like (n,), optional
        A fixed term of the linear predictor (coefficient 1), e.g. the model's logit for
        the calibration intercept.
    weights : array-like (n,), optional
        Row weights (default 1).

    Returns
    -------
    LogisticFit
        The coefficients, their covariance and whether the fit converged.
    """
    A = np.asarray(design, dtype=float)
    A = A.reshape(-1, 1) if A.ndim == 1 else A
    yv = np.asarray(y, dtype=float).ravel()
    off = np.zeros(len(yv)) if offset is None else np.asarray(offset, dtype=float).ravel()
    w = np.ones(len(yv)) if weights is None else np.asarray(weights, dtype=float).ravel()
    coef = np.zeros(A.shape[1])
    loss = _loss(off, yv, w)
    for step in range(1, MAX_STEPS + 1):
        p = _expit(off + A @ coef)
        gradient = A.T @ (w * (p - yv))
        hessian = (A * (w * p * (1 - p))[:, None]).T @ A
        try:
            direction = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return _result(coef, hessian, False, step)
        decrement = float(gradient @ direction)
        if not math.isfinite(decrement):
            return _result(coef, hessian, False, step)
        small = np.max(np.abs(direction), initial=0.0) < STEP_TOLERANCE * (
            1 + np.max(np.abs(coef), initial=0.0)
        )
        if decrement < TOLERANCE or small:
            # every row fitted to within 1e-6 of its outcome: a separated outcome, whose
            # loss only tends to 0 (its coefficients grow without end)
            separated = len(yv) > 0 and float(np.max(np.abs(yv - p))) < 1e-6
            # the last (tiny) Newton step still squares the error
            return _result(coef - direction, hessian, not separated, step)
        coef, loss = _halving_step(A, yv, off, w, coef, direction, loss)
    return _result(coef, hessian, False, MAX_STEPS)


def _halving_step(A, y, off, w, coef, direction, loss) -> tuple[np.ndarray, float]:
    """The Newton step, halved until the loss does not increase beyond its rounding (at
    most 50 halvings; near the optimum a step changes the loss by less than that)."""
    t = 1.0
    slack = 1e-12 * (1.0 + abs(loss))
    for _ in range(50):
        trial = coef - t * direction
        trial_loss = _loss(off + A @ trial, y, w)
        if trial_loss <= loss + slack:
            return trial, trial_loss
        t /= 2
    return coef, loss


def _result(coef: np.ndarray, hessian: np.ndarray, converged: bool, steps: int) -> LogisticFit:
    try:
        covariance = np.linalg.inv(hessian)
        if not np.all(np.isfinite(covariance)):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        covariance = np.full_like(hessian, math.nan)
        converged = False
    return LogisticFit(coef.copy(), covariance, bool(converged), int(steps))
