"""Which constraints conflict: the infeasibility culprit search of every model family.

Before a search starts, each family checks that some model satisfies its bounds and
constraints. When none does, the user is told *which* constraints conflict: a deletion
filter drops, one at a time, every part (a user constraint, or a size bound) whose removal
leaves the rest infeasible, which leaves an irreducible conflicting set.

A family supplies the parts and a ``probe(active) -> (status, found)`` that decides
whether the parts ``active`` admit a model (``status`` is ``"feasible"``,
``"infeasible"`` or ``"unknown"`` when the decision ran out of time); everything else --
the filter, the message and the error -- is here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from riskexplore.errors import InfeasibleError

__all__ = ["check_feasible", "conflict_message", "deletion_filter"]

T = TypeVar("T")

#: ``probe(active) -> (status, found)``: status ``"feasible"`` (``found`` is a model),
#: ``"infeasible"`` or ``"unknown"``.
Probe = Callable[[list[T]], tuple[str, Any]]


def deletion_filter(parts: Sequence[T], infeasible: Callable[[list[T]], bool]) -> list[T]:
    """An irreducible infeasible subset of ``parts`` (which are infeasible together).

    Parameters
    ----------
    parts : sequence
        Parts that admit no model together.
    infeasible : callable ``(active) -> bool``
        Whether the parts ``active`` (a sub-list of ``parts``) admit no model.

    Returns
    -------
    list
        The parts kept, in their order: infeasible together, and feasible without any
        one of them (as far as ``infeasible`` decides).
    """
    keep = list(parts)
    for part in list(parts):
        trial = [k for k in keep if k != part]
        if infeasible(trial):
            keep = trial
    return keep


def conflict_message(names: Sequence[str], model: str, *, empty: str, given: str = "") -> str:
    """The one-line message naming conflicting constraints.

    Parameters
    ----------
    names : sequence of str
        The conflicting constraints.
    model : str
        What cannot be built (``"risk score"``, ``"checklist"``).
    empty : str
        The message when no constraint takes part (the family's own bounds conflict).
    given : str, optional
        What else takes part in the conflict (``"the coefficient bounds"``).

    Returns
    -------
    str
        The message.
    """
    quoted = [repr(n) for n in names]
    suffix = f" given {given}" if given else ""
    if not names:
        return empty
    if len(names) == 1:
        where = f"within {given}" if given else f"by any {model}"
        return f"constraint {quoted[0]} cannot be satisfied {where}"
    if len(names) == 2:
        return (
            f"constraints are infeasible together: {quoted[0]} conflicts with {quoted[1]}{suffix}"
        )
    listed = ", ".join(quoted[:-1]) + f" and {quoted[-1]}"
    return f"constraints are infeasible together: {listed} cannot all hold{suffix}"


def check_feasible(
    parts: Sequence[T],
    probe: Probe,
    *,
    label: Callable[[T], str] = str,
    model: str,
    empty: str,
    bounds: tuple[str, Callable[[list[T]], bool]] | None = None,
) -> Any:
    """A model satisfying every part, or an :class:`InfeasibleError` naming the culprits.

    Parameters
    ----------
    parts : sequence
        The relaxable parts of a problem (user constraints, size bounds).
    probe : callable ``(active) -> (status, found)``
        Decides whether the parts ``active`` admit a model.
    label : callable, default str
        The name of a part, as the user knows it.
    model : str
        What is being built (``"risk score"``), for the message.
    empty : str
        The message when no part takes part in the conflict.
    bounds : ``(what, feasible_without)``, optional
        Fixed bounds that may take part in a conflict: their description (``"the
        coefficient bounds"``) and whether the culprits admit a model once they are
        relaxed. They are then named in the message (``error.bounds_involved``).

    Returns
    -------
    Any
        What ``probe`` found for all the parts; ``None`` when it could not decide.

    Raises
    ------
    InfeasibleError
        When the parts admit no model; ``error.culprits`` lists the names of an
        irreducible conflicting set.
    """
    everything = list(parts)
    status, found = probe(everything)
    if status == "feasible":
        return found
    if status != "infeasible":
        return None
    keep = deletion_filter(everything, lambda active: probe(active)[0] == "infeasible")
    names = [label(k) for k in keep]
    involved = bounds is not None and bounds[1](keep)
    given = bounds[0] if involved and bounds is not None else ""
    err = InfeasibleError(conflict_message(names, model, empty=empty, given=given))
    err.culprits = names
    err.bounds_involved = involved
    raise err
