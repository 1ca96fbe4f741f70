"""Certifiably optimal predictive checklists: IP (2) of the checklists paper on HiGHS.

Formulation
-----------
Training rows with the same item pattern ``x_u`` get the same prediction, so the IP
has one binary ``p_u`` (predicted positive) per *distinct* pattern, carrying the summed
weights ``w+_u`` (positives) and ``w-_u`` (negatives) of its rows. The paper's mistake
indicators are ``z_u = 1 - p_u`` for the positives of ``u`` and ``z_u = p_u`` for its
negatives. Columns are ``[use_1..use_d, M, N, p_u ...]`` and::

    min   sum_u w+_u (1 - p_u) + W- sum_u w-_u p_u + eps_N N + eps_M M
    s.t.  N = sum_j use_j,   M <= N,   min_items <= N <= max_items,  min_m <= M <= max_m
          (A_u)  p_u = 1  =>  s_u >= M:      s_u - M - BA_u p_u >= -BA_u
          (B_u)  p_u = 0  =>  s_u <= M - 1:  s_u - M - BB_u p_u <= -1
          model-form rows and rows on weighted mistakes of groups (constraints)

with ``s_u = sum_j x_uj use_j``. The big-M constants are the tightest valid ones given
the size bounds: with ``p_u = 0``, (A_u) needs ``BA_u >= M - s_u``; since the items
outside the pattern number ``d - |x_u|``, ``s_u >= N - (d - |x_u|)`` and ``M <= N``, so
``BA_u = min(max_m, d - |x_u|)``. With ``p_u = 1``, (B_u) needs
``BB_u >= s_u - M + 1``, and ``s_u <= min(|x_u|, max_items)``, ``M >= min_m``, so
``BB_u = min(|x_u|, max_items) - min_m + 1``. Patterns that can never reach ``min_m``
checked items have ``p_u = 0`` fixed; a pattern with every item checked has ``p_u = 1``.

Only the direction a pattern's objective (or a mistake constraint) pushes toward needs
its row: a pattern with more positive than negative weight wants ``p_u = 1`` and needs
only (A_u) (``p_u = 0`` merely over-counts mistakes, which the minimisation avoids).
With rows on mistakes (e.g. FNR limits, group gaps) both directions are added wherever
some row could profit from a wrong ``p_u``, so the indicators are exact there.

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
from dataclasses import dataclass, field

import numpy as np

from riskexplore.checklist.feasibility import check_feasible_with
from riskexplore.checklist.problem import ChecklistProblem, ChecklistSolution
from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.highs import new_highs
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
#: Largest number of pattern pairs compared for monotonicity rows.
_MAX_PAIRS = 4_000_000
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


@dataclass
class ChecklistIPSettings:
    """Solver settings of :func:`solve_checklist`.

    Attributes
    ----------
    strengthen : bool
        Add valid inequalities ``p_u <= s_u`` and ``p_u >= p_v`` for patterns ``u``
        containing ``v`` (off by default: no measurable gain on the benchmarks tried).
    greedy_start : bool
        Start from a quick greedy checklist (forward selection), besides warm starts.
    exact_indicators : bool
        Add both big-M rows for every free pattern (exact predictions in the IP) even
        without mistake constraints.
    progress_interval : float
        Smallest time (s) between two progress events (incumbent events are never held).
    presolve : bool
        HiGHS presolve.
    threads : int, optional
        HiGHS ``threads`` option.
    random_seed : int
        HiGHS ``random_seed``.
    highs_options : dict
        Any other HiGHS options, set last.
    """

    exact_indicators: bool = False
    greedy_start: bool = True
    strengthen: bool = False
    progress_interval: float = 0.1
    presolve: bool = True
    threads: int | None = None
    random_seed: int = 0
    highs_options: dict = field(default_factory=dict)


# --- the IP ----------------------------------------------------------------------------
class _IP:
    """The HiGHS model of a checklist problem (optionally with some parts relaxed)."""

    def __init__(
        self,
        problem: ChecklistProblem,
        *,
        active: set[str] | None = None,
        with_objective: bool = True,
        exact: bool = False,
        settings: ChecklistIPSettings | None = None,
    ) -> None:
        import highspy

        self.highspy = highspy
        self.problem = p = problem
        settings = settings or ChecklistIPSettings()
        d = p.n_items
        names = p.size_names()

        def on(name: str) -> bool:
            return active is None or name in active

        n_lo = p.min_items if on(names["min_items"]) else 1
        n_hi = p.max_items if on(names["max_items"]) else d
        m_lo, m_hi = (p.min_m, p.max_m) if on(names["m_range"]) else (1, d)
        self.rows = [r for r in p.rows if on(r.name)]
        self.error_rows = [r for r in p.error_rows if on(r.name)]

        # -- patterns: fixed predictions and objective coefficients
        size = p.pattern_size
        fixed = np.full(size.shape[0], -1, dtype=np.int8)
        fixed[np.minimum(size, n_hi) < m_lo] = 0
        fixed[size == d] = 1
        free = np.flatnonzero(fixed < 0)
        self.fixed, self.free = fixed, free
        U = len(free)
        self.d, self.col_M, self.col_N = d, d, d + 1
        self.n_cols = n_cols = d + 2 + U

        if with_objective:
            c_u = -p.w_pos + p.fp_weight * p.w_neg
            offset = float(p.w_pos.sum()) + float(c_u[fixed == 1].sum())
        else:
            c_u = np.zeros(size.shape[0])
            offset = 0.0

        # -- mistake rows expanded over p: coef (rows x patterns) and constants
        E = np.zeros((len(self.error_rows), size.shape[0]))
        e_lo = np.empty(len(self.error_rows))
        e_hi = np.empty(len(self.error_rows))
        for k, row in enumerate(self.error_rows):
            const = 0.0
            for label, c in row.fn.items():
                wp, _ = p.group_class_weights(label)
                E[k] -= c * wp
                const += c * float(wp.sum())
            for label, c in row.fp.items():
                _, wn = p.group_class_weights(label)
                E[k] += c * wn
            const += float(E[k][fixed == 1].sum())
            e_lo[k] = row.lower - const
            e_hi[k] = row.upper - const

        # -- which big-M directions are needed
        wants_one = c_u < 0
        wants_zero = c_u > 0
        if len(self.error_rows):
            up = np.isfinite(e_hi)[:, None]
            lo = np.isfinite(e_lo)[:, None]
            wants_one |= (((E < 0) & up) | ((E > 0) & lo)).any(axis=0)
            wants_zero |= (((E > 0) & up) | ((E < 0) & lo)).any(axis=0)
        if exact or settings.exact_indicators:
            wants_one[:] = True
            wants_zero[:] = True

        h = new_highs()
        h.setOptionValue("output_flag", False)
        inf = highspy.kHighsInf
        col_lo = np.zeros(n_cols)
        col_hi = np.ones(n_cols)
        col_lo[self.col_M], col_hi[self.col_M] = m_lo, m_hi
        col_lo[self.col_N], col_hi[self.col_N] = n_lo, n_hi
        cost = np.zeros(n_cols)
        if with_objective:
            cost[self.col_N] = p.eps_n
            cost[self.col_M] = p.eps_m
            cost[d + 2 :] = c_u[free]
        h.addVars(n_cols, col_lo, col_hi)
        h.changeColsCost(n_cols, np.arange(n_cols, dtype=np.int32), cost)
        h.changeColsIntegrality(
            n_cols,
            np.arange(n_cols, dtype=np.int32),
            np.full(n_cols, highspy.HighsVarType.kInteger),
        )
        if offset:
            h.changeObjectiveOffset(offset)

        rows = _SparseRows(inf)
        # N = sum_j use_j ; M - N <= 0
        rows.add(np.arange(d + 2), np.concatenate([np.ones(d), [0.0, -1.0]]), 0.0, 0.0)
        rows.add(np.array([self.col_M, self.col_N]), np.array([1.0, -1.0]), -math.inf, 0.0)
        index = {n: j for j, n in enumerate(p.item_names)}
        for row in self.rows:
            coefs: dict[int, float] = {}
            for name, c in row.items.items():
                coefs[index[name]] = coefs.get(index[name], 0.0) + c
            if row.M:
                coefs[self.col_M] = coefs.get(self.col_M, 0.0) + row.M
            if row.N:
                coefs[self.col_N] = coefs.get(self.col_N, 0.0) + row.N
            cols = np.array(sorted(coefs), dtype=np.int64)
            rows.add(cols, np.array([coefs[c] for c in cols]), row.lower, row.upper)
        # big-M rows
        patterns = p.patterns
        for k, u in enumerate(free):
            col_p = d + 2 + k
            items = np.flatnonzero(patterns[u])
            cols = np.concatenate([items, [self.col_M, col_p]])
            if wants_one[u]:
                big = float(min(m_hi, d - size[u]))
                vals = np.concatenate([np.ones(len(items)), [-1.0, -big]])
                rows.add(cols, vals, -big, math.inf)
            if wants_zero[u]:
                big = float(min(size[u], n_hi) - m_lo + 1)
                vals = np.concatenate([np.ones(len(items)), [-1.0, -big]])
                rows.add(cols, vals, -math.inf, -1.0)
        # valid inequalities (hold for the exact predictions, so the optimum is kept)
        self.n_cuts = 0
        if settings.strengthen:
            # p_u <= s_u: a positive prediction needs at least one checked item (M >= 1)
            for k, u in enumerate(free):
                items = np.flatnonzero(patterns[u])
                rows.add(
                    np.concatenate([items, [d + 2 + k]]),
                    np.concatenate([np.ones(len(items)), [-1.0]]),
                    0.0,
                    math.inf,
                )
                self.n_cuts += 1
            # monotonicity: a pattern containing another is predicted positive whenever
            # the smaller one is (p_u >= p_v), for the pairs where it matters
            ones = np.flatnonzero(wants_one[free])
            zeros = np.flatnonzero(wants_zero[free])
            if len(ones) and len(zeros) and len(ones) * len(zeros) <= _MAX_PAIRS:
                P = patterns[free].astype(bool)
                small, big = P[ones], P[zeros]
                # contains[a, b]: pattern zeros[b] contains pattern ones[a]
                missing = small.astype(np.int32) @ (~big).astype(np.int32).T
                for a, b in zip(*np.nonzero(missing == 0), strict=True):
                    v, u = ones[a], zeros[b]
                    if u == v:
                        continue
                    rows.add(np.array([d + 2 + u, d + 2 + v]), np.array([1.0, -1.0]), 0.0, math.inf)
                    self.n_cuts += 1
        # mistake rows
        for k in range(len(self.error_rows)):
            coef = E[k][free]
            nz = np.flatnonzero(coef)
            rows.add(d + 2 + nz, coef[nz], e_lo[k], e_hi[k])
        rows.flush(h)
        self.n_rows = rows.count
        self.n_big_m = int(wants_one[free].sum() + wants_zero[free].sum())

        h.setOptionValue("presolve", "on" if settings.presolve else "off")
        h.setOptionValue("random_seed", int(settings.random_seed))
        if settings.threads is not None:
            h.setOptionValue("threads", int(settings.threads))
        self.h = h

    def vector(self, mask: np.ndarray, M: int) -> np.ndarray:
        """The full column vector of a checklist (exact predictions)."""
        p = self.problem
        x = np.zeros(self.n_cols)
        x[: self.d] = mask.astype(float)
        x[self.col_M] = M
        x[self.col_N] = int(mask.sum())
        pred = p.pattern_predictions(mask, M)
        x[self.d + 2 :] = pred[self.free]
        return x

    def decode(self, x) -> tuple[np.ndarray, int]:
        x = np.asarray(x, dtype=float)
        return x[: self.d] > 0.5, int(round(float(x[self.col_M])))


class _SparseRows:
    """Collects rows and adds them to HiGHS in one call."""

    def __init__(self, inf: float) -> None:
        self.inf = inf
        self.starts: list[int] = []
        self.index: list[np.ndarray] = []
        self.value: list[np.ndarray] = []
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.nnz = 0
        self.count = 0

    def add(self, cols, vals, lower: float, upper: float) -> None:
        self.starts.append(self.nnz)
        self.index.append(np.asarray(cols, dtype=np.int32))
        self.value.append(np.asarray(vals, dtype=float))
        self.nnz += len(cols)
        self.lower.append(-self.inf if lower == -math.inf else float(lower))
        self.upper.append(self.inf if upper == math.inf else float(upper))
        self.count += 1

    def flush(self, h) -> None:
        if not self.count:
            return
        h.addRows(
            self.count,
            np.array(self.lower),
            np.array(self.upper),
            self.nnz,
            np.array(self.starts, dtype=np.int32),
            np.concatenate(self.index).astype(np.int32),
            np.concatenate(self.value),
        )


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

        worker = threading.Thread(target=work, daemon=True, name="riskexplore-checklist-ip")
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
        self.ip = ip = _IP(p, settings=self.settings)
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
        """A quick incumbent: forward selection of items, each prefix tried with every M.

        Candidates respect the rows that only cap sums of items (one item per group, at
        most k of, exclusions); every prefix and threshold is checked exactly.
        """
        p = self.problem
        d = p.n_items
        P = p.patterns.astype(np.int32)
        A = p.row_A
        caps = np.zeros((0, d))
        cap_hi = np.zeros(0)
        if len(A):
            simple = (
                (A[:, :d] >= 0).all(axis=1) & (A[:, d:] == 0).all(axis=1) & np.isfinite(p.row_upper)
            )
            caps, cap_hi = A[simple, :d], p.row_upper[simple]
        counts = np.zeros(P.shape[0], dtype=np.int32)
        chosen = np.zeros(d, dtype=bool)
        used = np.zeros(len(cap_hi))
        deadline = time.perf_counter() + _GREEDY_SECONDS
        for _ in range(p.max_items):
            ok = ~chosen
            if len(cap_hi):
                ok &= ((used[:, None] + caps) <= cap_hi[:, None] + 1e-9).all(axis=0)
            if not ok.any() or time.perf_counter() > deadline:
                break
            cand = np.flatnonzero(ok)
            C = counts[:, None] + P[:, cand]
            N = int(chosen.sum()) + 1
            best_j, best_val = -1, math.inf
            for M in range(p.min_m, min(p.max_m, N) + 1):
                pred = C >= M
                loss = p.w_pos @ (~pred) + p.fp_weight * (p.w_neg @ pred)
                k = int(np.argmin(loss))
                if loss[k] < best_val:
                    best_j, best_val = int(cand[k]), float(loss[k])
            chosen[best_j] = True
            counts += P[:, best_j]
            used += caps[:, best_j] if len(cap_hi) else 0.0
            for M in range(p.min_m, min(p.max_m, N) + 1):
                self._offer(chosen, M)

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
    ip = _IP(problem, active=set(active), with_objective=False, exact=True)
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
