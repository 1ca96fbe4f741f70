"""``validate(model, X, y)``: a fitted model of any family on other rows.

The family says, through the registry (:class:`~riskexplore.core.registry.ValidationSpec`),
what its card's score is (total points, items checked), its predicted risk and its
log-odds; everything else is computed here the same way for every family.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from riskexplore.core.recalibration import checked_outcome
from riskexplore.core.registry import ModelFamily, ValidationSpec, families, family_of
from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import delong_auc, normal_interval, z_value
from riskexplore.evaluation.survival.result import SurvivalValidation
from riskexplore.evaluation.validation.calibration import (
    calibration_intercept,
    calibration_slope,
    clipped_logit,
    observed_expected,
    reliability,
)
from riskexplore.evaluation.validation.decision_curve import net_benefit
from riskexplore.evaluation.validation.estimate import Estimate
from riskexplore.evaluation.validation.result import Validation
from riskexplore.evaluation.validation.score_table import score_table
from riskexplore.evaluation.validation.time_to_event import (
    binary_outcome_only,
    survival_outcome,
    validate_time_to_event,
)

__all__ = ["fitted_model", "validate"]


def fitted_model(model: Any) -> tuple[Any, ModelFamily, ValidationSpec]:
    """The fitted model of ``model`` (a family's model, or a fitted estimator's
    ``model_``), its family and the family's validation spec.

    Parameters
    ----------
    model : object
        A fitted risk score or checklist, or a fitted scikit-learn estimator of one.

    Returns
    -------
    tuple
        ``(model, family, spec)``.

    Raises
    ------
    InputError
        For an estimator that is not fitted, or anything that is not a model of a family
        with validation.
    """
    if isinstance(model, type):
        raise InputError(f"give a fitted model, not the class {model.__name__}")
    if not any(isinstance(model, f.model_type) for f in families()) and hasattr(model, "fit"):
        if getattr(model, "model_", None) is None:
            raise InputError(f"this {type(model).__name__} is not fitted: call its fit(X, y) first")
        model = model.model_
    try:
        family = family_of(model)
    except InputError:
        raise InputError(
            f"validate needs a fitted model (a risk score or checklist from fit_risk_score "
            f"or fit_checklist), got {type(model).__name__}"
        ) from None
    if family.validation is None:
        raise InputError(f"{family.label} models cannot be validated (their family says how)")
    return model, family, family.validation


def _auc(y: np.ndarray, score: np.ndarray, confidence: float) -> Estimate:
    value, variance = delong_auc(y, score)
    low, high = normal_interval(value, variance, confidence)
    return Estimate(value, low, high, method="DeLong")


def validate(
    model,
    X,
    y=None,
    *,
    time=None,
    event=None,
    horizon=None,
    confidence: float = 0.95,
    **options: Any,
) -> Validation | SurvivalValidation:
    """The figures a journal asks of a model on other patients (external validation).

    Parameters
    ----------
    model : RiskScore, Checklist, SurvivalScore or fitted estimator
        A fitted model of any family (its binarizer reads raw rows).
    X : DataFrame or array
        The rows: a raw table when the model keeps its binarizer, or its features/items.
    y : array-like (n,) or structured array
        Their outcome, 0/1 (1 = the outcome happened); for a survival score, the
        structured array ``[("event", bool), ("time", float)]`` (or give ``time=`` and
        ``event=`` instead).
    time, event : array-like, optional
        A survival score's outcome as two columns.
    horizon : float, optional
        A survival score's horizon (default: the model's first).
    confidence : float
        The level of every interval (default 0.95).
    **options
        For a survival score: ``n_boot``, ``min_group_rows``, ``random_state`` of
        :func:`~riskexplore.evaluation.survival.validation.validate_survival`.

    Returns
    -------
    Validation or SurvivalValidation
        AUC (DeLong), calibration intercept and slope (Wald), O/E, Brier score, the
        calibration plot's table, the score table and the decision curve; for a survival
        score, Harrell's and Uno's C, the time-dependent AUC, calibration at the horizon
        and Kaplan-Meier curves by score group.

    Raises
    ------
    InputError
        For a model that is not fitted, rows it cannot read, an outcome that is not 0/1
        or not one per row (a time to event for a survival score), rows with only one
        outcome, or a level outside (0, 1).

    Examples
    --------
    >>> v = validate(model, X_test, y_test)  # doctest: +SKIP
    >>> v.to_dict()["calibration_slope"]  # doctest: +SKIP
    {'estimate': 0.93, 'lower': 0.71, 'upper': 1.15}
    """
    z_value(confidence)  # checks the level
    model, family, spec = fitted_model(model)
    if family.outcome == "survival":
        outcome = survival_outcome(family.label, y, time, event)
        return validate_time_to_event(
            model, family, spec, X, outcome, horizon, confidence, **options
        )
    binary_outcome_only(family.label, y, time, event)
    if horizon is not None or options:
        raise InputError(f"a {family.label.lower()} takes no horizon or survival options")
    score = np.asarray(spec.card_score(model, X), dtype=float)
    yv = checked_outcome(y, len(score))
    events = int(yv.sum())
    if events == 0 or events == len(yv):
        raise InputError(
            f"validation needs rows with and without the outcome; all {len(yv)} rows have "
            f"outcome {int(events > 0)}"
        )
    risk = spec.risk_of(model, X)
    notes: list[str] = []
    if risk is None:
        notes.append(f"calibration not available: {spec.no_risk}")
        calibration = _no_calibration(yv, score, confidence)
    else:
        risk = np.asarray(risk, dtype=float)
        logit = clipped_logit(risk) if spec.logit_of is None else spec.logit_of(model, X)
        calibration = _calibration(yv, risk, np.asarray(logit, float), score, confidence, notes)
    return Validation(
        kind=family.label.lower(),
        n=len(yv),
        events=events,
        confidence=float(confidence),
        auc=_auc(yv, score, confidence),
        score_table=score_table(yv, score, risk, confidence),
        net_benefit=net_benefit(yv, risk),
        notes=notes,
        score_noun=spec.score_noun,
        **calibration,
    )


def _calibration(y, risk, logit, score, confidence, notes: list[str]) -> dict[str, Any]:
    """The calibration figures of a model with risks (notes for those that do not exist)."""
    out = {
        "calibration_intercept": calibration_intercept(y, logit, confidence),
        "calibration_slope": calibration_slope(y, logit, confidence),
        "observed_expected": observed_expected(y, risk, confidence),
        "brier": Estimate(float(np.mean((risk - y) ** 2))),
        "reliability": reliability(y, risk, score, confidence),
    }
    if not math.isfinite(out["calibration_slope"].estimate):
        why = (
            "every patient has the same predicted risk"
            if np.ptp(logit) == 0
            else "the predicted risks separate the outcomes perfectly"
        )
        notes.append(f"calibration slope not available: {why}")
    if not math.isfinite(out["calibration_intercept"].estimate):
        notes.append("calibration intercept not available: the fit has no finite optimum")
    return out


def _no_calibration(y, score, confidence) -> dict[str, Any]:
    """The calibration figures of a model without risks: all missing."""
    empty = reliability(y, np.zeros(len(y)), score, confidence).iloc[0:0]
    return {
        "calibration_intercept": Estimate(math.nan),
        "calibration_slope": Estimate(math.nan),
        "observed_expected": Estimate(math.nan),
        "brier": Estimate(math.nan),
        "reliability": empty,
    }
