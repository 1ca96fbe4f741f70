"""The frontier's subtrees searched by several workers: threads here, or a Dask cluster.

After the frontier is built (:mod:`riskexplore.checklist.search.kernel`, phase BUILD),
its nodes are independent subtrees, sorted by bound. Workers take them in small batches,
least bound first, and share the incumbent:

* **threads** (``n_jobs``): every worker is a search of its own (its own arrays, the
  problem's arrays shared) whose compiled loop releases the GIL. Each thread searches its
  batch in slices of about ``slice_seconds`` and takes the next batch as soon as it is
  done; between slices it publishes its new incumbent and takes a better one found
  elsewhere, and the driver's thread reports the bound and the events;
* **Dask** (``client``): a batch is a task that searches its subtrees to the end (or to
  the time limit, or a stop request) starting from the best incumbent known when it was
  submitted; results come back as they finish.

The lower bound is the least bound of what is still open: the batches not handed out,
and each busy worker's own open bound. Ties between checklists of equal objective are
broken by the same order as with one worker (``bounds.candidate_wins``), so the
answer does not depend on how the work was split.
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from riskexplore.checklist.search import kernel
from riskexplore.checklist.search.driver import Batch, ExactSearch
from riskexplore.core.parallel import dask_workers

__all__ = ["Batch", "run_dask", "run_parallel", "run_threads", "search_batch"]

#: Most nodes of one slice (a slice that ends early must not grow it without end).
_MAX_BUDGET = 1 << 30
#: Most frontier nodes in one batch of a thread, and of a Dask task (a task costs
#: milliseconds of scheduling, so it gets more).
_BATCH_MAX = 64
_DASK_BATCH_MAX = 2048


def _batch_size(remaining: int, workers: int, most: int) -> int:
    """Small batches while many nodes are left keep the bound moving and the load even."""
    return int(min(most, max(1, remaining // (8 * workers))))


def _take_batch(search, workers: int, most: int = _BATCH_MAX) -> Batch | None:
    """The next batch of the driver's sorted frontier, or None when none is left."""
    search.merge_deferred()
    a = search.arrays
    c = a.counters
    start, end = int(c[kernel.NEXT_FRONTIER]), int(c[kernel.N_FRONTIER])
    if start >= end:
        return None
    stop = min(end, start + _batch_size(end - start, workers, most))
    c[kernel.NEXT_FRONTIER] = stop
    return Batch(
        a.f_path[start:stop].copy(),
        a.f_len[start:stop].copy(),
        a.f_bound[start:stop].copy(),
        a.f_alive[start:stop].copy(),
    )


class _Worker:
    """A search of its own over batches of frontier nodes, run by one thread."""

    def __init__(self, driver) -> None:
        self.search = driver.spawn()
        self.busy = False
        self.budget = 2_000
        self.open = math.inf
        self.inbox: tuple | None = None  # a better incumbent from another worker
        self.found: tuple | None = None  # this worker's new incumbent, for the driver

    def load(self, batch: Batch) -> None:
        self.search.arrays.load_frontier(batch)
        self.busy = True
        self.open = float(batch.bounds[0])

    def run(self, seconds: float) -> tuple[bool, float]:
        """One slice of about ``seconds`` (the compiled loop releases the GIL).

        Returns ``(done, open bound)``; the caller publishes them under the lock.
        """
        t0 = time.perf_counter()
        open_bound = self.search._run_slice(self.budget)
        spent = time.perf_counter() - t0
        rate = self.budget / max(spent, 1e-4)
        self.budget = int(min(max(rate * seconds, 200), 4 * self.budget + 1000, _MAX_BUDGET))
        if self.search.counters[kernel.DONE]:
            return True, math.inf
        return False, min(open_bound, self.search._frontier_bound())

    def take_incumbent(self) -> None:
        """Prune against another worker's incumbent when it beats this one's."""
        if self.inbox is not None:
            key, path, M = self.inbox
            self.inbox = None
            if self.search.arrays.wins(key, path):
                self.search.arrays.set_incumbent(key, path, M)


class _Team:
    """Threads that each take a batch, search it to the end, then take the next.

    No thread waits for another: the lock guards only the shared frontier, the workers'
    published state (busy, open bound, new incumbents) and the incumbents handed out, so a
    worker that finishes early takes new work at once (rounds in step would leave it idle
    until the slowest slice of the round ends). The driver's thread collects incumbents,
    reports the bound and decides when to stop.
    """

    def __init__(self, driver) -> None:
        self.driver = driver
        self.n = driver.settings.n_jobs
        self.workers = [_Worker(driver) for _ in range(self.n)]
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.wake = threading.Event()  # a worker has news: an incumbent, or it is idle
        key, path, M = driver.arrays.incumbent_state()
        for w in self.workers:
            w.search.arrays.set_incumbent(key, path, M)

    def work(self, w: _Worker) -> None:
        """One thread: slices of its batch, new batches while the frontier lasts."""
        seconds = self.driver.settings.slice_seconds
        while not self.stop.is_set():
            with self.lock:
                w.take_incumbent()
                if not w.busy:
                    batch = _take_batch(self.driver, self.n)
                    if batch is None:
                        break
                    w.load(batch)
                w.search.arrays.defer_at[0] = self.driver.defer_threshold()
            done, open_bound = w.run(seconds)
            with self.lock:
                deferred = w.search.arrays.take_deferred()
                if deferred is not None:  # their bounds are at least this worker's last
                    self.driver.add_deferred(deferred)
                w.busy, w.open = not done, open_bound
                found = w.search.arrays.kernel_incumbent()
                if found is not None:
                    w.found = found
                    self.wake.set()
        self.wake.set()

    def gather(self) -> bool:
        """Give the driver the workers' incumbents, hand out the best and report the
        least open bound; whether no work is left (under the lock)."""
        driver = self.driver
        for w in self.workers:
            if w.found is not None:
                driver.offer_found(*w.found)
                w.found = None
        best = driver.arrays.incumbent_state()
        for w in self.workers:
            w.inbox = best
        driver.other_nodes = sum(w.search.nodes_visited for w in self.workers)
        driver.other_cell_bounds = sum(w.search.cell_bounds for w in self.workers)
        busy = [w.open for w in self.workers if w.busy]
        driver.set_open_bound(min([*busy, driver._frontier_bound()]))
        return not busy and driver._frontier_bound() == math.inf

    def run(self) -> tuple[bool, str | None]:
        driver = self.driver
        wait = max(min(driver.settings.progress_interval, 0.05), 0.005)
        outcome: tuple[bool, str | None] = (True, None)
        with ThreadPoolExecutor(max_workers=self.n, thread_name_prefix="checklist-search") as pool:
            futures = [pool.submit(self.work, w) for w in self.workers]
            try:
                while True:
                    self.wake.wait(wait)
                    self.wake.clear()
                    with self.lock:
                        finished = self.gather()
                    if finished and all(f.done() for f in futures):
                        break
                    verdict = driver.verdict()
                    if verdict is not None:
                        outcome = verdict
                        break
                    driver.maybe_progress()
            finally:
                self.stop.set()
                for f in futures:
                    f.result()  # a worker's error surfaces here
        with self.lock:  # what the last slices found is kept, whatever ended the search
            self.gather()
        return outcome


def run_threads(driver) -> tuple[bool, str | None]:
    """Search the driver's sorted frontier with ``n_jobs`` threads (see :class:`_Team`).

    Parameters
    ----------
    driver : ExactSearch
        A search whose frontier is built and sorted (phase DESCEND).

    Returns
    -------
    complete : bool
        Whether every subtree was searched.
    stop_reason : str or None
        Why it ended early (a limit, a stop request, the gap tolerance).
    """
    return _Team(driver).run()


def run_parallel(driver: ExactSearch) -> tuple[bool, str | None]:
    """Search the driver's sorted frontier on its Dask client, else in threads.

    Parameters
    ----------
    driver : ExactSearch
        A search whose frontier is built and sorted (phase DESCEND).

    Returns
    -------
    complete : bool
    stop_reason : str or None
        As :func:`run_threads`.
    """
    if driver.settings.client is not None:
        return run_dask(driver)
    return run_threads(driver)


# ---------------------------------------------------------------------------------- Dask
def search_batch(
    problem, data, settings, batch: Batch, incumbent, seconds, stop_name, defer_at=math.inf
):
    """A Dask task: search a batch's subtrees to the end, the time limit or a stop.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem without its rows (:meth:`ChecklistProblem.without_rows`).
    data : SearchData
        The driver's arrays of the search (its distinct rows, sent once to every worker).
    settings : ExactSearchSettings
        The driver's settings for one worker.
    batch : Batch
        The frontier nodes to search below.
    incumbent : tuple
        The best checklist known when the task was sent, ``(key, positions, M)``.
    seconds : float
        Time left before the time limit.
    stop_name : str or None
        Name of the Dask ``Event`` that asks every task to stop.
    defer_at : float
        Children with at least this bound are not searched but returned (the driver's
        ``defer_threshold`` when the task was sent).

    Returns
    -------
    tuple
        ``(done, open_bound, nodes, found, deferred)``, where ``found`` is the best
        checklist seen as ``(key, positions, M)`` or None, and ``deferred`` the nodes
        left for later (a :class:`Batch`, or None).
    """
    search = ExactSearch(problem, settings=settings, data=data).spawn()
    search.arrays.set_incumbent(*incumbent)
    search.arrays.load_frontier(batch)
    search.arrays.defer_at[0] = defer_at
    stop = _stop_event(stop_name)
    deadline = time.monotonic() + seconds
    budget = 20_000
    deferred: list[Batch] = []
    found = None
    while True:
        open_bound = search._run_slice(budget)
        more = search.arrays.take_deferred()
        if more is not None:
            deferred.append(more)
        found = search.arrays.kernel_incumbent() or found  # incumbents only improve
        if search.counters[kernel.DONE]:
            return True, math.inf, search.nodes_visited, found, _joined(deferred)
        open_bound = min(open_bound, search._frontier_bound())
        if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
            return False, open_bound, search.nodes_visited, found, _joined(deferred)


def _joined(batches: list[Batch]) -> Batch | None:
    """One batch of all these nodes (None for none)."""
    if not batches:
        return None
    fields = ("paths", "lengths", "bounds", "alive")
    return Batch(*(np.concatenate([getattr(b, f) for b in batches]) for f in fields))


def _stop_event(name: str | None):
    if name is None:
        return None
    from distributed import Event

    return Event(name)


def _first_done(futures: list, timeout: float) -> list:
    """The futures done within ``timeout`` seconds (at least one, or none on timeout)."""
    from distributed import wait

    try:
        done, _ = wait(futures, timeout=timeout, return_when="FIRST_COMPLETED")
    except TimeoutError:
        return []
    return list(done)


def run_dask(driver) -> tuple[bool, str | None]:
    """Search the driver's sorted frontier as Dask tasks on ``settings.client``.

    Parameters
    ----------
    driver : ExactSearch
        A search whose frontier is built and sorted (phase DESCEND).

    Returns
    -------
    complete : bool
    stop_reason : str or None
        As :func:`run_threads`.
    """
    from distributed import Event

    client = driver.settings.client
    n_workers = dask_workers(client)
    stop = Event(f"checklist-stop-{uuid.uuid4().hex}", client=client)
    # once to every worker: the merged rows, never the table's rows
    problem = client.scatter(driver.problem.without_rows(), broadcast=True)
    data = client.scatter(driver.data, broadcast=True)
    settings = driver.worker_settings()
    pending: dict = {}  # future -> the batch's least bound
    spare_nodes = 0
    slots = 2 * n_workers
    try:
        while True:
            while len(pending) < slots:
                batch = _take_batch(driver, n_workers, _DASK_BATCH_MAX)
                if batch is None:
                    break
                seconds = driver.seconds_left()
                future = client.submit(
                    search_batch, problem, data, settings, batch, driver.arrays.incumbent_state(),
                    seconds, stop.name, driver.defer_threshold(), pure=False,
                )  # fmt: skip
                pending[future] = float(batch.bounds[0])
            driver.set_open_bound(min([*pending.values(), driver._frontier_bound()]))
            if not pending:
                return True, None
            verdict = driver.verdict()
            if verdict is not None:
                return verdict
            for future in _first_done(list(pending), driver.settings.progress_interval):
                bound = pending.pop(future)
                finished, open_bound, nodes, found, deferred = future.result()
                spare_nodes += nodes
                if found is not None:
                    driver.offer_found(*found)
                if deferred is not None:  # bounded no lower than the batch
                    driver.add_deferred(deferred)
                if not finished:  # out of time or stopped: its subtrees stay open
                    driver.hold_bound(open_bound if open_bound < math.inf else bound)
            driver.other_nodes = spare_nodes
            driver.maybe_progress()
    finally:
        stop.set()
        client.cancel(list(pending))
