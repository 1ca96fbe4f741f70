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

import math
import queue
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from riskexplore.errors import RiskExploreError

__all__ = ["ProgressSeries", "SolveRunner", "describe_error", "solve_function"]

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

    Attributes
    ----------
    stop_event : threading.Event
        Set by :meth:`stop`; the solver polls it.
    result : object or None
        What ``solve`` returned (the fitted model).
    error : BaseException or None
        What ``solve`` raised.
    """

    def __init__(self, solve: Callable[..., Any], *, name: str = "riskexplore-solve") -> None:
        if not callable(solve):
            raise TypeError(f"solve must be callable, got {solve!r}")
        self.solve = solve
        self.name = name
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
        self._thread = threading.Thread(target=self._work, name=self.name, daemon=True)
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

    def _work(self) -> None:
        try:
            self.result = self.solve(callbacks=[self._listener], stop=self.stop_event)
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
        return self.started and not self._finished.is_set()

    @property
    def stop_requested(self) -> bool:
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
    fit : ``"risk_score"``, ``"checklist"`` or a fit function
        ``fit_risk_score``, ``fit_checklist`` or anything with the same keywords.
    X, y
        The training data.
    constraints : list, object with a ``constraints`` attribute, or callable, optional
        Read every time the solve starts, so a :class:`ConstraintBuilder` can be passed
        and edited between solves.
    **kwargs
        Further arguments of the fit function (``max_size``, ``time_limit``, ...).
    """
    if isinstance(fit, str):
        if fit in ("risk_score", "riskslim", "risk"):
            from riskexplore.risk_score.fit import fit_risk_score as fit
        elif fit == "checklist":
            from riskexplore.checklist.fit import fit_checklist as fit
        else:
            raise ValueError(f"unknown model family {fit!r}; use 'risk_score' or 'checklist'")

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


class ProgressSeries:
    """Solve progress as numpy arrays, grown by appending events.

    Attributes (read-only numpy views, one entry per event)
    ----------------------------------------------------------
    time, upper, lower, gap : float arrays
        Non-finite bounds (``inf`` before the first model) are kept as is; use
        :meth:`arrays` with ``finite=True`` for plotting.
    nodes, cuts : float arrays
    incumbent_time, incumbent_upper : float arrays
        One entry per incumbent change.
    incumbents : list of dict
        The incumbents (solver dictionaries), in order.
    phase : str or None
        Phase of the latest event.
    last : SolveEvent or None
        The latest event.
    """

    _FIELDS = ("time", "upper", "lower", "gap", "nodes", "cuts")

    def __init__(self, events: Iterable = (), capacity: int = 256) -> None:
        self._cap = max(int(capacity), 16)
        self._n = 0
        self._data = {f: np.empty(self._cap) for f in self._FIELDS}
        self._inc_time: list[float] = []
        self._inc_upper: list[float] = []
        self.incumbents: list[dict] = []
        self.phase: str | None = None
        self.last = None
        self.version = 0  #: incremented whenever events are added
        self.incumbent_version = 0  #: incremented whenever the incumbent changes
        self.extend(events)

    @classmethod
    def from_trace(cls, trace) -> ProgressSeries:
        """Series of a :class:`~riskexplore.core.events.Trace` or a list of events."""
        events = getattr(trace, "events", trace)
        return cls(events or (), capacity=len(events or ()) + 16)

    def __len__(self) -> int:
        return self._n

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = self._cap
        while cap < need:
            cap *= 2
        for f in self._FIELDS:
            new = np.empty(cap)
            new[: self._n] = self._data[f][: self._n]
            self._data[f] = new
        self._cap = cap

    def append(self, event) -> None:
        self.extend((event,))

    def extend(self, events: Iterable) -> int:
        """Add events; returns how many were added."""
        events = list(events)
        if not events:
            return 0
        self._grow(self._n + len(events))
        i = self._n
        d = self._data
        for e in events:
            d["time"][i] = e.time
            d["upper"][i] = e.upper_bound
            d["lower"][i] = e.lower_bound
            d["gap"][i] = e.gap
            d["nodes"][i] = e.nodes
            d["cuts"][i] = e.cuts
            if e.incumbent is not None:
                self._inc_time.append(float(e.time))
                self._inc_upper.append(float(e.upper_bound))
                self.incumbents.append(dict(e.incumbent))
                self.incumbent_version += 1
            i += 1
        self._n = i
        self.phase = events[-1].phase
        self.last = events[-1]
        self.version += 1
        return len(events)

    def _view(self, name: str) -> np.ndarray:
        view = self._data[name][: self._n]
        view.flags.writeable = False
        return view

    time = property(lambda self: self._view("time"), doc="Seconds since the solve started.")
    upper = property(lambda self: self._view("upper"), doc="Upper bounds (best objective).")
    lower = property(lambda self: self._view("lower"), doc="Proven lower bounds.")
    gap = property(lambda self: self._view("gap"), doc="Relative gaps.")
    nodes = property(lambda self: self._view("nodes"), doc="Nodes processed.")
    cuts = property(lambda self: self._view("cuts"), doc="Cuts computed.")

    @property
    def incumbent_time(self) -> np.ndarray:
        return np.asarray(self._inc_time, dtype=float)

    @property
    def incumbent_upper(self) -> np.ndarray:
        return np.asarray(self._inc_upper, dtype=float)

    @property
    def incumbent(self) -> dict | None:
        """The latest incumbent (solver dictionary), if any."""
        return self.incumbents[-1] if self.incumbents else None

    def arrays(self, finite: bool = True, max_points: int | None = None) -> dict[str, np.ndarray]:
        """Copies of the arrays; with ``finite=True`` non-finite values become NaN.

        ``max_points`` thins the per-event arrays evenly (first and last kept) for display.
        """
        n = self._n
        idx = None
        if max_points is not None and n > max_points > 1:
            idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(int))
        out = {}
        for f in self._FIELDS:
            a = self._data[f][:n]
            a = a[idx] if idx is not None else a.copy()
            if finite:
                a[~np.isfinite(a)] = np.nan
            out[f] = a
        out["incumbent_time"] = self.incumbent_time
        out["incumbent_upper"] = self.incumbent_upper
        return out

    def summary(self) -> str:
        """One line about the latest event: phase, time, bounds, gap, nodes, cuts."""
        e = self.last
        if e is None:
            return "no progress yet"
        gap = "n/a" if not math.isfinite(e.gap) else f"{100 * e.gap:.2f}%"
        ub = "none yet" if not math.isfinite(e.upper_bound) else f"{e.upper_bound:.6g}"
        return (
            f"{e.phase} · {e.time:.1f} s · best {ub} · bound {e.lower_bound:.6g} · "
            f"gap {gap} · {e.nodes} nodes · {e.cuts} cuts"
        )
