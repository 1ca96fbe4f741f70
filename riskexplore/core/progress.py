"""Solve progress as growing numpy arrays: a listener for plots and live views.

:class:`ProgressSeries` accumulates :class:`~riskexplore.core.events.SolveEvent` objects
into growing arrays (time, bounds, gap, nodes, cuts) plus the incumbent changes, ready
for plotting (:func:`riskexplore.figures.progress.bounds_figure`). Nothing here imports
plotly or Jupyter.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from riskexplore.core.plain_numbers import plain_number

__all__ = ["ProgressSeries"]


class ProgressSeries:
    """Solve progress as numpy arrays, grown by appending events.

    The attributes are read-only numpy views, one entry per event.

    Attributes
    ----------
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
        """Add one event (see :meth:`extend`).

        Parameters
        ----------
        event : SolveEvent
            The event.
        """
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
        """Seconds at which the incumbent changed."""
        return np.asarray(self._inc_time, dtype=float)

    @property
    def incumbent_upper(self) -> np.ndarray:
        """The objective of each new incumbent."""
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
        ub = "none yet" if not math.isfinite(e.upper_bound) else plain_number(e.upper_bound, 6)
        lb = plain_number(e.lower_bound, 6) if math.isfinite(e.lower_bound) else "none yet"
        return (
            f"{e.phase} · {e.time:.1f} s · best {ub} · bound {lb} · "
            f"gap {gap} · {e.nodes} nodes · {e.cuts} cuts"
        )
