"""Plain-Python core of the widgets: run a solve in a worker thread, collect its events.

Nothing here imports Jupyter or plotly, so a script, a test or another front end can use
:class:`SolveRunner` and :class:`ProgressSeries` directly.

* :class:`SolveRunner` calls ``solve(callbacks=[listener], stop=event)`` in a daemon thread
  (``fit_risk_score`` and ``fit_checklist`` take exactly these keywords). The listener only
  puts events on a queue; :meth:`SolveRunner.drain` hands the new ones to the caller's
  thread. ``stop()`` sets the ``threading.Event`` the solver polls, so the solve ends
  within a fraction of a second and still returns its best model and bounds. The result or
  the exception is kept on the runner (never raised in the worker).
* :class:`ProgressSeries` accumulates events into growing numpy arrays (time, bounds, gap,
  nodes, cuts) plus the incumbent changes, ready for plotting.

Examples
--------
>>> from functools import partial
>>> from riskexplore import fit_risk_score, load_dataset
>>> data = load_dataset("breastcancer")
>>> runner = SolveRunner(partial(fit_risk_score, data.X, data.y, max_size=3))  # doctest: +SKIP
>>> series = ProgressSeries()  # doctest: +SKIP
>>> runner.start()  # doctest: +SKIP
>>> while not runner.done:  # doctest: +SKIP
...     series.extend(runner.drain(timeout=0.25))
>>> runner.result.summary()  # doctest: +SKIP
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from riskexplore.core.core_gate import CoreGate, run_gated
from riskexplore.core.highs import highs_thread
from riskexplore.core.registry import get_family
from riskexplore.errors import RiskExploreError

__all__ = ["SolveRunner", "describe_error", "solve_function"]

#: Runner states.
STATES = ("idle", "running", "finished", "error")


class SolveRunner:
    """Run ``solve(callbacks=[listener], stop=event)`` in a worker thread.

    Parameters
    ----------
    solve : callable
        Called in the worker thread with the keyword arguments ``callbacks`` (a list
        holding the runner's listener) and ``stop`` (a :class:`threading.Event`). Its
        return value becomes :attr:`result`; an exception becomes :attr:`error`.
    name : str
        Name of the worker thread.
    gate : CoreGate, None or "environment"
        The cores the solve shares with other searches (it waits for a free one, then
        runs at a lower priority; see :mod:`riskexplore.core.core_gate`). By default the
        gate the dashboard server set up (:meth:`CoreGate.from_environment`), which is
        none outside a dashboard; ``None``: no gate.

    Attributes
    ----------
    stop_event : threading.Event
        Set by :meth:`stop`; the solver polls it.
    result : object or None
        What ``solve`` returned (the fitted model).
    error : BaseException or None
        What ``solve`` raised.
    waiting : int or None
        While the solve waits for a free core: the number of searches ahead of it
        (``None`` when it is not waiting).
    stopped_waiting : bool
        Whether it was stopped before a core was free (it ran nothing; no result).

    Examples
    --------
    What :class:`SolveMonitor` draws from: a search in a thread, its events queued.

    >>> from functools import partial
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> from riskexplore.widgets import SolveRunner
    >>> mammo = load_dataset("mammo")
    >>> runner = SolveRunner(partial(fit_risk_score, mammo.X, mammo.y, max_size=3, time_limit=10))
    >>> runner.start().join(timeout=60)
    True
    >>> runner.status
    'optimal'
    >>> events = runner.drain()  # the progress events, oldest first
    >>> runner.result.certificate.status
    'optimal'
    """

    def __init__(
        self,
        solve: Callable[..., Any],
        *,
        name: str = "riskexplore-solve",
        gate: CoreGate | None | str = "environment",
    ) -> None:
        if not callable(solve):
            raise TypeError(f"solve must be callable, got {solve!r}")
        self.solve = solve
        self.name = name
        self.gate = CoreGate.from_environment() if gate == "environment" else gate
        self.waiting: int | None = None
        self.stopped_waiting = False
        self.stop_event = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.n_events = 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._finished = threading.Event()
        self._thread: threading.Thread | None = None

    # --- control ---------------------------------------------------------------------
    def start(self) -> SolveRunner:
        """Start the worker thread (once per runner)."""
        if self._thread is not None:
            raise RuntimeError("this SolveRunner was already started; create a new one")
        self.started_at = time.perf_counter()
        self._thread = threading.Thread(
            target=highs_thread(self._work), name=self.name, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the solver to stop; it returns its best model and bounds shortly after."""
        self.stop_event.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the worker; True if it has finished."""
        if self._thread is None:
            return False
        return self._finished.wait(timeout)

    def _listener(self, event) -> None:
        self._queue.put(event)

    def _on_wait(self, ahead: int) -> None:
        self.waiting = ahead

    def _run(self) -> Any:
        self.waiting = None  # a core is ours: the solve starts
        self.started_at = time.perf_counter()
        return self.solve(callbacks=[self._listener], stop=self.stop_event)

    def _work(self) -> None:
        ran = []
        try:
            self.result = run_gated(
                lambda: ran.append(True) or self._run(),
                self.gate,
                stop=self.stop_event,
                on_wait=self._on_wait,
            )
            self.stopped_waiting = not ran
        except BaseException as exc:  # kept for the caller's thread; never re-raised here
            self.error = exc
        finally:
            self.finished_at = time.perf_counter()
            self._finished.set()

    # --- events ----------------------------------------------------------------------
    def drain(self, max_events: int | None = None, timeout: float = 0.0) -> list:
        """The events that arrived since the last call (oldest first).

        With ``timeout > 0``, wait up to that long for the first event unless the solve
        has finished. At most ``max_events`` are returned (all by default).
        """
        out: list = []
        if timeout > 0 and self._queue.empty() and not self._finished.is_set():
            try:
                out.append(self._queue.get(timeout=timeout))
            except queue.Empty:
                return out
        while max_events is None or len(out) < max_events:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                break
        self.n_events += len(out)
        return out

    # --- state -----------------------------------------------------------------------
    @property
    def started(self) -> bool:
        """Whether :meth:`start` was called."""
        return self._thread is not None

    @property
    def finished(self) -> bool:
        """The worker returned or raised (events may still be queued)."""
        return self._finished.is_set()

    @property
    def done(self) -> bool:
        """The worker finished and every event has been drained."""
        return self._finished.is_set() and self._queue.empty()

    @property
    def running(self) -> bool:
        """Whether the solve has started and not finished."""
        return self.started and not self._finished.is_set()

    @property
    def stop_requested(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self.stop_event.is_set()

    @property
    def state(self) -> str:
        """``"idle"``, ``"running"``, ``"finished"`` or ``"error"``."""
        if not self.started:
            return "idle"
        if not self._finished.is_set():
            return "running"
        return "error" if self.error is not None else "finished"

    @property
    def status(self) -> str:
        """Like :attr:`state`, but a finished solve reports its certificate's status
        (``"optimal"``, ``"time_limit"``, ``"node_limit"``, ``"stopped"``)."""
        state = self.state
        if state != "finished":
            return state
        certificate = getattr(self.result, "certificate", None)
        status = getattr(certificate, "status", None)
        if status:
            return str(status)
        return "stopped" if self.stop_requested else "finished"

    @property
    def elapsed(self) -> float:
        """Seconds since :meth:`start` (until the solve finished)."""
        if self.started_at is None:
            return 0.0
        end = self.finished_at if self.finished_at is not None else time.perf_counter()
        return end - self.started_at


def describe_error(exc: BaseException) -> str:
    """A one-line readable message for an exception (no traceback).

    Errors of riskexplore (bad input, bad or infeasible constraints) carry their own
    message; anything else is prefixed with its type.

    Parameters
    ----------
    exc : BaseException
        The exception.

    Returns
    -------
    str
        The message.
    """
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, RiskExploreError):
        return text
    return f"{type(exc).__name__}: {text}"


def solve_function(
    fit: Callable[..., Any] | str, X, y, *, constraints: Any = None, **kwargs: Any
) -> Callable[..., Any]:
    """A ``solve(callbacks, stop)`` function for :class:`SolveRunner` and the monitor.

    Parameters
    ----------
    fit : str or callable
        A model family (``"risk_score"``, ``"checklist"``: its fit function), or a fit
        function (``fit_risk_score``, ``fit_checklist`` or anything with their keywords).
    X, y
        The training data.
    constraints : list, object with a ``constraints`` attribute, or callable, optional
        Read every time the solve starts, so a :class:`ConstraintBuilder` can be passed
        and edited between solves.
    **kwargs
        Further arguments of the fit function (``max_size``, ``time_limit``, ...).

    Returns
    -------
    callable
        ``solve(*, callbacks=(), stop=None) -> model``.
    """
    if isinstance(fit, str):
        fit = get_family(fit).fit

    def solve(*, callbacks=(), stop=None):
        current = _current_constraints(constraints)
        extra = {} if current is None else {"constraints": current}
        return fit(X, y, callbacks=callbacks, stop=stop, **extra, **kwargs)

    return solve


def _current_constraints(source: Any) -> list | None:
    if source is None:
        return None
    if hasattr(source, "constraints") and not isinstance(source, (list, tuple)):
        return list(source.constraints)
    if callable(source):
        return list(source())
    return list(source)
