"""The score table of a validation: for each card score ``s`` (a risk score's total points,
a checklist's number of items checked), the patients with exactly that score, their
outcome rate with its Wilson interval, the predicted risk, and the sensitivity,
specificity, PPV and NPV of the rule "positive when the score is ``>= s``".

A rate whose denominator is 0 (the NPV of the lowest score: nobody scores below it) is
``nan``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskexplore.evaluation.intervals import wilson_interval

__all__ = ["SCORE_TABLE_COLUMNS", "score_table"]

#: The columns of :func:`score_table`.
SCORE_TABLE_COLUMNS = (
    "score",
    "patients",
    "events",
    "observed_rate",
    "lower",
    "upper",
    "predicted_risk",
    "sensitivity",
    "specificity",
    "ppv",
    "npv",
)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, ``nan`` where the denominator is 0."""
    out = np.full(len(numerator), np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def score_table(y, score, risk=None, confidence: float = 0.95) -> pd.DataFrame:
    """One row per distinct score, lowest first.

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    score : array-like (n,)
        The card's score of each row.
    risk : array-like (n,), optional
        Predicted risks (``predicted_risk`` is their mean per score; ``nan`` without).
    confidence : float
        The level of the Wilson intervals.

    Returns
    -------
    DataFrame
        The columns of :data:`SCORE_TABLE_COLUMNS`.
    """
    yv = np.asarray(y, dtype=float)
    values, group = np.unique(np.asarray(score, dtype=float), return_inverse=True)
    patients = np.bincount(group, minlength=len(values)).astype(float)
    events = np.bincount(group, weights=yv, minlength=len(values))
    # "positive when score >= s": the rows of s and of every higher score
    positive = np.cumsum(patients[::-1])[::-1]
    true_pos = np.cumsum(events[::-1])[::-1]
    negative, false_neg = len(yv) - positive, yv.sum() - true_pos
    true_neg = negative - false_neg
    intervals = [wilson_interval(e, p, confidence) for e, p in zip(events, patients, strict=True)]
    predicted = (
        np.full(len(values), np.nan)
        if risk is None
        else _ratio(
            np.bincount(group, weights=np.asarray(risk, float), minlength=len(values)), patients
        )
    )
    table = pd.DataFrame(
        {
            "score": values,
            "patients": patients.astype(np.int64),
            "events": events.astype(np.int64),
            "observed_rate": _ratio(events, patients),
            "lower": [low for low, _ in intervals],
            "upper": [high for _, high in intervals],
            "predicted_risk": predicted,
            "sensitivity": _ratio(true_pos, np.full(len(values), yv.sum())),
            "specificity": _ratio(true_neg, np.full(len(values), len(yv) - yv.sum())),
            "ppv": _ratio(true_pos, positive),
            "npv": _ratio(true_neg, negative),
        }
    )
    if np.all(values == np.round(values)):
        table["score"] = values.astype(np.int64)
    return table
