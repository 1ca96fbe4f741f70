"""Decision curves: the net benefit of treating the patients whose predicted risk is at
least a threshold (Vickers & Elkin 2006, *Med Decis Making* 26:565).

At a threshold ``t`` a patient is treated when the predicted risk is ``>= t``; with ``TP``
and ``FP`` the treated patients with and without the outcome among ``n``,

    net benefit = TP / n - FP / n * t / (1 - t),

the true positives gained, less the false positives weighted by the odds of ``t`` (how
many false alarms one true positive is worth at that threshold). *Treat all* treats every
patient, *treat none* nobody (net benefit 0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["NET_BENEFIT_COLUMNS", "THRESHOLDS", "net_benefit"]

#: The thresholds of the decision curve: 0.01, 0.02, ..., 0.99.
THRESHOLDS = np.arange(1, 100) / 100
#: The columns of :func:`net_benefit`.
NET_BENEFIT_COLUMNS = ("threshold", "model", "treat_all", "treat_none")


def net_benefit(y, risk, thresholds=THRESHOLDS) -> pd.DataFrame:
    """The decision curve of a model and of treating everyone or nobody.

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    risk : array-like (n,) or None
        Predicted risks; None: the model column is ``nan`` (a model without risks).
    thresholds : array-like
        Thresholds in (0, 1) (default 0.01 to 0.99 in steps of 0.01).

    Returns
    -------
    DataFrame
        Columns ``threshold``, ``model``, ``treat_all``, ``treat_none``.
    """
    yv = np.asarray(y, dtype=float)
    t = np.asarray(thresholds, dtype=float)
    n = len(yv)
    weight = t / (1 - t)
    prevalence = yv.sum() / n
    treat_all = prevalence - (1 - prevalence) * weight
    if risk is None:
        model = np.full(len(t), np.nan)
    else:
        treated = np.asarray(risk, dtype=float)[None, :] >= t[:, None]
        tp = treated @ yv
        fp = treated.sum(axis=1) - tp
        model = tp / n - fp / n * weight
    return pd.DataFrame(
        {"threshold": t, "model": model, "treat_all": treat_all, "treat_none": np.zeros(len(t))}
    )
