"""Feasibility of a checklist problem by the exact search, with culprits when infeasible."""

from __future__ import annotations

from riskexplore.checklist.feasibility import check_feasible_with
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search.data import build_search
from riskexplore.checklist.search.driver import ExactSearch, ExactSearchSettings
from riskexplore.core.limits import Limits

__all__ = ["check_feasible_exact"]

#: Time limit (s) of one feasibility search in :func:`check_feasible_exact`.
_FEASIBILITY_TIME_LIMIT = 20.0


def _feasible(problem, active, time_limit: float) -> tuple[str, tuple[list[str], int] | None]:
    data = build_search(problem, active=set(active), with_objective=False)
    settings = ExactSearchSettings(n_jobs=1)  # stops at the first feasible checklist
    search = ExactSearch(problem, Limits(time_limit=time_limit), settings=settings, data=data)
    search.problem = _Relaxed(problem, set(active))
    result = search.run()
    if result.solution is not None:
        return "feasible", tuple(result.solution)
    if result.status == "infeasible":
        return "infeasible", None
    return "unknown", None


class _Relaxed:
    """A view of a problem whose violations count only the active size bounds and rows."""

    def __init__(self, problem: ChecklistProblem, active: set[str]) -> None:
        self._problem = problem
        self._active = active

    def __getattr__(self, name):
        return getattr(self._problem, name)

    def violations(self, items, M: int, tol: float = 1e-7) -> list[str]:
        return [v for v in self._problem.violations(items, M, tol) if v in self._active]

    def objective(self, items, M: int) -> float:
        return 0.0


def check_feasible_exact(problem: ChecklistProblem, time_limit: float = _FEASIBILITY_TIME_LIMIT):
    """Check that some checklist satisfies ``problem``, with the exact search.

    Parameters
    ----------
    problem : ChecklistProblem
    time_limit : float
        Seconds each feasibility search may take (the culprit search runs several).

    Returns
    -------
    tuple of (list of str, int) or None
        A feasible ``(items, M)``, or ``None`` when a search cannot decide in time.

    Raises
    ------
    InfeasibleError
        When no checklist satisfies the problem; the message (and ``culprits``) name an
        irreducible set of conflicting constraints.
    """
    return check_feasible_with(problem, lambda active: _feasible(problem, active, time_limit))
