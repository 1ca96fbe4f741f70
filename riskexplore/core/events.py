"""The progress-event protocol shared by every solver.

Solvers *emit* :class:`SolveEvent` objects through an :class:`EventEmitter`; traces, the
CLI progress line, widgets and grid progress *listen*. With no listener, ``emit`` is a
single attribute test, so solvers may call it freely.

Every ``lower_bound`` in an event is a valid lower bound on the optimal objective, and
every ``upper_bound`` is the objective of a feasible model (``inf`` before one exists).
"""

from __future__ import annotations

import json
import math
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from riskexplore.core.highs import highs_thread
from riskexplore.core.jsonio import decode_float, encode_float

#: Phases a solve passes through, in order.
PHASES = ("setup", "initialization", "search", "done")


@dataclass(frozen=True)
class SolveEvent:
    """One progress report.

    Attributes
    ----------
    time : float
        Seconds since the solve started.
    phase : str
        One of :data:`PHASES`.
    upper_bound : float
        Objective of the best model found so far (``inf`` if none yet).
    lower_bound : float
        Proven lower bound on the optimal objective.
    gap : float
        ``(upper - lower) / upper`` (``inf`` without a model).
    nodes : int
        Branch-and-bound nodes processed.
    cuts : int
        Loss cuts computed so far.
    incumbent : dict or None
        Set only when the best model changed: ``{"intercept": int, "points": {name: int}}``
        for risk scores (solver-specific for other families).
    kind : str
        ``"progress"``, ``"incumbent"`` or ``"final"``.
    """

    time: float
    phase: str
    upper_bound: float
    lower_bound: float
    gap: float
    nodes: int
    cuts: int
    incumbent: dict[str, Any] | None = None
    kind: str = "progress"

    def to_dict(self) -> dict[str, Any]:
        """The event as a strict-JSON record (non-finite bounds as strings).

        Returns
        -------
        dict
            One entry per field; ``time``, the bounds and ``gap`` encoded with
            :func:`~riskexplore.core.jsonio.encode_float`.
        """
        out = asdict(self)
        for key in _FLOAT_FIELDS:
            out[key] = encode_float(out[key])
        return out

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> SolveEvent:
        """The inverse of :meth:`to_dict`.

        Parameters
        ----------
        record : mapping
            A record of :meth:`to_dict` (or read back from JSON).

        Returns
        -------
        SolveEvent
            The event.
        """
        data = dict(record)
        for key in _FLOAT_FIELDS:
            data[key] = decode_float(data[key])
        return cls(**data)


#: Fields of :class:`SolveEvent` that hold floats (non-finite ones are strings in JSON).
_FLOAT_FIELDS = ("time", "upper_bound", "lower_bound", "gap")


def relative_gap(upper: float, lower: float) -> float:
    """Optimality gap as both papers define it: ``(upper - lower) / upper``.

    The gap of Ustun & Rudin [1]_ (Section 2, "Notation, Assumptions, and Terminology",
    with ``V^max`` the objective of the best model found) and of Zhang et al. [2]_
    (Section 3, "Optimality Gap": ``1 - V^min / V^max``).

    Parameters
    ----------
    upper, lower : float
        The bounds.

    Returns
    -------
    float
        The gap (``inf`` without a model, 0 when the bounds meet).

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019.
    .. [2] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.
    """
    if not math.isfinite(upper):
        return math.inf
    if upper == lower:
        return 0.0
    return max(0.0, (upper - lower) / max(abs(upper), 1e-12))


Listener = Callable[[SolveEvent], None]


@dataclass
class EventEmitter:
    """Delivers events to listeners; cheap when there are none."""

    listeners: list[Listener] = field(default_factory=list)

    @property
    def active(self) -> bool:
        """Whether any listener is attached (solvers skip building events otherwise)."""
        return bool(self.listeners)

    def emit(self, event: SolveEvent) -> None:
        """Deliver ``event`` to every listener, in order.

        Parameters
        ----------
        event : SolveEvent
            The event.
        """
        for listener in self.listeners:
            listener(event)


class Trace:
    """Listener that records every event; can be saved as JSON lines."""

    def __init__(self) -> None:
        self.events: list[SolveEvent] = []

    def __call__(self, event: SolveEvent) -> None:
        self.events.append(event)

    def __len__(self) -> int:
        return len(self.events)

    def to_records(self) -> list[dict[str, Any]]:
        """Every event as a strict-JSON record (see :meth:`SolveEvent.to_dict`).

        Returns
        -------
        list of dict
            The records.
        """
        return [e.to_dict() for e in self.events]

    def save(self, path: str | Path) -> None:
        """Write the trace as JSON lines (read back with :meth:`load`).

        Parameters
        ----------
        path : str or Path
            The file.
        """
        with open(path, "w") as f:
            for record in self.to_records():
                f.write(json.dumps(record) + "\n")

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> Trace:
        """A trace from the records of :meth:`to_records`.

        Parameters
        ----------
        records : iterable of mapping
            Event records (see :meth:`SolveEvent.to_dict`).

        Returns
        -------
        Trace
            The trace.
        """
        trace = cls()
        trace.events.extend(SolveEvent.from_dict(record) for record in records)
        return trace

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """A trace saved by :meth:`save` (JSON lines).

        Parameters
        ----------
        path : str or Path
            The file.

        Returns
        -------
        Trace
            The trace.
        """
        with open(path) as f:
            return cls.from_records(json.loads(line) for line in f if line.strip())

    def to_frame(self):
        """The events as a DataFrame (one row per event, incumbents left out).

        Returns
        -------
        DataFrame
            The events.
        """
        return pd.DataFrame(
            [{k: v for k, v in e.to_dict().items() if k != "incumbent"} for e in self.events]
        )


def iterate_events(run: Callable[[Listener], Any]) -> Iterator[SolveEvent]:
    """Run ``run(listener)`` in a thread and yield its events as they arrive.

    The generator's return value (``StopIteration.value``) is what ``run`` returned.
    Exceptions raised by ``run`` are re-raised in the consumer.

    Parameters
    ----------
    run : callable
        ``run(listener) -> result``; the listener receives every event.

    Returns
    -------
    generator of SolveEvent
        The events; its return value is ``run``'s.
    """
    events: queue.Queue = queue.Queue()
    done = object()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["result"] = run(events.put)
        except BaseException as exc:  # re-raised in the consumer thread
            outcome["error"] = exc
        finally:
            events.put(done)

    thread = threading.Thread(target=highs_thread(target), daemon=True, name="riskexplore-solve")
    thread.start()
    while (item := events.get()) is not done:
        yield item
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


def iterate_solve(
    solve: Callable[..., Any], target: Any, callbacks: Sequence[Listener], **solve_kw: Any
) -> Iterator[SolveEvent]:
    """Run ``solve(target, callbacks=..., **solve_kw)`` in a thread, yielding its events.

    The ``iter_fit_*`` functions: the solve gets the user's ``callbacks`` and then the
    listener of :func:`iterate_events`.

    Parameters
    ----------
    solve : callable
        ``solve(target, *, callbacks, **solve_kw) -> model``.
    target : Any
        The built problem.
    callbacks : sequence of callables
        The user's listeners (``None`` for none).
    **solve_kw
        Further arguments of ``solve``.

    Returns
    -------
    generator of SolveEvent
        Its return value (``StopIteration.value``) is the model ``solve`` returned.
    """

    def run(listener: Listener) -> Any:
        return solve(target, callbacks=(*tuple(callbacks or ()), listener), **solve_kw)

    return iterate_events(run)
