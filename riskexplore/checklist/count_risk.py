"""A checklist's risk: the outcome rate per number of items checked.

A checklist predicts "positive" from ``M`` checked items on; its *risk* for a patient with
``k`` items checked is the rate of the outcome among the development rows with ``k`` items
checked (weighted by the sample weights). Two choices make that a usable score-to-risk map:

* **Monotone.** More items checked never means a lower risk (the premise of an M-of-N
  rule), so the rates per count are made non-decreasing by weighted isotonic regression
  (scikit-learn's pool-adjacent-violators). Where the observed rates already rise, they
  are kept exactly; where they dip, adjacent counts share their pooled rate. Pooling keeps
  each block's events, so on the rows it was estimated on the map predicts exactly as many
  events as were observed (O/E = 1).
* **Every count from 0 to N.** A count no development row had takes the rate linearly
  interpolated between the nearest counts seen below and above, or the nearest seen
  count's rate beyond the seen range (still monotone).

:func:`count_risks` estimates the map (at fit time, and again when a checklist is
recalibrated to other rows); :func:`risk_of_counts` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.isotonic import isotonic_regression

from riskexplore.errors import InputError

__all__ = ["checked_count_risk", "count_risks", "risk_of_counts"]


def count_risks(counts, y, n_items: int, sample_weight=None) -> dict[int, float]:
    """The monotone outcome rate for every number of items checked, ``0..n_items``.

    Parameters
    ----------
    counts : array-like (n,)
        Items checked on each row.
    y : array-like (n,)
        0/1 outcome.
    n_items : int
        The checklist's number of items ``N``.
    sample_weight : array-like (n,), optional
        Row weights (default 1).

    Returns
    -------
    dict
        Count -> risk, for every count ``0..n_items``.

    Raises
    ------
    InputError
        Without rows (or with zero total weight).
    """
    k = np.asarray(counts, dtype=np.int64).ravel()
    yv = np.asarray(y, dtype=float).ravel()
    w = np.ones(len(k)) if sample_weight is None else np.asarray(sample_weight, float).ravel()
    weight = np.bincount(k, weights=w, minlength=n_items + 1)
    events = np.bincount(k, weights=w * yv, minlength=n_items + 1)
    seen = np.flatnonzero(weight > 0)
    if len(seen) == 0:
        raise InputError("no rows to estimate the checklist's risk per number of items checked")
    rates = isotonic_regression(events[seen] / weight[seen], sample_weight=weight[seen])
    every = np.interp(np.arange(n_items + 1), seen, rates)  # constant beyond the seen range
    return {c: float(r) for c, r in enumerate(every)}


def checked_count_risk(count_risk, n_items: int) -> dict[int, float] | None:
    """A stored count -> risk map checked: every count ``0..n_items``, risks in [0, 1].

    Parameters
    ----------
    count_risk : mapping or None
        Count (int, or its text in a JSON document) -> risk.
    n_items : int
        The checklist's number of items.

    Returns
    -------
    dict or None
        The map with integer keys (None for None).

    Raises
    ------
    InputError
        For missing counts or risks outside [0, 1].
    """
    if count_risk is None:
        return None
    if not isinstance(count_risk, Mapping):
        raise InputError("count_risk must map each number of items checked to a risk")
    try:
        out = {int(c): float(r) for c, r in count_risk.items()}
    except (TypeError, ValueError):
        raise InputError("count_risk must map whole numbers to risks") from None
    if sorted(out) != list(range(n_items + 1)):
        raise InputError(f"count_risk must give a risk for every count 0..{n_items}")
    if not all(0.0 <= r <= 1.0 for r in out.values()):
        raise InputError("count_risk's risks must lie in [0, 1]")
    return out


def risk_of_counts(count_risk: Mapping[int, float], counts) -> np.ndarray:
    """The risk of each row from its number of items checked.

    Parameters
    ----------
    count_risk : mapping
        Count -> risk (every count ``0..N``).
    counts : array-like (n,)
        Items checked on each row.

    Returns
    -------
    ndarray (n,)
        The risks.
    """
    table = np.array([count_risk[c] for c in range(len(count_risk))], dtype=float)
    return table[np.asarray(counts, dtype=np.int64)]
