"""One entry point for the checklist engines: the exact search (default) and the MIP."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from riskexplore.checklist.mip import check_checklist_feasible, solve_checklist
from riskexplore.checklist.search import check_feasible_exact, solve_checklist_exact
from riskexplore.core.events import SolveEvent
from riskexplore.core.limits import Limits
from riskexplore.errors import InputError

__all__ = ["CHECKLIST_METHODS", "check_method", "check_feasible", "solve_with"]

#: Checklist engines: ``"exact"``, the exact combinatorial search
#: (:mod:`~riskexplore.checklist.search`), and ``"mip"``, the integer program (2) of
#: Zhang et al. (2021), Section 3, on HiGHS (:mod:`~riskexplore.checklist.mip`), kept for
#: cross-checks.
CHECKLIST_METHODS = ("exact", "mip")


def check_method(method) -> str:
    """``method`` if it names a checklist engine, else a one-line :class:`InputError`.

    Parameters
    ----------
    method : str
        ``"exact"`` or ``"mip"`` (:data:`CHECKLIST_METHODS`).

    Returns
    -------
    str
        ``method``.

    Raises
    ------
    InputError
        For any other value.
    """
    if method not in CHECKLIST_METHODS:
        raise InputError(
            f"method must be one of {', '.join(repr(m) for m in CHECKLIST_METHODS)}, got {method!r}"
        )
    return method


def solve_with(
    problem,
    method: str = "exact",
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    warm_starts: Iterable[tuple[Sequence[str], int]] = (),
    settings=None,
):
    """Solve a :class:`~riskexplore.checklist.problem.ChecklistProblem` with the
    engine ``method``; both return a
    :class:`~riskexplore.core.result.SolveResult`.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    method : {"exact", "mip"}
        The engine: the exact search (default) or the HiGHS MIP.
    limits : Limits, optional
        Time and node limits, gap tolerance and stop request.
    listeners : sequence of callables
        Each receives every :class:`~riskexplore.core.events.SolveEvent`.
    warm_starts : iterable of ``(items, M)``
        Checklists to start from (infeasible ones are skipped).
    settings : ExactSearchSettings or ChecklistIPSettings, optional
        The engine's settings.

    Returns
    -------
    SolveResult
        The best checklist (``solution``: a
        :class:`~riskexplore.checklist.problem.ChecklistSolution`), bounds and statistics.
    """
    if check_method(method) == "mip":
        return solve_checklist(
            problem, limits=limits, listeners=listeners, warm_starts=warm_starts,
            settings=settings,
        )  # fmt: skip

    return solve_checklist_exact(
        problem, limits=limits, listeners=listeners, warm_starts=warm_starts, settings=settings
    )


def check_feasible(problem, method: str = "exact"):
    """Raise :class:`~riskexplore.errors.InfeasibleError` naming an irreducible set of
    conflicting constraints when no checklist satisfies ``problem``; otherwise return a
    feasible ``(items, M)`` (``None`` when the engine cannot decide in time).

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    method : {"exact", "mip"}
        The engine that decides feasibility.

    Returns
    -------
    tuple or None
        A feasible ``(items, M)``, or ``None`` when the engine cannot decide in time.

    Raises
    ------
    InfeasibleError
        Naming the conflicting constraints (``error.culprits``).
    """
    if check_method(method) == "mip":
        return check_checklist_feasible(problem)

    return check_feasible_exact(problem)
