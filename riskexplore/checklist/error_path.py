"""The FNR error path of predictive checklists (Zhang et al. 2021, Appendix B, Algorithm 3).

:func:`fnr_error_path` minimises false positives subject to a sequence of loosening FNR
limits, warm-starting each solve from the checklists found before; it traces an ROC-like
curve of certified checklists (each limit's solve is one engine solve, or
:func:`~riskexplore.checklist.sequential.sequential_training`). This is the "Error Path" of
Zhang et al. [1]_ (Appendix B, Algorithm 3).

References
----------
.. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
   Predictive Checklists", Advances in Neural Information Processing Systems 34
   (NeurIPS 2021), 2021.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from riskexplore.checklist.constraints import FNRLimit
from riskexplore.checklist.engines import check_method, solve_with
from riskexplore.checklist.heuristics import submodular_checklists, unit_weighting_checklists
from riskexplore.checklist.sequential import emit_event, sequential_training
from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.limits import Clock, Limits

__all__ = ["ErrorPathPoint", "ErrorPathResult", "fnr_error_path"]


@dataclass
class ErrorPathPoint:
    """One FNR limit of :func:`fnr_error_path` and the certified checklist for it."""

    fnr_limit: float
    status: str
    items: list[str] | None
    M: int | None
    fnr: float
    fpr: float
    error: float
    upper_bound: float
    lower_bound: float
    time: float
    nodes: int

    @property
    def gap(self) -> float:
        """The relative gap of the point's certificate."""
        return relative_gap(self.upper_bound, self.lower_bound)

    @property
    def certified(self) -> bool:
        """Whether the point's checklist is certified optimal for its FNR limit."""
        return self.status == "optimal"


@dataclass
class ErrorPathResult:
    """Outcome of :func:`fnr_error_path`: one :class:`ErrorPathPoint` per FNR limit (in
    increasing order), the objective weight ``fp_weight`` used and the pool."""

    points: list[ErrorPathPoint]
    fp_weight: float
    time: float
    pool: list[tuple[list[str], int]]
    trace: Trace = field(default_factory=Trace, repr=False)

    def to_frame(self):
        """Tidy frame: ``fnr_limit, N, M, items, error, fnr, fpr, upper_bound,
        lower_bound, gap, status, time, nodes``."""
        return pd.DataFrame(
            [
                {
                    "fnr_limit": p.fnr_limit,
                    "N": len(p.items) if p.items is not None else None,
                    "M": p.M,
                    "items": "; ".join(p.items) if p.items is not None else None,
                    "error": p.error,
                    "fnr": p.fnr,
                    "fpr": p.fpr,
                    "upper_bound": p.upper_bound,
                    "lower_bound": p.lower_bound,
                    "gap": p.gap,
                    "status": p.status,
                    "time": p.time,
                    "nodes": p.nodes,
                }
                for p in self.points
            ]
        )


def fnr_error_path(
    problem,
    fnr_limits: Sequence[float],
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    fp_weight: float | None = None,
    warm_starts: Sequence[tuple[Sequence[str], int]] = (),
    use_heuristics: bool = True,
    sequential: bool = False,
    settings=None,
    method: str = "exact",
) -> ErrorPathResult:
    """Algorithm 3: minimise FPR subject to ``FNR <= limit`` for increasing limits.

    Algorithm 3 of Zhang et al. [1]_ (Appendix B). Each limit's problem is ``problem``
    with the extra constraint ``FNRLimit(limit)`` and the objective ``FN + W- FP``.
    Zhang et al. ([1]_, Section 3) set ``W- = n-`` (the weighted number of negatives) so
    that the objective is led by the FPR; the default here is
    ``W- = max(n-, floor(max_limit * n+) + 1)``, which equals their choice unless
    ``n-`` is too small to make one false positive outweigh every false negative the
    limit allows (then false positives still come first). Limits are solved in
    increasing order; each solve is warm-started from every checklist found so far (those
    meeting the new limit; Algorithm 3 uses the best one), so that the FPR never increases
    as the limit loosens.

    Parameters
    ----------
    fnr_limits : sequence of float
        FNR limits in [0, 1] (sorted increasingly before solving).
    limits : Limits
        Overall limits; each limit gets an equal share of the remaining time.
    sequential : bool
        Solve each limit with :func:`sequential_training` instead of one solve.
    settings : optional
        Engine settings.
    method : {"exact", "mip"}
        Engine of the solves (see :mod:`riskexplore.checklist.engines`).

    Returns
    -------
    ErrorPathResult
        One point per limit (its checklist, rates and certificate), and every checklist
        found.

    References
    ----------
    .. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.
    """
    check_method(method)
    limits = limits or Limits()
    clock = Clock(limits)
    trace = Trace()
    emitter = EventEmitter([trace, *listeners])
    gammas = sorted({float(g) for g in fnr_limits})
    if fp_weight is None:
        top = gammas[-1] if gammas else 0.0
        fp_weight = max(problem.total_neg, math.floor(top * problem.total_pos) + 1.0)
    base = copy.copy(problem)
    base.fp_weight = float(fp_weight)
    if hasattr(base, "_set_epsilons"):
        base._set_epsilons()
    pool: list[tuple[list[str], int]] = [(list(i), int(m)) for i, m in warm_starts]
    if use_heuristics:
        for heuristic in (submodular_checklists, unit_weighting_checklists):
            pool.extend(heuristic(base)[:100])
    points: list[ErrorPathPoint] = []
    nodes = 0
    for k, gamma in enumerate(gammas):
        if clock.stop_requested():
            break
        rows = FNRLimit(gamma).to_rows(base.item_names, problem=base)
        sub = copy.copy(base)
        sub.error_rows = [*base.error_rows, *rows]
        share = clock.remaining() / (len(gammas) - k)
        sub_limits = Limits(
            time_limit=max(share, 1e-3),
            node_limit=limits.node_limit,
            gap_tolerance=limits.gap_tolerance,
            stop=limits.stop,
        )
        feasible = [(i, m) for i, m in pool if not sub.violations(i, m)]
        feasible.sort(key=lambda c: sub.objective(*c))
        if sequential:
            r = sequential_training(
                sub,
                limits=sub_limits,
                warm_starts=feasible[:50],
                use_heuristics=False,
                settings=settings,
                method=method,
            )
        else:
            r = solve_with(
                sub, method, limits=sub_limits, warm_starts=feasible[:50], settings=settings
            )
        nodes += int(r.nodes)
        items, M = r.solution if r.solution is not None else (None, None)
        if items is not None:
            pool.append((list(items), int(M)))
            e = sub.errors(items, M)
            fnr, fpr, err = e["fnr"], e["fpr"], e["error"]
        else:
            fnr = fpr = err = math.nan
        points.append(
            ErrorPathPoint(
                fnr_limit=gamma,
                status=r.status,
                items=list(items) if items is not None else None,
                M=int(M) if M is not None else None,
                fnr=fnr,
                fpr=fpr,
                error=err,
                upper_bound=r.upper_bound,
                lower_bound=r.lower_bound,
                time=r.time,
                nodes=int(r.nodes),
            )
        )
        emit_event(
            emitter,
            clock,
            r.upper_bound,
            r.lower_bound,
            nodes,
            incumbent=sub.as_dict(items, M) if items is not None else None,
            kind="incumbent" if items is not None else "progress",
        )
    emit_event(emitter, clock, math.inf, 0.0, nodes, phase="done", kind="final")
    return ErrorPathResult(
        points=points, fp_weight=float(fp_weight), time=clock.elapsed(), pool=pool, trace=trace
    )
