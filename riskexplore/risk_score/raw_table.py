"""Risk scores from a raw table: items of a :class:`~riskexplore.data.binarize.Binarizer`.

A raw patient table (numbers, strings, categories, missing values) becomes 0/1 items such
as ``"age ≥ 75"``, ``"sex = F"`` or ``"creatinine missing"``, the features of a risk score,
while the columns named in ``linear`` stay numeric (points per unit). With the
one-per-variable rule, an :class:`~riskexplore.risk_score.constraints.AtMostKOf` constraint
keeps at most one item of each source column, so that the certificate covers the choice of
thresholds (every engine honours these constraints).

The fitted :class:`~riskexplore.risk_score.model.RiskScore` keeps the binarizer, and
:func:`item_frame` turns raw rows into its features at prediction time, with the
binarizer's policies: a missing value sets every item of its column to 0 and, when the
column had missing values at fit, its ``"col missing"`` item to 1; a category not seen at
fit sets every item of its column to 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.data.binarize import Binarizer
from riskexplore.data.validation import check_unique_names
from riskexplore.errors import InputError
from riskexplore.risk_score.constraints import AtMostKOf

__all__ = [
    "BINARIZE_OPTIONS",
    "RawItems",
    "binarize_table",
    "binary_table",
    "item_frame",
    "missing_features",
    "one_per_variable",
    "raw_hint",
    "reads_raw",
    "resolve_binarize",
]

#: The Binarizer of ``binarize="auto"``: quantile cut points moved to clinically round
#: numbers nearby (``age ≥ 55``), items without complements (a score's points can be
#: negative, so ``age < 65`` adds nothing to ``age ≥ 65``; a two-valued column gives one
#: item), a ``"col missing"`` item for each column with missing values, so that no row
#: is dropped, and no item for a category or missing value of fewer than 10 rows (a score
#: would give points to those few patients).
BINARIZE_OPTIONS: dict[str, Any] = {
    "method": "adaptive",
    "complements": False,
    "missing": "indicator",
    "round_cuts": True,
    "min_rows": 10,
}


@dataclass(frozen=True)
class RawItems:
    """The features of a raw table: the items and the linear columns, and how they came.

    Attributes
    ----------
    X : DataFrame
        The items (0/1) followed by the ``linear`` columns as given.
    binarizer : Binarizer
        The fitted binarizer of the items.
    constraints : tuple
        The one-per-variable constraints (empty when the rule is off).
    """

    X: pd.DataFrame
    binarizer: Binarizer
    constraints: tuple


def binary_table(X: pd.DataFrame) -> bool:
    """Whether every column of ``X`` holds only 0 and 1 (or False and True), none missing.

    Parameters
    ----------
    X : DataFrame
        A table.

    Returns
    -------
    bool
        True for a table of binary features (used as given by ``binarize="auto"``).
    """
    for _, column in X.items():
        dtype = column.dtype
        if pd.api.types.is_bool_dtype(dtype):
            if column.isna().any():
                return False
            continue
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
            return False
        values = column.to_numpy(dtype=float, na_value=np.nan)
        if not np.isin(values, (0.0, 1.0)).all():  # NaN is in neither
            return False
    return True


def resolve_binarize(X, binarize, thresholds=None, linear: Iterable[str] = ()):
    """What ``binarize`` means for the table ``X``: None (the features as given), ``"auto"``
    or a Binarizer.

    Parameters
    ----------
    X : Any
        The training features or raw table.
    binarize : "auto", False, None or Binarizer
        ``"auto"`` (the default of the fits): a DataFrame is binarized unless every column
        is 0/1 without missing values (and no ``thresholds`` or ``linear`` are given); an
        array is never binarized (it has no column names), nor a DataFrame whose column
        names are not all text (``pd.DataFrame(array)``). False or None: never. A
        Binarizer: always.
    thresholds, linear
        The user cut points and linear columns (they need a binarized DataFrame).

    Returns
    -------
    None, "auto" or Binarizer
        What to binarize with (None: nothing).

    Raises
    ------
    InputError
        For an unknown ``binarize``, or ``thresholds`` / ``linear`` without binarization.
    """
    linear = tuple(linear)
    wanted = thresholds is not None or bool(linear)
    if binarize is None or binarize is False:
        if wanted:
            raise InputError(
                "thresholds and linear need binarize='auto' (the default) or a Binarizer; "
                "binarize=False uses the features as given"
            )
        return None
    if isinstance(binarize, Binarizer):
        return binarize
    if not (isinstance(binarize, str) and binarize == "auto"):
        raise InputError(f"binarize must be 'auto', False or a Binarizer, got {binarize!r}")
    if not _named_table(X):
        if wanted:
            raise InputError(
                "thresholds and linear need X as a DataFrame (a raw table with column names)"
            )
        return None
    return None if not wanted and binary_table(X) else "auto"


def _named_table(X) -> bool:
    """A DataFrame with text column names (a raw table; ``pd.DataFrame(array)``, with
    the names 0, 1, ..., counts as an array)."""
    return isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns)


def raw_hint(X) -> str | None:
    """What to do when features used as given (not binarized) hold text or missing values:
    a hint for the fit's error message (None when they hold neither).

    Parameters
    ----------
    X : Any
        The features given to a fit that did not binarize them.

    Returns
    -------
    str or None
        The hint, or None.
    """
    try:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object))
    except (TypeError, ValueError):
        return None
    numeric = (pd.api.types.is_numeric_dtype(t) for t in frame.infer_objects().dtypes)
    if not frame.isna().to_numpy().any() and all(numeric):
        return None
    if isinstance(X, pd.DataFrame):
        return (
            "binarize=False uses the features as given: leave binarize at 'auto' (the "
            "default) to make items of a raw table (thresholds, categories, missing values)"
        )
    return (
        "an array is never binarized: give X as a DataFrame with column names, which "
        "binarize='auto' (the default) turns into items (thresholds, categories, missing "
        "values)"
    )


def binarize_table(
    X,
    binarize,
    *,
    thresholds: Mapping[str, Any] | None = None,
    linear: Iterable[str] = (),
    one_per_variable_rule: bool = True,
    sample_weight=None,
) -> RawItems:
    """The items of a raw table for a risk score (see :func:`fit_risk_score`).

    Parameters
    ----------
    X : DataFrame
        The raw table.
    binarize : "auto" or Binarizer
        ``"auto"``: a Binarizer with :data:`BINARIZE_OPTIONS` and ``thresholds``; a
        Binarizer is used as is (fitted on ``X`` unless it is fitted already).
    thresholds : mapping column -> cut points, optional
        User cut points (``{"age": [65, 75]}``), with ``binarize="auto"`` only.
    linear : iterable of str
        Columns kept as numbers (points per unit), not binarized.
    one_per_variable_rule : bool
        Add ``AtMostKOf(items of a column, 1)`` for each column with two or more items.
    sample_weight : array-like, optional
        Weights of the rows, for fitting the binarizer.

    Returns
    -------
    RawItems
        The features, the fitted binarizer and the constraints.

    Raises
    ------
    InputError
        For a table that is not a DataFrame, an unknown ``linear`` column, ``thresholds``
        with a Binarizer, or names that clash.
    """
    if not isinstance(X, pd.DataFrame):
        raise InputError(f"binarize needs X as a DataFrame (a raw table), got {type(X).__name__}")
    linear = [str(c) for c in linear]
    unknown = [c for c in linear if c not in X.columns]
    if unknown:
        raise InputError(f"linear names columns not in the data: {', '.join(unknown)}")
    if len(linear) == X.shape[1]:
        raise InputError(
            "every column is in linear: nothing to binarize; pass binarize=False to use "
            "every column as points per unit"
        )
    binarizer = _binarizer(binarize, thresholds)
    raw = X.drop(columns=linear)
    if not hasattr(binarizer, "items_"):
        binarizer.fit(raw, sample_weight=sample_weight)
    features = item_frame(binarizer, X)
    rules = one_per_variable(binarizer) if one_per_variable_rule else ()
    return RawItems(features, binarizer, tuple(rules))


def _binarizer(binarize, thresholds) -> Binarizer:
    if isinstance(binarize, Binarizer):
        if thresholds is not None:
            raise InputError("give thresholds to the Binarizer itself, not fit_risk_score")
        return binarize
    if isinstance(binarize, str) and binarize == "auto":
        return Binarizer(
            thresholds=None if thresholds is None else dict(thresholds), **BINARIZE_OPTIONS
        )
    raise InputError(f"binarize must be 'auto', False or a Binarizer, got {binarize!r}")


def item_frame(binarizer: Binarizer, X: pd.DataFrame) -> pd.DataFrame:
    """The risk-score features of raw rows: the binarizer's items, then every other column.

    Parameters
    ----------
    binarizer : Binarizer
        A fitted binarizer.
    X : DataFrame
        Raw rows with (at least) the binarized columns of the fit.

    Returns
    -------
    DataFrame
        The items (0/1) followed by the columns of ``X`` the binarizer does not read
        (the linear columns), with the index of ``X``.
    """
    items = binarizer.transform(X)
    fitted = {str(c) for c in binarizer.feature_names_in_}
    rest = X[[c for c in X.columns if str(c) not in fitted]]
    out = pd.concat([items, rest], axis=1)
    check_unique_names([str(c) for c in out.columns])
    return out


def reads_raw(binarizer: Binarizer | None, X) -> bool:
    """Whether ``X`` is a raw table for ``binarizer``.

    Parameters
    ----------
    binarizer : Binarizer or None
        The binarizer of a model (None: no raw table is read).
    X : Any
        Rows given to a prediction method.

    Returns
    -------
    bool
        True for a DataFrame with every column that gave items at fit (an item frame has
        the item names instead).
    """
    if binarizer is None or not isinstance(X, pd.DataFrame):
        return False
    columns = {str(c) for c in X.columns}
    return all(item.column in columns for item in binarizer.items_)


def missing_features(binarizer: Binarizer | None, X: pd.DataFrame, missing: list[str]) -> str:
    """Why ``X`` cannot be scored: the model's features it lacks and, for a model fitted on
    a raw table, the raw columns those items are made from (the column a user must add).

    Parameters
    ----------
    binarizer : Binarizer or None
        The binarizer of the model.
    X : DataFrame
        The rows given.
    missing : list of str
        The model's features (items) that are not columns of ``X``.

    Returns
    -------
    str
        The message of the :class:`~riskexplore.errors.InputError`.
    """
    text = f"X lacks the model's feature column(s): {', '.join(missing)}"
    if binarizer is None:
        return text
    columns = {str(c) for c in X.columns}
    wanted = set(missing)
    lost = [i for i in binarizer.items_ if i.name in wanted and i.column not in columns]
    if not lost:
        return text
    raw = ", ".join(repr(c) for c in dict.fromkeys(i.column for i in lost))
    return (
        f"X lacks the column(s) {raw} of the raw table the model was fitted on (the "
        f"model's item(s) {', '.join(i.name for i in lost)}); give every column used at "
        "fit, named as at fit"
    )


def one_per_variable(binarizer: Binarizer) -> list[AtMostKOf]:
    """``AtMostKOf(items of a column, 1)`` for each column with two or more items.

    Parameters
    ----------
    binarizer : Binarizer
        A fitted binarizer.

    Returns
    -------
    list of AtMostKOf
        One constraint per column with several items, in column order.
    """
    groups: dict[str, list[str]] = {}
    for item in binarizer.items_:
        groups.setdefault(item.column, []).append(item.name)
    return [AtMostKOf(tuple(names), 1) for names in groups.values() if len(names) >= 2]
