"""What an LCPA search tells its listeners: progress and incumbent events while it runs,
and its result.

:class:`SearchReport` is the search's reporter (of :mod:`riskexplore.risk_score.lcpa.search`
and of the learned scale's :mod:`riskexplore.risk_score.scaled.search`): it reads the
search's bounds, counters and incumbent, and keeps every event in a
:class:`~riskexplore.core.events.Trace`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.result import SolveResult, finish_solve

__all__ = ["SearchReport"]


class SearchReport:
    """The events of one search (kept in ``trace`` and sent to the listeners) and its
    final result.

    Parameters
    ----------
    search : _LCPA
        The search reported on.
    listeners : sequence of callables
        Each receives every :class:`~riskexplore.core.events.SolveEvent`.
    """

    def __init__(self, search: Any, listeners: Sequence[Callable[[SolveEvent], None]]) -> None:
        self.search = search
        self.trace = Trace()
        self.emitter = EventEmitter([self.trace, *listeners])
        self.last_report = -math.inf

    def emit_if_due(self) -> None:
        """A progress event if ``report_interval`` seconds passed since the last event."""
        s = self.search
        if self.emitter.active and (
            s.clock.elapsed() - self.last_report >= s.settings.report_interval
        ):
            self.emit()

    def emit(self, incumbent: bool = False) -> None:
        """A progress event, or an incumbent event with the new incumbent.

        Parameters
        ----------
        incumbent : bool
            Whether the search has just found a better model.
        """
        if not self.emitter.active:
            return
        s = self.search
        now = s.clock.elapsed()
        self.last_report = now
        lb = s.lower_bound()
        self.emitter.emit(
            SolveEvent(
                time=now,
                phase=s.phase,
                upper_bound=s.ub,
                lower_bound=lb,
                gap=relative_gap(s.ub, lb),
                nodes=s.nodes,
                cuts=s.cuts,
                incumbent=s._incumbent_dict() if incumbent else None,
                kind="incumbent" if incumbent else "progress",
            )
        )

    def result(self, complete: bool, lower_bound: float) -> SolveResult:
        """The search's result (and its final event).

        Parameters
        ----------
        complete : bool
            Whether the tree was searched to the end.
        lower_bound : float
            The certified lower bound.

        Returns
        -------
        SolveResult
            The best model, the bounds and the statistics.
        """
        s = self.search
        best = None if s.best is None else s.best.copy()
        return finish_solve(
            self.emitter,
            solution=best,
            incumbent=None if best is None else s._incumbent_dict(),
            upper_bound=s.ub,
            lower_bound=lower_bound,
            complete=complete,
            gap_tolerance=s.limits.gap_tolerance,
            stop_reason=s.stop_reason,
            nodes=s.nodes,
            cuts=s.cuts,
            elapsed=s.clock.elapsed(),
            trace=self.trace,
            stats=s._stats(),
        )
