"""The constraint layer shared by every model family.

Readable constraints are small frozen dataclasses (:class:`ReadableConstraint`) that
describe themselves in plain words and compile to the linear rows of their family
(``to_rows(names, problem=None)``). Everything that does not depend on the family is
here, written once:

* checks of the names a constraint uses (:func:`check_name`, :func:`check_names`): an
  unknown name raises a :class:`~riskexplore.errors.ConstraintError` that names the
  constraint and suggests close matches;
* checks of the arguments (:func:`name_tuple`, :func:`whole_number`,
  :func:`real_number`, :func:`fraction`) and of row bounds (:func:`check_bounds`);
* :func:`compile_constraints`, which turns a (nested) list of readable constraints,
  rows and Pyomo models into the family's rows.
"""

from __future__ import annotations

import difflib
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from riskexplore.errors import ConstraintError

__all__ = [
    "ReadableConstraint",
    "check_bounds",
    "check_name",
    "check_names",
    "close_matches_hint",
    "compile_constraints",
    "format_number",
    "fraction",
    "is_pyomo_model",
    "listing",
    "name_tuple",
    "one_or_more_names",
    "real_number",
    "whole_number",
]


def check_name(label: str, name: object, known: Sequence[str], kind: str) -> str:
    """Return ``name`` if it is one of ``known``, else raise a helpful ConstraintError.

    Parameters
    ----------
    label : str
        The constraint, as named in the message.
    name : object
        The name to check.
    known : sequence of str
        The known names.
    kind : str
        What the names are (``"feature"``, ``"item"``), for the message.

    Returns
    -------
    str
        ``name``.

    Raises
    ------
    ConstraintError
        If ``name`` is not a string or not known (with up to three close matches).
    """
    if not isinstance(name, str):
        raise ConstraintError(f"constraint {label!r}: {kind} names must be strings, got {name!r}")
    if name in known:
        return name
    hint = close_matches_hint(name, [str(f) for f in known])
    raise ConstraintError(f"constraint {label!r} uses unknown {kind} {name!r}{hint}")


def close_matches_hint(name: str, known: Sequence[str]) -> str:
    """A ``"; did you mean 'a' or 'b'?"`` suffix naming up to three close matches.

    Parameters
    ----------
    name : str
        An unknown name.
    known : sequence of str
        The known names.

    Returns
    -------
    str
        The suffix, or ``""`` when nothing is close.
    """
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def check_names(label: str, names: Iterable, known: Sequence[str], kind: str) -> None:
    """Check every name of ``names`` with :func:`check_name`.

    Parameters
    ----------
    label : str
        The constraint, as named in the message.
    names : iterable
        The names to check.
    known : sequence of str
        The known names.
    kind : str
        What the names are (``"feature"``, ``"item"``), for the message.

    Raises
    ------
    ConstraintError
        At the first name that is not known.
    """
    known_set = set(known)
    for name in names:
        if name not in known_set:
            check_name(label, name, known, kind)


def check_bounds(name: str, lower: float, upper: float) -> None:
    """Check the bounds of a linear row: neither NaN, ``lower <= upper``.

    Parameters
    ----------
    name : str
        The row's name, for the message.
    lower, upper : float
        The bounds.

    Raises
    ------
    ConstraintError
        If a bound is NaN or ``lower > upper``.
    """
    if math.isnan(lower) or math.isnan(upper):
        raise ConstraintError(f"constraint {name!r}: a bound is NaN")
    if lower > upper:
        raise ConstraintError(
            f"constraint {name!r}: lower bound {lower} exceeds upper bound {upper}; swap "
            "them or relax one"
        )


def listing(names: Sequence[object], joiner: str = ", ") -> str:
    """The names as text, joined by ``joiner``.

    Parameters
    ----------
    names : sequence
        The names.
    joiner : str, default ", "
        The separator.

    Returns
    -------
    str
        The joined text.
    """
    return joiner.join(str(n) for n in names)


def name_tuple(names: Iterable[str], what: str, kind: str) -> tuple[str, ...]:
    """A non-empty list of names as a tuple, repeats dropped (order kept).

    Parameters
    ----------
    names : iterable of str
        The names. A single string is refused: it is almost always a forgotten list
        (write ``["age<30"]``).
    what : str
        The constraint, for messages.
    kind : str
        What the names are (``"feature"``, ``"item"``, ``"group"``), for messages.

    Returns
    -------
    tuple of str
        The names.

    Raises
    ------
    ConstraintError
        If ``names`` is a string, not iterable, or empty.
    """
    if isinstance(names, str):
        raise ConstraintError(
            f"{what}: pass a list of {kind} names, not the single string {names!r} "
            f"(write [{names!r}] for one {kind})"
        )
    try:
        items = list(names)
    except TypeError:
        raise ConstraintError(f"{what}: expected a list of {kind} names, got {names!r}") from None
    if not items:
        raise ConstraintError(f"{what}: the list of {kind}s is empty")
    return tuple(dict.fromkeys(items))


def one_or_more_names(names: str | Iterable[str], what: str, kind: str) -> tuple[str, ...]:
    """:func:`name_tuple` for an argument that takes one name or a list of names.

    Parameters
    ----------
    names : str or iterable of str
        A name, or the names.
    what, kind : str
        As for :func:`name_tuple`.

    Returns
    -------
    tuple of str
        The names.
    """
    return name_tuple((names,) if isinstance(names, str) else names, what, kind)


def whole_number(value: Any, what: str, minimum: int = 0) -> int:
    """``value`` as an int, if it is a whole number of at least ``minimum``.

    Parameters
    ----------
    value : Any
        The number (``3`` or ``3.0``; not a bool).
    what : str
        The argument, for messages (``"MaxFeatures: k"``).
    minimum : int, default 0
        The least value allowed.

    Returns
    -------
    int
        The number.

    Raises
    ------
    ConstraintError
        If ``value`` is not a whole number or is below ``minimum``.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not float(value).is_integer()
    ):
        raise ConstraintError(f"{what} must be a whole number, got {value!r}")
    if value < minimum:
        raise ConstraintError(f"{what} must be >= {minimum}, got {value}")
    return int(value)


def real_number(value: Any, what: str) -> float:
    """``value`` as a float, if it is a real number (not NaN, not a bool).

    Parameters
    ----------
    value : Any
        The number.
    what : str
        The argument, for messages.

    Returns
    -------
    float
        The number (``inf`` is allowed).

    Raises
    ------
    ConstraintError
        If ``value`` is not a number or is NaN.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConstraintError(f"{what} must be a number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ConstraintError(f"{what} is NaN")
    return value


def fraction(value: Any, what: str) -> float:
    """``value`` as a float, if it is a number between 0 and 1 (a rate or a gap).

    Parameters
    ----------
    value : Any
        The number.
    what : str
        The argument, for messages.

    Returns
    -------
    float
        The number.

    Raises
    ------
    ConstraintError
        If ``value`` is not a number in ``[0, 1]``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise ConstraintError(f"{what} must be a number between 0 and 1, got {value!r}")
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ConstraintError(f"{what} must be between 0 and 1, got {value:g}")
    return value


def format_number(x: float) -> str:
    """``3`` for whole numbers, else the shortest general format (``0.25``).

    Parameters
    ----------
    x : float
        The number.

    Returns
    -------
    str
        The text.
    """
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class ReadableConstraint:
    """A constraint that describes itself in plain words and compiles to linear rows.

    Subclasses (one base per model family) are frozen dataclasses that implement
    :meth:`describe` and :meth:`to_rows`. ``str()`` is the description.
    """

    def describe(self) -> str:  # pragma: no cover - abstract
        """The constraint in plain words.

        Returns
        -------
        str
            The description, also the name of the rows it compiles to.
        """
        raise NotImplementedError

    def to_rows(self, names: Sequence[str], problem: Any = None) -> list:  # pragma: no cover
        """The linear rows of the constraint over the family's variables.

        Parameters
        ----------
        names : sequence of str
            The names of the family's variables (features, items).
        problem : optional
            The problem being built, for constraints that depend on the data.

        Returns
        -------
        list
            The family's rows.
        """
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()


def is_pyomo_model(item: object) -> bool:
    """Whether ``item`` is a Pyomo model (a block with constraints), without importing Pyomo.

    Parameters
    ----------
    item : object
        Anything.

    Returns
    -------
    bool
        True for Pyomo models and blocks.
    """
    module = type(item).__module__ or ""
    return module.startswith("pyomo.") and hasattr(item, "component_data_objects")


def compile_constraints(
    constraints: Any,
    names: Sequence[str],
    *,
    row_types: tuple[type, ...],
    read_pyomo: Callable[[Any, list[str]], list],
    problem: Any = None,
    family: str,
    examples: str,
) -> list:
    """Compile readable constraints, rows and Pyomo models to the family's rows.

    Parameters
    ----------
    constraints : iterable
        Readable constraints (objects with ``to_rows``), rows (instances of
        ``row_types``), Pyomo models, and (nested) lists or tuples of these.
    names : sequence of str
        The family's variable names (features, items).
    row_types : tuple of type
        The family's row classes.
    read_pyomo : callable ``(model, names) -> rows``
        The family's Pyomo reader.
    problem : optional
        Passed to ``to_rows`` when it accepts ``problem`` (constraints on the data).
    family : str
        The family, for messages (``"risk score"``).
    examples : str
        What can be passed, for the message of an unusable item.

    Returns
    -------
    list
        The rows, in order.

    Raises
    ------
    ConstraintError
        For anything else, or a ``to_rows`` that returns rows of another family.
    """
    rows: list = []
    _collect(constraints, list(names), rows, row_types, read_pyomo, problem, family, examples, True)
    return rows


def _collect(item, names, rows, row_types, read_pyomo, problem, family, examples, top=False):
    if isinstance(item, row_types):
        rows.append(item)
        return
    if hasattr(item, "to_rows") and not isinstance(item, type):
        if _accepts_problem(item.to_rows):
            out = item.to_rows(names, problem=problem)
        else:
            out = item.to_rows(names)
        for row in out:
            if not isinstance(row, row_types):
                raise ConstraintError(
                    f"{type(item).__name__}.to_rows returned {row!r}, which is not a {family} "
                    f"row; constraints of another model family cannot be used for a {family}"
                )
        rows.extend(out)
        return
    if is_pyomo_model(item):
        rows.extend(read_pyomo(item, names))
        return
    if isinstance(item, (list, tuple)) or (
        top and isinstance(item, Iterable) and not isinstance(item, (str, bytes, Mapping))
    ):
        for sub in item:
            _collect(sub, names, rows, row_types, read_pyomo, problem, family, examples)
        return
    raise ConstraintError(f"cannot use {item!r} as a {family} constraint; use {examples}")


def _accepts_problem(method: Callable) -> bool:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False
    return "problem" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
