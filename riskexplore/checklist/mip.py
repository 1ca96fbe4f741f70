"""Certifiably optimal predictive checklists: IP (2) of the checklists paper on HiGHS.

The formulation (one binary per distinct item pattern, tight big-M rows) is in
:mod:`riskexplore.checklist.mip_model`.

Events, limits and warm starts
------------------------------
Progress is reported from HiGHS callbacks: every improving solution (``kind
"incumbent"``, ``incumbent = {"items": [...], "M": m}``) and at most 10 progress events
per second from the MIP interrupt callback, which also honours stop requests and our
clock. Lower bounds are HiGHS' ``mip_dual_bound`` (capped by the incumbent). Objective
values are multiples of ``eps_M`` (see :mod:`riskexplore.checklist.problem`),
so a gap below ``eps_M / 2`` proves optimality. Warm starts are checklists
``(items, M)``; feasible ones are evaluated exactly, and the best is passed to HiGHS as a
full solution vector and reported as the first incumbent.
"""

from __future__ import annotations

import atexit
import math
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

from riskexplore.checklist.feasibility import check_feasible_with
from riskexplore.checklist.heuristics import greedy_checklists
from riskexplore.checklist.mip_model import ChecklistIP, ChecklistIPSettings
from riskexplore.checklist.problem import ChecklistProblem, ChecklistSolution
from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.highs import highs_thread
from riskexplore.core.limits import Clock, Limits
from riskexplore.core.result import SolveResult, final_status

__all__ = [
    "ChecklistIPSettings",
    "check_checklist_feasible",
    "solve_checklist",
]

#: Seconds between two polls of the worker thread (stop requests, events).
_POLL = 0.02
#: Seconds to wait for HiGHS to acknowledge a halt before returning without it.
_GRACE = 0.5
#: Worker threads still running after their solve returned; joined at exit, because
#: ending the interpreter while HiGHS runs aborts the process. They stop at HiGHS' next
#: interrupt check (or its time limit).
_DETACHED: set = set()


def _join_detached() -> None:
    for worker in list(_DETACHED):
        worker.join()


atexit.register(_join_detached)

#: Time budget (s) of the greedy starting checklist.
_GREEDY_SECONDS = 1.0
#: Time limit (s) of one feasibility MIP in :func:`check_checklist_feasible`.
_FEASIBILITY_TIME_LIMIT = 20.0


# --- solving ---------------------------------------------------------------------------
def solve_checklist(
    problem: ChecklistProblem,
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    warm_starts: Sequence[tuple[Sequence[str], int]] = (),
    settings: ChecklistIPSettings | None = None,
) -> SolveResult:
    """Solve IP (2) for ``problem`` with HiGHS and return the best checklist.

    Parameters
    ----------
    problem : ChecklistProblem
    limits : Limits, optional
        Time, node and gap limits and a stop request (honoured within a fraction of a
        second through HiGHS' interrupt callback).
    listeners : sequence of callables
        Each receives every :class:`SolveEvent` (phase ``"search"``, then ``"done"``).
    warm_starts : sequence of ``(items, M)``
        Checklists to start from; infeasible ones are skipped (counted in ``stats``).
    settings : ChecklistIPSettings, optional

    Returns
    -------
    SolveResult
        Status ``"optimal"``, ``"time_limit"``, ``"node_limit"``, ``"stopped"`` or
        ``"infeasible"``; ``stats`` has the training mistakes of the checklist
        (``train_fp``, ``train_fn``, ``train_errors`` = weighted mistakes, ``loss`` =
        ``fn + W- fp``), HiGHS' ``mip_gap`` and the size of the IP.
    """
    return _Solve(problem, limits or Limits(), listeners, warm_starts, settings).run()


class _Solve:
    """One solve: HiGHS runs in a worker thread; events are emitted in the caller's thread.

    HiGHS' callbacks (worker thread) only record incumbents, bounds and node counts under
    a lock, and interrupt the search once a halt is requested. The caller's thread polls
    every few milliseconds: it emits incumbent events as they arrive and throttled
    progress events, and checks the stop request and the clock. HiGHS checks for
    interrupts only between phases of its search (at the root it can go seconds without
    one), so after a halt the caller waits at most ``_GRACE`` seconds, then returns the
    incumbent and bounds recorded so far and leaves the worker to stop on its own at its
    next interrupt check.
    """

    def __init__(self, problem, limits, listeners, warm_starts, settings) -> None:
        self.problem = problem
        self.limits = limits
        self.settings = settings or ChecklistIPSettings()
        self.trace = Trace()
        self.emitter = EventEmitter([self.trace, *listeners])
        self.warm_starts = list(warm_starts)
        self.ub = math.inf
        self.lb = 0.0  # every term of the objective is non-negative
        self.best: tuple[np.ndarray, int] | None = None
        self.nodes = 0
        self.last_emit = -math.inf
        self.stop_reason: str | None = None
        self.error: BaseException | None = None
        self.n_incumbents = 0
        self.lock = threading.Lock()
        self.pending: list[tuple[float, float, dict]] = []  # new incumbents to announce
        self.halt = False
        self.detached = False

    # --- incumbents --------------------------------------------------------------------
    def _offer(self, mask: np.ndarray, M: int) -> bool:
        """Take ``(mask, M)`` as incumbent if feasible and better (any thread)."""
        p = self.problem
        if p.violations(mask, M):
            return False
        value = p.objective(mask, M)
        with self.lock:
            if value >= self.ub:
                return False
            self.ub = value
            self.best = (mask.copy(), int(M))
            self.n_incumbents += 1
            self.pending.append((value, p.as_dict(mask, M)))
        return True

    def _lower(self) -> float:
        lb = min(self.lb, self.ub)
        p = self.problem
        if p.lexicographic_exact and math.isfinite(self.ub) and self.ub - lb < 0.5 * p.eps_m:
            # objective values are multiples of eps_M: nothing lies between lb and ub
            lb = self.ub
        return lb

    def _announce(self, force_progress: bool = False) -> None:
        """Emit pending incumbent events and, throttled, a progress event (caller thread)."""
        with self.lock:
            pending, self.pending = self.pending, []
        if not self.emitter.active:
            return
        now = self.clock.elapsed()
        for value, incumbent in pending:
            lb = min(self._lower(), value)
            self.last_emit = now
            self.emitter.emit(
                SolveEvent(
                    time=now,
                    phase="search",
                    upper_bound=value,
                    lower_bound=lb,
                    gap=relative_gap(value, lb),
                    nodes=self.nodes,
                    cuts=0,
                    incumbent=incumbent,
                    kind="incumbent",
                )
            )
        if pending or not (
            force_progress or now - self.last_emit >= self.settings.progress_interval
        ):
            return
        self.last_emit = now
        lb = self._lower()
        self.emitter.emit(
            SolveEvent(
                time=now,
                phase="search",
                upper_bound=self.ub,
                lower_bound=lb,
                gap=relative_gap(self.ub, lb),
                nodes=self.nodes,
                cuts=0,
                incumbent=None,
                kind="progress",
            )
        )

    # --- callbacks (worker thread) -----------------------------------------------------
    def _update_bounds(self, data_out) -> None:
        if self.detached:
            return
        nodes = int(getattr(data_out, "mip_node_count", 0) or 0)
        bound = float(data_out.mip_dual_bound)
        with self.lock:
            self.nodes = max(self.nodes, nodes)
            if math.isfinite(bound) and abs(bound) < 1e300:
                self.lb = max(self.lb, bound)

    def _on_improving(self, event) -> None:
        if self.detached or self.error is not None:
            event.data_in.user_interrupt = True
            return
        try:
            self._update_bounds(event.data_out)
            mask, M = self.ip.decode(event.data_out.mip_solution)
            self._offer(mask, M)
        except BaseException as exc:  # re-raised in the caller's thread
            self.error = exc
            event.data_in.user_interrupt = True

    def _on_interrupt(self, event) -> None:
        if self.halt or self.detached or self.error is not None:
            event.data_in.user_interrupt = True
            return
        try:
            self._update_bounds(event.data_out)
        except BaseException as exc:
            self.error = exc
            event.data_in.user_interrupt = True

    # --- driver ------------------------------------------------------------------------
    def _configure(self) -> float:
        p, h = self.problem, self.ip.h
        h.setOptionValue("mip_rel_gap", float(max(self.limits.gap_tolerance, 0.0)))
        abs_gap = 0.49 * p.eps_m if p.lexicographic_exact else min(1e-9, 0.49 * p.eps_m)
        h.setOptionValue("mip_abs_gap", float(abs_gap))
        if self.limits.node_limit is not None:
            h.setOptionValue("mip_max_nodes", int(self.limits.node_limit))
        for key, value in self.settings.highs_options.items():
            h.setOptionValue(key, value)
        return abs_gap

    def _check_halt(self) -> None:
        if self.halt:
            return
        reason = self.clock.limit_reached()
        if reason is not None:
            self.stop_reason, self.halt = reason, True
            self.halt_time = time.perf_counter()

    def _run_worker(self) -> bool:
        """Run HiGHS in a worker thread; returns whether it finished (not detached)."""
        h = self.ip.h
        remaining = self.clock.remaining()
        if math.isfinite(remaining):
            h.setOptionValue("time_limit", float(max(remaining, 1e-3)))
        h.cbMipImprovingSolution.subscribe(self._on_improving)
        h.cbMipInterrupt.subscribe(self._on_interrupt)
        done = threading.Event()
        failure: list[BaseException] = []

        def work() -> None:
            try:
                h.run()
            except BaseException as exc:  # pragma: no cover - HiGHS failure
                failure.append(exc)
            finally:
                done.set()

        worker = threading.Thread(
            target=highs_thread(work), daemon=True, name="riskexplore-checklist-ip"
        )
        worker.start()
        try:
            while not done.wait(_POLL):
                self._check_halt()
                if self.error is not None:
                    self.halt = True
                self._announce()
                grace = _GRACE if self.stop_reason == "stopped" else 2 * _GRACE
                if self.halt and time.perf_counter() - self.halt_time > grace:
                    self.detached = True
                    _DETACHED.add(worker)
                    return False
        except BaseException:
            # a listener failed: stop HiGHS (best effort) and report the error
            self.halt = True
            self.detached = not done.wait(_GRACE)
            raise
        worker.join()
        if failure:  # pragma: no cover
            raise failure[0]
        if self.error is not None:
            raise self.error
        h.cbMipImprovingSolution.unsubscribe(self._on_improving)
        h.cbMipInterrupt.unsubscribe(self._on_interrupt)
        return True

    def run(self) -> SolveResult:
        highspy = __import__("highspy")
        self.clock = Clock(self.limits)
        self.halt_time = math.inf
        p = self.problem
        t0 = time.perf_counter()
        self.ip = ip = ChecklistIP(p, settings=self.settings)
        build_time = time.perf_counter() - t0
        self._configure()
        n_given = len(self.warm_starts)
        n_ok = self._warm_start()
        self._announce(force_progress=True)
        self._check_halt()
        finished = False
        if not self.halt:
            finished = self._run_worker()
        complete = infeasible = False
        info = None
        if finished:
            h = ip.h
            S = highspy.HighsModelStatus
            status = h.getModelStatus()
            info = h.getInfo()
            self.nodes = max(self.nodes, int(max(info.mip_node_count, 0)))
            if int(info.primal_solution_status) == 2:
                mask, M = ip.decode(h.getSolution().col_value)
                self._offer(mask, M)
            bound = float(info.mip_dual_bound)
            if status not in (S.kInfeasible, S.kUnboundedOrInfeasible):
                if math.isfinite(bound) and abs(bound) < 1e300:
                    self.lb = max(self.lb, bound)
            if status in (S.kInfeasible, S.kUnboundedOrInfeasible):
                infeasible = self.best is None
                complete = infeasible
            elif status == S.kOptimal:
                complete = True
            elif self.stop_reason is None:
                if status == S.kTimeLimit:
                    self.stop_reason = "time_limit"
                elif status == S.kInterrupt:
                    self.stop_reason = "stopped"
                else:  # node limit (HiGHS reports a solution/iteration limit)
                    self.stop_reason = "node_limit"
            if self.stop_reason is not None and status == S.kOptimal:
                self.stop_reason = None
        self._announce()
        return self._finish(complete, infeasible, info, n_given, n_ok, build_time)

    def _greedy_start(self) -> None:
        """A quick incumbent: every checklist of the greedy forward selection."""
        for mask, M in greedy_checklists(self.problem, _GREEDY_SECONDS):
            self._offer(mask, M)

    def _warm_start(self) -> int:
        """Evaluate the warm starts; give the best to HiGHS. Returns how many were usable."""
        p, ip = self.problem, self.ip
        ok = 0
        candidates = []
        for items, M in self.warm_starts:
            mask = p.mask(list(items) if not isinstance(items, np.ndarray) else items)
            try:
                M = int(M)
            except (TypeError, ValueError):
                continue
            if p.violations(mask, M):
                continue
            ok += 1
            candidates.append((p.objective(mask, M), ok, mask, M))
        if candidates:  # announce only the best: later ones could not improve on it
            _, _, mask, M = min(candidates, key=lambda c: (c[0], c[1]))
            self._offer(mask, M)
        if self.settings.greedy_start:
            self._greedy_start()
        if self.best is not None:
            solution = self.ip.highspy.HighsSolution()
            solution.col_value = ip.vector(*self.best).tolist()
            solution.value_valid = True
            ip.h.setSolution(solution)
        return ok

    def _finish(self, complete, infeasible, info, n_given, n_ok, build_time):
        p = self.problem
        lb = self._lower() if self.best is not None else self.lb
        gap = relative_gap(self.ub, lb)
        status = final_status(
            self.best is not None,
            complete or infeasible,
            gap,
            self.limits.gap_tolerance,
            self.stop_reason,
        )
        stats = {
            "build_time": build_time,
            "n_patterns": int(p.patterns.shape[0]),
            "n_free_patterns": len(self.ip.free),
            "n_rows": self.ip.n_rows,
            "n_big_m_rows": self.ip.n_big_m,
            "eps_n": p.eps_n,
            "eps_m": p.eps_m,
            "error_unit": p.error_unit,
            "lexicographic_exact": p.lexicographic_exact,
            "warm_starts_given": n_given,
            "warm_starts_feasible": n_ok,
            "incumbents": self.n_incumbents,
            "mip_gap": float(getattr(info, "mip_gap", math.nan)) if info is not None else math.nan,
            "detached": self.detached,
            "notes": list(p.notes),
        }
        items = M = None
        if self.best is not None:
            mask, M = self.best
            items = p.items_of(mask)
            err = p.errors(mask, M)
            stats.update(
                train_fp=err["fp"],
                train_fn=err["fn"],
                train_errors=err["fp"] + err["fn"],
                train_error_rate=err["error"],
                loss=err["loss"],
                N=len(items),
            )
        result = SolveResult(
            status=status,
            solution=None if items is None else ChecklistSolution(items, M),
            upper_bound=self.ub,
            lower_bound=lb,
            nodes=self.nodes,
            time=self.clock.elapsed(),
            trace=self.trace,
            stats=stats,
        )
        if self.emitter.active:
            self.emitter.emit(
                SolveEvent(
                    time=result.time,
                    phase="done",
                    upper_bound=self.ub,
                    lower_bound=lb,
                    gap=gap,
                    nodes=self.nodes,
                    cuts=0,
                    incumbent=None if self.best is None else p.as_dict(*self.best),
                    kind="final",
                )
            )
        return result


# --- feasibility -------------------------------------------------------------------------
def _feasibility_status(problem, active) -> tuple[str, tuple[list[str], int] | None]:
    highspy = __import__("highspy")
    ip = ChecklistIP(problem, active=set(active), with_objective=False, exact=True)
    ip.h.setOptionValue("time_limit", _FEASIBILITY_TIME_LIMIT)
    ip.h.run()
    status = ip.h.getModelStatus()
    S = highspy.HighsModelStatus
    if status == S.kOptimal:
        mask, M = ip.decode(ip.h.getSolution().col_value)
        return "feasible", (problem.items_of(mask), M)
    if status in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return "infeasible", None
    return "unknown", None


def check_checklist_feasible(problem: ChecklistProblem):
    """Raise :class:`~riskexplore.errors.InfeasibleError` when no checklist satisfies the
    size bounds and constraints (the culprits decided by HiGHS MIPs; see
    :func:`~riskexplore.checklist.feasibility.check_feasible_with`).

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.

    Returns
    -------
    tuple or None
        A feasible ``(items, M)``, or ``None`` when HiGHS cannot decide within its time
        limit.
    """
    return check_feasible_with(problem, lambda active: _feasibility_status(problem, active))
