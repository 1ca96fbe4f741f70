"""Group columns cut into ranges: the audit's bins of a numeric column as a group column.

A checklist's group-rate limits (:class:`~riskexplore.checklist.constraints.GroupRateGap`,
:class:`~riskexplore.checklist.constraints.WorstGroupRate`) take one group per value of
a group column. When the audit cut a numeric column into ranges (``"age 60 and
older"``), the rule that limits its finding needs a group column holding those ranges:
a **binned group column**, derived from the numeric column and the audit's cut points.

Its name says both, ``"age (ranges at 40, 60)"`` (:func:`binned_column_name`), so the
column can be computed again from its name alone (:func:`binned_column`), on any rows
that have the numeric column: a study file that keeps a rule over it (in the settings'
``group_columns`` and the rule's ``by``) opens with the same groups. Its values are the
audit's labels (``"age under 40"``, ``"age 40 to 59"``, ``"age 60 and older"``, ``"age
missing"``), cut by :func:`~riskexplore.evaluation.audit.groups.column_groups` at the
same points, so its groups are the audit's row for row. It is a group column only: the
model's features (and a checklist's items) stay what they were.

:func:`group_data` gives the group columns of a model's problem (``groups=``), real and
binned alike.

Examples
--------
>>> import pandas as pd
>>> X = pd.DataFrame({"age": [35, 47, 62, 71]})
>>> name = binned_column_name("age", [40, 60])
>>> name
'age (ranges at 40, 60)'
>>> list(binned_column(X, name))
['age under 40', 'age 40 to 59', 'age 60 and older', 'age 60 and older']
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pandas as pd

from riskexplore.errors import InputError
from riskexplore.evaluation.audit.groups import column_groups

__all__ = [
    "binned_column",
    "binned_column_name",
    "group_data",
    "is_group_column",
    "parse_binned_column",
]

_NAME = re.compile(r"^(?P<column>.+) \(ranges at (?P<cuts>[^()]+)\)$")


def _exact(value: float) -> str:
    """A cut point written so that ``float`` reads it back exactly."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def binned_column_name(column: str, cuts: Sequence[float]) -> str:
    """The name of the group column that cuts ``column`` at ``cuts``.

    Parameters
    ----------
    column : str
        The numeric column.
    cuts : sequence of float
        The cut points, increasing (the audit's ``settings["cuts"][column]``).

    Returns
    -------
    str
        ``"column (ranges at c1, c2, ...)"``, every cut point written exactly.

    Raises
    ------
    InputError
        Without cut points, or for cut points that are not finite and increasing.
    """
    points = [float(c) for c in cuts]
    if not points or not all(math.isfinite(c) for c in points):
        raise InputError(f"the cut points of {column!r} must be finite numbers, got {cuts!r}")
    if any(b <= a for a, b in zip(points[:-1], points[1:], strict=False)):
        raise InputError(f"the cut points of {column!r} must increase, got {cuts!r}")
    return f"{column} (ranges at {', '.join(_exact(c) for c in points)})"


def parse_binned_column(name: str) -> tuple[str, list[float]] | None:
    """The numeric column and cut points of a binned group column's name.

    Parameters
    ----------
    name : str
        A group column name.

    Returns
    -------
    (str, list of float) or None
        ``(column, cuts)``, or None when ``name`` is not the name of a binned group
        column (:func:`binned_column_name`).
    """
    match = _NAME.match(str(name))
    if match is None:
        return None
    try:
        cuts = [float(part) for part in match["cuts"].split(", ")]
    except ValueError:
        return None
    if not all(math.isfinite(c) for c in cuts) or any(
        b <= a for a, b in zip(cuts[:-1], cuts[1:], strict=False)
    ):
        return None
    return match["column"], cuts


def is_group_column(name: str, columns: Sequence[str]) -> bool:
    """Whether ``name`` is one of ``columns`` or a binned group column of one of them.

    Parameters
    ----------
    name : str
        A group column name.
    columns : sequence of str
        The data's columns.

    Returns
    -------
    bool
        True for a column of the data, or a binned group column of one of them.
    """
    if name in columns:
        return True
    parsed = parse_binned_column(name)
    return parsed is not None and parsed[0] in columns


def binned_column(X: pd.DataFrame, name: str) -> pd.Series:
    """The binned group column ``name`` on the rows of ``X``.

    Parameters
    ----------
    X : DataFrame
        Rows holding the numeric column.
    name : str
        The name of a binned group column (:func:`binned_column_name`).

    Returns
    -------
    Series of str
        The audit's label of each row's range (``"age 60 and older"``; ``"age
        missing"`` for a missing value), with ``X``'s index, named ``name``.

    Raises
    ------
    InputError
        When ``name`` is no binned group column, or its column is not among ``X``'s or
        not numeric.
    """
    parsed = parse_binned_column(name)
    if parsed is None:
        raise InputError(
            f"{name!r} is not a group column cut into ranges (e.g. 'age (ranges at 40, 60)')"
        )
    column, cuts = parsed
    if column not in X.columns:
        raise InputError(f"the group column {name!r} needs the column {column!r}, not in the data")
    values = X[column]
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        raise InputError(
            f"the group column {name!r} cuts {column!r} into ranges, but {column!r} is not numeric"
        )
    labels, _order, _cuts = column_groups(X, column, cuts, force=True)
    return pd.Series(labels, index=X.index, name=name, dtype=object)


def group_data(X: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The group columns of a problem (``groups=``): columns of ``X``, and binned group
    columns computed from theirs.

    Parameters
    ----------
    X : DataFrame
        The rows.
    columns : sequence of str
        Group column names: columns of ``X`` (taken as they are) or binned group columns
        (:func:`binned_column_name`; a column of ``X`` of that very name wins).

    Returns
    -------
    DataFrame
        One column per name, in order, with ``X``'s index.

    Raises
    ------
    InputError
        For a name that is neither.
    """
    parts = []
    for name in columns:
        name = str(name)
        if name in X.columns:
            parts.append(X[name])
        elif parse_binned_column(name) is not None:
            parts.append(binned_column(X, name))
        else:
            raise InputError(
                f"unknown group column {name!r}: name a column of the data, or one cut into "
                "ranges like 'age (ranges at 40, 60)'"
            )
    if not parts:
        return pd.DataFrame(index=X.index)
    return pd.concat(parts, axis=1)
