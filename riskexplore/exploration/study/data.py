"""The data a study names: its identity, and the table a study is opened on.

A study keeps its data's **identity** (:class:`DataIdentity`): the bundled dataset's name
or the uploaded file's name, the outcome, the number of rows, the columns and a SHA-256
hash of the table (:func:`table_digest`); the rows themselves only when asked. Opening a
study, :func:`resolve_data` finds the table again (the rows given, the rows saved, the
bundled dataset, or the table loaded now) and warns (:class:`StudyWarning`) when its hash
differs from the study's.

Plain Python (no Jupyter); the study document itself is
:mod:`riskexplore.exploration.study.document`.

Examples
--------
>>> from riskexplore.datasets import load_dataset
>>> from riskexplore.exploration.study.data import DataIdentity
>>> frame = load_dataset("mammo").frame
>>> DataIdentity.of(frame, "mammo", "bundled", "Malignant", False).describe()
"the bundled dataset 'mammo'"
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from riskexplore.data.tables import read_csv_table
from riskexplore.datasets import dataset_info, list_datasets, load_dataset
from riskexplore.errors import InputError

__all__ = [
    "DataIdentity",
    "ResolvedData",
    "StudyWarning",
    "resolve_data",
    "table_digest",
]


class StudyWarning(UserWarning):
    """A study was opened, but something differs from when it was saved (the data)."""


# --- the data's identity -----------------------------------------------------------------
_digest_cache: tuple[pd.DataFrame, str] | None = None


def table_digest(frame: pd.DataFrame) -> str:
    """The SHA-256 hash (hex) of a table: of its CSV text (header and rows, no index).

    The same table read again from the same CSV file gives the same hash; any changed
    value, row, column name or column order changes it. The last table's hash is kept,
    so asking again for the Explorer's current table is free.

    Parameters
    ----------
    frame : DataFrame
        The table (outcome and features).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    global _digest_cache
    cached = _digest_cache
    if cached is not None and cached[0] is frame:
        return cached[1]
    text = frame.to_csv(index=False, lineterminator="\n")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    _digest_cache = (frame, digest)
    return digest


@dataclass(frozen=True)
class DataIdentity:
    """What a study says about its data.

    Attributes
    ----------
    source : {"bundled", "upload"}
        A bundled dataset (opened by name) or an uploaded file.
    name : str
        The dataset's name or the file's name.
    outcome : str
        The outcome column.
    rows : int
        Rows of the table.
    columns : tuple of str
        Its columns (outcome included).
    sha256 : str
        :func:`table_digest` of the table.
    table : str or None
        The table as CSV text, only when saved with ``include_data=True``.
    """

    source: str
    name: str
    outcome: str
    rows: int
    columns: tuple[str, ...]
    sha256: str
    table: str | None = None

    @classmethod
    def of(
        cls, frame: pd.DataFrame, name: str, source: str, outcome: str, include_data: bool
    ) -> DataIdentity:
        """The identity of ``frame``.

        Parameters
        ----------
        frame : DataFrame
            The whole table.
        name : str
            The dataset's or file's name.
        source : {"bundled", "upload"}
            Where it came from.
        outcome : str
            The outcome column.
        include_data : bool
            Keep the rows (as CSV text) too.

        Returns
        -------
        DataIdentity
            The identity.
        """
        table = frame.to_csv(index=False, lineterminator="\n") if include_data else None
        return cls(
            source=str(source),
            name=str(name),
            outcome=str(outcome),
            rows=int(len(frame)),
            columns=tuple(str(c) for c in frame.columns),
            sha256=table_digest(frame),
            table=table,
        )

    def describe(self) -> str:
        """``"the bundled dataset 'mammo'"`` or ``"the uploaded file 'x.csv'"``.

        Returns
        -------
        str
            The data in a few words.
        """
        kind = "the bundled dataset" if self.source == "bundled" else "the uploaded file"
        return f"{kind} {self.name!r}"


# --- opening: which data ---------------------------------------------------------------------
class _WithData(Protocol):
    """What :func:`resolve_data` reads of a :class:`~riskexplore.exploration.study.Study`."""

    data: DataIdentity


@dataclass
class ResolvedData:
    """The table a study is opened on (see :func:`resolve_data`).

    Attributes
    ----------
    frame : DataFrame
        The table.
    name : str
        Its name (dataset or file).
    source : {"bundled", "upload"}
        Where it came from.
    categorical : tuple of str
        Integer-coded categorical columns (bundled datasets).
    same : bool
        Whether it is the study's table (same hash).
    """

    frame: pd.DataFrame
    name: str
    source: str
    categorical: tuple[str, ...]
    same: bool


def resolve_data(
    study: _WithData,
    data: pd.DataFrame | bytes | str | Path | None = None,
    *,
    data_name: str | None = None,
    current: tuple[pd.DataFrame, str, str] | None = None,
) -> ResolvedData:
    """The table to open ``study`` on, warning (:class:`StudyWarning`) when it differs.

    In order: ``data`` when given; the rows saved in the study; the bundled dataset of
    that name; the ``current`` table (an uploaded file loaded before opening the study).

    Parameters
    ----------
    study : Study
        The study.
    data : DataFrame, bytes, str or Path, optional
        The table to use: a DataFrame, or a CSV file (its bytes or its path).
    data_name : str, optional
        The name of ``data`` (default: the file's name, else the study's data name).
    current : (DataFrame, name, source), optional
        The table loaded now.

    Returns
    -------
    ResolvedData
        The table.

    Raises
    ------
    InputError
        When no table is available (a study of an uploaded file saved without its rows,
        and no table loaded), or when the table lacks the study's columns.
    """
    ident = study.data
    categorical: tuple[str, ...] = ()
    if data is not None:
        frame, name = _as_frame(data, data_name or ident.name)
        source = "upload"
    elif ident.table is not None:
        frame = read_csv_table(ident.table.encode("utf-8"), ident.name)
        if table_digest(frame) != ident.sha256:
            raise InputError(
                f"the table saved in the study does not match its recorded hash ({ident.name})"
            )
        name, source = ident.name, ident.source
    elif ident.source == "bundled":
        if ident.name not in list_datasets():
            raise InputError(
                f"the study was made on the bundled dataset {ident.name!r}, which this "
                f"riskexplore does not have ({', '.join(list_datasets())})"
            )
        frame, name, source = load_dataset(ident.name).frame, ident.name, "bundled"
    elif current is not None and current[0] is not None:
        frame, name, source = current
    else:
        raise InputError(
            f"the study was made on {ident.describe()} ({ident.rows} rows), saved without its "
            "rows: load that file first, then open the study again"
        )
    if source == "bundled" and name in list_datasets():
        categorical = tuple(dataset_info(name).get("categorical") or ())
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    missing = [c for c in ident.columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"the data loaded ({name}) lack columns of the study's data ({ident.name}): "
            f"{', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}; load {ident.name} "
            "first, then open the study again"
        )
    digest = table_digest(frame)
    same = digest == ident.sha256
    if not same:
        warnings.warn(
            f"the data differ from the study's: {name} ({len(frame)} rows, SHA-256 "
            f"{digest[:12]}…) is not the table the study was made on ({ident.name}, "
            f"{ident.rows} rows, SHA-256 {ident.sha256[:12]}…); its models are shown on the "
            "data loaded now, and their certificates hold for the study's data only",
            StudyWarning,
            stacklevel=2,
        )
    return ResolvedData(frame, name, source, categorical, same)


def _as_frame(data: Any, name: str) -> tuple[pd.DataFrame, str]:
    if isinstance(data, pd.DataFrame):
        return data, name
    if isinstance(data, (bytes, bytearray, memoryview)):
        return read_csv_table(bytes(data), name), name
    if isinstance(data, (str, Path)):
        file = Path(data)
        if not file.is_file():
            raise InputError(f"no data file at {str(file)!r}")
        return read_csv_table(file.read_bytes(), file.name), file.name
    raise InputError(f"data must be a DataFrame or a CSV file, got {type(data).__name__}")
