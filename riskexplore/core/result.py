"""What every solver returns: one :class:`SolveResult` for both model families."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap

#: Final statuses, as the CLI and JSON report them.
STATUSES = ("optimal", "time_limit", "node_limit", "stopped", "infeasible", "numerical")


class BoundsMixin:
    """``gap`` and ``objective`` of a result with ``upper_bound`` and ``lower_bound``.

    The upper bound is the objective of the best model found; the lower bound a proven
    lower bound on the optimal objective.
    """

    upper_bound: float
    lower_bound: float

    @property
    def gap(self) -> float:
        """Relative optimality gap ``(upper - lower) / upper`` (see ``relative_gap``)."""
        return relative_gap(self.upper_bound, self.lower_bound)

    @property
    def objective(self) -> float:
        """Objective of the best model found (the upper bound)."""
        return self.upper_bound


@dataclass
class SolveResult(BoundsMixin):
    """Best solution, certificate and statistics of one solve, for either model family.

    Attributes
    ----------
    status : str
        One of :data:`STATUSES` (a baseline heuristic reports ``"heuristic"``).
    solution : Any or None
        The family's form of the best model found, ``None`` when no feasible model
        exists: the integer vector ``[intercept, points_1..points_d]`` of a risk score;
        a :class:`~riskexplore.checklist.problem.ChecklistSolution` ``(items, M)`` of a
        checklist.
    upper_bound : float
        Objective of ``solution`` (``inf`` without one).
    lower_bound : float
        Proven lower bound on the optimal objective.
    nodes, cuts : int
        Search nodes explored and loss cuts computed.
    time : float
        Wall-clock seconds.
    trace : Trace
        Every event of the solve.
    stats : dict
        Solver-specific statistics.
    """

    status: str
    solution: Any
    upper_bound: float
    lower_bound: float
    nodes: int = 0
    cuts: int = 0
    time: float = 0.0
    trace: Trace = field(default_factory=Trace)
    stats: dict = field(default_factory=dict)

    @property
    def has_model(self) -> bool:
        """Whether the solve found a feasible model."""
        return self.solution is not None and math.isfinite(self.upper_bound)


def final_status(
    has_model: bool, complete: bool, gap: float, gap_tolerance: float, stop_reason: str | None
) -> str:
    """The status a solve ends with.

    ``complete`` means the search proved its answer (tree exhausted, or CPA converged);
    ``stop_reason`` is ``"gap"``, ``"time_limit"``, ``"node_limit"``, ``"stopped"`` or
    ``None``.

    Parameters
    ----------
    has_model : bool
        Whether a feasible model was found.
    complete : bool
        Whether the search proved its answer.
    gap : float
        The final relative gap.
    gap_tolerance : float
        The gap at which a solve counts as optimal.
    stop_reason : str or None
        Why the search ended early.

    Returns
    -------
    str
        One of :data:`STATUSES`.
    """
    if not has_model:
        if complete or stop_reason == "gap":
            return "infeasible"
        return stop_reason or "time_limit"
    if complete or stop_reason == "gap" or gap <= gap_tolerance:
        return "optimal"
    return stop_reason or "time_limit"


def finish_solve(
    emitter: EventEmitter,
    *,
    solution: Any,
    incumbent: dict[str, Any] | None,
    upper_bound: float,
    lower_bound: float,
    complete: bool,
    gap_tolerance: float,
    stop_reason: str | None,
    nodes: int,
    cuts: int,
    elapsed: float,
    trace: Trace,
    stats: dict,
) -> SolveResult:
    """Build the :class:`SolveResult` of a solve and emit its final event.

    Parameters
    ----------
    emitter : EventEmitter
        The solve's listeners (they receive the ``"final"`` event).
    solution : Any or None
        The best solution found (see :attr:`SolveResult.solution`).
    incumbent : dict or None
        ``solution`` in the form of :attr:`SolveEvent.incumbent`.
    upper_bound, lower_bound : float
        Final bounds.
    complete : bool
        Whether the search proved its answer (see :func:`final_status`).
    gap_tolerance : float
        The gap at which the solve counts as optimal.
    stop_reason : str or None
        Why the search ended early (see :func:`final_status`).
    nodes, cuts : int
        Work done.
    elapsed : float
        Seconds.
    trace : Trace
        The solve's trace.
    stats : dict
        Solver statistics.

    Returns
    -------
    SolveResult
        The result.
    """
    gap = relative_gap(upper_bound, lower_bound)
    status = final_status(solution is not None, complete, gap, gap_tolerance, stop_reason)
    result = SolveResult(
        status=status,
        solution=solution,
        upper_bound=upper_bound,
        lower_bound=lower_bound,
        nodes=nodes,
        cuts=cuts,
        time=elapsed,
        trace=trace,
        stats=stats,
    )
    if emitter.active:
        emitter.emit(
            SolveEvent(
                time=elapsed,
                phase="done",
                upper_bound=upper_bound,
                lower_bound=lower_bound,
                gap=gap,
                nodes=nodes,
                cuts=cuts,
                incumbent=incumbent,
                kind="final",
            )
        )
    return result
