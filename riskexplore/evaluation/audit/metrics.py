"""The metrics of one group of rows: a model's predictions, counted and given intervals.

:func:`model_predictions` asks a fitted model (a risk score, a checklist, or a
scikit-learn style estimator of either) once for everything the audit needs: the 0/1
predictions, the scores that rank the rows (a risk score's log-odds, a checklist's count
of checked items), and the predicted risks (risk models only). :func:`group_metrics`
computes, for any subset of the rows:

* ``n``, ``n_pos``, ``n_neg``, ``tp``, ``fp``, ``fn`` -- counts;
* ``prevalence`` = ``observed_risk`` -- the fraction of positives, with Wilson intervals;
* ``auc`` -- with a DeLong interval (or a bootstrap one, ``n_boot > 0``);
* ``cal`` -- CAL (Ustun & Rudin 2019, Section 2) within the group (risk models);
* ``predicted_risk`` -- the mean predicted risk (risk models);
* ``fnr``, ``fpr``, ``ppv`` -- rates of the 0/1 predictions with Wilson intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.registry import family_of
from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import (
    bootstrap_aucs,
    delong_auc,
    normal_interval,
    percentile_interval,
    wilson_interval,
)
from riskexplore.evaluation.metrics import (
    calibration_error,
    model_scores,
    predicted_risk,
    predicts_risk,
)

__all__ = ["RATES", "Predictions", "group_metrics", "model_predictions"]

#: The rates with Wilson intervals: ``name -> (numerator, denominator)`` counts.
RATES = {
    "prevalence": ("n_pos", "n"),
    "observed_risk": ("n_pos", "n"),
    "fnr": ("fn", "n_pos"),
    "fpr": ("fp", "n_neg"),
    "ppv": ("tp", "n_pred_pos"),
}


@dataclass(frozen=True)
class Predictions:
    """What a model says about every row.

    Attributes
    ----------
    y : ndarray of int
        The 0/1 outcome.
    pred : ndarray of int
        The model's 0/1 predictions.
    scores : ndarray of float
        Scores that rank the rows (larger: more likely positive).
    risk : ndarray of float or None
        Predicted risks (None for a classifier without risks, e.g. a checklist).
    kind : str
        The model's family (``"risk_score"``, ``"checklist"``, ...) or ``"model"`` for a
        model of no registered family (for the plain-words sentences).
    """

    y: np.ndarray
    pred: np.ndarray
    scores: np.ndarray
    risk: np.ndarray | None
    kind: str


def _model_kind(model) -> str:
    """The family's name of a model (or of an estimator's fitted model), else ``"model"``."""
    try:
        return family_of(getattr(model, "model_", model)).name
    except InputError:
        return "model"


def _model_view(model, X: pd.DataFrame) -> pd.DataFrame:
    """``X`` restricted to an estimator's training columns (group columns may be extra)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return X
    missing = [str(c) for c in names if c not in X.columns]
    if missing:
        raise InputError(f"X lacks the model's feature column(s): {', '.join(missing)}")
    return X[list(names)]


def _zero_one(model, pred) -> np.ndarray:
    pred = np.asarray(pred).ravel()
    classes = getattr(model, "classes_", None)
    if classes is not None and len(classes) == 2:
        return (pred == classes[1]).astype(np.int64)
    return (pred.astype(float) > 0.5).astype(np.int64)


def model_predictions(model, X: pd.DataFrame, y: np.ndarray) -> Predictions:
    """Predictions, scores and risks of a fitted model on ``X``.

    Parameters
    ----------
    model : object
        A fitted model: :class:`~riskexplore.risk_score.model.RiskScore`,
        :class:`~riskexplore.checklist.model.Checklist`, their estimators, or any model
        with ``predict`` and ``decision_function`` or ``predict_proba``.
    X : DataFrame
        The data (columns other than the model's are ignored).
    y : ndarray of int
        The 0/1 outcome.

    Returns
    -------
    Predictions
        The model's view of the rows.

    Raises
    ------
    InputError
        If the model cannot predict, or gives the wrong number of predictions.
    """
    if not hasattr(model, "predict"):
        raise InputError(f"{type(model).__name__} is not a fitted model (it has no predict)")
    Xm = _model_view(model, X)
    risk = predicted_risk(model, Xm) if predicts_risk(model) else None
    scores = model_scores(model, Xm, risk)
    pred = _zero_one(model, model.predict(Xm))
    if scores is None:
        scores = pred.astype(float)
    for what, values in (("predictions", pred), ("scores", scores), ("risks", risk)):
        if values is not None and len(values) != len(y):
            raise InputError(f"the model gave {len(values)} {what} for {len(y)} rows")
    return Predictions(y, pred, np.asarray(scores, dtype=float), risk, _model_kind(model))


def _counts(y: np.ndarray, pred: np.ndarray) -> dict[str, int]:
    pos, predicted = y == 1, pred == 1
    return {
        "n": int(len(y)),
        "n_pos": int(pos.sum()),
        "n_neg": int((~pos).sum()),
        "n_pred_pos": int(predicted.sum()),
        "tp": int((pos & predicted).sum()),
        "fp": int((~pos & predicted).sum()),
        "fn": int((pos & ~predicted).sum()),
    }


def _rates(counts: dict[str, int], confidence: float) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, (num, den) in RATES.items():
        k, n = counts[num], counts[den]
        out[name] = k / n if n else math.nan
        out[f"{name}_low"], out[f"{name}_high"] = wilson_interval(k, n, confidence)
    return out


def _auc(
    y: np.ndarray, s: np.ndarray, confidence: float, n_boot: int, rng: np.random.Generator
) -> dict[str, Any]:
    value, variance = delong_auc(y, s)
    out: dict[str, Any] = {"auc": value, "auc_var": variance}
    if n_boot > 0:
        samples = bootstrap_aucs(y, s, n_boot, rng)
        out["auc_samples"] = samples
        out["auc_low"], out["auc_high"] = percentile_interval(samples, confidence)
    else:
        out["auc_low"], out["auc_high"] = normal_interval(value, variance, confidence)
    return out


def group_metrics(
    p: Predictions,
    mask: np.ndarray,
    *,
    confidence: float = 0.95,
    n_boot: int = 0,
    rng: np.random.Generator | None = None,
) -> dict[str, Any]:
    """Counts, rates, AUC and calibration of the rows in ``mask``.

    Parameters
    ----------
    p : Predictions
        The model's predictions on every row.
    mask : ndarray of bool
        The group's rows.
    confidence : float
        The level of the intervals.
    n_boot : int
        Bootstrap resamples for the AUC's interval; 0 uses DeLong's variance.
    rng : numpy Generator, optional
        The random numbers of the bootstrap.

    Returns
    -------
    dict
        Counts, ``prevalence``, ``observed_risk``, ``fnr``, ``fpr``, ``ppv`` (each with
        ``_low``, ``_high``), ``auc`` (with ``auc_low``, ``auc_high``, ``auc_var``, and
        ``auc_samples`` when bootstrapped), ``cal`` and ``predicted_risk`` (``nan``
        without risks). Undefined values are ``nan``.
    """
    y, pred, s = p.y[mask], p.pred[mask], p.scores[mask]
    counts = _counts(y, pred)
    out: dict[str, Any] = {**counts, **_rates(counts, confidence)}
    rng = rng if rng is not None else np.random.default_rng(0)
    out.update(_auc(y, s, confidence, n_boot, rng))
    if p.risk is not None and len(y):
        risk = p.risk[mask]
        out["cal"] = calibration_error(y, risk, s)
        out["predicted_risk"] = float(risk.mean())
    else:
        out["cal"] = out["predicted_risk"] = math.nan
    return out
