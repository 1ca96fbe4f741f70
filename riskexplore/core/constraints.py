"""Pieces shared by the readable constraints of risk scores and of checklists.

Both kinds of constraint name the variables they use (features of a risk score, items
of a checklist); an unknown name raises a :class:`~riskexplore.errors.ConstraintError`
that names the constraint and suggests close matches. Both kinds describe themselves
in plain words (:class:`Described`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Sequence

from riskexplore.errors import ConstraintError

__all__ = [
    "Described",
    "check_bounds",
    "check_name",
    "check_names",
    "close_matches_hint",
    "listing",
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


class Described:
    """A constraint that describes itself in plain words; ``str()`` is the description."""

    def describe(self) -> str:  # pragma: no cover
        """The constraint in plain words.

        Returns
        -------
        str
            The description, also the name of the rows it compiles to.
        """
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()
