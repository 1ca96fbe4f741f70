"""The working arrays of one exact search: what the compiled loop reads and writes.

:class:`SearchArrays` allocates, for one :class:`~riskexplore.checklist.search.data.SearchData`,
the state the compiled loop (:mod:`riskexplore.checklist.search.kernel`) keeps between two
returns to Python: the stack of nodes (thermometer planes, item-row sums, alive thresholds,
bounds, the order of the children), the frontier, the nodes it defers, the checklists it
collects, the incumbent it prunes against, and its counters. It also holds what works on
these arrays alone: the frontier sorted, loaded, replaced or merged with deferred nodes,
what the loop hands back (deferred nodes, collected checklists, a new incumbent), and the
nodes still open. The driver (:class:`~riskexplore.checklist.search.driver.ExactSearch`)
keeps the incumbent as a checklist, the bounds, the events and the limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from riskexplore.checklist.search import kernel
from riskexplore.checklist.search.data import FRONTIER_SIZE, Batch, SearchData, frontier_depth
from riskexplore.checklist.search.settings import DEFER_FRONTIER_SIZE, ExactSearchSettings

__all__ = ["OpenNode", "SearchArrays"]

#: Checklists the compiled loop may collect before returning them (collect mode).
_FOUND_ROOM = 1 << 16
#: Nodes the compiled loop may defer before returning them to the frontier.
_DEFER_ROOM = 1 << 14


@dataclass(frozen=True)
class OpenNode:
    """A node whose subtree is not closed yet: its items, the items its descendants may
    add (at most one per search group), its lower bound on every descendant (objective
    units, before capping by the incumbent) and the thresholds still alive below it."""

    items: tuple[str, ...]
    later_items: tuple[str, ...]
    lower_bound: float
    alive: tuple[int, ...]


class SearchArrays:
    """The compiled loop's arrays of one search, from the root (see the module docstring).

    Parameters
    ----------
    data : SearchData
        The problem's arrays.
    settings : ExactSearchSettings
        The frontier size, the defer depth and whether the sibling bound is on.
    defer_band : float
        The search's defer band (> 0: the default frontier is the shallow one).
    collect_below : float, optional
        Collect mode: every checklist with a key below this is handed back.

    Attributes
    ----------
    depth : int
        The depth of the frontier (:func:`~riskexplore.checklist.search.data.frontier_depth`).
    counters : ndarray
        The counters shared with the compiled loop (indices in ``kernel``).
    """

    def __init__(
        self,
        data: SearchData,
        settings: ExactSearchSettings,
        *,
        defer_band: float,
        collect_below: float | None = None,
    ) -> None:
        self.data = s = data
        levels = s.max_items + 1
        width = max(len(s.items), 1)
        self._stack(levels, width)
        self.incumbent = np.array([math.inf])
        self.counters = np.zeros(kernel.N_COUNTERS, dtype=np.int64)
        self.counters[kernel.TIES] = int(s.exact and collect_below is None)
        self.counters[kernel.SIMILAR] = int(settings.sibling_bound)
        size = settings.frontier_size
        if size is None:
            size = DEFER_FRONTIER_SIZE if defer_band > 0 else FRONTIER_SIZE
        self.depth, capacity = frontier_depth(s, size)
        self.frontier_arrays(max(capacity, len(s.items)) if capacity else 0)
        room = _FOUND_ROOM if collect_below is not None else 1
        self.found_path = np.zeros((room, levels), dtype=np.int64)
        self.found_size = np.zeros((room, 2), dtype=np.int64)
        self.found_key = np.zeros(room)
        n_cells = s.cells.max_cells if s.cells is not None else 1
        self.hist_pos = np.zeros((n_cells, levels))
        self.hist_neg = np.zeros((n_cells, levels))
        self.touched = np.zeros(n_cells, dtype=np.int64)
        self.mark = np.zeros(n_cells, dtype=np.uint8)
        self.path = np.zeros(levels, dtype=np.int64)
        self._deferred(max(_DEFER_ROOM, 2 * width))  # one expansion's children always fit
        depth = settings.defer_depth
        self.counters[kernel.DEFER_DEPTH] = s.max_items - 1 if depth is None else depth
        if collect_below is not None:
            self.counters[kernel.COLLECT] = 1
            self.incumbent[0] = collect_below
        # the root: the empty checklist, every threshold alive
        self.alive[0, 0, s.min_m : s.max_m + 1] = 1
        self.bound[0, 0] = -math.inf
        self.n_children[0] = 1

    def _stack(self, levels: int, width: int) -> None:
        """The nodes on the stack: one row of children per level."""
        s = self.data
        planes = s.reach.shape[1]
        self.T = np.zeros((levels, width, planes, len(s.valid)), dtype=np.uint64)
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

    def _deferred(self, room: int) -> None:
        """Room for the nodes the loop defers between two returns."""
        s = self.data
        self.d_path = np.zeros((room, max(s.max_items, 1)), dtype=np.int64)
        self.d_len = np.zeros(room, dtype=np.int64)
        self.d_bound = np.zeros(room)
        self.d_alive = np.zeros((room, s.max_m + 1), dtype=np.uint8)
        self.defer_at = np.array([math.inf, math.inf])  # deferring from; the pool's least

    def frontier_arrays(self, capacity: int) -> None:
        """New (empty) frontier arrays for ``capacity`` nodes."""
        s = self.data
        self.f_path = np.zeros((capacity, max(s.max_items, 1)), dtype=np.int64)
        self.f_len = np.zeros(capacity, dtype=np.int64)
        self.f_bound = np.full(capacity, np.inf)
        self.f_alive = np.zeros((capacity, s.max_m + 1), dtype=np.uint8)

    def state(self) -> tuple:
        """The arrays, in the order the compiled loop takes them."""
        return (
            self.T, self.rowsum, self.alive, self.bound, self.item_of, self.order,
            self.n_children, self.cursor, self.best_path, self.incumbent, self.counters,
            self.f_path, self.f_len, self.f_bound, self.f_alive, self.found_path, self.found_size,
            self.found_key, self.hist_pos, self.hist_neg, self.touched, self.mark, self.path,
            self.sib_n, self.sib_pos, self.sib_key, self.d_path, self.d_len, self.d_bound,
            self.d_alive, self.defer_at,
        )  # fmt: skip

    # --- the incumbent the loop prunes against -------------------------------------------
    def wins(self, key: float, path: np.ndarray) -> bool:
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

    def incumbent_state(self) -> tuple[float, np.ndarray, int]:
        """The incumbent as the compiled loop holds it: ``(key, positions, M)``."""
        c = self.counters
        path = self.best_path[: c[kernel.BEST_LEN]].copy()
        return float(self.incumbent[0]), path, int(c[kernel.BEST_M])

    def kernel_incumbent(self) -> tuple[float, np.ndarray, int] | None:
        """The compiled loop's new incumbent ``(key, positions, M)`` since the last call."""
        c = self.counters
        if not c[kernel.IMPROVED]:
            return None
        c[kernel.IMPROVED] = 0
        return self.incumbent_state()

    # --- what the loop hands back --------------------------------------------------------
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

    def take_found(self) -> list[tuple[tuple[int, ...], int]]:
        """The checklists collected below the threshold since the last call (emptied), as
        ``(item indices in the problem, M)``."""
        c = self.counters
        n = int(c[kernel.N_FOUND])
        if not n:
            return []
        names, out = self.data.items, []
        for f in range(n):
            size, M = (int(v) for v in self.found_size[f])
            out.append((tuple(sorted(int(j) for j in names[self.found_path[f, :size]])), M))
        c[kernel.N_FOUND] = 0
        return out

    # --- the frontier --------------------------------------------------------------------
    def idle_at_root(self) -> None:
        """Nothing left to expand on the stack: the next node comes from the frontier."""
        c = self.counters
        c[kernel.LEVEL] = c[kernel.FLOOR] = 0
        self.n_children[0] = self.cursor[0] = 0

    def sort_frontier(self) -> int:
        """Sort the built frontier by bound and search below it next; its size."""
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        ranked = np.argsort(self.f_bound[:n], kind="stable")
        self.f_bound[:n] = self.f_bound[ranked]
        self.f_path[:n] = self.f_path[ranked]
        self.f_len[:n] = self.f_len[ranked]
        self.f_alive[:n] = self.f_alive[ranked]
        c[kernel.PHASE] = kernel.DESCEND
        c[kernel.DONE] = 0
        c[kernel.NEXT_FRONTIER] = 0
        self.idle_at_root()
        return n

    def load_frontier(self, batch: Batch) -> None:
        """Search below these frontier nodes next.

        Parameters
        ----------
        batch : Batch
            Nodes in order of bound.
        """
        n, c = len(batch), self.counters
        if n > len(self.f_bound):
            self.frontier_arrays(n)
        self.f_path[:n, : batch.paths.shape[1]] = batch.paths
        self.f_len[:n] = batch.lengths
        self.f_bound[:n] = batch.bounds
        self.f_alive[:n] = batch.alive
        c[kernel.N_FRONTIER], c[kernel.NEXT_FRONTIER] = n, 0
        c[kernel.PHASE], c[kernel.DONE] = kernel.DESCEND, 0
        self.idle_at_root()

    def set_frontier(self, nodes: list[tuple]) -> None:
        """Replace the frontier by ``(bound, order, positions, alive bytes)`` nodes."""
        self.frontier_arrays(max(len(nodes), len(self.data.items), 1))
        for f, (bound, _, path, alive) in enumerate(nodes):
            self.f_path[f, : len(path)] = path
            self.f_len[f] = len(path)
            self.f_bound[f] = bound
            self.f_alive[f] = np.frombuffer(alive, dtype=np.uint8)
        self.counters[kernel.N_FRONTIER] = len(nodes)

    def insert_frontier(self, batch: Batch) -> None:
        """Merge nodes into the frontier not searched yet, keeping it sorted by bound
        (ties: the frontier's nodes first); the frontier restarts at its first node."""
        c = self.counters
        start, end = int(c[kernel.NEXT_FRONTIER]), int(c[kernel.N_FRONTIER])
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
            self.frontier_arrays(2 * n)
            arrays = (self.f_path, self.f_len, self.f_bound, self.f_alive)
        for array, values in zip(arrays, merged, strict=True):
            array[:n] = values
        c[kernel.N_FRONTIER], c[kernel.NEXT_FRONTIER] = n, 0

    # --- the open nodes ------------------------------------------------------------------
    def open_nodes(self, item_names, waiting: list[Batch]) -> list[OpenNode]:
        """The nodes not expanded yet (their subtrees hold every checklist not yet tried):
        on the stack, on the frontier, and ``waiting``.

        Parameters
        ----------
        item_names : sequence of str
            The problem's item names.
        waiting : list of Batch
            Deferred nodes held outside the frontier.

        Returns
        -------
        list of OpenNode
        """
        out = []
        depth = int(self.counters[kernel.LEVEL])
        path: list[int] = []
        for lvl in range(depth + 1):
            for k in range(int(self.cursor[lvl]), int(self.n_children[lvl])):
                slot = self.order[lvl, k]
                pos = int(self.item_of[lvl, slot])
                items = [*path, pos] if pos >= 0 else []
                bound, alive = self.bound[lvl, slot], self.alive[lvl, slot]
                out.append(self._open_node(item_names, items, bound, alive))
            if lvl < depth:  # the node being expanded at this level
                slot = self.order[lvl, self.cursor[lvl] - 1]
                if self.item_of[lvl, slot] >= 0:
                    path.append(int(self.item_of[lvl, slot]))
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        start = int(c[kernel.NEXT_FRONTIER]) if c[kernel.PHASE] == kernel.DESCEND else 0
        nodes = [
            (self.f_path[f], self.f_len[f], self.f_bound[f], self.f_alive[f])
            for f in range(start, n)
        ]
        for b in waiting:
            nodes += zip(b.paths, b.lengths, b.bounds, b.alive, strict=True)
        for f_path, size, bound, alive in nodes:
            out.append(self._open_node(item_names, f_path[:size], bound, alive))
        return out

    def _open_node(self, item_names, positions, bound: float, alive: np.ndarray) -> OpenNode:
        s = self.data
        first = int(s.group_start[s.group_of[positions[-1]] + 1]) if len(positions) else 0
        return OpenNode(
            items=tuple(item_names[s.items[p]] for p in positions),
            later_items=tuple(item_names[j] for j in s.items[first:]),
            lower_bound=float(bound) * s.unit,
            alive=tuple(int(m) for m in np.flatnonzero(alive)),
        )
