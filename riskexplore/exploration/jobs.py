"""Named computations in worker threads, each with a stop event and an inbox.

A view starts a job (``work(stop, put)`` in a daemon thread: ``stop`` is a
:class:`threading.Event` the work polls, ``put(item)`` delivers a partial result) and,
on its own thread, drains what the jobs delivered: the items, and the final
``("done", result)`` or ``("error", exception)``. A job that delivered its final message
is forgotten.

Examples
--------
>>> from riskexplore.exploration.jobs import Jobs
>>> jobs = Jobs()
>>> thread = jobs.add("answer", lambda stop, put: 42)
>>> thread.start(); thread.join()
>>> [(job, final) for job, _items, final in jobs.drain()]
[('answer', ('done', 42))]
>>> len(jobs)
0
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from riskexplore.core.core_gate import CoreGate, run_gated
from riskexplore.core.highs import highs_thread

__all__ = ["Jobs"]

#: What a job runs: ``work(stop, put) -> result``.
Work = Callable[[threading.Event, Callable[[Any], None]], Any]


class Jobs:
    """The jobs of a view, by name (at most one per name)."""

    def __init__(self) -> None:
        self._jobs: dict[str, tuple[threading.Thread, threading.Event, queue.SimpleQueue]] = {}

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._jobs))

    def __len__(self) -> int:
        return len(self._jobs)

    def running(self, job: str) -> bool:
        """Whether ``job``'s thread is alive."""
        entry = self._jobs.get(job)
        return entry is not None and entry[0].is_alive()

    def add(self, job: str, work: Work, gate: CoreGate | None = None) -> threading.Thread:
        """Register ``job`` running ``work``; its thread (not started yet) is returned.

        With a ``gate`` (a search), the work waits for a free core and runs at the search
        priority (:mod:`riskexplore.core.core_gate`); stopped while it waits, it ends with
        the result None.
        """
        stop, inbox = threading.Event(), queue.SimpleQueue()

        def run() -> None:
            try:
                result = run_gated(
                    lambda: work(stop, lambda item: inbox.put(("item", item))), gate, stop=stop
                )
                inbox.put(("done", result))
            except BaseException as exc:  # shown on the view's thread
                inbox.put(("error", exc))

        thread = threading.Thread(target=highs_thread(run), name=f"riskexplore-{job}", daemon=True)
        self._jobs[job] = (thread, stop, inbox)
        return thread

    def stop(self, job: str) -> None:
        """Ask ``job`` to stop (it keeps what it found)."""
        entry = self._jobs.get(job)
        if entry is not None:
            entry[1].set()

    def drain(self) -> Iterator[tuple[str, list, tuple[str, Any] | None]]:
        """``(job, items, final)`` of each job: the items it delivered since the last
        drain, and its final ``(kind, payload)`` or None while it runs (a finished job is
        joined and forgotten before it is yielded)."""
        for job, (thread, _stop, inbox) in list(self._jobs.items()):
            items, final = [], None
            while True:
                try:
                    kind, payload = inbox.get_nowait()
                except queue.Empty:
                    break
                if kind == "item":
                    items.append(payload)
                else:
                    final = (kind, payload)
            if final is not None:
                thread.join(timeout=1.0)
                del self._jobs[job]
            yield job, items, final

    def busy(self) -> bool:
        """Whether a job runs or has something left to drain."""
        entries = self._jobs.values()
        return any(t.is_alive() for t, _s, _q in entries) or any(
            not q.empty() for _t, _s, q in entries
        )
