"""The one-line progress summary shown on the pages: plain decimals, never 1.8e-29."""

from __future__ import annotations

import math

from riskexplore.core.events import SolveEvent
from riskexplore.core.progress import ProgressSeries


def _summary(upper: float, lower: float) -> str:
    gap = (upper - lower) / upper if math.isfinite(upper) and upper else math.inf
    event = SolveEvent(0.4, "running", upper, lower, gap, 0, 3)
    return ProgressSeries([event]).summary()


def test_summary_never_in_scientific_notation():
    text = _summary(0.46066, 1.79744e-29)  # a first bound of a risk-score search
    assert "e-" not in text and "best 0.46066 · bound < 0.000001" in text, text
    text = _summary(5440.0, 2541.5)
    assert "best 5440 · bound 2541.5" in text, text
    text = _summary(1234567.0, 0.0)
    assert "best 1,234,567 · bound 0 ·" in text and "e+" not in text, text
    text = _summary(math.inf, -math.inf)
    assert "best none yet · bound none yet" in text and "gap n/a" in text, text
