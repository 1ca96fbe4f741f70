"""Binary items: :class:`Item` (``1[column op value]`` with its readable name), the names
of a column's items, their values written compactly (:func:`format_value`), and an item's
value on a column.

:class:`~riskexplore.data.binarize.Binarizer` makes the items; their cut points come from
:mod:`riskexplore.data.thresholds`, their categories from :mod:`riskexplore.data.categories`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from riskexplore.errors import InputError

__all__ = ["COMPLEMENT", "SYMBOL", "Item", "format_value", "plain_value"]

#: Canonical (ASCII) operator -> the symbol of item names.
SYMBOL = {">=": "≥", ">": ">", "<=": "≤", "<": "<", "==": "=", "!=": "≠"}
#: Each operator -> that of the complementary item.
COMPLEMENT = {">=": "<", "<": ">=", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


def plain_value(value):
    """A numpy / pandas scalar as the equivalent Python scalar (JSON-friendly; an integral
    float as an int).

    Parameters
    ----------
    value : Any
        A value of a column.

    Returns
    -------
    Any
        The Python value.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def format_value(value) -> str:
    """Compact text of a threshold or category: ``55``, ``7.29``, ``0.3333``, ``Male``.

    Integers (and integral floats) are written without ``.0``; other floats rounded to
    4 significant digits but at least to integers (``12345.6`` -> ``12346``, as the
    adaptive thresholds are rounded), never in exponent notation; anything else with
    ``str``.

    Parameters
    ----------
    value : Any
        A threshold or category.

    Returns
    -------
    str
        Its text.
    """
    value = plain_value(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if not math.isfinite(value):
        return str(value)
    value = round_threshold(value)
    if value.is_integer():
        return str(int(value))
    return np.format_float_positional(value, trim="-")


def round_threshold(value: float) -> float:
    """Round to 4 significant digits, but never below integer precision (12345.6 -> 12346).

    Parameters
    ----------
    value : float
        A cut point.

    Returns
    -------
    float
        The rounded cut point (0 and non-finite values as they are).
    """
    if value == 0 or not math.isfinite(value):
        return float(value)
    decimals = max(0, 3 - math.floor(math.log10(abs(value))))
    return float(round(value, decimals))


@dataclass(frozen=True)
class Item:
    """One binary item: ``1[column op value]`` with a readable ``name``.

    ``op`` is one of ``">="``, ``">"``, ``"<="``, ``"<"`` (threshold items) or ``"=="``,
    ``"!="`` (categorical and binary items; a binary column ``c`` gives the items
    ``c == 1`` named ``"c"`` and ``c != 1`` named ``"not c"``) or ``"missing"`` (the
    item ``"c missing"`` of the ``missing="indicator"`` policy; its ``value`` is None).
    """

    name: str
    column: str
    op: str
    value: object

    def to_dict(self) -> dict:
        """The item as a JSON-ready dict (see :meth:`from_dict`)."""
        return {"name": self.name, "column": self.column, "op": self.op, "value": self.value}

    @classmethod
    def from_dict(cls, data: dict) -> Item:
        """The item of a dict of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            The item's ``name``, ``column``, ``op`` and ``value``.

        Returns
        -------
        Item
            The item.
        """
        return cls(str(data["name"]), str(data["column"]), str(data["op"]), data["value"])

    def describe(self) -> str:
        """The item in words (``age ≥ 54``, ``cp = 2``)."""
        return self.name


def name_items(raw, kinds: dict) -> list:
    """Items with readable, unique names from (column, op, value) triples.

    Parameters
    ----------
    raw : iterable of tuple
        ``(column, op, value)`` of each item.
    kinds : dict
        Column -> its kind (``binary`` columns give ``c`` and ``not c``).

    Returns
    -------
    list of Item
        The items, in order; a repeated name gets `` #2``, `` #3``, ...
    """
    items, used = [], set()
    for col, op, value in raw:
        if op == "missing":
            name = f"{col} missing"
        elif kinds[col] == "binary":
            name = col if op == "==" else f"not {col}"
        else:
            name = f"{col} {SYMBOL[op]} {format_value(value)}"
        base, k = name, 1
        while name in used:
            k += 1
            name = f"{base} #{k}"
        used.add(name)
        items.append(Item(name, col, op, value))
    return items


def compare(values: np.ndarray, op: str, value: float) -> np.ndarray:
    """The rows where ``values op value`` holds (a threshold item's comparison).

    Parameters
    ----------
    values : ndarray
        A numeric column.
    op : {">=", ">", "<=", "<"}
        The operator.
    value : float
        The cut point.

    Returns
    -------
    ndarray of bool
        One per row.
    """
    if op == ">=":
        return values >= value
    if op == ">":
        return values > value
    if op == "<=":
        return values <= value
    if op == "<":
        return values < value
    raise InputError(f"unknown item operator {op!r}")
