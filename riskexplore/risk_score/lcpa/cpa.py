"""Plain cutting plane algorithm (CPA, Algorithm 1 of the RiskSLIM paper) as a baseline.

Each iteration solves, to optimality, the MIP::

    min  L + sum_j c0_j alpha_j
    s.t. L >= l(lam_k) + grad l(lam_k) . (lam - lam_k)     for every cut so far
         lam integer in its bounds, alpha_j = 1[lam_j != 0], size bounds, user rows

with HiGHS, evaluates the loss and its gradient at the MIP's ``lam`` and adds that cut.
The MIP optimum is a lower bound (the cuts under-estimate the convex loss) and the
true objective of every MIP solution is an upper bound. Because every iteration
re-solves a growing MIP from scratch, the time per iteration grows and CPA *stalls*
on larger problems; LCPA (:mod:`riskexplore.risk_score.lcpa.search`) avoids this. The per-iteration
MIP times are in ``result.stats["mip_times"]``.

``alpha_j = 1[lam_j != 0]`` is modelled exactly with two sign binaries per feature, as in
:mod:`riskexplore.risk_score.feasibility`: ``alpha_j = s+_j + s-_j``, ``s+_j + s-_j <= 1``,
``lam_j >= s+_j + lo_j s-_j`` and ``lam_j <= hi_j s+_j - s-_j``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import highspy
import numpy as np

from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.highs import add_dense_rows, new_highs
from riskexplore.core.limits import Clock, Limits
from riskexplore.core.result import SolveResult, finish_solve
from riskexplore.risk_score.feasibility import FeasibilityModel, check_feasible
from riskexplore.risk_score.problem import RiskScoreProblem

__all__ = ["solve_cpa"]

#: Relative tolerance for HiGHS' own MIP gap (the certificate uses ``mip_dual_bound``).
_MIP_GAP = 1e-10


def solve_cpa(
    problem: RiskScoreProblem,
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    max_iterations: int | None = None,
) -> SolveResult:
    """Solve the risk score problem with plain CPA (one MIP per cut).

    Parameters
    ----------
    problem : RiskScoreProblem
    limits : Limits, optional
        Time, node (total MIP nodes) and gap limits and a stop request. A stop request
        is honoured inside a MIP solve too (through a HiGHS interrupt callback).
    listeners : sequence of callables
        Each receives every :class:`SolveEvent` (one per iteration, phase ``"search"``).
    max_iterations : int, optional
        Largest number of MIPs to solve (status ``"node_limit"`` when reached).

    Returns
    -------
    SolveResult
        Best model, valid lower bound and statistics; ``stats["mip_times"]`` lists the
        wall-clock seconds of each MIP solve.
    """
    problem.require_fixed_scale("solve_cpa")
    problem.require_no_rules("solve_cpa")
    return _CPA(problem, limits or Limits(), listeners, max_iterations).run()


class _CPA:
    def __init__(self, problem, limits, listeners, max_iterations):
        self.problem = problem
        self.limits = limits
        self.max_iterations = max_iterations
        self.trace = Trace()
        self.emitter = EventEmitter([self.trace, *listeners])
        self.d = problem.n_features
        self.ub = math.inf
        # the loss is at least the datafit's floor (0 for the logistic loss); penalties >= 0
        self.lb = float(problem.loss.loss_floor())
        self.best: np.ndarray | None = None
        self.nodes = 0
        self.cuts = 0
        self.iterations = 0
        self.mip_times: list[float] = []
        self.mip_nodes: list[int] = []
        self.cut_points: set[tuple[int, ...]] = set()
        self.stop_reason: str | None = None

    # --- model -----------------------------------------------------------------------
    def _build(self):
        """The master MIP over ``[lam_0..lam_d, s+_1..d, s-_1..d, L]``."""

        p, d = self.problem, self.d
        fm = FeasibilityModel(p)  # clipped bounds, size rows and user rows by group
        lo, hi = fm.lo, fm.hi
        self.n_cols = n = 3 * d + 2
        self.L_col = 3 * d + 1
        h = new_highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", _MIP_GAP)
        h.setOptionValue("mip_abs_gap", 0.0)
        inf = highspy.kHighsInf
        col_lo = np.concatenate([lo, np.zeros(2 * d), [self.lb]])
        col_hi = np.concatenate(
            [hi, (hi[1:] >= 1).astype(float), (lo[1:] <= -1).astype(float), [inf]]
        )
        cost = np.concatenate([np.zeros(d + 1), p.c0, p.c0, [1.0]])
        h.addVars(n, col_lo, col_hi)
        h.changeColsCost(n, np.arange(n, dtype=np.int32), cost.astype(float))
        integer = np.arange(3 * d + 1, dtype=np.int32)
        h.changeColsIntegrality(
            len(integer), integer, np.full(len(integer), highspy.HighsVarType.kInteger)
        )

        j = np.arange(d)
        lam, sp, sm = 1 + j, d + 1 + j, 2 * d + 1 + j
        blocks, blo, bhi = [], [], []
        link = np.zeros((3 * d, n))
        link[j, sp] = 1.0  # s+ + s- <= 1
        link[j, sm] = 1.0
        link[d + j, lam] = 1.0  # lam - s+ - lo*s- >= 0
        link[d + j, sp] = -1.0
        link[d + j, sm] = -lo[1:]
        link[2 * d + j, lam] = 1.0  # lam - hi*s+ + s- <= 0
        link[2 * d + j, sp] = -hi[1:]
        link[2 * d + j, sm] = 1.0
        blocks.append(link)
        blo.append(np.concatenate([np.full(d, -np.inf), np.zeros(d), np.full(d, -np.inf)]))
        bhi.append(np.concatenate([np.ones(d), np.full(d, np.inf), np.zeros(d)]))
        for group in fm.groups:  # alpha_j's coefficient goes on both s+_j and s-_j
            block = np.zeros((group.A.shape[0], n))
            block[:, : d + 1] = group.A[:, : d + 1]
            block[:, d + 1 : 2 * d + 1] = group.A[:, d + 1 :]
            block[:, 2 * d + 1 : 3 * d + 1] = group.A[:, d + 1 :]
            blocks.append(block)
            blo.append(np.asarray(group.lower, dtype=float))
            bhi.append(np.asarray(group.upper, dtype=float))
        A = np.vstack(blocks)
        row_lo = np.concatenate(blo)
        row_hi = np.concatenate(bhi)
        add_dense_rows(h, A, row_lo, row_hi)
        self.h = h
        self.highspy = highspy
        self._install_interrupt()

    def _install_interrupt(self) -> None:
        """Let HiGHS poll the stop request during a MIP solve."""
        self.interrupted = False
        if self.limits.stop is None:
            return

        def poll(event) -> None:
            if self.clock.stop_requested():
                self.interrupted = True
                event.data_in.user_interrupt = True

        try:
            self.h.cbMipInterrupt.subscribe(poll)
        except Exception:  # pragma: no cover - older highspy: rely on time slices
            self.slice = 1.0

    def _add_cut(self, loss: float, grad: np.ndarray, lam: np.ndarray) -> None:
        """``L - grad.lam >= loss - grad.lam_k``."""
        d = self.d
        idx = np.concatenate([np.arange(d + 1), [self.L_col]]).astype(np.int32)
        val = np.concatenate([-grad, [1.0]])
        keep = val != 0
        rhs = loss - float(grad @ lam)
        self.h.addRow(rhs, self.highspy.kHighsInf, int(keep.sum()), idx[keep], val[keep])
        self.cuts += 1

    # --- driver ------------------------------------------------------------------------
    def run(self) -> SolveResult:
        self.clock = Clock(self.limits)
        self.slice = math.inf
        self._check_feasible()
        self._build()
        complete = False
        infeasible = False
        while not self._should_stop():
            outcome = self._iterate()
            if outcome == "infeasible":
                infeasible = True
                break
            if outcome == "converged":
                complete = True
                break
            self._emit(incumbent=outcome == "improved")
        return self._finish(complete, infeasible)

    def _check_feasible(self) -> None:
        check_feasible(self.problem)  # raises InfeasibleError naming the culprits

    def _iterate(self) -> str:
        """One MIP solve plus a cut; returns what happened."""
        h, S = self.h, self.highspy.HighsModelStatus
        remaining = self.clock.remaining()
        h.setOptionValue("time_limit", float(max(min(remaining, self.slice), 1e-3)))
        t0 = time.perf_counter()
        h.run()
        elapsed = time.perf_counter() - t0
        info = h.getInfo()
        status = h.getModelStatus()
        nodes = int(max(info.mip_node_count, 0))
        self.nodes += nodes
        self.iterations += 1
        self.mip_times.append(elapsed)
        self.mip_nodes.append(nodes)
        if status in (S.kInfeasible, S.kUnboundedOrInfeasible):
            return "infeasible"
        if status == S.kOptimal:
            bound = min(float(info.mip_dual_bound), float(info.objective_function_value))
        else:  # time limit or interrupt: HiGHS' dual bound is still valid
            bound = float(info.mip_dual_bound)
        if math.isfinite(bound):
            self.lb = max(self.lb, bound - 1e-12 * (1.0 + abs(bound)))
        if status != S.kOptimal:
            if self.interrupted:
                self.stop_reason = "stopped"
            elif self.clock.out_of_time():
                self.stop_reason = "time_limit"
            if not (int(info.primal_solution_status) == 2):  # no feasible point
                return "unfinished"
        x = np.asarray(h.getSolution().col_value)
        lam = np.rint(x[: self.d + 1])
        loss, grad = self.problem.loss.value_and_grad(lam, integral=True)
        key = tuple(int(v) for v in lam)
        repeated = key in self.cut_points
        if not repeated:
            self.cut_points.add(key)
            self._add_cut(loss, grad, lam)
        improved = False
        if not self.problem.violations(lam):
            objective = loss + float(self.problem.c0 @ (lam[1:] != 0))
            if objective < self.ub:
                self.ub, self.best = objective, lam.astype(np.int64)
                improved = True
        if repeated and status == S.kOptimal:
            # The MIP's optimum sits on a point whose cut is exact there, so its value
            # equals that point's objective (up to HiGHS' tolerances): converged.
            self.lb = max(self.lb, min(self.ub, float(info.objective_function_value)))
            if self.best is not None and self.ub - self.lb <= 1e-7 * max(abs(self.ub), 1e-12):
                self.lb = self.ub
                return "converged"
            # a repeated point that does not close the gap (a row slipped through HiGHS'
            # tolerances): CPA cannot make progress, so stop with the bounds we have
            self.stop_reason = "time_limit"
        return "improved" if improved else "cut"

    # --- limits and reporting ------------------------------------------------------------
    def _should_stop(self) -> bool:
        if self.stop_reason is not None:
            return True
        self.stop_reason = self.clock.limit_reached(self.nodes)
        if self.stop_reason is not None:
            return True
        if self.max_iterations is not None and self.iterations >= self.max_iterations:
            self.stop_reason = "node_limit"
        elif math.isfinite(self.ub) and relative_gap(self.ub, self.lb) <= self.limits.gap_tolerance:
            self.stop_reason = "gap"
        return self.stop_reason is not None

    def _lower(self) -> float:
        return min(self.lb, self.ub)

    def _emit(self, incumbent: bool = False) -> None:
        if not self.emitter.active:
            return
        lb = self._lower()
        self.emitter.emit(
            SolveEvent(
                time=self.clock.elapsed(),
                phase="search",
                upper_bound=self.ub,
                lower_bound=lb,
                gap=relative_gap(self.ub, lb),
                nodes=self.nodes,
                cuts=self.cuts,
                incumbent=self.problem.as_dict(self.best) if incumbent else None,
                kind="incumbent" if incumbent else "progress",
            )
        )

    def _finish(self, complete: bool, infeasible: bool) -> SolveResult:
        best = None if self.best is None else self.best.copy()
        return finish_solve(
            self.emitter,
            solution=best,
            incumbent=None if best is None else self.problem.as_dict(best),
            upper_bound=self.ub,
            lower_bound=self._lower(),
            complete=complete or infeasible,
            gap_tolerance=self.limits.gap_tolerance,
            stop_reason=self.stop_reason,
            nodes=self.nodes,
            cuts=self.cuts,
            elapsed=self.clock.elapsed(),
            trace=self.trace,
            stats={
                "iterations": self.iterations,
                "mip_times": list(self.mip_times),
                "mip_nodes": list(self.mip_nodes),
                "distinct_rows": self.problem.loss.n_rows,
            },
        )
