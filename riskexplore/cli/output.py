"""What the commands print: progress lines on stderr while a search runs, the model (its
text and summary, or the ``--json`` report), and numbers made safe for strict JSON.
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any

__all__ = [
    "ProgressPrinter",
    "finite",
    "print_model",
]


class ProgressPrinter:
    """Listener printing at most one progress line per ``interval`` seconds."""

    def __init__(self, stream=None, interval: float = 1.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self._last = -math.inf

    def __call__(self, event) -> None:
        now = time.monotonic()
        if event.kind != "final" and now - self._last < self.interval:
            return
        self._last = now
        best = f"{event.upper_bound:.6f}" if math.isfinite(event.upper_bound) else "-"
        gap = f"{100 * event.gap:.2f}%" if math.isfinite(event.gap) else "-"
        self.stream.write(
            f"[{event.time:7.1f}s] {event.phase:<14} nodes {event.nodes:>8}  "
            f"cuts {event.cuts:>6}  best {best}  bound {event.lower_bound:.6f}  gap {gap}\n"
        )
        self.stream.flush()


def print_model(model: Any, report: dict[str, Any] | None, **text_options: Any) -> int:
    """Print the ``--json`` report, or the model's text and summary.

    Parameters
    ----------
    model : RiskScore or Checklist
        The fitted model.
    report : dict or None
        The ``--json`` object, when ``--json`` was given.
    **text_options
        Arguments of ``model.to_text`` (``ascii=`` of a checklist).

    Returns
    -------
    int
        The exit code, 0.
    """
    if report is not None:
        print(json.dumps(report, allow_nan=False))
    else:
        print(model.to_text(**text_options))
        print()
        print(model.summary())
    return 0


def finite(value):
    """``value`` as a float, or None when it is None or not finite (for strict JSON).

    Parameters
    ----------
    value : float or None
        The value.

    Returns
    -------
    float or None
        The float, or None.
    """
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None
