"""One exact checklist search: its state, incumbent, certificate and events.

This is the default checklist engine (the HiGHS MIP of
:mod:`riskexplore.checklist.mip` stays for cross-checks). It minimises the same
objective as the MIP, ``FN + W- FP``, then fewer items, then a smaller threshold ``M``
(see :mod:`riskexplore.checklist.problem`), over every checklist that meets the
size bounds and constraints, and proves it.

The search
----------
* **One item per group, by construction.** Rows ``sum_{j in G} use_j <= 1`` (what
  :class:`OneItemPerGroup` and ``AtMostKItems(..., k=1)`` compile to) with disjoint ``G``
  become *search groups*; every other item is a group of its own. Items are ordered by
  group and a node grows only with items of later groups, so each subset that takes at
  most one item per group is visited exactly once.
* **Every node is a candidate.** The rows' checked counts are kept as bit-planes (a
  thermometer code: plane ``v`` = rows with at least ``v`` checked items), so adding an
  item is a few word operations per 64 rows, and the weighted mistakes of *every*
  threshold ``M`` follow from popcounts of plane ``M``.
* **Bounds.** Below a node with ``k`` items, at most ``r`` more of them, in groups after
  the node's last one: a negative with at least ``M`` checked items stays a false
  positive (counts only grow); a positive whose count plus ``min(r, later groups in
  which it has a checked item)`` is below ``M`` stays a false negative; a descendant has
  at least ``max(k + 1, M, min_items)`` items. A threshold ``M`` is pruned below the node
  when this bound reaches the incumbent, or when a constraint cannot hold for any
  completion (mistake rows: rows already predicted positive are fixed, rows that can no
  longer reach ``M`` are fixed negative, the rest are free; item rows: the later groups'
  largest and smallest contributions). Both bounds only tighten going down, so a pruned
  ``M`` stays pruned in the whole subtree. Constraints that give no usable bound are still
  checked exactly at every candidate, so results stay exact; only pruning is weaker.
* **Equivalent rows.** Rows that agree on every item of the later groups and on their
  count now are predicted alike in every completion; where such a cell holds both labels,
  one side is wrong whatever is added (:mod:`~riskexplore.checklist.search.cells`). A
  child's bound is also at least its parent's.
* **Siblings.** Checklists ``S + j + l`` and ``S + k + l`` (``j``, ``k`` of one group)
  predict alike every row except those with exactly one of ``j``, ``k`` whose count over
  ``S`` is ``M - 2`` or ``M - 1``; so once the leaves below ``S + k`` are all evaluated,
  their best key at ``M`` less those rows' weight bounds every leaf below ``S + j``
  (MurTree's similarity bound, Demirović et al., JMLR 2022), and a node whose children are
  leaves is skipped, or loses thresholds, when that bound reaches the incumbent. Only
  without constraints, which could rule out the sibling's best leaf.
* **Order.** A node's children are all evaluated (which also tries their checklists), then
  visited in increasing order of bound, so the least open bound rises as subtrees close.
  Nodes at the *frontier* depth (the deepest level with at most ``FRONTIER_SIZE``
  subsets) are collected first and searched least bound first, by one worker or by
  ``n_jobs`` threads or a Dask cluster that share the incumbent
  (:mod:`~riskexplore.checklist.search.parallel`). Below the frontier, a node whose
  bound is well above the least open bound is *deferred* (``defer_band``): it waits with
  the frontier nodes, so the search is best-first and the bound rises early.
* **Exact comparisons.** When the weighted class counts have a common grid ``q`` (unit or
  integer weights; rational weights), objective values are integers in float64: ``key =
  S * loss / q + c_n N + c_m M`` with ``S = 2 (d + 1)^2``, i.e. exactly the objective
  divided by ``eps_M``. Ties (errors, items, ``M``) are decided exactly, and checklists
  of equal key by their items in search order (the first wins), so that the answer does
  not depend on the order of the search or the number of workers. Otherwise the search
  compares floats with a relative slack of ``1e-12`` and reports its lower bound with
  that margin.

Certificate
-----------
At any moment every checklist not yet ruled out lies below a node whose children have
not all been expanded; each such node stores a lower bound on its whole subtree. The
lower bound reported is the least stored bound of the open nodes, capped by the
incumbent, so it is valid at every event and rises as the search goes. When no open node
is left the incumbent is optimal (or, without one, the problem is infeasible).

The compiled loop is in :mod:`riskexplore.checklist.search.kernel`; it returns to
Python every few thousand nodes, so progress events flow and a stop request or the time
limit is honoured within a fraction of a second.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from riskexplore.checklist.problem import ChecklistProblem, ChecklistSolution
from riskexplore.checklist.search import kernel
from riskexplore.checklist.search.arrays import OpenNode, SearchArrays
from riskexplore.checklist.search.cells import CELL_ENTRY_BUDGET
from riskexplore.checklist.search.data import Batch, SearchData, build_search
from riskexplore.checklist.search.refine import refine_frontier
from riskexplore.checklist.search.settings import DEFER_BAND, DEFER_MIN_WORDS, ExactSearchSettings
from riskexplore.checklist.search.stats import search_stats
from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.limits import Clock, Limits
from riskexplore.core.result import SolveResult, final_status

__all__ = ["ExactSearch", "ExactSearchSettings", "OpenNode"]

#: Most nodes of one slice (a slice that ends early must not grow it without end).
_MAX_BUDGET = 1 << 30
#: Relative margin of a reported bound computed from an exact key (a few ulps).
_ROUNDING = 8 * float(np.finfo(float).eps)
#: Relative slack of comparisons when the weights have no common grid.
_FLOAT_SLACK = 1e-12


class ExactSearch:
    """One exact search: the compiled loop's arrays, the incumbent and the events.

    :func:`solve_checklist_exact` is ``ExactSearch(...).run()``. Tests and tools may
    instead call :meth:`start`, then :meth:`step` repeatedly and look at
    :meth:`open_nodes` between steps. The compiled loop's arrays are :attr:`arrays`
    (a :class:`~riskexplore.checklist.search.arrays.SearchArrays`, from :meth:`start`).
    """

    def __init__(
        self,
        problem: ChecklistProblem,
        limits: Limits | None = None,
        listeners: Sequence[Callable[[SolveEvent], None]] = (),
        warm_starts: Iterable[tuple[Sequence[str], int]] = (),
        settings: ExactSearchSettings | None = None,
        *,
        data: SearchData | None = None,
        collect_below: float | None = None,
        runner: Callable[[ExactSearch], tuple[bool, str | None]] | None = None,
    ) -> None:
        self.problem = problem
        self.collect_below = collect_below
        self.runner = runner  # searches the frontier with several workers (.parallel)
        self.limits = limits or Limits()
        self.settings = settings or ExactSearchSettings()
        self.trace = Trace()
        self.emitter = EventEmitter([self.trace, *listeners])
        self.warm_starts = list(warm_starts)
        t0 = time.perf_counter()
        self.data = data or build_search(
            problem,
            group_order=self.settings.group_order,
            cells_budget=CELL_ENTRY_BUDGET if self.settings.cell_bound else 0,
        )
        self.build_time = time.perf_counter() - t0
        band = self.settings.defer_band
        if band is None:
            band = DEFER_BAND if len(self.data.valid) >= DEFER_MIN_WORDS else 0.0
        self.defer_band = band
        self.arrays: SearchArrays | None = None  # allocated by start()
        self.best: tuple[np.ndarray, int] | None = None
        self.found: list[tuple[tuple[int, ...], int]] = []  # (item indices, M) collected
        self.ub = math.inf
        self.lb = 0.0  # every objective term is non-negative
        self.last_emit = -math.inf
        self.n_incumbents = 0
        self.other_nodes = 0  # visited by parallel workers
        self.other_cell_bounds = 0  # cell bounds computed by parallel workers
        self.frontier_time: float | None = None  # when the frontier was complete
        self.held = math.inf  # least bound of subtrees a worker left open for good
        self.open_key = -math.inf  # least open bound (a key) at the last return of the loop
        self.deferred_nodes = 0  # put back with the frontier (see defer_band)
        self.pool: list[Batch] = []  # deferred nodes not merged into the frontier yet
        self.pool_min = math.inf
        self.frontier_built = 0  # frontier nodes when the frontier was complete

    # --- the compiled loop -------------------------------------------------------------
    def _new_arrays(self) -> SearchArrays:
        return SearchArrays(
            self.data, self.settings, defer_band=self.defer_band, collect_below=self.collect_below
        )

    @property
    def counters(self) -> np.ndarray:
        """The counters shared with the compiled loop (indices in ``kernel``)."""
        return self.arrays.counters

    @property
    def depth(self) -> int:
        """The depth of the frontier: the number of items of its nodes."""
        return self.arrays.depth

    def state(self) -> tuple:
        """This search's arrays, in the order the compiled loop takes them."""
        return self.arrays.state()

    def _run_slice(self, budget: int) -> float:
        return self.run_kernel(budget, self.depth)

    def run_kernel(self, budget: int, depth: int) -> float:
        """Run the compiled loop for about ``budget`` nodes with frontier ``depth``."""
        s = self.data
        slack = 0.0 if s.exact else _FLOAT_SLACK
        return kernel.search(
            s.kernel_arrays(), s.cells.arrays(), self.state(), int(budget), slack, depth
        )

    # --- deferred nodes and the frontier -----------------------------------------------
    def defer_threshold(self) -> float:
        """Bound (a key) from which the compiled loop defers a child (see ``defer_band``)."""
        band, incumbent, least = self.defer_band, float(self.arrays.incumbent[0]), self.open_key
        if band <= 0 or not math.isfinite(incumbent) or not math.isfinite(least):
            return math.inf
        return least + band * max(incumbent - least, 0.0)

    def add_deferred(self, batch: Batch) -> None:
        """Keep deferred nodes aside until the frontier reaches their bounds (merging them
        at once would copy the frontier at every return of the loop)."""
        self.pool.append(batch)
        self.pool_min = min(self.pool_min, float(batch.bounds.min()))
        self.deferred_nodes += len(batch)

    def merge_deferred(self) -> None:
        """Merge the deferred nodes into the frontier when the next frontier node is not
        below them (or none is left), so that the frontier is taken least bound first."""
        if not self.pool:
            return
        a = self.arrays
        start, end = int(a.counters[kernel.NEXT_FRONTIER]), int(a.counters[kernel.N_FRONTIER])
        if start < end and self.pool_min > a.f_bound[start]:
            return
        fields = ("paths", "lengths", "bounds", "alive")
        batch = Batch(*(np.concatenate([getattr(b, f) for b in self.pool]) for f in fields))
        self.pool, self.pool_min = [], math.inf
        a.insert_frontier(batch)

    def _frontier_bound(self) -> float:
        """Least bound of the frontier nodes not searched yet."""
        a = self.arrays
        c = a.counters
        n = int(c[kernel.N_FRONTIER])
        if c[kernel.PHASE] == kernel.BUILD:
            return float(a.f_bound[:n].min()) if n else math.inf
        nxt = int(c[kernel.NEXT_FRONTIER])
        least = float(a.f_bound[nxt]) if nxt < n else math.inf  # sorted
        return min(least, self.pool_min)

    def _descend(self) -> None:
        """Sort the frontier by bound and start searching below it."""
        self.frontier_built = self.arrays.sort_frontier()
        self.frontier_time = self.clock.elapsed()

    def _refine_should_stop(self, least: float) -> bool:
        """Between rounds of refining: report the bound; whether a limit ends it."""
        self._from_kernel()
        self.lb = self._lower(least)
        self.maybe_progress()
        return self.clock.limit_reached(self.nodes_visited) is not None

    def refine_closed(self, bound: float) -> bool:
        """Whether a frontier node with this bound cannot hold a better checklist."""
        incumbent = float(self.arrays.incumbent[0])
        if self.counters[kernel.TIES] or not math.isfinite(incumbent):
            return bound > incumbent
        return bound >= incumbent - _FLOAT_SLACK * abs(incumbent)

    # --- incumbents --------------------------------------------------------------------
    def _offer(self, mask: np.ndarray, M: int) -> bool:
        p = self.problem
        if p.violations(mask, M):
            return False
        key = self.data.key(p, mask, M)
        path = self.data.positions_of(mask)
        if not self.arrays.wins(key, path):
            return False
        self.arrays.set_incumbent(key, path, M)
        self._take(mask, M)
        return True

    def offer_found(self, key: float, path: np.ndarray, M: int) -> None:
        """Take a worker's checklist if it beats the incumbent (checked exactly)."""
        if not self.arrays.wins(key, path):
            return
        mask = self._checked_mask(path, M)
        self.arrays.set_incumbent(key, path, M)
        self._take(mask, M)

    def _from_kernel(self) -> None:
        """Take the compiled loop's new incumbent, checked exactly in Python."""
        found = self.arrays.kernel_incumbent()
        if found is not None:
            _, path, M = found
            self._take(self._checked_mask(path, M), M)

    def _checked_mask(self, path: np.ndarray, M: int) -> np.ndarray:
        """The item mask of a checklist (positions) found by a compiled loop."""
        mask = np.zeros(self.problem.n_items, dtype=bool)
        mask[self.data.items[path]] = True
        bad = self.problem.violations(mask, M)
        if bad:  # pragma: no cover - the loop checks the same rows
            raise RuntimeError(f"exact search produced an infeasible checklist ({bad})")
        return mask

    def _take(self, mask: np.ndarray, M: int) -> None:
        self.best = (mask.copy(), int(M))
        self.ub = self.problem.objective(mask, M)
        self.n_incumbents += 1
        self._emit("incumbent", incumbent=self.problem.as_dict(mask, M))

    def _lower(self, open_bound: float) -> float:
        """A valid lower bound in objective units from the least open key."""
        s = self.data
        if open_bound >= self.arrays.incumbent[0]:
            return self.ub if self.best is not None else math.inf
        value = open_bound * s.unit
        # exact keys are exact, but key * unit and the objective are rounded apart: keep
        # the reported bound a few ulps low so that it never passes a later incumbent
        value -= (_ROUNDING if s.exact else _FLOAT_SLACK) * abs(value)
        return min(max(self.lb, value), self.ub)

    # --- events --------------------------------------------------------------------------
    def _emit(self, kind: str, *, incumbent=None, phase: str = "search") -> None:
        if not self.emitter.active:
            return
        now = self.clock.elapsed()
        self.last_emit = now
        self.emitter.emit(
            SolveEvent(
                time=now,
                phase=phase,
                upper_bound=self.ub,
                lower_bound=self.lb if self.best is None else min(self.lb, self.ub),
                gap=relative_gap(self.ub, self.lb),
                nodes=self.nodes_visited,
                cuts=0,
                incumbent=incumbent,
                kind=kind,
            )
        )

    # --- driver --------------------------------------------------------------------------
    def start(self) -> None:
        """Set up the root and take the feasible warm starts."""
        self.clock = Clock(self.limits)
        self.arrays = self._new_arrays()
        self.n_ok = sum(self._offer(self.problem.mask(list(i)), int(m)) for i, m in self._starts())
        self._emit("progress", phase="initialization")

    def step(self, budget: int) -> bool:
        """Run about ``budget`` more nodes; returns whether the search is complete."""
        if self.data.empty:
            return True
        self.merge_deferred()
        self.arrays.defer_at[:] = self.defer_threshold(), self.pool_min
        open_bound = self._run_slice(budget)
        self._from_kernel()
        self.found.extend(self.arrays.take_found())
        c = self.counters
        deferred = self.arrays.take_deferred()
        if deferred is not None:
            self.add_deferred(deferred)
        if self.pool:
            c[kernel.DONE] = 0  # the loop takes them from the frontier, once merged
        if c[kernel.DONE] and c[kernel.PHASE] == kernel.BUILD and c[kernel.N_FRONTIER]:
            if self.settings.refine and self.collect_below is None and not self.defer_band:
                settings = self.settings
                spent = self.build_time + self.clock.elapsed()
                seconds = min(settings.refine_seconds, settings.refine_share * spent)
                refine_frontier(self, settings.frontier_limit, seconds, self._refine_should_stop)
                self._from_kernel()  # checklists met while refining
            self._descend()
        open_bound = min(open_bound, self._frontier_bound())
        self.open_key = open_bound
        done = bool(c[kernel.DONE])
        self.lb = self.ub if done and self.best is not None else self._lower(open_bound)
        return done

    def lower_threshold(self, key: float) -> None:
        """Collect only checklists with a key below ``key`` from now on."""
        self.arrays.incumbent[0] = min(self.arrays.incumbent[0], key)

    @property
    def incumbent_objective(self) -> float:
        """Objective of the best checklist found (``inf`` before one)."""
        return self.ub

    @property
    def lower_bound(self) -> float:
        """The current proven lower bound on the optimum."""
        return self.lb

    def open_nodes(self) -> list[OpenNode]:
        """The nodes not expanded yet (their subtrees hold every checklist not yet
        tried), with their bounds; for tests of bound soundness."""
        return self.arrays.open_nodes(self.problem.item_names, self.pool)

    def run(self) -> SolveResult:
        """Search until complete or a limit ends it; the result carries a valid bound."""
        self.start()
        complete, stop_reason = self._loop() if not self.data.empty else (True, None)
        return self._finish(complete, stop_reason, self.n_ok)

    def _starts(self):
        names = set(self.problem.item_names)
        for items, M in self.warm_starts:
            items = list(items) if not isinstance(items, str) else [items]
            if all(isinstance(i, str) and i in names for i in items):
                yield items, M

    def _loop(self) -> tuple[bool, str | None]:
        budget = 2_000
        node_limit = self.limits.node_limit
        while True:
            verdict = self.verdict()
            if verdict is not None:
                return verdict
            if self._parallel_ready():
                return self.runner(self)
            step = budget
            if node_limit is not None:
                step = max(1, min(step, node_limit - int(self.counters[kernel.NODES])))
            t0 = time.perf_counter()
            done = self.step(step)
            spent = time.perf_counter() - t0
            if done:
                return True, None
            self.maybe_progress()
            # aim each slice at slice_seconds (compilation makes the first one long)
            target = self.settings.slice_seconds
            rate = step / max(spent, 1e-4)
            budget = int(min(max(rate * target, 200), 4 * budget + 1000, _MAX_BUDGET))

    def verdict(self) -> tuple[bool, str | None] | None:
        """``(complete, stop reason)`` when the search should end now, else None."""
        reason = self.clock.limit_reached(self.nodes_visited)
        if reason is not None:
            return False, reason
        if self.best is not None and self.lb >= self.ub:
            return True, None
        if relative_gap(self.ub, self.lb) <= self.limits.gap_tolerance:
            return False, "gap"
        return None

    def maybe_progress(self) -> None:
        """A progress event, unless one went out less than ``progress_interval`` ago."""
        if self.clock.elapsed() - self.last_emit >= self.settings.progress_interval:
            self._emit("progress")

    @property
    def nodes_visited(self) -> int:
        """Subsets evaluated so far, by this search and its parallel workers."""
        return int(self.counters[kernel.NODES]) + self.other_nodes

    @property
    def cell_bounds(self) -> int:
        """Equivalent-row cell bounds computed by this search's compiled loop."""
        return int(self.counters[kernel.CELL_BOUNDS])

    # --- parallel workers (module parallel) ------------------------------------------------
    def _parallel_ready(self) -> bool:
        c, settings = self.counters, self.settings
        return (
            self.runner is not None
            and c[kernel.PHASE] == kernel.DESCEND
            and self.collect_below is None
            and self.limits.node_limit is None
            and (settings.client is not None or settings.n_jobs > 1)
        )

    def worker_settings(self) -> ExactSearchSettings:
        """Settings of one worker: one thread, no cluster."""
        return dataclasses.replace(self.settings, n_jobs=1, client=None)

    def spawn(self, capacity: int = 64) -> ExactSearch:
        """A worker search sharing this one's arrays of the problem (not its state)."""
        child = ExactSearch(self.problem, settings=self.worker_settings(), data=self.data)
        child.clock = Clock(Limits())
        child.arrays = child._new_arrays()
        child.arrays.frontier_arrays(capacity)
        return child

    def set_open_bound(self, open_bound: float) -> None:
        """Update the lower bound from the least bound of the open subtrees."""
        self.open_key = open_bound
        self.lb = self._lower(min(open_bound, self.held))

    def hold_bound(self, bound: float) -> None:
        """A subtree that will stay open (a worker stopped in it) with this bound."""
        self.held = min(self.held, bound)

    def seconds_left(self) -> float:
        """Seconds until the time limit (a day when there is none)."""
        limit = self.limits.time_limit
        if limit is None or not math.isfinite(limit):
            return 86_400.0
        return max(limit - self.clock.elapsed(), 0.0)

    def _finish(self, complete: bool, stop_reason: str | None, n_ok: int) -> SolveResult:
        p = self.problem
        if stop_reason == "gap":
            stop_reason = None
        infeasible = complete and self.best is None
        lb = self.ub if complete and self.best is not None else self.lb
        gap = relative_gap(self.ub, lb)
        status = final_status(
            self.best is not None, complete, gap, self.limits.gap_tolerance, stop_reason
        )
        stats = search_stats(self, n_ok)
        items = M = None
        if self.best is not None:
            mask, M = self.best
            items = p.items_of(mask)
        result = SolveResult(
            status="infeasible" if infeasible else status,
            solution=None if items is None else ChecklistSolution(items, M),
            upper_bound=self.ub,
            lower_bound=lb,
            nodes=self.nodes_visited if self.arrays is not None else 0,
            time=self.clock.elapsed(),
            trace=self.trace,
            stats=stats,
        )
        self.lb = lb
        self._emit(
            "final",
            phase="done",
            incumbent=None if self.best is None else p.as_dict(*self.best),
        )
        return result
