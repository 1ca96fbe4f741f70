"""Data shared by the audit tests (``tests/evaluation/audit/test_rules.py`` and
``tests/widgets/audit/test_view.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def site_data(n=600, seed=0):
    """Site 2's risk is higher than its features say: a score underestimates it.

    Returns
    -------
    (DataFrame, ndarray)
        Columns ``a``, ``b`` (0/1), ``site`` (0, 1, 2) and ``age`` (30 to 89); the 0/1
        outcome.
    """
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.integers(0, 2, n),
            "b": rng.integers(0, 2, n),
            "site": rng.integers(0, 3, n),
            "age": rng.integers(30, 90, n),
        }
    )
    logit = -1 + 1.5 * X["a"] - X["b"] + np.where(X["site"] == 2, 1.5, 0.0)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int).to_numpy()
    return X, y
