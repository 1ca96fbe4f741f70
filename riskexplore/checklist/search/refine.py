"""Best-first refinement of the frontier: expand the least-bound node, one level at a time.

The frontier built at a fixed depth holds subtrees of very uneven size and bound. The
reported lower bound is the least bound of the open subtrees, so it stays where the
weakest node is until that whole subtree is searched. Refining first replaces the node
of least bound by its children (whose bounds are at least as high, and tighter: more
items fixed, finer cells) for a short while (``refine_seconds``); the lower bound then
rises early where the frontier is cheap to expand (heart: from the first seconds instead
of the last), and the depth-first phase starts from smaller subtrees. Refining longer
does not pay: on adult_raw an expansion costs milliseconds, and best-first expansion of
the weakest nodes raised the bound more slowly than the depth-first phase, which closes
subtrees against the incumbent.

An expansion runs the compiled loop (phase BUILD) below one node with the frontier one
level down (``kernel.place_node``); the children it
tries are candidates, so the incumbent improves on the way.
"""

from __future__ import annotations

import heapq
import itertools
import time

import numpy as np

from riskexplore.checklist.search import kernel

__all__ = ["refine_frontier"]

#: Frontier nodes taken from the heap per round between checks of the limits.
_ROUND = 64


def _frontier_nodes(search) -> list[tuple]:
    """The frontier as heap entries ``(bound, order, path, alive)``."""
    a = search.arrays
    n = int(a.counters[kernel.N_FRONTIER])
    return [
        (
            float(a.f_bound[f]),
            f,
            tuple(int(p) for p in a.f_path[f, : a.f_len[f]]),
            a.f_alive[f].tobytes(),
        )
        for f in range(n)
    ]


def _expand(search, node: tuple) -> list[tuple]:
    """The children of one frontier node (each with its bound and alive thresholds)."""
    bound, _, path, alive = node
    size = len(path)
    a = search.arrays
    c = a.counters
    a.f_path[0, :size] = path
    a.f_len[0] = size
    a.f_bound[0] = bound
    a.f_alive[0] = np.frombuffer(alive, dtype=np.uint8)
    kernel.place_node(
        search.data.X, a.T[0, 0, 0], search.data.A, a.T, a.rowsum, a.alive, a.bound, a.item_of,
        a.order, a.n_children, a.cursor, c, a.f_path, a.f_len, a.f_bound, a.f_alive, 0, a.sib_n,
    )  # fmt: skip
    c[kernel.PHASE], c[kernel.DONE], c[kernel.N_FRONTIER] = kernel.BUILD, 0, 0
    while not c[kernel.DONE]:
        search.run_kernel(1 << 30, size + 1)
    n = int(c[kernel.N_FRONTIER])
    return [
        (
            float(a.f_bound[f]),
            0,
            (*path, int(a.f_path[f, size])),
            a.f_alive[f].tobytes(),
        )
        for f in range(n)
    ]


def refine_frontier(search, limit: int, seconds: float, should_stop) -> None:
    """Refine ``search``'s frontier best-first until it holds ``limit`` nodes or for
    ``seconds`` (each expansion costs a call from Python; the depth-first phase, on every
    worker, does the rest faster).

    Parameters
    ----------
    search : ExactSearch
        A search whose frontier is built (phase BUILD done); on return its frontier
        arrays hold the refined frontier, in any order.
    limit : int
        Most frontier nodes.
    seconds : float
        Most time spent refining.
    should_stop : callable
        Called between rounds with the least open bound (a key); True ends refining.
    """
    heap = _frontier_nodes(search)
    heapq.heapify(heap)
    serial = itertools.count(len(heap))
    deadline = time.perf_counter() + seconds
    while heap and len(heap) < limit and time.perf_counter() < deadline:
        if should_stop(heap[0][0]):
            break
        for _ in range(_ROUND):
            if not heap or len(heap) >= limit:
                break
            node = heapq.heappop(heap)
            if search.refine_closed(node[0]):
                heap.clear()  # the least bound cannot beat the incumbent: all closed
                break
            for child in _expand(search, node):
                heapq.heappush(heap, (child[0], next(serial), child[2], child[3]))
    search.arrays.set_frontier(heap)
