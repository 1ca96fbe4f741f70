"""Mistakes and error rates of 0/1 predictions, overall and per group: written once.

A checklist reports its training rates (and per-group rates) as statistics, and the
evaluation layer reports the rates of any classifier on any data
(:func:`riskexplore.evaluation.metrics.classification_rates`); both use these functions,
so both label groups the same way and both give ``nan`` for a rate whose denominator is
zero (no positives for the FNR, no negatives for the FPR).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.errors import InputError

__all__ = ["error_rates", "group_frame", "group_labels", "group_rates", "worst_gap"]


def group_frame(groups: Any, n: int) -> pd.DataFrame | None:
    """Group columns as a DataFrame of ``n`` rows (string column names, index reset).

    Parameters
    ----------
    groups : Series, DataFrame, array-like or None
        Group columns, one row per example (a 1-D array is one column ``"group"``).
    n : int
        The number of rows.

    Returns
    -------
    DataFrame or None
        The columns; None for None.

    Raises
    ------
    InputError
        For another number of rows, no columns, more than two dimensions or missing
        values.
    """
    if groups is None:
        return None
    if isinstance(groups, pd.Series):
        frame = groups.to_frame(name=groups.name if groups.name is not None else "group")
    elif isinstance(groups, pd.DataFrame):
        frame = groups
    else:
        array = np.asarray(groups, dtype=object)
        if array.ndim == 1:
            frame = pd.DataFrame({"group": array})
        elif array.ndim == 2:
            frame = pd.DataFrame(array, columns=[f"group{k}" for k in range(array.shape[1])])
        else:
            raise InputError(f"groups must be 1-D or 2-D, got shape {array.shape}")
    if frame.shape[0] != n:
        raise InputError(f"groups has {frame.shape[0]} rows but X has {n}; give one per row")
    if frame.shape[1] == 0:
        raise InputError("groups has no columns")
    frame = frame.reset_index(drop=True)
    frame.columns = [str(c) for c in frame.columns]
    missing = frame.isna().any(axis=0)
    if missing.any():
        col = missing.index[missing.to_numpy()][0]
        raise InputError(
            f"group column {col!r} has {int(frame[col].isna().sum())} missing values; fill "
            "them (e.g. with 'unknown') or drop those rows"
        )
    return frame


def group_labels(groups: Any, n: int) -> np.ndarray:
    """One string label per row.

    Parameters
    ----------
    groups : Series, array-like or DataFrame
        A label per row, or a DataFrame whose columns are crossed into intersectional
        groups labelled ``"sex=F & race=B"`` (``"sex=F"`` for one column).
    n : int
        The number of rows.

    Returns
    -------
    ndarray of object, shape (n,)
        The labels.

    Raises
    ------
    InputError
        If ``groups`` has no columns, is not one label per row, or has another length.
    """
    if isinstance(groups, pd.DataFrame):
        if groups.shape[1] == 0:
            raise InputError("groups has no columns")
        parts = [groups[c].astype(str).radd(f"{c}=").to_numpy(dtype=object) for c in groups]
        labels = parts[0]
        for part in parts[1:]:
            labels = labels + " & " + part
    else:
        arr = np.asarray(groups, dtype=object)
        if arr.ndim != 1:
            raise InputError(f"groups must be one label per row, got shape {arr.shape}")
        labels = np.array([str(v) for v in arr], dtype=object)
    if len(labels) != n:
        raise InputError(f"groups has {len(labels)} entries for {n} rows")
    return np.asarray(labels, dtype=object)


def error_rates(y: np.ndarray, pred: np.ndarray, sample_weight=None) -> dict[str, Any]:
    """Mistakes and error rates of 0/1 predictions.

    Parameters
    ----------
    y, pred : ndarray of shape (n,)
        0/1 outcome and predictions.
    sample_weight : array-like of shape (n,), optional
        Weights of the rows; mistakes are then weighted sums.

    Returns
    -------
    dict
        ``n, n_pos, n_neg`` (rows), ``fn, fp, errors`` (mistakes: ints without weights,
        weighted sums with them), ``error, fnr, fpr`` (``nan`` when the denominator is
        zero).

    Raises
    ------
    InputError
        If the lengths differ.
    """
    y = np.asarray(y).astype(int).ravel()
    pred = np.asarray(pred).astype(int).ravel()
    if len(pred) != len(y):
        raise InputError(f"got {len(pred)} predictions for {len(y)} outcomes")
    weighted = sample_weight is not None
    w = np.ones(len(y)) if not weighted else np.asarray(sample_weight, dtype=float).ravel()
    if len(w) != len(y):
        raise InputError(f"sample_weight has {len(w)} entries for {len(y)} rows")
    pos, neg = y == 1, y == 0
    fn, fp = float(w[pos & (pred == 0)].sum()), float(w[neg & (pred == 1)].sum())
    w_pos, w_neg = float(w[pos].sum()), float(w[neg].sum())

    def count(value: float) -> float | int:
        return value if weighted else int(round(value))

    return {
        "n": int(len(y)),
        "n_pos": int(pos.sum()),
        "n_neg": int(neg.sum()),
        "fn": count(fn),
        "fp": count(fp),
        "errors": count(fn + fp),
        "error": (fn + fp) / (w_pos + w_neg) if w_pos + w_neg > 0 else math.nan,
        "fnr": fn / w_pos if w_pos > 0 else math.nan,
        "fpr": fp / w_neg if w_neg > 0 else math.nan,
    }


def group_rates(
    y: np.ndarray, pred: np.ndarray, groups: Any, sample_weight=None
) -> dict[str, dict[str, Any]]:
    """:func:`error_rates` of each group (labels of :func:`group_labels`, sorted).

    Parameters
    ----------
    y, pred : ndarray of shape (n,)
        0/1 outcome and predictions.
    groups : Series, array-like or DataFrame
        Groups, as for :func:`group_labels`.
    sample_weight : array-like of shape (n,), optional
        Weights of the rows.

    Returns
    -------
    dict
        Label -> rates.
    """
    y = np.asarray(y).ravel()
    pred = np.asarray(pred).ravel()
    labels = group_labels(groups, len(y))
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float).ravel()
    out = {}
    for label in sorted(set(labels.tolist())):
        rows = labels == label
        out[label] = error_rates(y[rows], pred[rows], None if w is None else w[rows])
    return out


def worst_gap(
    per_group: Mapping[str, Mapping[str, Any]], key: str
) -> tuple[float, float, tuple[str, str] | None]:
    """The worst rate over groups and the largest gap between two groups.

    Parameters
    ----------
    per_group : mapping
        Label -> rates (as :func:`group_rates` returns).
    key : str
        The rate (``"fnr"`` or ``"fpr"``).

    Returns
    -------
    tuple
        ``(worst, gap, (worse, better))`` over the groups whose rate is defined:
        ``worst`` is the largest rate, ``gap`` the largest minus the smallest (0 with one
        group; ``nan`` and ``None`` with none), the pair the groups attaining it.
    """
    values = {g: float(r[key]) for g, r in per_group.items() if not math.isnan(float(r[key]))}
    if not values:
        return math.nan, math.nan, None
    hi = max(values, key=values.__getitem__)
    lo = min(values, key=values.__getitem__)
    if len(values) == 1:
        return values[hi], 0.0, None
    return values[hi], values[hi] - values[lo], (hi, lo)
