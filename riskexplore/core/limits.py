"""Limits and stop requests that every solver polls."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from riskexplore.core.params import Check, Interval, validate

StopRequest = threading.Event | Callable[[], bool] | None


@dataclass
class Limits:
    """When a solve ends before proving optimality.

    Attributes
    ----------
    time_limit : float
        Wall-clock seconds (``inf`` for none).
    node_limit : int or None
        Branch-and-bound nodes.
    gap_tolerance : float
        Stop once ``(upper - lower) / upper`` is at most this.
    stop : threading.Event or callable returning bool, optional
        A stop request, polled at least every few milliseconds of solver work.
    """

    time_limit: float = math.inf
    node_limit: int | None = None
    gap_tolerance: float = 1e-9
    stop: StopRequest = None


#: Default optimality gap at which a solve stops (effectively "prove optimality").
DEFAULT_GAP_TOLERANCE = Limits().gap_tolerance


#: What the limits of the ``fit_*`` functions may be (see :mod:`riskexplore.core.params`).
LIMIT_CONSTRAINTS = {
    "time_limit": [Interval(float, 0, None, closed="neither"), None],
    "node_limit": [Interval(int, 0, None), None],
    "gap_tolerance": [Interval(float, 0, 1, closed="left")],
    "stop": [
        None,
        Check(
            lambda s: isinstance(s, threading.Event) or callable(s),
            "a threading.Event or a callable returning bool",
        ),
    ],
}


def checked_limits(
    time_limit: float | None, node_limit: int | None, gap_tolerance: float, stop: StopRequest
) -> Limits:
    """Validated solve limits, from the arguments of the ``fit_*`` functions.

    Parameters
    ----------
    time_limit : float or None
        Wall-clock seconds, positive (``None`` or ``inf`` for none).
    node_limit : int or None
        Branch-and-bound nodes, non-negative.
    gap_tolerance : float
        Optimality gap in ``[0, 1)``.
    stop : threading.Event or callable, optional
        A stop request.

    Returns
    -------
    Limits
        The limits, with ``time_limit`` and ``gap_tolerance`` as floats.

    Raises
    ------
    InputError
        If a limit is out of range (:data:`LIMIT_CONSTRAINTS`).
    """
    validate(
        LIMIT_CONSTRAINTS,
        {
            "time_limit": time_limit,
            "node_limit": node_limit,
            "gap_tolerance": gap_tolerance,
            "stop": stop,
        },
    )
    return Limits(
        time_limit=math.inf if time_limit is None else float(time_limit),
        node_limit=None if node_limit is None else int(node_limit),
        gap_tolerance=float(gap_tolerance),
        stop=stop,
    )


class Clock:
    """Elapsed time and limit checks for one solve."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        """Seconds since the solve started."""
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        """Seconds left of the time limit (``inf`` without one)."""
        return self.limits.time_limit - self.elapsed()

    def out_of_time(self) -> bool:
        """Whether the time limit is reached."""
        return self.elapsed() >= self.limits.time_limit

    def stop_requested(self) -> bool:
        """Whether the stop request is set (an Event set, or the callable returning True)."""
        stop = self.limits.stop
        if stop is None:
            return False
        if isinstance(stop, threading.Event):
            return stop.is_set()
        return bool(stop())

    def limit_reached(self, nodes: int | None = None) -> str | None:
        """Which limit ends the solve now, if any (the gap is the solver's to check).

        Parameters
        ----------
        nodes : int, optional
            Nodes explored so far; without it the node limit is not checked.

        Returns
        -------
        str or None
            ``"stopped"`` (a stop request), ``"time_limit"``, ``"node_limit"`` or
            ``None``, checked in that order.
        """
        if self.stop_requested():
            return "stopped"
        if self.out_of_time():
            return "time_limit"
        node_limit = self.limits.node_limit
        if nodes is not None and node_limit is not None and nodes >= node_limit:
            return "node_limit"
        return None
