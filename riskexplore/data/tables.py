"""Reading a CSV file into a table, refusing what pandas would silently change.

:func:`read_csv_table` is the CSV reader of the command line, the dashboards' upload and
the Python API. pandas renames a repeated header name (the second ``a`` becomes ``a.1``),
after which a model would speak of a feature that is not in the user's file; here a
repeated name is an :class:`~riskexplore.errors.InputError` naming the column. Every
problem reading the file is one such error, with a one-line message.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pandas as pd

from riskexplore.data.validation import check_unique_names
from riskexplore.errors import InputError

__all__ = ["read_csv_table"]


def read_csv_table(source, name: str | None = None) -> pd.DataFrame:
    """Read a CSV file with a header row (comma-separated, UTF-8) into a DataFrame.

    Parameters
    ----------
    source : str, path, bytes or file object
        A file's path, its content, or an open file (binary or text).
    name : str, optional
        What to call the file in messages (default: the file's name, else "the CSV file").

    Returns
    -------
    DataFrame
        The table.

    Raises
    ------
    InputError
        The file repeats a column name (naming it and its columns), is empty, is not
        UTF-8 text, or cannot be parsed as CSV.
    """
    if isinstance(source, str | os.PathLike):
        label = name or Path(source).name
        read = lambda **kw: pd.read_csv(source, **kw)  # noqa: E731
    else:
        label = name or "the CSV file"
        if isinstance(source, bytes | bytearray | memoryview):
            content = bytes(source)
        else:
            content = source.read()
        make = io.BytesIO if isinstance(content, bytes) else io.StringIO
        read = lambda **kw: pd.read_csv(make(content), **kw)  # noqa: E731
    try:
        # the header row as written (pandas would rename a repeated name)
        header = read(header=None, nrows=1, dtype=str, keep_default_na=False)
        check_unique_names(header.iloc[0] if len(header) else [], label)
        return read()
    except InputError:
        raise
    except UnicodeDecodeError:
        raise InputError(f"{label} is not a text CSV file (UTF-8)") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{label} is empty") from None
    except (pd.errors.ParserError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not read {label} as CSV: {first}") from None
