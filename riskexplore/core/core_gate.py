"""Share a machine's cores between the searches of many processes, first come first served.

A dashboard server runs one Python kernel per open page, and each page may start a search.
Without a rule, ten searches on two cores all run at once: each takes five times longer and
the pages that are still being built (their kernels start, run the notebook, answer
clicks) get a sixth of a core. A :class:`CoreGate` lets at most ``cores`` searches run at
a time, the others wait in line in the order they asked, and a running search works at a
lower priority (niceness 10, Linux) so that building and answering pages comes first.

It is plain files and ``fcntl.flock`` in one directory per server, so it works across the
server's kernels (processes) without a coordinator:

* **slots** ``slot-<i>.lock`` (``i < cores``): a search runs while it holds an exclusive
  lock on one of them;
* **tickets** ``ticket-<time>-<pid>-<n>``: a waiting search holds a lock on its own ticket;
  the tickets sorted by name are the line, and only the first in line tries to take a slot
  (it leaves the line when it has one).

The system drops the locks of a process that ends, however it ends (even ``kill -9``), so a
dead process never holds a slot; its ticket is left behind unlocked, and the first waiter
that finds it removes it. A waiter polls every ``poll`` seconds, checks its ``stop`` event
each time (a search stopped while it waits ends at once, having run nothing) and reports
how many searches are ahead of it (``on_wait``), so a page can say so.

The dashboard launcher names the directory and the number of cores in the environment of
its kernels (:data:`GATE_VARIABLE`, :data:`CORES_VARIABLE`); :meth:`CoreGate.from_environment`
reads them, and gives ``None`` elsewhere (a notebook on a laptop: no gate).

Examples
--------
>>> import tempfile
>>> from riskexplore.core.core_gate import CoreGate
>>> gate = CoreGate(tempfile.mkdtemp(), cores=1)
>>> gate.run(lambda: 6 * 7)
42
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from riskexplore.errors import InputError

__all__ = [
    "CORES_VARIABLE",
    "GATE_VARIABLE",
    "SEARCH_NICENESS",
    "CoreGate",
    "lower_priority",
    "run_gated",
]

#: Environment variable naming the gate's directory (set by the dashboard launcher).
GATE_VARIABLE = "RISKEXPLORE_CORE_GATE"
#: Environment variable with the number of searches that may run at once.
CORES_VARIABLE = "RISKEXPLORE_CORES"
#: Niceness of a running search (0 is normal, 19 the lowest priority).
SEARCH_NICENESS = 10

_counter = itertools.count()


class CoreGate:
    """At most ``cores`` searches at a time across processes, in the order they asked.

    Parameters
    ----------
    directory : str or Path
        The gate's directory (created if missing); every process sharing the cores uses
        the same one.
    cores : int
        Searches that may run at once (at least 1).
    poll : float
        Seconds between two looks of a waiting search.
    niceness : int or None
        Niceness of the thread while it runs the search (``None``: unchanged).

    Raises
    ------
    InputError
        If ``cores`` is not a positive whole number or ``poll`` not positive.
    """

    def __init__(
        self,
        directory: str | Path,
        cores: int,
        *,
        poll: float = 0.1,
        niceness: int | None = SEARCH_NICENESS,
    ) -> None:
        if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
            raise InputError(f"cores must be a whole number of at least 1, got {cores!r}")
        if not poll > 0:
            raise InputError(f"poll must be a positive number of seconds, got {poll!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.cores = cores
        self.poll = float(poll)
        self.niceness = niceness

    def __repr__(self) -> str:
        return f"CoreGate({str(self.directory)!r}, cores={self.cores})"

    @classmethod
    def from_environment(cls, environ: dict | None = None) -> CoreGate | None:
        """The gate the dashboard launcher set up for this process, or ``None``.

        Parameters
        ----------
        environ : dict, optional
            The environment (default: ``os.environ``).

        Returns
        -------
        CoreGate or None
            The gate of :data:`GATE_VARIABLE` with :data:`CORES_VARIABLE` cores (default:
            all of them); ``None`` when the variable is not set.
        """
        env = os.environ if environ is None else environ
        directory = env.get(GATE_VARIABLE)
        if not directory:
            return None
        text = env.get(CORES_VARIABLE, "")
        try:
            cores = int(text) if text else (os.cpu_count() or 1)
        except ValueError:
            raise InputError(
                f"{CORES_VARIABLE}={text!r} is not a whole number; set it to the number "
                "of searches that may run at once"
            ) from None
        return cls(directory, cores)

    # --- the line ------------------------------------------------------------------------
    def waiting(self) -> list[str]:
        """The tickets of the searches waiting, first in line first (dead ones removed).

        Returns
        -------
        list of str
            Ticket names.
        """
        out = []
        for path in sorted(self.directory.glob("ticket-*")):
            if _owner_alive(path):
                out.append(path.name)
        return out

    def running(self) -> int:
        """How many slots are held right now.

        Returns
        -------
        int
            The number of searches running.
        """
        held = 0
        for i in range(self.cores):
            fd = _try_lock(self.directory / f"slot-{i}.lock")
            if fd is None:
                held += 1
            else:
                os.close(fd)
        return held

    @contextlib.contextmanager
    def slot(
        self,
        stop: threading.Event | None = None,
        on_wait: Callable[[int], None] | None = None,
    ) -> Iterator[bool]:
        """Wait for a free core and hold it for the ``with`` block.

        Parameters
        ----------
        stop : threading.Event, optional
            Set while waiting: stop waiting (the block gets ``False``).
        on_wait : callable, optional
            Called with the number of searches ahead each time it changes while waiting
            (not called when a core is free at once).

        Yields
        ------
        bool
            True with a core held; False when ``stop`` was set before one was free.
        """
        fd = self._acquire(stop, on_wait)
        try:
            yield fd is not None
        finally:
            if fd is not None:
                os.close(fd)  # closing the file releases the lock

    def run(
        self,
        work: Callable[[], Any],
        stop: threading.Event | None = None,
        on_wait: Callable[[int], None] | None = None,
    ) -> Any:
        """``work()`` on a free core at the search priority (:func:`run_gated`).

        Parameters
        ----------
        work : callable
            The search.
        stop, on_wait
            As for :meth:`slot`.

        Returns
        -------
        object
            What ``work`` returned, or None when stopped while waiting.
        """
        return run_gated(work, self, stop=stop, on_wait=on_wait)

    def _acquire(self, stop, on_wait) -> int | None:
        ticket = self._join_line()
        reported = None
        try:
            while True:
                if stop is not None and stop.is_set():
                    return None
                line = self.waiting()
                ahead = line.index(ticket.name) if ticket.name in line else 0
                if ahead == 0:  # first in line: take a core if one is free
                    fd = self._take_free_slot()
                    if fd is not None:
                        return fd
                if on_wait is not None and ahead != reported:
                    on_wait(ahead)
                reported = ahead
                if stop is not None:
                    stop.wait(self.poll)
                else:
                    time.sleep(self.poll)
        finally:
            self._leave_line(ticket)

    def _take_free_slot(self) -> int | None:
        for i in range(self.cores):
            fd = _try_lock(self.directory / f"slot-{i}.lock")
            if fd is not None:
                return fd
        return None

    def _join_line(self) -> Path:
        """A locked ticket, put in line atomically (locked before anyone can see it)."""
        name = f"ticket-{time.time_ns():020d}-{os.getpid():08d}-{next(_counter):06d}"
        hidden = self.directory / f".{name}"
        fd = os.open(hidden, os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        ticket = self.directory / name
        os.rename(hidden, ticket)
        _TICKETS[str(ticket)] = fd
        return ticket

    def _leave_line(self, ticket: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            ticket.unlink()
        fd = _TICKETS.pop(str(ticket), None)
        if fd is not None:
            os.close(fd)


#: The open (locked) ticket files of this process, by path.
_TICKETS: dict[str, int] = {}


def _try_lock(path: Path, create: bool = True) -> int | None:
    """An open descriptor of ``path`` locked exclusively, or None if another holds it."""
    fd = os.open(path, (os.O_CREAT if create else 0) | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        raise
    return fd


def _owner_alive(ticket: Path) -> bool:
    """Whether the ticket's owner still holds it; a ticket of a dead owner is removed."""
    if str(ticket) in _TICKETS:
        return True
    try:
        fd = _try_lock(ticket, create=False)
    except FileNotFoundError:
        return False
    if fd is None:
        return True
    try:  # nobody holds it: its process has ended
        with contextlib.suppress(FileNotFoundError):
            ticket.unlink()
    finally:
        os.close(fd)
    return False


@contextlib.contextmanager
def lower_priority(niceness: int | None = SEARCH_NICENESS) -> Iterator[None]:
    """Run the ``with`` block at ``niceness`` in this thread (Linux; elsewhere unchanged).

    Linux gives every thread its own niceness, so only the calling thread (and the threads
    it starts meanwhile) is slowed. Going back up to the previous priority needs a
    privilege an ordinary user does not have; it is tried at the end and otherwise the
    thread keeps the lower priority (the searches run in threads of their own).

    Parameters
    ----------
    niceness : int or None
        The niceness (``None``: unchanged).

    Yields
    ------
    None
    """
    tid = threading.get_native_id()
    previous = None
    if niceness is not None and hasattr(os, "setpriority"):
        try:
            previous = os.getpriority(os.PRIO_PROCESS, tid)
            if niceness > previous:
                os.setpriority(os.PRIO_PROCESS, tid, niceness)
            else:
                previous = None
        except OSError:
            previous = None
    try:
        yield
    finally:
        if previous is not None:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, tid, previous)


def run_gated(
    work: Callable[[], Any],
    gate: CoreGate | None,
    *,
    stop: threading.Event | None = None,
    on_wait: Callable[[int], None] | None = None,
) -> Any:
    """``work()`` once ``gate`` has a free core, at the search's lower priority.

    Parameters
    ----------
    work : callable
        The search (no arguments).
    gate : CoreGate or None
        The gate; ``None`` runs ``work`` at once (no gate, priority unchanged).
    stop : threading.Event, optional
        Set while waiting: return None without running ``work``.
    on_wait : callable, optional
        Called with the number of searches ahead while waiting.

    Returns
    -------
    object
        What ``work`` returned, or None when stopped while waiting.
    """
    if gate is None:
        return work()
    with gate.slot(stop=stop, on_wait=on_wait) as held:
        if not held:
            return None
        with lower_priority(gate.niceness):
            return work()
