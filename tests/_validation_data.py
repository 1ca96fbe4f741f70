"""A raw patient table no other test uses, split into development and validation rows, and
small models fitted on the development rows once per test process (for the tests of
:mod:`riskexplore.evaluation.validation`)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from riskexplore import fit_checklist, fit_risk_score

#: Development rows: the first DEV rows of :func:`raw_table`; the rest validate.
DEV = 350
#: Cut points that keep the fits fast (a few items per column).
THRESHOLDS = {"age": [55, 65], "bp": [140]}


@functools.cache
def raw_table(n: int = 600, seed: int = 1) -> tuple[pd.DataFrame, np.ndarray]:
    """``age`` (5% missing), ``sex`` (text), ``smoker`` (three values, 5% missing), ``bp``,
    and a 0/1 outcome that rises with age, smoking, blood pressure and male sex."""
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 85, n).astype(float)
    sex = rng.choice(["female", "male"], n)
    smoker = rng.choice(["never", "former", "current"], n, p=[0.5, 0.3, 0.2]).astype(object)
    bp = rng.normal(135, 20, n).round()
    age[rng.random(n) < 0.05] = np.nan
    smoker[rng.random(n) < 0.05] = None
    logit = (
        -2.0
        + 0.06 * (np.nan_to_num(age, nan=55) - 55)
        + 1.0 * (smoker == "current")
        + 0.03 * (bp - 135)
        + 0.5 * (sex == "male")
    )
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame({"age": age, "sex": sex, "smoker": smoker, "bp": bp}), y


def split() -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray]:
    """``(X_dev, y_dev, X_val, y_val)``."""
    X, y = raw_table()
    return X.iloc[:DEV], y[:DEV], X.iloc[DEV:].reset_index(drop=True), y[DEV:]


@functools.cache
def risk_score(scale: str = "fixed"):
    """A risk score of at most 3 items fitted on the development rows."""
    X, y, _, _ = split()
    model = fit_risk_score(
        X,
        y,
        max_size=3,
        coef_min=-3,
        coef_max=3,
        thresholds=THRESHOLDS,
        time_limit=300,  # certifies in about a second; the margin is for a busy machine
        scale=scale,
    )
    assert model.certificate.is_optimal, model.certificate  # the tests assume the optimum
    return model


@functools.cache
def checklist():
    """A checklist of at most 3 items fitted on the development rows."""
    X, y, _, _ = split()
    model = fit_checklist(X, y, max_items=3, time_limit=300)  # certifies in about a second
    assert model.certificate.is_optimal, model.certificate
    return model
