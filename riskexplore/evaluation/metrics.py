"""Performance metrics of risk scores and checklists (Ustun & Rudin 2019, Section 5.1).

Everything here is a pure function of arrays (or of a fitted model and data):

* :func:`calibration_error` -- CAL, the expected calibration error over the
  reliability diagram, exactly as defined in Ustun & Rudin [1]_ (Section 2, and
  "Performance Evaluation" in Section 5.1);
* :func:`reliability_table` -- the reliability diagram as a table, with exact
  (Clopper--Pearson) confidence intervals on the observed risk;
* :func:`auc` and :func:`auc_strict` -- rank accuracy;
* :func:`logistic_loss` and :func:`brier_score`;
* :func:`classification_rates` -- error, FNR and FPR of 0/1 predictions, per
  (intersectional) group, with the worst pairwise gaps;
* :func:`risk_score_metrics` and :func:`model_metrics` -- all of the above for a model.

Outcomes may be coded ``{0, 1}``, ``{-1, +1}``, booleans, or any two values (the larger
one is the positive class).

Why model selection uses AUC and never CAL
-------------------------------------------
A *trivial* model that gives every example the same score predicts the base rate for
everyone. Its reliability diagram has a single point, at (base rate, observed rate), so
its CAL is tiny on imbalanced data, while its AUC is exactly 0.5. Choosing free
parameters by CAL can therefore select a useless model ("On the Caveats of CAL" in
[1]_, Section 5.2); :mod:`riskexplore.evaluation.cv` selects by mean test AUC (or loss).

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import beta

from riskexplore.core.rates import error_rates, group_labels, group_rates, worst_gap
from riskexplore.core.registry import families
from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.concordance import harrell_c

__all__ = [
    "MAX_DISTINCT_SCORES",
    "N_BINS",
    "as_binary_outcome",
    "auc",
    "auc_strict",
    "brier_score",
    "calibration_error",
    "calibration_groups",
    "classification_rates",
    "group_labels",
    "logistic_loss",
    "model_metrics",
    "model_scores",
    "predicted_risk",
    "predicts_risk",
    "reliability_table",
    "roc_curve",
    "risk_score_metrics",
    "summarize",
]

#: Above this many distinct scores, examples are grouped into :data:`N_BINS` bins.
MAX_DISTINCT_SCORES = 30
#: Number of bins used when a model has more than :data:`MAX_DISTINCT_SCORES` scores.
N_BINS = 10

_EPS = 1e-15


# --- inputs ----------------------------------------------------------------------------
def as_binary_outcome(y) -> np.ndarray:
    """``y`` as a 0/1 integer array (1 = positive class).

    Accepts ``{0, 1}``, ``{-1, +1}``, booleans or any two sortable values, in which case
    the larger value is the positive class. A single value is read as ``{0, 1}`` or
    ``{-1, +1}`` coding (so ``[1, 1, 1]`` is all positive and ``[-1, -1]`` all
    negative).

    Parameters
    ----------
    y : array-like of shape (n,)
        A binary outcome with any two values (the larger, or True, is positive).

    Returns
    -------
    ndarray of int
        0/1 values.

    Raises
    ------
    InputError
        For more than two values or missing values.
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        arr = arr.ravel()
    if arr.dtype == bool:
        return arr.astype(np.int64)
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    try:
        values = np.unique(arr)
    except TypeError as exc:
        raise InputError("the outcome must hold two comparable values") from exc
    if len(values) > 2:
        raise InputError(f"the outcome must be binary, got {len(values)} distinct values")
    if pd.isna(values).any():
        raise InputError("the outcome has missing values")
    numeric = np.issubdtype(values.dtype, np.number)
    if numeric and set(values.tolist()) <= {0, 1}:
        return (arr == 1).astype(np.int64)
    if numeric and set(values.tolist()) <= {-1, 1}:
        return (arr == 1).astype(np.int64)
    if len(values) == 1:
        raise InputError(f"cannot tell whether the single outcome value {values[0]!r} is positive")
    return (arr == values[1]).astype(np.int64)


def _risk(risk, n: int, what: str = "risk") -> np.ndarray:
    p = np.asarray(risk, dtype=float).ravel()
    if len(p) != n:
        raise InputError(f"{what} has {len(p)} entries for {n} outcomes")
    if not np.all(np.isfinite(p)):
        raise InputError(f"{what} has missing or infinite values")
    if what == "risk" and (p.min(initial=0.0) < 0 or p.max(initial=0.0) > 1):
        raise InputError("predicted risks must lie in [0, 1]")
    return p


# --- calibration -----------------------------------------------------------------------
def calibration_groups(risk, scores=None) -> tuple[np.ndarray, bool]:
    """The reliability-diagram group of each example, and whether scores were binned.

    Examples are grouped by their distinct score (``scores`` when given, e.g. the integer
    scores of :meth:`RiskScore.decision_function`; otherwise the distinct predicted
    risks). With more than :data:`MAX_DISTINCT_SCORES` (30) distinct scores they are
    grouped into :data:`N_BINS` (10) **equal-frequency bins of the score**, as for the
    paper's reliability diagrams (and the equal-frequency bins of Naeini et al.'s
    expected calibration error): an example whose score has ``k`` examples strictly
    below it goes to bin ``floor(10 k / n)``. Examples with equal scores always share a
    bin, so a bin may hold more than ``n / 10`` examples and fewer than 10 bins may be
    non-empty.

    Returns
    -------
    group : int array (n,)
        Group index, increasing with the score (0, 1, ... with no gaps).
    binned : bool
        True when the scores were grouped into bins.

    Parameters
    ----------
    risk : array-like of shape (n,)
        Predicted risks.
    scores : array-like of shape (n,), optional
        Scores that order the examples like the risks.
    """
    key = np.asarray(risk if scores is None else scores, dtype=float).ravel()
    if len(key) and not np.all(np.isfinite(key)):
        raise InputError("scores have missing or infinite values")
    distinct, inverse = np.unique(key, return_inverse=True)
    if len(distinct) <= MAX_DISTINCT_SCORES:
        return inverse.astype(np.int64), False
    counts = np.bincount(inverse, minlength=len(distinct))
    below = np.concatenate([[0], np.cumsum(counts)[:-1]])  # examples strictly below
    bin_of_distinct = np.minimum(N_BINS - 1, (N_BINS * below) // len(key))
    _, relabel = np.unique(bin_of_distinct, return_inverse=True)
    return relabel[inverse].astype(np.int64), True


def calibration_error(y, risk, scores=None) -> float:
    """CAL: the expected calibration error over the reliability diagram.

    ``CAL = (1/n) sum_s sum_{i: s_i = s} |p_i - pbar_s|`` where ``p_i`` is the predicted
    risk of example ``i`` and ``pbar_s`` the observed risk (fraction of positives) among
    the examples with score ``s``. Scores are the distinct values of ``scores`` when
    given, else of ``risk``; above 30 distinct scores, examples are grouped into 10
    equal-frequency bins of the score (see :func:`calibration_groups`), and ``pbar`` is
    the observed risk of the bin.

    Parameters
    ----------
    y : array-like (n,)
        Binary outcome.
    risk : array-like (n,)
        Predicted risk ``p_i`` in [0, 1].
    scores : array-like (n,), optional
        The score of each example (defines the groups). Use the model's scores when
        different scores may share a predicted risk (or vice versa).

    Returns
    -------
    float
        CAL in [0, 1]; ``nan`` when there are no examples.

    Notes
    -----
    A model assigning one score to everyone has CAL ``|p - base rate|``, often tiny on
    imbalanced data although the model is useless (its AUC is 0.5). Never choose models
    by CAL alone.
    """
    yb = as_binary_outcome(y)
    p = _risk(risk, len(yb))
    if scores is not None:
        _risk(scores, len(yb), "scores")
    if len(yb) == 0:
        return math.nan
    group, _ = calibration_groups(p, scores)
    counts = np.bincount(group)
    observed = np.bincount(group, weights=yb) / counts
    return float(np.abs(p - observed[group]).sum() / len(yb))


def reliability_table(y, risk, scores=None, confidence: float = 0.95) -> pd.DataFrame:
    """The reliability diagram as a table: one row per distinct score (or bin).

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcome.
    risk : array-like of shape (n,)
        Predicted risks.
    scores : array-like of shape (n,), optional
        Scores that group the examples (see :func:`calibration_groups`).
    confidence : float
        Level of the exact intervals.

    Returns
    -------
    DataFrame
        One row per group, with columns

        * ``score``: the score of the group (for bins: the mean score of its examples);
        * ``score_min``, ``score_max``: range of scores in the group (equal unless
          binned);
        * ``predicted_risk``: mean predicted risk of the group's examples;
        * ``observed_risk``: fraction of positives ``pbar_s``;
        * ``count``, ``positives``: examples and positive examples in the group;
        * ``ci_low``, ``ci_high``: exact **Clopper--Pearson** interval for the observed
          risk at level ``confidence`` (from ``scipy.stats.beta`` quantiles;
          conservative, and valid for the small groups that sparse risk scores produce);
        * ``abs_error``: ``mean |p_i - pbar_s|`` over the group; ``CAL`` is the
          count-weighted mean of this column.

        ``table.attrs["binned"]`` is True when the scores were grouped into 10 bins.
    """
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence}")
    yb = as_binary_outcome(y)
    p = _risk(risk, len(yb))
    key = p if scores is None else _risk(scores, len(yb), "scores")
    group, binned = calibration_groups(p, scores)
    k = int(group.max()) + 1 if len(group) else 0
    counts = np.bincount(group, minlength=k).astype(float)
    positives = np.bincount(group, weights=yb, minlength=k)
    observed = positives / np.maximum(counts, 1)
    alpha = 1 - confidence
    with np.errstate(invalid="ignore"):
        low = np.where(positives > 0, beta.ppf(alpha / 2, positives, counts - positives + 1), 0.0)
        high = np.where(
            positives < counts, beta.ppf(1 - alpha / 2, positives + 1, counts - positives), 1.0
        )
    dev = np.abs(p - observed[group]) if len(group) else np.zeros(0)
    frame = pd.DataFrame(
        {
            "score": np.bincount(group, weights=key, minlength=k) / np.maximum(counts, 1),
            "score_min": [key[group == g].min() for g in range(k)],
            "score_max": [key[group == g].max() for g in range(k)],
            "predicted_risk": np.bincount(group, weights=p, minlength=k) / np.maximum(counts, 1),
            "observed_risk": observed,
            "count": counts.astype(np.int64),
            "positives": positives.astype(np.int64),
            "ci_low": low,
            "ci_high": high,
            "abs_error": np.bincount(group, weights=dev, minlength=k) / np.maximum(counts, 1),
        }
    )
    frame.attrs["binned"] = bool(binned)
    frame.attrs["confidence"] = float(confidence)
    return frame


# --- rank accuracy and losses ----------------------------------------------------------
def auc(y, scores) -> float:
    """Area under the ROC curve, equal to ``sklearn.metrics.roc_auc_score(y, scores)``.

    Ties between a positive and a negative example count ``1/2`` (sklearn's
    convention), so a constant score has AUC exactly 0.5. The formula of Ustun & Rudin
    [1]_ (Section 2) counts ties as 0; see :func:`auc_strict`. Computed as the
    Mann--Whitney statistic with mid-ranks (the same number as sklearn, without its
    per-call validation overhead).
    Returns ``nan`` when only one class is present.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcome.
    scores : array-like of shape (n,)
        Scores; larger means more likely positive.

    Returns
    -------
    float
        The AUC.

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019.
    """
    yb = as_binary_outcome(y)
    s = _risk(scores, len(yb), "scores")
    n_pos = int(yb.sum())
    n_neg = len(yb) - n_pos
    if n_pos == 0 or n_neg == 0:
        return math.nan
    ranks = _midranks(s)
    return float((ranks[yb == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def roc_curve(y, scores) -> tuple[np.ndarray, np.ndarray]:
    """False and true positive rates at every distinct threshold (from (0, 0) to (1, 1)).

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcome.
    scores : array-like of shape (n,)
        Scores; larger means more likely positive.

    Returns
    -------
    tuple of ndarray
        ``(fpr, tpr)``, one point per distinct score (ties form one step).
    """
    yb = as_binary_outcome(y)
    s = np.asarray(scores, dtype=float).ravel()
    n_pos, n_neg = int(yb.sum()), int(len(yb) - yb.sum())
    if n_pos == 0 or n_neg == 0:
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    order = np.argsort(-s, kind="mergesort")
    s, yb = s[order], yb[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1]  # end of each tie group
    tp = np.cumsum(yb)[last]
    fp = (last + 1) - tp
    return np.r_[0.0, fp / n_neg], np.r_[0.0, tp / n_pos]


def _midranks(s: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``s``, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)  # rank of the last member of each tie group
    return (upper - (counts - 1) / 2.0)[inverse]


def auc_strict(y, scores) -> float:
    """The AUC of Ustun & Rudin (2019), ties counting 0 (strict: a constant score has AUC 0).

    The rank accuracy of Ustun & Rudin [1]_ (Section 2, and Section 5.1)::

        AUC = (1 / n+ n-) sum_{i: y_i=+1} sum_{k: y_k=-1} 1[s_i > s_k]

    ``nan`` with one class only.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcome.
    scores : array-like of shape (n,)
        Scores.

    Returns
    -------
    float
        The AUC with ties counted as 0 (``nan`` with one class).

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019.
    """
    yb = as_binary_outcome(y)
    s = _risk(scores, len(yb), "scores")
    pos, neg = s[yb == 1], np.sort(s[yb == 0])
    if len(pos) == 0 or len(neg) == 0:
        return math.nan
    below = np.searchsorted(neg, pos, side="left")  # negatives with s_k < s_i
    return float(below.sum() / (len(pos) * len(neg)))


def logistic_loss(y, risk=None, *, scores=None) -> float:
    """Normalised logistic loss ``(1/n) sum_i log(1 + exp(-y_i s_i))`` (``y_i = +-1``).

    Give the scores ``s_i`` (exact, numerically stable) or the predicted risks
    ``p_i = 1 / (1 + exp(-s_i))`` (then the loss is ``-(1/n) sum log p_i`` over positives
    and ``log(1 - p_i)`` over negatives, with ``p`` clipped to ``[1e-15, 1 - 1e-15]``).

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcome.
    risk : array-like of shape (n,), optional
        Predicted risks (used when ``scores`` is not given).
    scores : array-like of shape (n,), optional
        Log-odds ``s_i``.

    Returns
    -------
    float
        The loss.
    """
    yb = as_binary_outcome(y)
    if (risk is None) == (scores is None):
        raise InputError("give exactly one of risk and scores")
    if len(yb) == 0:
        return math.nan
    if scores is not None:
        s = _risk(scores, len(yb), "scores")
        margin = np.where(yb == 1, s, -s)
        return float(np.logaddexp(0.0, -margin).mean())
    p = np.clip(_risk(risk, len(yb)), _EPS, 1 - _EPS)
    return float(-np.where(yb == 1, np.log(p), np.log1p(-p)).mean())


def brier_score(y, risk) -> float:
    """Mean squared difference between predicted risk and outcome, ``(1/n) sum (p_i - y_i)^2``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcome.
    risk : array-like of shape (n,)
        Predicted risks.

    Returns
    -------
    float
        The score (``nan`` without rows).
    """
    yb = as_binary_outcome(y)
    p = _risk(risk, len(yb))
    return float(np.mean((p - yb) ** 2)) if len(yb) else math.nan


# --- classifiers -----------------------------------------------------------------------
def classification_rates(y, y_pred, groups=None, min_group_size: int = 1) -> dict[str, Any]:
    """Error, false negative rate and false positive rate of 0/1 predictions.

    Parameters
    ----------
    y, y_pred : array-like (n,)
        Binary outcome and predictions (same coding rules as the outcome).
    groups : array-like (n,) or DataFrame, optional
        Group of each example. A DataFrame's columns are crossed into intersectional
        groups (``"sex=F & race=B"``).
    min_group_size : int
        Groups with fewer examples are reported but left out of the worst rates and gaps.

    Returns
    -------
    dict
        ``n, n_pos, n_neg, fn, fp, error, fnr, fpr`` (rates with an empty denominator are
        ``nan``) and, with groups: ``groups`` (DataFrame indexed by group with the same
        columns), ``worst_group_fnr``, ``worst_group_fpr``, ``max_fnr_gap``,
        ``max_fpr_gap`` (the largest difference between any two groups, i.e. max - min
        over groups whose rate is defined) and ``max_fnr_gap_groups`` /
        ``max_fpr_gap_groups`` (the pair ``(worse, better)`` attaining it).
    """
    yb = as_binary_outcome(y)
    pred = as_binary_outcome(y_pred)
    if len(pred) != len(yb):
        raise InputError(f"y_pred has {len(pred)} entries for {len(yb)} outcomes")
    out: dict[str, Any] = _without_errors(error_rates(yb, pred))
    if groups is None:
        return out
    per_group = {g: _without_errors(r) for g, r in group_rates(yb, pred, groups).items()}
    table = pd.DataFrame(list(per_group.values()), index=list(per_group))
    table.index.name = "group"
    out["groups"] = table
    eligible = {g: r for g, r in per_group.items() if r["n"] >= int(min_group_size)}
    for key in ("fnr", "fpr"):
        worst, gap, pair = worst_gap(eligible, key)
        out[f"worst_group_{key}"] = worst
        out[f"max_{key}_gap"] = gap
        out[f"max_{key}_gap_groups"] = pair
    return out


def _without_errors(rates: dict[str, Any]) -> dict[str, Any]:
    """The columns of :func:`classification_rates` (the count of mistakes is ``fn + fp``)."""
    keys = ("n", "n_pos", "n_neg", "fn", "fp", "error", "fnr", "fpr")
    return {k: rates[k] for k in keys}


# --- models ----------------------------------------------------------------------------
def _certificate_fields(model) -> dict[str, Any]:
    cert = getattr(model, "certificate", None)
    if cert is None:
        return {"status": None, "gap": math.nan, "lower_bound": math.nan, "upper_bound": math.nan}
    return {
        "status": cert.status,
        "gap": float(cert.gap),
        "lower_bound": float(cert.lower_bound),
        "upper_bound": float(cert.upper_bound),
    }


def _model_size(model) -> float:
    size = getattr(model, "size", None)
    if size is None:
        return math.nan
    return float(size() if callable(size) else size)


def predicts_risk(model) -> bool:
    """Whether a model predicts a risk (``predict_risk`` or ``predict_proba``); otherwise
    it only classifies (a checklist's 0/1 ``predict``).

    Parameters
    ----------
    model : object
        A fitted model.

    Returns
    -------
    bool
        True for risk models.
    """
    return hasattr(model, "predict_risk") or hasattr(model, "predict_proba")


def predicted_risk(model, X) -> np.ndarray | None:
    """``model.predict_risk(X)``, or the positive column of ``predict_proba``; else None.

    Parameters
    ----------
    model : object
        A fitted model.
    X : DataFrame or array
        Features.

    Returns
    -------
    ndarray or None
        The risks.
    """
    if hasattr(model, "predict_risk"):
        return np.asarray(model.predict_risk(X), dtype=float).ravel()
    if hasattr(model, "predict_proba"):
        proba = np.asarray(model.predict_proba(X), dtype=float)
        return proba[:, -1] if proba.ndim == 2 else proba.ravel()
    return None


def model_scores(model, X, risk: np.ndarray | None = None) -> np.ndarray | None:
    """``model.decision_function(X)`` if available, else the predicted risk.

    Parameters
    ----------
    model : object
        A fitted model.
    X : DataFrame or array
        Features.
    risk : ndarray, optional
        The model's risks, when already computed.

    Returns
    -------
    ndarray or None
        The scores.
    """
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=float).ravel()
    return risk


def risk_score_metrics(model, X, y) -> dict[str, Any]:
    """CAL, AUC, loss, Brier score, size and certificate of a risk model on ``(X, y)``.

    Works for a :class:`~riskexplore.risk_score.model.RiskScore` or any model with
    ``predict_risk`` (or ``predict_proba``). CAL groups examples by the model's scores
    (``decision_function``) when available, else by predicted risk. The loss uses the
    scores when the model has both (``decision_function`` is then the logit).

    Returns a dict with ``n, cal, auc, loss, brier, size, status, gap, lower_bound,
    upper_bound, objective``.

    Parameters
    ----------
    model : object
        A fitted risk model.
    X, y
        Data.
    """
    yb = as_binary_outcome(y)
    risk = predicted_risk(model, X)
    if risk is None:
        raise InputError(f"{type(model).__name__} has neither predict_risk nor predict_proba")
    if len(risk) != len(yb):
        raise InputError(f"X has {len(risk)} rows but y has {len(yb)}")
    scores = model_scores(model, X, risk)
    logits = hasattr(model, "predict_risk") and hasattr(model, "decision_function")
    out: dict[str, Any] = {
        "n": len(yb),
        "cal": calibration_error(yb, risk, scores),
        "auc": auc(yb, scores),
        "loss": logistic_loss(yb, scores=scores) if logits else logistic_loss(yb, risk),
        "brier": brier_score(yb, risk),
        "size": _model_size(model),
    }
    out.update(_certificate_fields(model))
    objective = getattr(model, "objective", None)
    out["objective"] = float(objective) if isinstance(objective, (int, float)) else math.nan
    return out


def model_metrics(model, X, y, groups=None) -> dict[str, Any]:
    """Metrics of any fitted model: risk metrics for risk models, rates for classifiers.

    Risk models (``predict_risk`` or ``predict_proba``) get :func:`risk_score_metrics`
    plus the rates of ``predict`` (when available). Classifiers such as
    :class:`~riskexplore.checklist.model.Checklist` (``predict`` only) get
    :func:`classification_rates` (per group when ``groups`` is given), their size and
    certificate, and AUC of ``decision_function`` when they have one (for a checklist,
    the number of items checked). Nested per-group tables are left out; use
    :func:`classification_rates` for them.

    Parameters
    ----------
    model : object
        A fitted model.
    X, y
        Data.
    groups : array-like or DataFrame, optional
        Groups of the rows (worst rates and gaps).

    Returns
    -------
    dict
        The metrics.
    """
    if outcome_of(model) == "survival":
        return survival_model_metrics(model, X, y)
    yb = as_binary_outcome(y)
    if predicts_risk(model):
        out = risk_score_metrics(model, X, yb)
    else:
        out = {"n": len(yb), "size": _model_size(model), **_certificate_fields(model)}
        if hasattr(model, "decision_function"):
            out["auc"] = auc(yb, np.asarray(model.decision_function(X), dtype=float))
        objective = getattr(model, "objective", None)
        out["objective"] = float(objective) if isinstance(objective, (int, float)) else math.nan
    if hasattr(model, "predict"):
        rates = classification_rates(yb, model.predict(X), groups)
        rates.pop("groups", None)
        for key in ("n", "n_pos", "n_neg"):
            rates.pop(key, None)
        out.update(rates)
    return out


def outcome_of(model) -> str:
    """The kind of outcome a model predicts: its family's (``"binary"``, ``"survival"``),
    ``"binary"`` for a model of no registered family (a scikit-learn classifier).

    Parameters
    ----------
    model : object
        A fitted model.

    Returns
    -------
    str
        The kind.
    """
    for family in families():
        if isinstance(model, family.model_type):
            return family.outcome
    return "binary"


def survival_model_metrics(model, X, y) -> dict[str, Any]:
    """Metrics of a model of a time to event (a survival score) on rows ``(X, y)``: ``n``,
    ``events``, Harrell's ``c_index`` of its total points, its ``size``, certificate and
    ``objective`` (the training rows', as the model reports it).

    Parameters
    ----------
    model : object
        A fitted model whose family's outcome is ``"survival"`` (``total_points``).
    X : DataFrame or array
        The rows.
    y : structured array or (time, event)
        Their survival outcome.

    Returns
    -------
    dict
        The metrics.
    """
    time, event = check_survival_outcome(y)
    scores = np.asarray(model.total_points(X), dtype=float)
    objective = getattr(model, "objective", None)
    return {
        "n": len(time),
        "events": int(event.sum()),
        "c_index": float(harrell_c(time, event, scores).estimate),
        "size": _model_size(model),
        **_certificate_fields(model),
        "objective": float(objective) if isinstance(objective, (int, float)) else math.nan,
    }


def summarize(values: Mapping[str, Any]) -> str:
    """``cal 1.2%, auc 0.871, loss 0.311`` for the keys present (for one-line summaries).

    Parameters
    ----------
    values : mapping
        Metrics.

    Returns
    -------
    str
        The summary.
    """
    parts = []
    for key, fmt in (("cal", "{:.1%}"), ("auc", "{:.3f}"), ("loss", "{:.4f}"), ("error", "{:.1%}")):
        v = values.get(key)
        if isinstance(v, (int, float)) and math.isfinite(v):
            parts.append(f"{key} {fmt.format(v)}")
    return ", ".join(parts)
