"""Which checklist constraints conflict: the relaxable parts of a checklist problem.

Both checklist engines decide whether some subset of a problem's parts admits a
checklist (the exact search in :mod:`riskexplore.checklist.search`, the MIP in
:mod:`riskexplore.checklist.mip`); the culprit search itself is
:func:`riskexplore.core.culprits.check_feasible`.
"""

from __future__ import annotations

from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.core import culprits
from riskexplore.core.culprits import Probe

__all__ = ["check_feasible_with", "constraint_groups"]

#: The message when no constraint takes part in the conflict.
NO_CHECKLIST = (
    "no checklist exists: the threshold M must be between 1 and the number of items N, and "
    "every example pattern is forced"
)


def _size_groups(problem: ChecklistProblem) -> list[str]:
    """Keys of the size bounds that restrict anything (relaxable in the feasibility check)."""
    d = problem.n_items
    out = []
    if problem.max_items < d:
        out.append("max_items")
    if problem.min_items > 1:
        out.append("min_items")
    if problem.min_m > 1 or problem.max_m < problem.max_items:
        out.append("m_range")
    return out


def constraint_groups(problem: ChecklistProblem) -> list[str]:
    """Names of the relaxable parts of a problem: size bounds, then constraint names.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.

    Returns
    -------
    list of str
        The names (size bounds as :meth:`ChecklistProblem.size_names` words them).
    """
    names = problem.size_names()
    out = [names[k] for k in _size_groups(problem)]
    for row in (*problem.rows, *problem.error_rows):
        if row.name not in out:
            out.append(row.name)
    return out


def check_feasible_with(problem: ChecklistProblem, probe: Probe):
    """A checklist satisfying ``problem``, or an error naming conflicting constraints.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    probe : callable ``(active) -> (status, found)``
        An engine's decision whether the parts ``active`` (names from
        :func:`constraint_groups`) admit a checklist.

    Returns
    -------
    tuple or None
        A feasible ``(items, M)``, or ``None`` when the engine cannot decide in time.

    Raises
    ------
    InfeasibleError
        Naming an irreducible set of conflicting constraints (also in
        ``error.culprits``).
    """
    return culprits.check_feasible(
        constraint_groups(problem), probe, model="checklist", empty=NO_CHECKLIST
    )
