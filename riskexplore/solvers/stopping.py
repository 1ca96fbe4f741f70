"""Limits and stop requests that every solver polls."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

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


class Clock:
    """Elapsed time and limit checks for one solve."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        return self.limits.time_limit - self.elapsed()

    def out_of_time(self) -> bool:
        return self.elapsed() >= self.limits.time_limit

    def stop_requested(self) -> bool:
        stop = self.limits.stop
        if stop is None:
            return False
        if isinstance(stop, threading.Event):
            return stop.is_set()
        return bool(stop())
