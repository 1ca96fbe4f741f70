"""Categories of a column: a category as written in any file (``1``, ``"1"``, ``" 1 "``
are one), values of another file matched to the fitted categories, the sorted levels of a
column and their counts.

:class:`~riskexplore.data.binarize.Binarizer` makes its ``=`` items from them.
"""

from __future__ import annotations

import numbers

import pandas as pd

from riskexplore.data.items import plain_value

__all__ = ["as_fitted_categories", "category_counts", "category_key", "sorted_levels"]


def category_key(value):
    """A category as written in any file: a number for number-like values (``1``, ``1.0``,
    ``"1"``, ``" 1 "``), else the text without surrounding spaces.

    Parameters
    ----------
    value : Any
        A category as read.

    Returns
    -------
    Any
        Its key: a Python number, or the text stripped.
    """
    value = plain_value(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real):
        return value
    text = str(value).strip()
    try:
        return plain_value(float(text))
    except ValueError:
        return text


def as_fitted_categories(series: pd.Series, categories) -> pd.Series:
    """``series`` with each value that is not a fitted category but is written like exactly
    one of them (``"1"`` for ``1``, ``1`` for ``"1"``, ``"yes "`` for ``"yes"``) replaced by
    that category: the same column read from another file (strings instead of numbers) must
    give the same items, not silently none.

    Parameters
    ----------
    series : Series
        A column of another file.
    categories : sequence
        The categories fitted.

    Returns
    -------
    Series
        The column, its values matched to the fitted categories where one matches.
    """
    unseen = ~series.isin(categories) & series.notna()
    if not unseen.any():
        return series
    keys: dict = {}
    for category in categories:
        keys.setdefault(category_key(category), []).append(category)
    mapping = {}
    for value in pd.unique(series[unseen].to_numpy(dtype=object)):
        match = keys.get(category_key(value), [])
        if len(match) == 1:
            mapping[value] = match[0]
    if not mapping:
        return series
    return series.map(lambda value: mapping.get(value, value))


def sorted_levels(values: pd.Series) -> list:
    """The distinct values of a column, as plain Python values, sorted (mixed types by
    type name, then text).

    Parameters
    ----------
    values : Series
        A column (none missing).

    Returns
    -------
    list
        Its distinct values, sorted.
    """
    levels = list(pd.unique(values.to_numpy(dtype=object)))
    levels = [plain_value(v) for v in levels]
    try:
        return sorted(levels)
    except TypeError:
        return sorted(levels, key=lambda v: (type(v).__name__, str(v)))


def category_counts(values: pd.Series) -> dict:
    """Category -> number of rows, the categories as :func:`plain_value` gives them.

    Parameters
    ----------
    values : Series
        A column.

    Returns
    -------
    dict
        Category -> number of rows.
    """
    return (
        pd.Series([plain_value(v) for v in values.to_numpy(dtype=object)]).value_counts().to_dict()
    )
