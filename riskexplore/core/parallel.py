"""How many workers a solve may use (``n_jobs`` as scikit-learn reads it), a Dask client
checked once, and work handed to threads or a Dask cluster with the answers in order.

Both families use these: the checklist search hands its frontier's subtrees to workers
(:mod:`riskexplore.checklist.search.parallel`), the risk-score engines hand ranges of
supports to the support screen's workers (:mod:`riskexplore.risk_score.support.screen`).
"""

from __future__ import annotations

import os
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral
from typing import Any

from riskexplore.errors import InputError

__all__ = [
    "available_cores",
    "check_client",
    "dask_workers",
    "ordered_map",
    "resolve_n_jobs",
    "scatter_once",
]


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - not on Linux
        return max(os.cpu_count() or 1, 1)


def resolve_n_jobs(n_jobs: int | None) -> int:
    """The number of workers that ``n_jobs`` asks for.

    ``None`` and ``-1`` mean every available core, ``-2`` all but one, and so on (as in
    scikit-learn); a positive number is taken as given.

    Parameters
    ----------
    n_jobs : int or None
        As given by the user.

    Returns
    -------
    int
        At least 1.

    Raises
    ------
    InputError
        For 0, a non-integer, or a negative number beyond the cores available.
    """
    if n_jobs is None:
        return available_cores()
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral):
        raise InputError(f"n_jobs must be a whole number or None, got {n_jobs!r}")
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise InputError("n_jobs=0 runs nothing: use 1 for one worker or None for every core")
    if n_jobs > 0:
        return n_jobs
    cores = available_cores()
    if cores + 1 + n_jobs < 1:
        raise InputError(f"n_jobs={n_jobs} leaves no worker on a machine with {cores} cores")
    return cores + 1 + n_jobs


def check_client(client: Any) -> Any:
    """``client`` itself when it is None or a Dask client.

    Parameters
    ----------
    client : dask.distributed.Client or None
        As given by the user.

    Returns
    -------
    dask.distributed.Client or None
        ``client``.

    Raises
    ------
    InputError
        For anything else (an address string, say: connect with
        ``dask.distributed.Client(address)`` first).
    """
    if client is not None and not (hasattr(client, "submit") and hasattr(client, "scatter")):
        raise InputError(
            f"client must be a dask.distributed.Client, got {type(client).__name__}"
            " (connect first: Client('tcp://host:8786'))"
        )
    return client


def dask_workers(client: Any) -> int:
    """The number of workers of a Dask cluster (at least 1).

    Parameters
    ----------
    client : dask.distributed.Client
        A connected client.

    Returns
    -------
    int
        Its workers' count.
    """
    return max(len(client.scheduler_info().get("workers", {})), 1)


#: Objects already on a cluster: object -> {id(client): future}.
_SCATTERED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def scatter_once(client: Any, obj: Any) -> Any:
    """A future of ``obj`` on every worker of ``client``, sent on the first call only.

    Parameters
    ----------
    client : dask.distributed.Client
        The cluster's client.
    obj : object
        A weak-referenceable object (the data of a solve); it is sent again only to
        another client.

    Returns
    -------
    distributed.Future
        The object on the cluster, for ``client.submit``.
    """
    sent = _SCATTERED.setdefault(obj, {})
    key = id(client)
    if key not in sent:
        sent[key] = client.scatter(obj, broadcast=True, hash=False)
    return sent[key]


def ordered_map(
    func: Callable[..., Any],
    tasks: Iterable[tuple],
    *,
    n_jobs: int = 1,
    client: Any = None,
    shared: tuple = (),
) -> Iterator[Any]:
    """``func(*shared, *task)`` for every task, run by workers, yielded in task order.

    Serial when ``n_jobs`` is 1 and there is no client; in ``n_jobs`` threads otherwise
    (``func`` should release the GIL, as compiled kernels with ``nogil`` do), or as tasks
    on a Dask cluster (``func`` must then be importable by the workers, and ``shared``
    is sent to every worker once, see :func:`scatter_once`). At most twice as many tasks
    as workers are in flight, so a lazy ``tasks`` is read as the workers need it (and a
    stop request polled by it is honoured soon). Since answers come back in order and
    every task is computed alike wherever it runs, the result is the serial one.

    Parameters
    ----------
    func : callable
        The work of one task.
    tasks : iterable of tuple
        Each task's arguments.
    n_jobs : int
        Threads when there is no client.
    client : dask.distributed.Client, optional
        Run the tasks on this cluster instead.
    shared : tuple
        Arguments before every task's own (sent once to a cluster).

    Yields
    ------
    object
        ``func``'s answers, in the order of ``tasks``.
    """
    if client is None and n_jobs <= 1:
        for task in tasks:
            yield func(*shared, *task)
        return
    if client is not None:
        remote = tuple(scatter_once(client, obj) for obj in shared)
        slots = 2 * dask_workers(client)

        def submit(task):
            return client.submit(func, *remote, *task, pure=False)

        def result(future):
            return future.result()

        yield from _in_flight(tasks, submit, result, slots, cancel=client.cancel)
        return
    with ThreadPoolExecutor(max_workers=n_jobs, thread_name_prefix="riskexplore") as pool:
        yield from _in_flight(
            tasks,
            lambda task: pool.submit(func, *shared, *task),
            lambda future: future.result(),
            2 * n_jobs,
            cancel=lambda futures: [f.cancel() for f in futures],
        )


def _in_flight(tasks, submit, result, slots: int, cancel) -> Iterator[Any]:
    """Submit tasks while fewer than ``slots`` are pending; yield answers in order."""
    pending: deque = deque()
    try:
        for task in tasks:
            pending.append(submit(task))
            while len(pending) >= slots:
                yield result(pending.popleft())
        while pending:
            yield result(pending.popleft())
    finally:
        if pending:
            cancel(list(pending))
