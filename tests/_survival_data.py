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
