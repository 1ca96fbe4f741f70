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
from dataclasses import dataclass

import numpy as np

from riskexplore.checklist.problem import ChecklistProblem, ChecklistSolution
from riskexplore.checklist.search import kernel
from riskexplore.checklist.search.cells import CELL_ENTRY_BUDGET
from riskexplore.checklist.search.data import (
    FRONTIER_SIZE,
    Batch,
    SearchData,
    build_search,
    frontier_depth,
)
from riskexplore.checklist.search.refine import refine_frontier
from riskexplore.checklist.search.settings import (
    DEFER_BAND,
    DEFER_FRONTIER_SIZE,
    DEFER_MIN_WORDS,
    ExactSearchSettings,
)
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
#: Checklists the compiled loop may collect before returning them (collect mode).
_FOUND_ROOM = 1 << 16
#: Nodes the compiled loop may defer before returning them to the frontier.
_DEFER_ROOM = 1 << 14


# --------------------------------------------------------------------- the search data
@dataclass(frozen=True)
class OpenNode:
    """A node whose subtree is not closed yet: its items, the items its descendants may
    add (at most one per search group), its lower bound on every descendant (objective
    units, before capping by the incumbent) and the thresholds still alive below it."""

    items: tuple[str, ...]
    later_items: tuple[str, ...]
    lower_bound: float
    alive: tuple[int, ...]


class ExactSearch:
    """One exact search: the compiled loop's arrays, the incumbent and the events.

    :func:`solve_checklist_exact` is ``ExactSearch(...).run()``. Tests and tools may
    instead call :meth:`start`, then :meth:`step` repeatedly and look at
    :meth:`open_nodes` between steps.
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

    # --- state ---------------------------------------------------------------------------
    def _allocate(self) -> None:
        s = self.data
        levels = s.max_items + 1
        width = max(len(s.items), 1)
        planes = s.reach.shape[1]
        n_words = len(s.valid)
        self.T = np.zeros((levels, width, planes, n_words), dtype=np.uint64)
        self.T[:, :, 0, :] = s.valid  # plane 0: every row has at least 0 checked items
        self.rowsum = np.zeros((levels, width, s.A.shape[0]))
        self.alive = np.zeros((levels, width, s.max_m + 1), dtype=np.uint8)
        self.bound = np.full((levels, width), np.inf)
        # leaf parents searched at each level: their item and least leaf key by threshold
        self.sib_n = np.zeros(levels + 1, dtype=np.int64)
        self.sib_pos = np.zeros((levels, width + 1), dtype=np.int64)
        self.sib_key = np.zeros((levels, width + 1, s.max_m + 1))
        self.item_of = np.full((levels, width), -1, dtype=np.int64)
        self.order = np.zeros((levels, width), dtype=np.int64)
        self.n_children = np.zeros(levels, dtype=np.int64)
        self.cursor = np.zeros(levels, dtype=np.int64)
        self.best_path = np.full(levels, -1, dtype=np.int64)
        self.incumbent = np.array([math.inf])
        self.counters = np.zeros(kernel.N_COUNTERS, dtype=np.int64)
        self.counters[kernel.TIES] = int(s.exact and self.collect_below is None)
        self.counters[kernel.SIMILAR] = int(self.settings.sibling_bound)
        size = self.settings.frontier_size
        if size is None:
            size = DEFER_FRONTIER_SIZE if self.defer_band > 0 else FRONTIER_SIZE
        self.depth, capacity = frontier_depth(s, size)
        self._frontier_arrays(max(capacity, len(s.items)) if capacity else 0)
        room = _FOUND_ROOM if self.collect_below is not None else 1
        self.found_path = np.zeros((room, levels), dtype=np.int64)
        self.found_size = np.zeros((room, 2), dtype=np.int64)
        self.found_key = np.zeros(room)
        cells = s.cells
        n_cells = cells.max_cells if cells is not None else 1
        self.hist_pos = np.zeros((n_cells, levels))
        self.hist_neg = np.zeros((n_cells, levels))
        self.touched = np.zeros(n_cells, dtype=np.int64)
        self.mark = np.zeros(n_cells, dtype=np.uint8)
        self.path = np.zeros(levels, dtype=np.int64)
        room = max(_DEFER_ROOM, 2 * width)  # one expansion's children always fit
        self.d_path = np.zeros((room, max(s.max_items, 1)), dtype=np.int64)
        self.d_len = np.zeros(room, dtype=np.int64)
        self.d_bound = np.zeros(room)
        self.d_alive = np.zeros((room, s.max_m + 1), dtype=np.uint8)
        self.defer_at = np.array([math.inf, math.inf])  # deferring from; the pool's least
        depth = self.settings.defer_depth
        self.counters[kernel.DEFER_DEPTH] = s.max_items - 1 if depth is None else depth
        if self.collect_below is not None:
            self.counters[kernel.COLLECT] = 1
            self.incumbent[0] = self.collect_below
        # the root: the empty checklist, every threshold alive
        self.alive[0, 0, s.min_m : s.max_m + 1] = 1
        self.bound[0, 0] = -math.inf
        self.n_children[0] = 1

    def _frontier_arrays(self, capacity: int) -> None:
        s = self.data
        self.f_path = np.zeros((capacity, max(self.data.max_items, 1)), dtype=np.int64)
        self.f_len = np.zeros(capacity, dtype=np.int64)
        self.f_bound = np.full(capacity, np.inf)
        self.f_alive = np.zeros((capacity, s.max_m + 1), dtype=np.uint8)

    def state(self) -> tuple:
        """This search's arrays, in the order the compiled loop takes them."""
        return (
            self.T, self.rowsum, self.alive, self.bound, self.item_of, self.order,
            self.n_children, self.cursor, self.best_path, self.incumbent, self.counters,
            self.f_path, self.f_len, self.f_bound, self.f_alive, self.found_path, self.found_size,
            self.found_key, self.hist_pos, self.hist_neg, self.touched, self.mark, self.path,
            self.sib_n, self.sib_pos, self.sib_key, self.d_path, self.d_len, self.d_bound,
            self.d_alive, self.defer_at,
        )  # fmt: skip

    # --- deferred nodes ------------------------------------------------------------------
    def defer_threshold(self) -> float:
        """Bound (a key) from which the compiled loop defers a child (see ``defer_band``)."""
        band, incumbent, least = self.defer_band, float(self.incumbent[0]), self.open_key
        if band <= 0 or not math.isfinite(incumbent) or not math.isfinite(least):
            return math.inf
        return least + band * max(incumbent - least, 0.0)

    def take_deferred(self) -> Batch | None:
        """The nodes the compiled loop deferred since the last call (emptied), or None."""
        c = self.counters
        n = int(c[kernel.N_DEFERRED])
        if not n:
            return None
        c[kernel.N_DEFERRED] = 0
        return Batch(
            self.d_path[:n].copy(), self.d_len[:n].copy(), self.d_bound[:n].copy(),
            self.d_alive[:n].copy(),
        )  # fmt: skip

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
        c = self.counters
        start, end = int(c[kernel.NEXT_FRONTIER]), int(c[kernel.N_FRONTIER])
        if start < end and self.pool_min > self.f_bound[start]:
            return
        fields = ("paths", "lengths", "bounds", "alive")
        batch = Batch(*(np.concatenate([getattr(b, f) for b in self.pool]) for f in fields))
        self.pool, self.pool_min = [], math.inf
        ranked = np.argsort(batch.bounds, kind="stable")
        at = np.searchsorted(self.f_bound[start:end], batch.bounds[ranked], side="right")
        width = self.f_path.shape[1]
        arrays = (self.f_path, self.f_len, self.f_bound, self.f_alive)
        merged = [
            np.insert(old[start:end], at, new[ranked], axis=0)
            for old, new in zip(
                arrays, (batch.paths[:, :width], batch.lengths, batch.bounds, batch.alive),
                strict=True,
            )
        ]  # fmt: skip
        n = end - start + len(batch)
        if n > len(self.f_bound):
            self._frontier_arrays(2 * n)
            arrays = (self.f_path, self.f_len, self.f_bound, self.f_alive)
        for array, values in zip(arrays, merged, strict=True):
            array[:n] = values
        c[kernel.N_FRONTIER], c[kernel.NEXT_FRONTIER] = n, 0

    def _run_slice(self, budget: int) -> float:
        return self.run_kernel(budget, self.depth)

    def run_kernel(self, budget: int, depth: int) -> float:
        """Run the compiled loop for about ``budget`` nodes with frontier ``depth``."""
        s = self.data
        slack = 0.0 if s.exact else _FLOAT_SLACK
        return kernel.search(
            s.kernel_arrays(), s.cells.arrays(), self.state(), int(budget), slack, depth
        )

    def _frontier_bound(self) -> float:
        """Least bound of the frontier nodes not searched yet."""
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        if c[kernel.PHASE] == kernel.BUILD:
            return float(self.f_bound[:n].min()) if n else math.inf
        nxt = int(c[kernel.NEXT_FRONTIER])
        least = float(self.f_bound[nxt]) if nxt < n else math.inf  # sorted
        return min(least, self.pool_min)

    def _descend(self) -> None:
        """Sort the frontier by bound and start searching below it."""
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        self.frontier_built = n
        ranked = np.argsort(self.f_bound[:n], kind="stable")
        self.f_bound[:n] = self.f_bound[ranked]
        self.f_path[:n] = self.f_path[ranked]
        self.f_len[:n] = self.f_len[ranked]
        self.f_alive[:n] = self.f_alive[ranked]
        c[kernel.PHASE] = kernel.DESCEND
        c[kernel.DONE] = 0
        c[kernel.NEXT_FRONTIER] = 0
        self.frontier_time = self.clock.elapsed()
        self._idle_at_root()

    def _refine_should_stop(self, least: float) -> bool:
        """Between rounds of refining: report the bound; whether a limit ends it."""
        self._from_kernel()
        self.lb = self._lower(least)
        self.maybe_progress()
        return self.clock.limit_reached(self.nodes_visited) is not None

    def refine_closed(self, bound: float) -> bool:
        """Whether a frontier node with this bound cannot hold a better checklist."""
        incumbent = float(self.incumbent[0])
        if self.counters[kernel.TIES] or not math.isfinite(incumbent):
            return bound > incumbent
        return bound >= incumbent - _FLOAT_SLACK * abs(incumbent)

    def set_frontier(self, nodes: list[tuple]) -> None:
        """Replace the frontier by ``(bound, order, positions, alive bytes)`` nodes."""
        self._frontier_arrays(max(len(nodes), len(self.data.items), 1))
        for f, (bound, _, path, alive) in enumerate(nodes):
            self.f_path[f, : len(path)] = path
            self.f_len[f] = len(path)
            self.f_bound[f] = bound
            self.f_alive[f] = np.frombuffer(alive, dtype=np.uint8)
        self.counters[kernel.N_FRONTIER] = len(nodes)

    def _idle_at_root(self) -> None:
        """Nothing left to expand on the stack: the next node comes from the frontier."""
        c = self.counters
        c[kernel.LEVEL] = c[kernel.FLOOR] = 0
        self.n_children[0] = self.cursor[0] = 0

    # --- incumbents --------------------------------------------------------------------
    def _offer(self, mask: np.ndarray, M: int) -> bool:
        p = self.problem
        if p.violations(mask, M):
            return False
        key = self.data.key(p, mask, M)
        path = self.data.positions_of(mask)
        if not self._wins(key, path):
            return False
        self.set_incumbent(key, path, M)
        self._take(mask, M)
        return True

    def _wins(self, key: float, path: np.ndarray) -> bool:
        """Whether a checklist (key, positions) replaces the incumbent (ties: the
        smaller positions win, as in the compiled loop)."""
        if key != self.incumbent[0] or not self.counters[kernel.TIES]:
            return key < self.incumbent[0]
        best = self.best_path[: self.counters[kernel.BEST_LEN]]
        return len(path) == len(best) and tuple(path) < tuple(best)

    def set_incumbent(self, key: float, path: np.ndarray, M: int) -> None:
        """Make (key, positions, M) the incumbent the compiled loop prunes against."""
        self.incumbent[0] = key
        self.best_path[: len(path)] = path
        self.counters[kernel.BEST_LEN] = len(path)
        self.counters[kernel.BEST_M] = M

    def _take(self, mask: np.ndarray, M: int) -> None:
        self.best = (mask.copy(), int(M))
        self.ub = self.problem.objective(mask, M)
        self.n_incumbents += 1
        self._emit("incumbent", incumbent=self.problem.as_dict(mask, M))

    def _from_kernel(self) -> None:
        """Take the compiled loop's new incumbent, checked exactly in Python."""
        c = self.counters
        if not c[kernel.IMPROVED]:
            return
        c[kernel.IMPROVED] = 0
        mask = np.zeros(self.problem.n_items, dtype=bool)
        mask[self.data.items[self.best_path[: c[kernel.BEST_LEN]]]] = True
        M = int(c[kernel.BEST_M])
        bad = self.problem.violations(mask, M)
        if bad:  # pragma: no cover - the loop checks the same rows
            raise RuntimeError(f"exact search produced an infeasible checklist ({bad})")
        self._take(mask, M)

    def _lower(self, open_bound: float) -> float:
        """A valid lower bound in objective units from the least open key."""
        s = self.data
        if open_bound >= self.incumbent[0]:
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
        self._allocate()
        self.n_ok = sum(self._offer(self.problem.mask(list(i)), int(m)) for i, m in self._starts())
        self._emit("progress", phase="initialization")

    def step(self, budget: int) -> bool:
        """Run about ``budget`` more nodes; returns whether the search is complete."""
        if self.data.empty:
            return True
        self.merge_deferred()
        self.defer_at[:] = self.defer_threshold(), self.pool_min
        open_bound = self._run_slice(budget)
        self._from_kernel()
        self._drain()
        c = self.counters
        deferred = self.take_deferred()
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

    def _drain(self) -> None:
        """Move the checklists collected below the threshold to :attr:`found`."""
        c = self.counters
        n = int(c[kernel.N_FOUND])
        if not n:
            return
        names = self.data.items
        for f in range(n):
            size, M = (int(v) for v in self.found_size[f])
            items = tuple(sorted(int(j) for j in names[self.found_path[f, :size]]))
            self.found.append((items, M))
        c[kernel.N_FOUND] = 0

    def lower_threshold(self, key: float) -> None:
        """Collect only checklists with a key below ``key`` from now on."""
        self.incumbent[0] = min(self.incumbent[0], key)

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
        s, out = self.data, []
        names = self.problem.item_names
        depth = int(self.counters[kernel.LEVEL])
        path: list[int] = []
        for lvl in range(depth + 1):
            for k in range(int(self.cursor[lvl]), int(self.n_children[lvl])):
                slot = self.order[lvl, k]
                pos = int(self.item_of[lvl, slot])
                items = [*path, pos] if pos >= 0 else []
                first = 0 if pos < 0 else int(s.group_start[s.group_of[pos] + 1])
                out.append(
                    OpenNode(
                        items=tuple(names[s.items[p]] for p in items),
                        later_items=tuple(names[j] for j in s.items[first:]),
                        lower_bound=float(self.bound[lvl, slot]) * s.unit,
                        alive=tuple(int(m) for m in np.flatnonzero(self.alive[lvl, slot])),
                    )
                )
            if lvl < depth:  # the node being expanded at this level
                slot = self.order[lvl, self.cursor[lvl] - 1]
                if self.item_of[lvl, slot] >= 0:
                    path.append(int(self.item_of[lvl, slot]))
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        start = int(c[kernel.NEXT_FRONTIER]) if c[kernel.PHASE] == kernel.DESCEND else 0
        waiting = [
            (self.f_path[f], self.f_len[f], self.f_bound[f], self.f_alive[f])
            for f in range(start, n)
        ]
        for b in self.pool:  # deferred, not merged yet
            waiting += zip(b.paths, b.lengths, b.bounds, b.alive, strict=True)
        for f_path, size, bound, alive in waiting:
            pos = int(f_path[size - 1])
            first = int(s.group_start[s.group_of[pos] + 1])
            out.append(
                OpenNode(
                    items=tuple(names[s.items[p]] for p in f_path[:size]),
                    later_items=tuple(names[j] for j in s.items[first:]),
                    lower_bound=float(bound) * s.unit,
                    alive=tuple(int(m) for m in np.flatnonzero(alive)),
                )
            )
        return out

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
        child._allocate()
        child._frontier_arrays(capacity)
        return child

    def load_frontier(self, batch) -> None:
        """Search below these frontier nodes next.

        Parameters
        ----------
        batch : Batch
            Nodes in order of bound.
        """
        n, c = len(batch), self.counters
        if n > len(self.f_bound):
            self._frontier_arrays(n)
        self.f_path[:n, : batch.paths.shape[1]] = batch.paths
        self.f_len[:n] = batch.lengths
        self.f_bound[:n] = batch.bounds
        self.f_alive[:n] = batch.alive
        c[kernel.N_FRONTIER], c[kernel.NEXT_FRONTIER] = n, 0
        c[kernel.PHASE], c[kernel.DONE] = kernel.DESCEND, 0
        self._idle_at_root()

    def kernel_incumbent(self) -> tuple[float, np.ndarray, int] | None:
        """The compiled loop's new incumbent ``(key, positions, M)`` since the last call."""
        c = self.counters
        if not c[kernel.IMPROVED]:
            return None
        c[kernel.IMPROVED] = 0
        return self.incumbent_state()

    def incumbent_state(self) -> tuple[float, np.ndarray, int]:
        """The incumbent as the compiled loop holds it: ``(key, positions, M)``."""
        c = self.counters
        path = self.best_path[: c[kernel.BEST_LEN]].copy()
        return float(self.incumbent[0]), path, int(c[kernel.BEST_M])

    def offer_found(self, key: float, path: np.ndarray, M: int) -> None:
        """Take a worker's checklist if it beats the incumbent (checked exactly)."""
        if not self._wins(key, path):
            return
        mask = np.zeros(self.problem.n_items, dtype=bool)
        mask[self.data.items[path]] = True
        bad = self.problem.violations(mask, M)
        if bad:  # pragma: no cover - the loop checks the same rows
            raise RuntimeError(f"exact search produced an infeasible checklist ({bad})")
        self.set_incumbent(key, path, M)
        self._take(mask, M)

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
        p, s = self.problem, self.data
        if stop_reason == "gap":
            stop_reason = None
        infeasible = complete and self.best is None
        lb = self.ub if complete and self.best is not None else self.lb
        gap = relative_gap(self.ub, lb)
        status = final_status(
            self.best is not None, complete, gap, self.limits.gap_tolerance, stop_reason
        )
        stats = {
            "method": "exact",
            "build_time": self.build_time,
            "n_patterns": int(p.patterns.shape[0]),
            "n_search_rows": s.n_rows,
            "n_words": len(s.valid),
            "n_groups": len(s.group_start) - 1,
            "n_positions": len(s.items),
            "exact_keys": s.exact,
            "eps_n": p.eps_n,
            "eps_m": p.eps_m,
            "error_unit": p.error_unit,
            "lexicographic_exact": p.lexicographic_exact,
            "warm_starts_given": len(self.warm_starts),
            "warm_starts_feasible": n_ok,
            "incumbents": self.n_incumbents,
            "n_jobs": 1 if self.settings.client is not None else self.settings.n_jobs,
            "dask": self.settings.client is not None,
            "frontier_depth": self.depth if hasattr(self, "depth") else None,
            "frontier_nodes": self.frontier_built,
            "deferred_nodes": self.deferred_nodes,
            "defer_band": getattr(self, "defer_band", None),
            "frontier_time": self.frontier_time,
            "cell_entries": int(s.cells.entry_start[-1]) if s.cells is not None else 0,
            "cell_bounds": int(self.counters[kernel.CELL_BOUNDS]) + self.other_cell_bounds
            if hasattr(self, "counters")
            else 0,
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
        nodes = self.nodes_visited if hasattr(self, "counters") else 0
        result = SolveResult(
            status="infeasible" if infeasible else status,
            solution=None if items is None else ChecklistSolution(items, M),
            upper_bound=self.ub,
            lower_bound=lb,
            nodes=nodes,
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
