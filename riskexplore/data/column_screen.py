"""Columns that cannot give items: all missing, an identifier, or constant.

:class:`~riskexplore.data.binarize.Binarizer` skips such a column with a
:class:`~riskexplore.errors.DataWarning` naming it and saying why, records it in
``dropped_columns_`` and goes on with the other columns. The rules are simple on purpose:

- **all missing**: no value in any row;
- **an identifier**: a column of text or categories with a different value in every row
  (at least :data:`MIN_ID_ROWS` rows), or a column of whole numbers with a different value
  in every row whose name says it is an identifier (:func:`named_like_id`: ``id``,
  ``patient_id``, ``PatientID``, ``record id``, ``id_visit``, ``index``);
- **constant**: one distinct value in the rows where it is not missing.

>>> import pandas as pd
>>> unusable_reason("patient_id", pd.Series(range(30)))
'an identifier (a different value in every row)'
>>> unusable_reason("age", pd.Series(range(30))) is None
True
"""

from __future__ import annotations

import re
import warnings

import pandas as pd

from riskexplore.errors import DataWarning

__all__ = ["MIN_ID_ROWS", "named_like_id", "skip_column", "unusable_reason"]

#: Fewest rows for a text column with a different value in every row to count as an
#: identifier (a tiny table's ``grade`` column of ``I, II, III`` is not one).
MIN_ID_ROWS = 20

#: ``id`` as a word ending the name (``id``, ``patient_id``, ``record id``) or starting it
#: (``id_visit``), or ``ID``/``Id`` ending a camel-case name (``PatientID``, ``patientId``).
_ID_NAME = re.compile(r"(?:^|[^A-Za-z])[Ii][Dd]$|^[Ii][Dd][^A-Za-z]|[a-z](?:ID|Id)$")
#: Whole names that say "identifier" (any case).
_ID_WORDS = ("index", "key")


def named_like_id(name: str) -> bool:
    """Whether a column's name says it holds identifiers.

    Parameters
    ----------
    name : str
        The column name.

    Returns
    -------
    bool
        True for ``id``, ``index``, ``key`` (any case), a name ending in the word ``id``
        (``patient_id``, ``record id``, ``PatientID``, ``patientId``) or starting with it
        (``id_visit``); False for words that merely end in "id" (``thyroid``, ``lipid``).
    """
    name = name.strip()
    return bool(_ID_NAME.search(name)) or name.lower() in _ID_WORDS


def unusable_reason(name: str, values: pd.Series, *, may_be_id: bool = True) -> str | None:
    """Why a column cannot give items (all missing, or an identifier), or None.

    Parameters
    ----------
    name : str
        The column name.
    values : Series
        The column's training values (missing ones included).
    may_be_id : bool
        Apply the identifier rule (False for a column the user gave cut points).

    Returns
    -------
    str or None
        The reason in words, or None when the column can be used (a constant column is
        recognised by the Binarizer itself, after reading its values).
    """
    present = values.dropna()
    if present.empty:
        rows = "row" if len(values) == 1 else "rows"
        return f"all missing ({len(values)} {rows})"
    if not may_be_id or len(present) < 2 or not present.is_unique:
        return None
    dtype = present.dtype
    text = not pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if text and len(present) >= MIN_ID_ROWS:
        return "an identifier (a different value in every row)"
    if not text and named_like_id(name) and _whole_numbers(present):
        return "an identifier (a different value in every row)"
    return None


def _whole_numbers(values: pd.Series) -> bool:
    if pd.api.types.is_integer_dtype(values.dtype):
        return True
    if not pd.api.types.is_float_dtype(values.dtype):
        return False
    return bool((values.to_numpy(dtype=float) % 1 == 0).all())


def skip_column(dropped: dict, name: str, reason: str) -> None:
    """Record a column in ``dropped`` and warn that it is skipped.

    Parameters
    ----------
    dropped : dict
        Column -> reason (a Binarizer's ``dropped_columns_``), updated in place.
    name : str
        The column.
    reason : str
        Why it gives no items.
    """
    dropped[name] = reason
    warnings.warn(
        f"column {name!r} is skipped: {reason}; the other columns are used",
        DataWarning,
        stacklevel=3,
    )
