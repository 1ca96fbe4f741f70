"""Parameter constraints, in the style of scikit-learn's ``_parameter_constraints``.

A function or class states what each of its settings may be -- a list of constraints, any
one of which must hold -- and checks them all with :func:`validate`, which raises an
:class:`~riskexplore.errors.InputError` with a one-line message naming the setting::

    CONSTRAINTS = {
        "max_items": [Interval(int, 1, None), None],
        "binarize": [Options({"adaptive", "fixed"}), None],
        "fp_weight": [Interval(float, 0, None, closed="neither")],
    }
    validate(CONSTRAINTS, {"max_items": 0, "binarize": None, "fp_weight": 1.0})
    # InputError: max_items must be a whole number >= 1 or None, got 0

Constraints are :class:`Interval` (whole or real numbers in a range), :class:`Options` (a
set of values), ``None`` (the value may be ``None``) and :class:`Check` (any predicate
with a description).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from riskexplore.errors import InputError

__all__ = ["Check", "Interval", "Options", "describe", "satisfies", "validate"]


@dataclass(frozen=True)
class Interval:
    """Numbers in a range.

    Attributes
    ----------
    kind : {int, float}
        ``int``: whole numbers (``3`` or ``3.0``, not booleans); ``float``: real numbers
        (not NaN, not booleans).
    left, right : float or None
        The bounds (``None``: unbounded).
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the range.
    """

    kind: type
    left: float | None
    right: float | None
    closed: str = "both"

    def satisfied_by(self, value: Any) -> bool:
        """Whether ``value`` is a number of the kind, in the range."""
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        value = float(value)
        if math.isnan(value):
            return False
        if self.kind is int and not value.is_integer():
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        noun = "a whole number" if self.kind is int else "a number"
        lo_op = ">=" if self.closed in ("both", "left") else ">"
        hi_op = "<=" if self.closed in ("both", "right") else "<"
        if self.left is not None and self.right is not None:
            if self.kind is float and (self.left, self.right) == (0, 1):
                lo = "[" if self.closed in ("both", "left") else "("
                hi = "]" if self.closed in ("both", "right") else ")"
                return f"{noun} in {lo}0, 1{hi}"
            return f"{noun} {lo_op} {_num(self.left)} and {hi_op} {_num(self.right)}"
        if self.left is not None:
            if self.left == 0 and self.closed in ("right", "neither"):
                return "a positive whole number" if self.kind is int else "a positive number"
            return f"{noun} {lo_op} {_num(self.left)}"
        if self.right is not None:
            return f"{noun} {hi_op} {_num(self.right)}"
        return noun


@dataclass(frozen=True)
class Options:
    """One of a set of values (compared with ``==``)."""

    values: frozenset

    def __init__(self, values: Iterable[Any]) -> None:
        object.__setattr__(self, "values", frozenset(values))

    def satisfied_by(self, value: Any) -> bool:
        """Whether ``value`` is one of the values."""
        try:
            return value in self.values
        except TypeError:  # unhashable
            return False

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in sorted(self.values, key=str))


@dataclass(frozen=True)
class Check:
    """Any predicate, with its description (``"a mapping of item names to groups"``)."""

    predicate: Callable[[Any], bool]
    description: str

    def satisfied_by(self, value: Any) -> bool:
        """``predicate(value)``, False if it raises."""
        try:
            return bool(self.predicate(value))
        except Exception:
            return False

    def __str__(self) -> str:
        return self.description


Constraint = Interval | Options | Check | None


def satisfies(value: Any, constraints: Sequence[Constraint]) -> bool:
    """Whether ``value`` meets any of ``constraints``.

    Parameters
    ----------
    value : Any
        The value.
    constraints : sequence
        Constraints (``None`` allows ``None``).

    Returns
    -------
    bool
        True when one constraint holds.
    """
    for constraint in constraints:
        if constraint is None:
            if value is None:
                return True
        elif constraint.satisfied_by(value):
            return True
    return False


def describe(constraints: Sequence[Constraint]) -> str:
    """The constraints in words (``"a whole number >= 1 or None"``).

    Parameters
    ----------
    constraints : sequence
        Constraints.

    Returns
    -------
    str
        Their descriptions joined by "or".
    """
    return " or ".join("None" if c is None else str(c) for c in constraints)


def validate(constraints: Mapping[str, Sequence[Constraint]], values: Mapping[str, Any]) -> None:
    """Check every value against its constraints.

    Parameters
    ----------
    constraints : mapping
        Name -> list of constraints (any one must hold).
    values : mapping
        Name -> value; names without constraints are not checked.

    Raises
    ------
    InputError
        At the first value that meets none of its constraints, naming it.
    """
    for name, value in values.items():
        allowed = constraints.get(name)
        if allowed is not None and not satisfies(value, allowed):
            raise InputError(f"{name} must be {describe(allowed)}, got {value!r}")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
