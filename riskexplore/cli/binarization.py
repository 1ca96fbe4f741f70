"""How the commands turn raw columns into 0/1 items: the flags (``--cuts``, ``--linear``,
``--no-binarize``, ``--any-items-per-variable``), their checks against the data, the
categorical codes of a bundled dataset, and the summary printed with the model.

``--cuts`` takes ``COL=V1,V2`` (items ``COL ≥ V1``, ``COL ≥ V2``) or ``COL<=V`` with an
operator (``>=``, ``>``, ``<=``, ``<``, also ``≥``, ``≤``) and one or more numbers
(``"pH<=7.29"``); it is repeatable and a column named twice gets every cut point given.
"""

from __future__ import annotations

import argparse
import math
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.cli.errors import CLIError
from riskexplore.data.binarize import Binarizer, format_value
from riskexplore.datasets import dataset_info, list_datasets

__all__ = [
    "Cut",
    "add_binarization",
    "all_binary",
    "bundled_categorical",
    "cut_argument",
    "linear_columns",
    "print_summary",
    "summary",
    "thresholds",
]

_SHOW = 8  # columns listed in an error before "... (N more)"
_WIDTH = 100  # characters of a wrapped line of the summary
# the first operator in the text splits it; two-character operators before one-character ones
_CUT = re.compile(r"^(?P<column>.*?)\s*(?P<op>>=|=>|<=|=<|≥|≤|>|<|=)\s*(?P<values>.*)$")
_SYMBOL = {">=": "≥", "=>": "≥", "≥": "≥", "<=": "≤", "=<": "≤", "≤": "≤", ">": ">", "<": "<"}
_CUTS_HELP = (
    "cut points of a numeric column instead of its quantiles: COL=V1,V2 gives the items "
    "COL ≥ V1 and COL ≥ V2; COL<=V (or >=, >, <) gives COL ≤ V (repeatable)"
)


@dataclass(frozen=True)
class Cut:
    """One ``--cuts`` value: the column, its ``(operator, number)`` cut points, the text."""

    column: str
    cuts: tuple[tuple[str, float], ...]
    text: str


def cut_argument(text: str) -> Cut:
    """A ``--cuts`` value (an argparse ``type=``): ``COL=V1,V2`` or ``COL<=V``.

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    Cut
        The column and its cut points (``=`` means ``≥``).

    Raises
    ------
    argparse.ArgumentTypeError
        Without a column, an operator or numbers.
    """
    shape = f"expected COL=V1,V2 or COL<=V with numbers, got {text!r}"
    match = _CUT.match(text.strip())
    if match is None or not match["column"].strip():
        raise argparse.ArgumentTypeError(shape)
    op = ">=" if match["op"] == "=" else match["op"]
    cuts = []
    for part in match["values"].split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} in {text!r} is not a number ({shape})"
            ) from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{part.strip()!r} in {text!r} is not finite")
        cuts.append((op, value))
    return Cut(match["column"].strip(), tuple(cuts), text)


def add_binarization(parser: argparse.ArgumentParser, *, linear: bool) -> None:
    """``--cuts`` and ``--any-items-per-variable``; with ``linear``, also ``--linear`` and
    ``--no-binarize``.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    linear : bool
        Whether the model can keep a column as a number (points per unit).
    """
    text = (
        "A raw table becomes 0/1 items: a numeric column gives threshold items (age ≥ 65), "
        "a text column one item per category (sex = F)"
    )
    if linear:
        text += (
            ", a 0/1 column one item, and a column with missing values also an item "
            "'COL missing'. A table whose columns are all 0/1 is used as it is."
        )
    group = parser.add_argument_group("raw columns", text + ("" if linear else "."))
    group.add_argument(
        "--cuts", action="append", type=cut_argument, metavar="COL=V1,V2", help=_CUTS_HELP
    )
    if linear:
        group.add_argument(
            "--linear",
            action="append",
            metavar="COL",
            help="keep this numeric column as a number: points per unit (repeatable, or "
            "a comma list)",
        )
        group.add_argument(
            "--no-binarize",
            action="store_true",
            help="use every column as a number (points per unit): the columns must be "
            "numeric, without missing values",
        )
    group.add_argument(
        "--any-items-per-variable",
        action="store_true",
        help="allow several items of the same column (default: at most one, e.g. one "
        "threshold of age)",
    )


def thresholds(cuts: Sequence[Cut] | None, X: pd.DataFrame) -> dict[str, list] | None:
    """The ``thresholds`` of the Binarizer from ``--cuts``, checked against the data.

    Parameters
    ----------
    cuts : sequence of Cut or None
        The ``--cuts`` values.
    X : DataFrame
        The features.

    Returns
    -------
    dict or None
        Column -> ``[(operator, number), ...]`` (None without ``--cuts``).

    Raises
    ------
    CLIError
        For a column not in the data or not numeric, naming the flag and the value.
    """
    if not cuts:
        return None
    out: dict[str, list] = {}
    for cut in cuts:
        series = _column(X, cut.column, f"--cuts {cut.text}")
        if not _numeric(series):
            raise CLIError(
                f"--cuts {cut.text}: column {cut.column!r} is not numeric (values such as "
                f"{_example(series)!r}); cut points need a numeric column"
            )
        merged = out.setdefault(cut.column, [])
        merged.extend(c for c in cut.cuts if c not in merged)
    return out


def linear_columns(given: Iterable[str] | None, X: pd.DataFrame) -> list[str]:
    """The columns of ``--linear`` (repeated or comma lists), checked against the data.

    Parameters
    ----------
    given : iterable of str or None
        The ``--linear`` values.
    X : DataFrame
        The features.

    Returns
    -------
    list of str
        The columns, each once.

    Raises
    ------
    CLIError
        For a column not in the data, not numeric or with missing values.
    """
    out: list[str] = []
    for text in given or ():
        for column in (c.strip() for c in text.split(",")):
            series = _column(X, column, f"--linear {text}")
            if not _numeric(series):
                raise CLIError(
                    f"--linear {text}: column {column!r} is not numeric (values such as "
                    f"{_example(series)!r}); leave it out of --linear to make items of it"
                )
            missing = int(series.isna().sum())
            if missing:
                raise CLIError(
                    f"--linear {text}: column {column!r} has missing values in {missing} "
                    "rows; points per unit need a number in every row (leave it out of "
                    "--linear to give its missing values an item)"
                )
            if column not in out:
                out.append(column)
    return out


def _column(X: pd.DataFrame, column: str, flag: str) -> pd.Series:
    if not column or column not in X.columns:
        shown = ", ".join(repr(str(c)) for c in list(X.columns)[:_SHOW])
        more = "" if X.shape[1] <= _SHOW else f", ... ({X.shape[1] - _SHOW} more)"
        raise CLIError(f"{flag}: no column {column!r} in the data (columns: {shown}{more})")
    return X[column]


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _example(series: pd.Series) -> Any:
    values = series.dropna()
    return values.iloc[0] if len(values) else None


def all_binary(X: pd.DataFrame) -> bool:
    """Whether every column holds only the numbers 0 and 1 (no missing values): such a
    table is used as it is, the items being its columns.

    Parameters
    ----------
    X : DataFrame
        The features.

    Returns
    -------
    bool
        True for a 0/1 table.
    """
    for column in X.columns:
        series = X[column]
        if not pd.api.types.is_numeric_dtype(series) or series.isna().any():
            return False
        if not np.isin(series.to_numpy(dtype=float), (0.0, 1.0)).all():
            return False
    return True


def bundled_categorical(data: str, name: str, X: pd.DataFrame) -> list[str]:
    """The columns of a bundled dataset that hold category codes (heart's ``cp``, ``thal``,
    ...), to be read as categories; none for a CSV file.

    Parameters
    ----------
    data : str
        ``DATA`` as given.
    name : str
        The dataset's name.
    X : DataFrame
        The features.

    Returns
    -------
    list of str
        The columns (empty for a file or a dataset without codes).
    """
    if Path(data).is_file() or data.strip().lower() not in list_datasets():
        return []
    return [c for c in dataset_info(name).get("categorical") or () if c in X.columns]


def summary(binarizer: Binarizer, linear: Sequence[str] = (), one_per_column: bool = True) -> str:
    """What became of each raw column: its kind and cut points or categories, the linear
    columns and the columns left out, with the reason.

    Parameters
    ----------
    binarizer : Binarizer
        The fitted binarizer of the model.
    linear : sequence of str
        Columns kept as numbers (points per unit).
    one_per_column : bool
        Whether the model uses at most one item of each column.

    Returns
    -------
    str
        A few lines: a title, then one line per column.
    """
    items = binarizer.items_
    columns = list(dict.fromkeys(item.column for item in items))
    zero_one = [c for c in columns if _zero_one(binarizer, c)]
    rule = "at most one per column" if one_per_column else "any number per column"
    rows = [(c, *_describe(binarizer, c)) for c in columns if c not in zero_one]
    rows += [(column, "per unit", "--linear") for column in linear]
    rows += [(str(c), "skipped", why) for c, why in binarizer.dropped_columns_.items()]
    width = max((len(r[0]) for r in rows), default=0)
    kind_width = max((len(r[1]) for r in rows), default=0)
    lines = [f"{len(items)} items from {len(columns)} raw columns ({rule}):"]
    lines += [f"  {c:<{width}}  {k:<{kind_width}}  {text}" for c, k, text in rows]
    if zero_one:
        lines += textwrap.wrap(
            "0/1 columns, one item each: " + ", ".join(zero_one),
            width=_WIDTH,
            initial_indent="  ",
            subsequent_indent="    ",
            break_on_hyphens=False,
        )
    return "\n".join(lines)


def _zero_one(binarizer: Binarizer, column: str) -> bool:
    """Whether a column is 0/1 and gives one item, named as the column."""
    values = [format_value(v) for v in binarizer.categories_.get(column, ())]
    kind = binarizer.column_kinds_.get(column)
    return kind == "binary" and values in (["0", "1"], ["False", "True"])


def _describe(binarizer: Binarizer, column: str) -> tuple[str, str]:
    """``(kind, cut points or categories)`` of a column with items."""
    kind = binarizer.column_kinds_.get(column, "")
    parts = []
    if column in binarizer.thresholds_:
        cuts = binarizer.thresholds_[column]
        parts.append(", ".join(f"{_SYMBOL.get(op, op)} {format_value(v)}" for op, v in cuts))
    elif column in binarizer.categories_:
        parts.append(_first([format_value(v) for v in binarizer.categories_[column]]))
    if any(i.column == column and i.op == "missing" for i in binarizer.items_):
        parts.append(f"'{column} missing'")
    label = "your cut points" if kind == "thresholds" else kind
    return label, "; ".join(parts)


def _first(values: list[str], room: int = 60) -> str:
    """``values`` joined by commas, as many as fit in ``room`` characters (at least one),
    then ``... (N more)``."""
    shown: list[str] = []
    for value in values:
        if shown and len(", ".join([*shown, value])) > room:
            break
        shown.append(value)
    more = len(values) - len(shown)
    return ", ".join(shown) + (f", ... ({more} more)" if more else "")


def print_summary(model: Any, binarization: dict[str, Any]) -> None:
    """Print the :func:`summary` of a fitted model's binarizer, if it has one.

    Parameters
    ----------
    model : object
        The fitted model (its ``binarizer``, or None for a table used as given).
    binarization : dict
        The fit's raw-table arguments (``linear``, ``one_per_variable``).
    """
    if model.binarizer is None:
        return
    linear = binarization.get("linear", ())
    one_per_column = binarization.get("one_per_variable", True)
    print(summary(model.binarizer, linear, one_per_column), end="\n\n")
