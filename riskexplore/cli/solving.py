"""Running a solve from the command line.

The first Ctrl-C asks the solver to stop and the best model found so far is printed; a
second Ctrl-C aborts. Whatever solver libraries write to stdout (also from C code) goes to
stderr meanwhile, and the client of a Dask cluster (``--scheduler``) is closed when the
solve ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from riskexplore.cli.errors import CLIError, one_line
from riskexplore.cli.output import ProgressPrinter

__all__ = [
    "dask_client",
    "run_solve",
    "run_with_interrupt",
    "stdout_to_stderr",
]


def run_with_interrupt(start: Callable[[threading.Event], Any], consume: Callable[[Any], None]):
    """Run a solve whose first Ctrl-C sets a stop event instead of killing the process.

    ``start(stop)`` returns a generator of events whose return value is the result;
    ``consume`` is called with each event. Returns the generator's return value.

    Parameters
    ----------
    start : callable
        ``start(stop) -> generator of events``.
    consume : callable
        Called with each event.

    Returns
    -------
    Any
        The generator's return value (the fitted model).
    """
    stop = threading.Event()
    previous = None
    in_main = threading.current_thread() is threading.main_thread()

    def on_interrupt(signum, frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        sys.stderr.write("stopping: finishing with the best model so far (Ctrl-C again to abort)\n")
        sys.stderr.flush()

    if in_main:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        events = start(stop)
        while True:
            try:
                event = next(events)
            except StopIteration as done:
                return done.value
            consume(event)
    finally:
        stop.set()  # a solve still running (after an error or abort) ends promptly
        if in_main:
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def stdout_to_stderr():
    """Send everything written to file descriptor 1 (also by C code) to stderr meanwhile."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (AttributeError, OSError, ValueError):  # no real stdout: nothing to protect
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_solve(
    start: Callable[[threading.Event], Any], progress: ProgressPrinter | None, client=None
) -> Any:
    """Run a solve with Ctrl-C handling, its stdout kept off ours.

    Parameters
    ----------
    start : callable
        ``start(stop)`` returns the event generator of the solve (see
        :func:`run_with_interrupt`).
    progress : ProgressPrinter or None
        Shown the events, if given.
    client : distributed.Client or None
        The solve's Dask client (:func:`dask_client`), closed when the solve ends,
        however it ends.

    Returns
    -------
    Any
        The fitted model.
    """
    try:
        with stdout_to_stderr():  # solver libraries' banners must not pollute stdout
            consume = progress if progress is not None else (lambda e: None)
            return run_with_interrupt(start, consume)
    finally:
        if client is not None:
            client.close()


def dask_client(address: str | None):
    """A Dask client connected to ``address`` (None without one).

    Parameters
    ----------
    address : str or None
        The scheduler's address (``tcp://host:8786``).

    Returns
    -------
    distributed.Client or None
        The client; :func:`run_solve` closes it.

    Raises
    ------
    CLIError
        When Dask is not installed or the scheduler cannot be reached.
    """
    if address is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise CLIError("--scheduler needs Dask: pip install 'riskexplore[grid]'") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise CLIError(f"cannot reach the Dask scheduler at {address}: {one_line(exc)}") from None
