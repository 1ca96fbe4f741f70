"""The groups of a subgroup audit: one column, or the cross of two, labelled in plain words.

A column with few distinct values (at most :data:`MAX_CATEGORIES`, or not numeric) gives
one group per value, labelled ``"sex = 1"``. A numeric column with more values is cut
into bins: ``bins`` equal-frequency bins (cut at its quantiles) or at the cut points
given, labelled ``"age under 40"``, ``"age 40 to 59"``, ``"age 60 and older"`` (integer
columns) or ``"oldpeak below 0.8"``, ``"oldpeak 0.8 to below 1.6"``, ``"oldpeak 1.6 and
above"``. Missing values form their own group (``"age missing"``). The cross of two
columns labels its groups ``"age 60 and older, sex = 1"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.errors import InputError

__all__ = ["MAX_CATEGORIES", "Grouping", "column_groups", "make_groups"]

#: Numeric columns with more distinct values than this are cut into bins.
MAX_CATEGORIES = 10

#: Bins of one column: a number of equal-frequency bins, or the cut points.
Bins = int | Sequence[float]


@dataclass(frozen=True)
class Grouping:
    """The group of every row, and the groups in display order.

    Attributes
    ----------
    labels : ndarray of object, shape (n,)
        The label of each row's group.
    order : tuple of str
        The non-empty groups, in display order (bins ascending, values sorted, the
        missing group last; the first column varies slowest in a cross).
    columns : tuple of str
        The group column(s).
    binned : dict
        For each binned column, its cut points (as floats).
    """

    labels: np.ndarray
    order: tuple[str, ...]
    columns: tuple[str, ...]
    binned: dict[str, list[float]]


def _is_integer(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool(len(finite)) and bool(np.all(finite == np.round(finite)))


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _bin_words(column: str, cuts: list[float], integer: bool) -> list[str]:
    """Labels of the ``len(cuts) + 1`` bins ``x < c1``, ``c1 <= x < c2``, ..., ``x >= ck``."""
    age = column.strip().lower().startswith("age")
    under, over = ("under", "and older") if age else ("below", "and above")
    words = [f"{column} {under} {_number(cuts[0])}"]
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        if integer and float(a).is_integer() and float(b).is_integer():
            top = int(b) - 1
            words.append(
                f"{column} {_number(a)}" if top == a else f"{column} {_number(a)} to {top}"
            )
        else:
            words.append(f"{column} {_number(a)} to {under} {_number(b)}")
    words.append(f"{column} {_number(cuts[-1])} {over}")
    return words


def _quantile_cuts(values: np.ndarray, bins: int, integer: bool) -> list[float]:
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return []
    qs = np.quantile(finite, np.linspace(0, 1, bins + 1)[1:-1])
    if integer:
        qs = np.ceil(qs)
    cuts = sorted({float(q) for q in qs if finite.min() < q <= finite.max()})
    return cuts


def _check_bins(column: str, bins: Any) -> Bins:
    if isinstance(bins, (bool, np.bool_)):
        raise InputError(f"bins for {column!r} must be a whole number >= 2 or cut points")
    if isinstance(bins, (int, np.integer)):
        if bins < 2:
            raise InputError(f"bins for {column!r} must be at least 2, got {bins}")
        return int(bins)
    try:
        cuts = [float(c) for c in bins]
    except (TypeError, ValueError):
        raise InputError(
            f"bins for {column!r} must be a whole number >= 2 or a list of cut points, got {bins!r}"
        ) from None
    if not cuts or not all(math.isfinite(c) for c in cuts):
        raise InputError(f"the cut points for {column!r} must be finite numbers, got {bins!r}")
    if any(b <= a for a, b in zip(cuts[:-1], cuts[1:], strict=False)):
        raise InputError(f"the cut points for {column!r} must increase, got {bins!r}")
    return cuts


def _numeric(col: pd.Series) -> np.ndarray | None:
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        return None
    return col.to_numpy(dtype=float)


def column_groups(
    X: pd.DataFrame, column: str, bins: Bins | None = 4, *, force: bool = False
) -> tuple[np.ndarray, list[str], list[float] | None]:
    """The label of each row for one column, the labels in order, and the cut points.

    Parameters
    ----------
    X : DataFrame
        The data.
    column : str
        The group column.
    bins : int, sequence of float or None
        Equal-frequency bins of a numeric column with more than :data:`MAX_CATEGORIES`
        values, or its cut points; None never bins.
    force : bool
        Bin a numeric column at the cut points given whatever its number of values.

    Returns
    -------
    tuple
        ``(labels, order, cuts)``; ``cuts`` is None for a column not binned.
    """
    col = X[column]
    values = _numeric(col)
    missing = col.isna().to_numpy()
    explicit = bins is not None and not isinstance(bins, (int, np.integer))
    distinct = col.dropna().unique()
    many = len(distinct) > MAX_CATEGORIES or (force and explicit)
    if values is not None and bins is not None and many:
        integer = _is_integer(values)
        checked = _check_bins(column, bins)
        cuts = checked if explicit else _quantile_cuts(values, checked, integer)
        if not cuts:
            cuts = None
        else:
            words = _bin_words(column, cuts, integer)
            index = np.searchsorted(np.asarray(cuts), np.nan_to_num(values), side="right")
            labels = np.array([words[i] for i in index], dtype=object)
            labels[missing] = f"{column} missing"
            order = [w for w in words if (labels == w).any()]
            if missing.any():
                order.append(f"{column} missing")
            return labels, order, list(map(float, cuts))
    labels = np.array([f"{column} = {_plain(v)}" for v in col], dtype=object)
    labels[missing] = f"{column} missing"
    if isinstance(col.dtype, pd.CategoricalDtype):  # the categories' own order
        ordered = [c for c in col.cat.categories if (col == c).any()]
    else:
        ordered = _sorted(list(distinct))
    order = [f"{column} = {_plain(v)}" for v in ordered]
    if missing.any():
        order.append(f"{column} missing")
    return labels, order, None


def _plain(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return str(value.item())
    return str(value)


def _sorted(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


def _bins_of(bins: Any, column: str) -> Any:
    if isinstance(bins, Mapping):
        return bins.get(column, 4)
    return bins


def make_groups(X: pd.DataFrame, by: Sequence[str], bins: Any = 4) -> Grouping:
    """The groups of one column or of the cross of two.

    Parameters
    ----------
    X : DataFrame
        The data (the group columns must be among its columns).
    by : sequence of str
        One or two column names (checked by the caller).
    bins : int, sequence of float, or mapping
        As in :func:`column_groups`, for every numeric column with more than
        :data:`MAX_CATEGORIES` values; a mapping gives each column its own (columns not
        named get 4 equal-frequency bins), and its cut points bin a numeric column
        whatever its number of values.

    Returns
    -------
    Grouping
        The groups.

    Raises
    ------
    InputError
        For bad bins, or a column that puts every row in one group.
    """
    parts = []
    binned: dict[str, list[float]] = {}
    for column in by:
        force = isinstance(bins, Mapping) and column in bins
        labels, order, cuts = column_groups(X, column, _bins_of(bins, column), force=force)
        if len(order) < 2:
            only = order[0] if order else "no group"
            raise InputError(
                f"column {column!r} puts every row in one group ({only}); "
                "choose a column with at least two groups"
            )
        if cuts is not None:
            binned[column] = cuts
        parts.append((labels, order))
    if len(parts) == 1:
        labels, order = parts[0]
        return Grouping(labels, tuple(order), tuple(by), binned)
    (la, oa), (lb, ob) = parts
    labels = np.array([f"{a}, {b}" for a, b in zip(la, lb, strict=True)], dtype=object)
    present = set(labels.tolist())
    order = [f"{a}, {b}" for a in oa for b in ob if f"{a}, {b}" in present]
    return Grouping(labels, tuple(order), tuple(by), binned)
