"""Decision curves: the net benefit of treating the patients whose predicted risk is at
least a threshold (Vickers & Elkin 2006, *Med Decis Making* 26:565).

At a threshold ``t`` a patient is treated when the predicted risk is ``>= t``; with ``TP``
and ``FP`` the treated patients with and without the outcome among ``n``,

    net benefit = TP / n - FP / n * t / (1 - t),

the true positives gained, less the false positives weighted by the odds of ``t`` (how
many false alarms one true positive is worth at that threshold). *Treat all* treats every
patient, *treat none* nobody (net benefit 0). A test with a harm of its own (a marker that
costs or hurts to measure) subtracts that harm, in true positives per patient, from the
model's net benefit (Vickers, Van Calster & Steyerberg 2016, *BMJ* 352:i6).

Checked against the published worked example of the ``dcurves`` package (750 biopsied
patients, ``tests/evaluation/validation/test_published_decision_curve.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskexplore.core.recalibration import checked_outcome
from riskexplore.errors import InputError

__all__ = ["NET_BENEFIT_COLUMNS", "THRESHOLDS", "net_benefit"]

#: The thresholds of the decision curve: 0.01, 0.02, ..., 0.99.
THRESHOLDS = np.arange(1, 100) / 100
#: The columns of :func:`net_benefit`.
NET_BENEFIT_COLUMNS = ("threshold", "model", "treat_all", "treat_none")


def net_benefit(y, risk, thresholds=THRESHOLDS, *, harm: float = 0.0) -> pd.DataFrame:
    """The decision curve of a model and of treating everyone or nobody.

    Parameters
    ----------
    y : array-like (n,)
        0/1 outcome.
    risk : array-like (n,) or None
        Predicted risks in [0, 1] (any model's, or a 0/1 test result); None: the model
        column is ``nan`` (a model without risks).
    thresholds : array-like
        Thresholds in (0, 1) (default 0.01 to 0.99 in steps of 0.01).
    harm : float
        The harm of using the model, in true positives per patient, subtracted from its
        net benefit (default 0: no harm beyond its false positives).

    Returns
    -------
    DataFrame
        Columns ``threshold``, ``model``, ``treat_all``, ``treat_none``.

    Raises
    ------
    InputError
        For an outcome that is not 0/1, risks that are missing, outside [0, 1] or not one
        per outcome, thresholds outside (0, 1), or a harm that is not a finite number.
    """
    t = _checked_thresholds(thresholds)
    if not np.isfinite(harm):
        raise InputError(f"harm must be a finite number of true positives per patient, got {harm}")
    r = None if risk is None else _checked_risk(risk)
    yv = checked_outcome(y, len(y)).astype(float)
    n = len(yv)
    if r is not None and len(r) != n:
        raise InputError(f"y has {n} outcomes but {len(r)} predicted risks: give one per patient")
    weight = t / (1 - t)
    prevalence = yv.sum() / n
    treat_all = prevalence - (1 - prevalence) * weight
    if r is None:
        model = np.full(len(t), np.nan)
    else:
        treated = r[None, :] >= t[:, None]
        tp = treated @ yv
        fp = treated.sum(axis=1) - tp
        model = tp / n - fp / n * weight - harm
    return pd.DataFrame(
        {"threshold": t, "model": model, "treat_all": treat_all, "treat_none": np.zeros(len(t))}
    )


def _checked_thresholds(thresholds) -> np.ndarray:
    """The thresholds as floats, or an InputError naming one outside (0, 1)."""
    t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    bad = t[~((t > 0) & (t < 1))]
    if t.ndim != 1 or len(bad):
        raise InputError(
            f"decision-curve thresholds must be risks strictly between 0 and 1, got "
            f"{bad[0] if len(bad) else t.shape}: give e.g. [0.05, 0.1, 0.2]"
        )
    return t


def _checked_risk(risk) -> np.ndarray:
    """The predicted risks as floats, or an InputError naming the first bad one."""
    r = np.asarray(risk, dtype=float)
    bad = np.flatnonzero(~((r >= 0) & (r <= 1)))  # catches nan too
    if r.ndim != 1 or len(bad):
        where = f"row {bad[0]} is {r[bad[0]]}" if len(bad) else f"shape {r.shape}"
        raise InputError(
            f"predicted risks must be one column of probabilities in [0, 1] ({where}): "
            "give the model's risks, not its score or a percentage"
        )
    return r
