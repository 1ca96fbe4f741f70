"""Validation of training data (a first version; see tests/test_validation.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from riskexplore.errors import InputError


def check_training_data(X, y, sample_weight=None, feature_names=None):
    """Return ``(X float array (n, d), y in {-1, +1}, weights (n,), feature names)``.

    Raises :class:`InputError` naming the column or value at fault.
    """
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        X = X.to_numpy()
    else:
        X = np.asarray(X)
        names = list(feature_names) if feature_names is not None else [
            f"x{j}" for j in range(X.shape[1])]
    X = np.asarray(X, dtype=float)
    y = np.asarray(y).ravel()
    labels = np.unique(y)
    if len(labels) != 2:
        raise InputError(f"outcome must have exactly two values, found {labels.tolist()[:5]}")
    y = np.where(y == labels.max(), 1, -1)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    return X, y, w, names
