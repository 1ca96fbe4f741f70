"""How the Explorer's raw table becomes yes/no items: the user's choices and what they give.

A raw table (numbers, categories, yes/no columns, missing values) is turned into items
such as ``age ≥ 65``, ``cp = 2`` or ``creatinine missing`` by the family's
:class:`~riskexplore.data.binarize.Binarizer` (its registry entry says which:
:class:`~riskexplore.core.registry.RawTableSpec`). :class:`Binarization` keeps what the
user chose in the Explorer's step 2, for both families alike:

* **cut points** of a numeric column, replacing the data's own (``"65, 75"`` gives
  ``age ≥ 65`` and ``age ≥ 75``; an operator may lead a cut point: ``"> 0"``);
* **categories**: a numeric column (integer codes) read as one item per value;
* **points per unit** (``linear``): a numeric column kept as a number, for families
  whose models can (:attr:`RawTableSpec.linear <riskexplore.core.registry.RawTableSpec>`).

:meth:`Binarization.fitted` fits the family's binarizer on the training rows with these
choices (kept until data, family, settings or choices change), and
:meth:`Binarization.columns` says what each column became (:class:`ColumnView`: its kind,
its cut points, its items, or why it was skipped). Every solve of the Explorer gets that
same fitted binarizer, so the items shown are the items searched.

Plain Python (no Jupyter): :class:`~riskexplore.exploration.explorer.ExplorerState` holds
one, the widget of step 2 (:mod:`riskexplore.widgets.explorer.binarization`) shows it, and
study files keep its choices (:meth:`Binarization.to_dict`).

Examples
--------
>>> import pandas as pd
>>> from riskexplore.exploration.binarization import parse_cut_points
>>> parse_cut_points("65, 75")
(('>=', 65), ('>=', 75))
>>> parse_cut_points("> 0; 1.5")
(('>', 0), ('>=', 1.5))
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from riskexplore.core.registry import ModelFamily
from riskexplore.data.binarize import format_value
from riskexplore.errors import InputError

__all__ = [
    "Binarization",
    "ColumnView",
    "changes_nothing",
    "cut_points_text",
    "parse_cut_points",
]

#: Operators a cut point may start with, and how they are stored.
_OPERATORS = {
    "≥": ">=",
    ">=": ">=",
    "=>": ">=",
    ">": ">",
    "≤": "<=",
    "<=": "<=",
    "=<": "<=",
    "<": "<",
}
_SYMBOLS = {">=": "", ">": "> ", "<=": "≤ ", "<": "< "}
_TOKEN = re.compile(r"^\s*(≥|>=|=>|>|≤|<=|=<|<)?\s*(.+?)\s*$")
#: Binarizer kinds of a column with cut points.
_NUMERIC = ("numeric", "thresholds")


def parse_cut_points(text: str | Sequence) -> tuple[tuple[str, float], ...]:
    """Cut points typed by a user (``"65, 75"``, ``"> 0; 1.5"``) as ``(op, value)`` pairs.

    Parameters
    ----------
    text : str or sequence
        Numbers separated by commas, semicolons or spaces, each optionally led by an
        operator (``≥`` by default; ``>``, ``≤``, ``<``); or a sequence of numbers or
        ``(op, value)`` pairs.

    Returns
    -------
    tuple of (str, number)
        The cut points in the order given, without repeats (whole numbers as ints).

    Raises
    ------
    InputError
        For a token that is not a finite number, or no cut point at all.
    """
    if isinstance(text, str):
        tokens = _join_operators([t for t in re.split(r"[,;\s]+", text) if t])
    else:
        tokens = list(text)
    out: list[tuple[str, float]] = []
    for token in tokens:
        pair = _cut(token)
        if pair not in out:
            out.append(pair)
    if not out:
        raise InputError("give at least one cut point, e.g. 65, 75")
    return tuple(out)


def _join_operators(tokens: list[str]) -> list[str]:
    """``["≥", "65"]`` (an operator typed apart from its number) as ``["≥65"]``."""
    out: list[str] = []
    for token in (t.strip() for t in tokens):
        if out and out[-1] in _OPERATORS:
            out[-1] += token
        else:
            out.append(token)
    return out


def _cut(token: Any) -> tuple[str, float]:
    if isinstance(token, (tuple, list)) and len(token) == 2 and isinstance(token[0], str):
        op, value = token
        if op not in _OPERATORS:
            raise InputError(f"unknown operator {op!r} in a cut point; use ≥, >, ≤ or <")
        return _OPERATORS[op], _number(value)
    if not isinstance(token, str):
        return ">=", _number(token)
    match = _TOKEN.match(token)
    op = _OPERATORS[match.group(1)] if match and match.group(1) else ">="
    return op, _number(match.group(2) if match else token)


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{value!r} is not a number; write cut points as 65, 75") from None
    if isinstance(value, bool) or not math.isfinite(number):
        raise InputError(f"{value!r} is not a finite number; write cut points as 65, 75")
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def cut_points_text(cuts: Sequence[tuple[str, Any]]) -> str:
    """``(op, value)`` pairs as a user types them: ``"> 0, 0.38, 1.12"`` (``≥`` unwritten).

    Parameters
    ----------
    cuts : sequence of (str, number)
        Cut points.

    Returns
    -------
    str
        Their text (read back by :func:`parse_cut_points`).
    """
    return ", ".join(f"{_SYMBOLS.get(op, op + ' ')}{format_value(v)}" for op, v in cuts)


@dataclass(frozen=True)
class ColumnView:
    """What one column of the raw table became.

    Attributes
    ----------
    name : str
        The column.
    kind : str
        ``"numeric"``, ``"categorical"``, ``"binary"``, ``"skipped"``, or ``"as is"``
        (no binarization: the column is a feature as it is).
    cuts : tuple of (str, number)
        Its cut points (numeric columns; empty for a linear one).
    items : tuple of str
        The items it gives (empty when skipped or linear).
    reason : str or None
        Why it was skipped.
    edited : bool
        Whether its cut points are the user's.
    linear : bool
        Kept as a number (points per unit).
    categorical : bool
        Read as categories because the user chose so.
    """

    name: str
    kind: str
    cuts: tuple = ()
    items: tuple[str, ...] = ()
    reason: str | None = None
    edited: bool = False
    linear: bool = False
    categorical: bool = False

    @property
    def cut_text(self) -> str:
        """The cut points as typed (``"65, 75"``), empty without any."""
        return cut_points_text(self.cuts)

    @property
    def editable(self) -> bool:
        """Whether its cut points can be changed (a numeric column, not linear)."""
        return self.kind == "numeric" and not self.linear


class Binarization:
    """The user's choices of how the raw table becomes items, and the binarizer they give.

    Attributes
    ----------
    cut_points : dict
        Column -> its cut points as ``(op, value)`` pairs, replacing the data's own.
    linear : tuple of str
        Columns kept as numbers (points per unit), for families whose models can.
    categorical : tuple of str
        Numeric columns read as categories (one item per value).
    """

    def __init__(
        self,
        cut_points: Mapping[str, Any] | None = None,
        linear: Sequence[str] = (),
        categorical: Sequence[str] = (),
    ) -> None:
        self.cut_points = {str(c): parse_cut_points(v) for c, v in (cut_points or {}).items()}
        self.linear = tuple(dict.fromkeys(str(c) for c in linear))
        self.categorical = tuple(dict.fromkeys(str(c) for c in categorical))
        self._cache: tuple[Any, Any] | None = None

    # --- the choices --------------------------------------------------------------------
    def key(self) -> tuple:
        """The choices as a hashable value (a new one when they change)."""
        cuts = tuple(sorted(self.cut_points.items()))
        return cuts, self.linear, self.categorical

    def is_default(self) -> bool:
        """Whether nothing was chosen (every column as the binarizer reads it)."""
        return not (self.cut_points or self.linear or self.categorical)

    def copy(self) -> Binarization:
        """The same choices (a new object, with no binarizer fitted yet)."""
        return Binarization(self.cut_points, self.linear, self.categorical)

    def with_cut_points(self, column: str, cuts: str | Sequence | None) -> Binarization:
        """The choices with ``column``'s cut points replaced (None or ``""``: its own).

        Parameters
        ----------
        column : str
            A numeric column.
        cuts : str, sequence or None
            Cut points (see :func:`parse_cut_points`).

        Returns
        -------
        Binarization
            New choices (these stay as they are).
        """
        new = self.copy()
        column = str(column)
        if cuts is None or (isinstance(cuts, str) and not cuts.strip()):
            new.cut_points.pop(column, None)
        else:
            try:
                new.cut_points[column] = parse_cut_points(cuts)
            except InputError as exc:
                raise InputError(f"cut points of {column!r}: {exc}") from None
        return new

    def with_use(self, column: str, use: str) -> Binarization:
        """The choices with how ``column`` is used: ``"items"`` (cut points or categories
        as the data say), ``"categories"`` (one item per value) or ``"number"`` (points
        per unit).

        Parameters
        ----------
        column : str
            The column.
        use : {"items", "categories", "number"}
            How to use it.

        Returns
        -------
        Binarization
            New choices.
        """
        if use not in ("items", "categories", "number"):
            raise InputError(f"use a column as 'items', 'categories' or 'number', not {use!r}")
        column = str(column)
        linear = [c for c in self.linear if c != column] + ([column] if use == "number" else [])
        categorical = [c for c in self.categorical if c != column]
        categorical += [column] if use == "categories" else []
        new = Binarization(self.cut_points, linear, categorical)
        if use != "items":
            new.cut_points.pop(column, None)
        return new

    def check_columns(self, features: Sequence[str]) -> None:
        """Raise :class:`InputError` unless every column chosen is a feature.

        Parameters
        ----------
        features : sequence of str
            The table's feature columns.
        """
        known = set(features)
        named = [*self.cut_points, *self.linear, *self.categorical]
        unknown = [c for c in dict.fromkeys(named) if c not in known]
        if unknown:
            raise InputError(
                f"no feature column {', '.join(repr(c) for c in unknown)} in these data"
            )

    def restricted(self, features: Sequence[str]) -> Binarization:
        """The choices about columns among ``features`` (an outcome chosen later drops its
        own).

        Parameters
        ----------
        features : sequence of str
            The feature columns.

        Returns
        -------
        Binarization
            The choices kept.
        """
        known = set(features)
        return Binarization(
            {c: v for c, v in self.cut_points.items() if c in known},
            [c for c in self.linear if c in known],
            [c for c in self.categorical if c in known],
        )

    # --- what they give -----------------------------------------------------------------
    def fitted(
        self,
        family: ModelFamily,
        X: pd.DataFrame,
        settings: Mapping[str, Any],
        categorical: Sequence[str] = (),
        version: Any = None,
    ):
        """The family's binarizer with these choices, fitted on ``X`` (kept for the same
        data version, family, settings and choices).

        Parameters
        ----------
        family : ModelFamily
            The model family (its :attr:`~riskexplore.core.registry.ModelFamily.raw_table`).
        X : DataFrame
            The training rows (raw features).
        settings : mapping
            The Explorer's settings.
        categorical : sequence of str
            Integer-coded categorical columns of a bundled dataset.
        version : hashable, optional
            The version of ``X`` (the state's data version): the binarizer fitted last
            is kept for the same version and parameters (None: fitted again).

        Returns
        -------
        Binarizer or None
            None when the family binarizes nothing with these settings.

        Raises
        ------
        InputError
            When the binarizer cannot read the table with these choices.
        """
        spec = family.raw_table
        if spec is None:
            return None
        linear = self.linear_for(family, X)
        forced = [c for c in dict.fromkeys([*categorical, *self.categorical]) if c in X.columns]
        cuts = {c: list(v) for c, v in self.cut_points.items() if c not in forced}
        binarizer = spec.binarizer(settings, thresholds=cuts, categorical=forced)
        if binarizer is None:
            return None
        key = (version, family.name, repr(binarizer.get_params()), linear)
        if version is not None and self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        binarizer.fit(X.drop(columns=list(linear)))
        self._cache = (key, binarizer)
        return binarizer

    def linear_for(self, family: ModelFamily, X: pd.DataFrame) -> tuple[str, ...]:
        """The columns kept as numbers for ``family`` (none if its models cannot).

        Parameters
        ----------
        family : ModelFamily
            The model family.
        X : DataFrame
            The features.

        Returns
        -------
        tuple of str
            The linear columns among ``X``'s.
        """
        if family.raw_table is None or not family.raw_table.linear:
            return ()
        return tuple(c for c in self.linear if c in X.columns)

    def columns(self, binarizer, features: Sequence[str], linear: Sequence[str] = ()) -> list:
        """What each feature column became with ``binarizer`` (see :class:`ColumnView`).

        Parameters
        ----------
        binarizer : Binarizer or None
            The fitted binarizer (None: every column is a feature as it is).
        features : sequence of str
            The feature columns, in order.
        linear : sequence of str
            The columns kept as numbers.

        Returns
        -------
        list of ColumnView
            One per column.
        """
        if binarizer is None:
            return [ColumnView(str(c), "as is") for c in features]
        items: dict[str, list[str]] = {}
        for item in binarizer.items_:
            items.setdefault(item.column, []).append(item.name)
        dropped = dict(getattr(binarizer, "dropped_columns_", {}))
        return [self._column(str(c), binarizer, items, dropped, linear) for c in features]

    def _column(self, name: str, binarizer, items, dropped, linear) -> ColumnView:
        user = name in self.categorical
        if name in linear:
            return ColumnView(name, "numeric", linear=True)
        if name in dropped:
            return ColumnView(name, "skipped", reason=str(dropped[name]))
        kind = binarizer.column_kinds_.get(name)
        if kind is None:  # (a binarizer that leaves a column out without saying why)
            return ColumnView(name, "skipped", reason="gives no item")
        cuts = tuple(tuple(c) for c in binarizer.thresholds_.get(name, ()))
        return ColumnView(
            name,
            "numeric" if kind in _NUMERIC else kind,
            cuts=cuts,
            items=tuple(items.get(name, ())),
            edited=name in self.cut_points,
            categorical=user,
        )

    # --- study files ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The choices as JSON data (see :meth:`from_dict`).

        Returns
        -------
        dict
            ``cut_points`` (column -> ``[[op, value], ...]``), ``linear``, ``categorical``.
        """
        return {
            "cut_points": {c: [[op, v] for op, v in cuts] for c, cuts in self.cut_points.items()},
            "linear": list(self.linear),
            "categorical": list(self.categorical),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Binarization:
        """The choices of :meth:`to_dict`, checked.

        Parameters
        ----------
        data : mapping
            ``cut_points``, ``linear`` and ``categorical``.

        Returns
        -------
        Binarization
            The choices.

        Raises
        ------
        InputError
            For anything else.
        """
        if not isinstance(data, Mapping) or set(data) != {"cut_points", "linear", "categorical"}:
            raise InputError("must have exactly cut_points, linear and categorical")
        cuts, linear, categorical = data["cut_points"], data["linear"], data["categorical"]
        if not isinstance(cuts, Mapping) or not all(
            isinstance(v, (list, tuple)) for v in cuts.values()
        ):
            raise InputError("cut_points must map columns to lists of [operator, value]")
        for name, value in (("linear", linear), ("categorical", categorical)):
            if not isinstance(value, (list, tuple)) or not all(isinstance(c, str) for c in value):
                raise InputError(f"{name} must be a list of column names")
        return cls({c: [tuple(p) for p in v] for c, v in cuts.items()}, linear, categorical)


def changes_nothing(binarizer) -> bool:
    """Whether ``binarizer`` passes every column through as the same 0/1 feature (an
    all-yes/no table without missing values: its items are its columns).

    Parameters
    ----------
    binarizer : Binarizer
        A fitted binarizer.

    Returns
    -------
    bool
        True when its items are exactly its columns, each a 0/1 column's ``col == 1``.
    """
    columns = [str(c) for c in binarizer.feature_names_in_]
    names = [item.name for item in binarizer.items_]
    kinds = binarizer.column_kinds_
    same = all(
        item.op == "==" and item.value in (1, True) and item.name == item.column
        for item in binarizer.items_
    )
    binary = all(kinds.get(c) == "binary" for c in columns)
    return same and binary and names == columns and not getattr(binarizer, "dropped_columns_", {})
