"""The LCPA search on several threads that share the queue, the incumbent and the cuts.

With ``n_jobs`` above one, the branch-and-bound of :mod:`riskexplore.risk_score.lcpa.search`
(and of the learned scale, :mod:`riskexplore.risk_score.scaled.search`) runs on ``n_jobs``
threads once the root is set up:

* **one queue**: every thread takes the open node of least bound, processes it, dives
  into one child and puts the others in the common queue, so the subtrees spread over
  the threads as they open (an idle thread waits for a node, and the search ends when
  the queue is empty and no thread holds a node);
* **one incumbent**: a model found by any thread prunes every thread's nodes at once;
* **the cuts**: each thread has an LP of its own (HiGHS, warm-started from its own last
  basis); every loss cut any thread adds is added to the others' LPs before their next
  solve, and the chained bounds on loss and size likewise;
* **one screen at a time**: a node's support screen (learned scale) already runs on
  ``n_jobs`` threads, so a thread waits for its turn rather than halve the speed of the
  screen under way (on adult, 111 features, the screens are most of the time);
* **one lock** is held while a thread runs the search's Python code and released around
  the heavy calls that do not touch the shared state (the LP solves, the loss and its
  gradient, the support screen and the lattice search, which all release the GIL), so
  the bookkeeping (queue, incumbent, ``floor``) is the serial code's, unchanged.

The certificate keeps its meaning: the lower bound is the least bound of the queue, of
every thread's node in hand and of the node it dives into, and of ``floor``; a node
leaves the tree only as in the serial search. The model and the certificate's status are
those of one thread (the same optimum is proved); between models of exactly equal
objective the first found is kept, which may differ with the threads' timing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from riskexplore.core.highs import highs_thread

__all__ = ["ParallelNodes", "WorkerState"]

#: Seconds an idle thread waits for a node before looking again.
_IDLE_WAIT = 0.05


class WorkerState:
    """What each thread of the search has of its own: its LP, its node in hand, the child
    it dives into, the multiplier of its last LP point, and how far it has read the
    shared cuts and bounds."""

    __slots__ = ("lp", "current", "dive", "lp_t", "seen", "bounds_seen")

    def __init__(self) -> None:
        self.lp = None
        self.current = None
        self.dive = None
        self.lp_t = 1.0
        self.seen = 0
        self.bounds_seen = 0


def _state_property(name: str) -> property:
    def get(self):
        return getattr(self._state(), name)

    def put(self, value) -> None:
        setattr(self._state(), name, value)

    return property(get, put, doc=f"The calling thread's own ``{name}``.")


class ParallelNodes:
    """The threads of the LCPA search (a mixin of ``_LCPA``).

    ``lp``, ``current``, ``_dive`` and ``_lp_t`` are the calling thread's own; everything
    else is shared. Subclasses whose result depends on the order of the nodes set
    :attr:`parallel_nodes` to False.
    """

    #: Whether the search may run on several threads.
    parallel_nodes = True

    lp = _state_property("lp")
    current = _state_property("current")
    _dive = _state_property("dive")
    _lp_t = _state_property("lp_t")

    def _init_threads(self, wanted: bool) -> None:
        self._main = WorkerState()
        self._local = threading.local()
        self._states = [self._main]
        self._lock: threading.Condition | None = None
        # loss cuts for the other threads' LPs: (loss, grad, point, state), from _cut_base on
        self._cut_log: list | None = [] if wanted else None
        self._cut_base = 0
        self._bounds_version = 0
        # one support screen at a time, on all the workers: a screen of a node's supports
        # runs on n_jobs threads, so the node of least bound is done soonest (two screens
        # at once would each take twice as long, and the lower bound waits for its node)
        self._screen_turn = threading.Lock()

    def _state(self) -> WorkerState:
        return getattr(self._local, "state", None) or self._main

    def _threads_wanted(self) -> bool:
        return self.parallel_nodes and self.settings.n_jobs > 1 and self.limits.node_limit is None

    # --- the lock ------------------------------------------------------------------------
    @contextlib.contextmanager
    def _released(self) -> Iterator[None]:
        """Let the other threads run meanwhile (around work on this thread's own data)."""
        lock = self._lock
        if lock is None:
            yield
            return
        self._local.released = True
        lock.release()
        try:
            yield
        finally:
            lock.acquire()
            self._local.released = False

    def _outside_lock(self) -> bool:
        """Whether this thread runs without the lock now (then it reads no shared state
        that other threads may be changing: the queue and the nodes in hand)."""
        return getattr(self._local, "released", False)

    def _loss_grad(self, lam, integral: bool = False):
        """The loss and its gradient at ``lam`` (the lock released meanwhile)."""
        with self._released():
            return self.problem.loss.value_and_grad(lam, integral)

    # --- cuts and bounds for the other threads --------------------------------------------
    def _log_cut(self, loss: float, grad, point) -> None:
        log = self._cut_log
        if log is None:
            return
        log.append((loss, grad, point, self._state()))
        keep = 2 * self.settings.max_cuts_in_lp
        if len(log) > 2 * keep:  # the oldest are long gone from every LP
            del log[:keep]
            self._cut_base += keep

    def _sync_lp(self) -> None:
        """Add the other threads' new cuts, and the latest chained bounds, to this
        thread's LP."""
        state = self._state()
        log = self._cut_log
        if log is not None and state.seen < self._cut_base + len(log):
            start = max(state.seen - self._cut_base, 0)
            start = max(start, len(log) - self.settings.max_cuts_in_lp // 2)
            for loss, grad, point, owner in log[start:]:
                if owner is not state:
                    state.lp.add_cut(loss, grad, point)
            state.seen = self._cut_base + len(log)
        if state.bounds_seen != self._bounds_version:
            self._apply_bounds(state.lp)
            state.bounds_seen = self._bounds_version

    def _bounds_changed(self) -> None:
        self._bounds_version += 1
        self._state().bounds_seen = self._bounds_version

    def _worker_lp(self):
        """A new LP for a thread: the root's columns and rows, the latest cuts and bounds."""
        lp = self._make_lp()
        state = self._state()
        state.lp = lp
        state.seen = 0
        state.bounds_seen = -1
        self._sync_lp()
        return lp

    # --- the threads ---------------------------------------------------------------------
    def _held_nodes(self):
        """The node in hand and the dive child of every thread."""
        for state in self._states:
            for node in (state.current, state.dive):
                if node is not None:
                    yield node

    def _search_threads(self) -> bool:
        """Search with ``n_jobs`` threads (this one among them); whether the tree was
        searched to the end."""
        n = self.settings.n_jobs
        self._states = [self._main, *(WorkerState() for _ in range(n - 1))]
        self._lock = threading.Condition(threading.Lock())
        interrupted = False
        with ThreadPoolExecutor(max_workers=n - 1, thread_name_prefix="lcpa") as pool:
            futures = [pool.submit(highs_thread(self._work), s) for s in self._states[1:]]
            try:
                self._work(self._main)
            except KeyboardInterrupt:  # Ctrl-C: the threads stop, the bound stays valid
                interrupted = True
                with self._lock:
                    self.stop_reason = "stopped"
                    self._lock.notify_all()
            finally:
                errors = [f.exception() for f in futures]
        lock, self._lock = self._lock, None
        del lock
        for error in errors:
            if error is not None:
                raise error
        for node in self._held_nodes():  # left open by a stop: its bound stays
            self.floor = min(self.floor, node.bound)
        for state in self._states:
            state.current = state.dive = None
        self._states = [self._main]
        return not interrupted and self.stop_reason is None and not self.heap

    def _work(self, state: WorkerState) -> None:
        """One thread: the serial loop over the common queue."""
        self._local.state = state
        try:
            with self._lock:
                try:
                    if state.lp is None:
                        self._worker_lp()
                    self._work_loop(state)
                except Exception:  # the others stop too; the error is raised by the caller
                    self.stop_reason = "stopped"
                    raise
                finally:
                    self._lock.notify_all()
        finally:
            self._local.state = None

    def _work_loop(self, state: WorkerState) -> None:
        while True:
            if self._should_stop():
                return
            node, state.dive = state.dive, None
            if node is None:
                node = self._pop()
            if node is None:
                if not any(True for _ in self._held_nodes()):
                    return  # nothing queued and nothing in hand: the tree is done
                self._lock.wait(_IDLE_WAIT)
                continue
            state.current = node
            if not self._restrict(node):
                state.current = None
                continue
            children = self._process(node)
            state.current = None
            if children:
                self._queue_children(children)
                if self.settings.diving:
                    state.dive = children[0]
                self._lock.notify_all()
            if self.nodes % 32 == 0:
                self._update_bounds()
            self.report.emit_if_due()
