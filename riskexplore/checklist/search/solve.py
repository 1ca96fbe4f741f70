"""Solve a checklist problem with the exact search, on every core or a Dask cluster."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search.driver import ExactSearch, ExactSearchSettings
from riskexplore.checklist.search.parallel import run_parallel
from riskexplore.core.events import SolveEvent
from riskexplore.core.limits import Limits
from riskexplore.core.result import SolveResult

__all__ = ["solve_checklist_exact", "warm_up"]


# ---------------------------------------------------------------------------- solving
def solve_checklist_exact(
    problem: ChecklistProblem,
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    warm_starts: Iterable[tuple[Sequence[str], int]] = (),
    settings: ExactSearchSettings | None = None,
) -> SolveResult:
    """Find and certify the best checklist of ``problem`` by exact search.

    Parameters
    ----------
    problem : ChecklistProblem
    limits : Limits, optional
        Time and node limits, gap tolerance and a stop request (honoured within a
        fraction of a second). A stopped or timed-out search returns its best checklist
        and a valid lower bound.
    listeners : sequence of callables
        Each receives every :class:`SolveEvent`: an ``"incumbent"`` event whenever the
        best checklist improves, throttled ``"progress"`` events, and a ``"final"`` one.
    warm_starts : iterable of ``(items, M)``
        Checklists to start from; infeasible ones are skipped.
    settings : ExactSearchSettings, optional

    Returns
    -------
    SolveResult
        As :func:`~riskexplore.checklist.mip.solve_checklist` returns; ``nodes``
        counts the subsets evaluated.
    """
    search = ExactSearch(problem, limits, listeners, warm_starts, settings, runner=run_parallel)
    return search.run()


def warm_up() -> None:
    """Compile (or load from numba's cache) the search loop on a tiny problem."""
    X = np.array([[1, 0], [0, 1], [1, 1]])
    solve_checklist_exact(ChecklistProblem(X, [1, 0, 1]))
