"""Synthetic survival data with tied times and censoring, for the survival tests."""

from __future__ import annotations

import numpy as np


def survival_data(n: int = 300, d: int = 5, seed: int = 0, ties: bool = True):
    """Binary features, times from a Cox model (rounded: many ties), about 35% censored.

    Returns
    -------
    tuple
        ``(X, time, event, points)``: features, times, 0/1 events and integer points.
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    beta = rng.normal(0.0, 0.7, size=d)
    time = rng.exponential(np.exp(-X @ beta))
    if ties:
        time = np.ceil(time * 6) / 6
    event = rng.random(n) < 0.65
    points = rng.integers(-3, 4, size=d).astype(float)
    return X, time, event, points


def structured(time, event):
    """scikit-survival's outcome: a structured array ``[("event", bool), ("time", float)]``."""
    y = np.empty(len(time), dtype=[("event", bool), ("time", float)])
    y["event"] = event
    y["time"] = time
    return y


def survival_table(n: int = 120, seed: int = 1):
    """A small follow-up table as a CSV would give it: ``age``, ``chf``, ``sex``, ``days``
    (follow-up, rising risk with age and chf) and ``died`` (0/1, about 30% censored)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    age = rng.integers(40, 90, n)
    chf = rng.integers(0, 2, n)
    days = np.ceil(rng.exponential(600 * np.exp(-0.9 * chf - 0.03 * (age - 65)))).clip(1, 2000)
    died = (rng.random(n) < 0.7).astype(int)
    sex = rng.integers(0, 2, n)
    return pd.DataFrame({"age": age, "chf": chf, "sex": sex, "days": days, "died": died})
