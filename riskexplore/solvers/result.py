"""What a risk-score solver returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from riskexplore.solvers.events import Trace, relative_gap

#: Final statuses, as the CLI and JSON report them.
STATUSES = ("optimal", "time_limit", "node_limit", "stopped", "infeasible")


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
    """Best model, certificate and statistics of one solve.

    ``coefficients`` is the integer vector ``[intercept, points_1..points_d]`` of the
    best model found (``None`` when no feasible model exists). ``lower_bound`` is a
    proven lower bound on the optimal objective; ``upper_bound`` is the objective of
    ``coefficients``.
    """

    status: str
    coefficients: np.ndarray | None
    upper_bound: float
    lower_bound: float
    loss: float
    nodes: int = 0
    cuts: int = 0
    time: float = 0.0
    trace: Trace = field(default_factory=Trace)
    stats: dict = field(default_factory=dict)

    @property
    def has_model(self) -> bool:
        return self.coefficients is not None and math.isfinite(self.upper_bound)


def final_status(
    has_model: bool, complete: bool, gap: float, gap_tolerance: float, stop_reason: str | None
) -> str:
    """The status a solve ends with.

    ``complete`` means the search proved its answer (tree exhausted, or CPA converged);
    ``stop_reason`` is ``"gap"``, ``"time_limit"``, ``"node_limit"``, ``"stopped"`` or
    ``None``.
    """
    if not has_model:
        if complete or stop_reason == "gap":
            return "infeasible"
        return stop_reason or "time_limit"
    if complete or stop_reason == "gap" or gap <= gap_tolerance:
        return "optimal"
    return stop_reason or "time_limit"


def finish_solve(
    problem,
    emitter,
    *,
    best,
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
    loss: float | None = None,
    incumbent: dict | None = None,
) -> SolveResult:
    """Build the :class:`SolveResult` of a risk-score solve and emit its final event.

    ``loss`` and ``incumbent`` (the final event's model) default to those of ``best`` as a
    model of ``problem``; model classes that read ``best`` differently pass their own.
    """
    from riskexplore.solvers.events import SolveEvent

    gap = relative_gap(upper_bound, lower_bound)
    status = final_status(best is not None, complete, gap, gap_tolerance, stop_reason)
    if best is None:
        loss, incumbent = math.nan, None
    else:
        if loss is None:
            loss = problem.loss.value(best.astype(float), integral=True)
        if incumbent is None:
            incumbent = problem.as_dict(best)
    result = SolveResult(
        status=status,
        coefficients=None if best is None else best.copy(),
        upper_bound=upper_bound,
        lower_bound=lower_bound,
        loss=loss,
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
