"""The solve monitor: watch a risk-score or checklist solve live, stop it at any time.

One ``PlotView`` with three subplots (bounds with incumbent markers, gap, nodes and
cuts; built by :func:`riskexplore.figures.progress.bounds_figure`), Solve and Stop buttons,
a log-time switch, a status line (phase, time, bounds) and the best model's card below.

Threads: the solve runs in a :class:`~riskexplore.exploration.runner.SolveRunner` worker that
only puts events on a queue. In a kernel (an asyncio loop is running) an asyncio task on
the kernel's loop calls :meth:`SolveMonitor.poll` every ``refresh_interval`` seconds (0.3 s
by default, i.e. about 3 refreshes a second), which drains the queue and updates the
figure inside ``fig.batch_update()`` with numpy arrays; without a running loop a daemon
thread does the same. Tests and scripts can pass ``auto_refresh=False`` and call
:meth:`poll` (or :meth:`wait`) themselves.

Examples
--------
>>> from riskexplore import load_dataset
>>> from riskexplore.widgets import SolveMonitor
>>> data = load_dataset("mammo")
>>> monitor = SolveMonitor.for_data("risk_score", data.X, data.y, max_size=5)  # doctest: +SKIP
>>> monitor  # doctest: +SKIP   (press Solve, or call monitor.start())
"""

from __future__ import annotations

import asyncio
import html
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from riskexplore.core.progress import ProgressSeries
from riskexplore.errors import InputError
from riskexplore.exploration.runner import SolveRunner, describe_error, solve_function
from riskexplore.figures.export import save_figure
from riskexplore.figures.progress import bounds_figure, update_bounds_figure
from riskexplore.widgets._refresh import Refresher
from riskexplore.widgets.cards import ModelCardView, message_html

__all__ = ["SolveMonitor", "waiting_text"]

log = logging.getLogger(__name__)

_STATUS_TEXT = {
    "idle": "ready",
    "starting": "starting…",
    "running": "running",
    "stopping": "stopping…",
    "optimal": "certified optimal",
    "time_limit": "time limit reached",
    "node_limit": "node limit reached",
    "stopped": "stopped",
    "numerical": "ended with regions the LP could not solve exactly",
    "finished": "finished",
    "error": "failed",
}

#: Statuses while a solve is under way (the others are final).
_LIVE = ("idle", "starting", "running", "stopping")


def waiting_text(ahead: int) -> str:
    """What a page says while its search waits for a core (``ahead``: searches before it).

    Parameters
    ----------
    ahead : int
        Searches waiting before this one.

    Returns
    -------
    str
        The text.
    """
    if ahead <= 0:
        return "Waiting for a free processor core… (next in line)"
    noun = "search" if ahead == 1 else "searches"
    return f"Waiting for a free processor core… ({ahead} {noun} ahead)"


class SolveMonitor:
    """Live view of a solve with Solve and Stop buttons.

    Parameters
    ----------
    solve : callable, optional
        ``solve(callbacks=..., stop=...)`` returning a fitted model (see
        :func:`riskexplore.exploration.runner.solve_function`); can also be passed to
        :meth:`start`.
    refresh_interval : float
        Seconds between refreshes (0.25–0.5 gives 2–4 refreshes a second).
    log_time : bool
        Start with a logarithmic time axis.
    title : str
        Figure title; the current phase or final status is appended.
    auto_refresh : bool
        Refresh by itself (asyncio task on the kernel loop, else a daemon thread). With
        ``False`` call :meth:`poll` yourself.

    Attributes
    ----------
    figure : riskexplore.widgets.plot_view.PlotView
    solve_button, stop_button : ipywidgets.Button
    log_time_box : ipywidgets.Checkbox
    status_label : ipywidgets.HTML
        Status, phase, time, bounds, gap, nodes, cuts.
    message : ipywidgets.HTML
        Readable error messages (empty when all is well).
    card : ModelCardView
        The incumbent while solving; the fitted model and its certificate afterwards.
    series : ProgressSeries
        The data shown.
    model : RiskScore or Checklist or None
        The latest fitted model (kept when a later solve fails).
    widget : ipywidgets.VBox
        Everything, for ``display``.

    Examples
    --------
    A live view around your own fit (the call runs in a background thread):

    >>> from functools import partial
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> from riskexplore.widgets import SolveMonitor
    >>> mammo = load_dataset("mammo")
    >>> monitor = SolveMonitor(title="mammo, at most 3 characteristics")
    >>> monitor  # doctest: +SKIP
    >>> runner = monitor.start(partial(fit_risk_score, mammo.X, mammo.y, max_size=3, time_limit=10))
    >>> monitor.wait(timeout=60)
    'optimal'
    >>> monitor.model.certificate.status
    'optimal'
    """

    def __init__(
        self,
        solve: Callable[..., Any] | None = None,
        *,
        refresh_interval: float = 0.3,
        log_time: bool = False,
        title: str = "Solve monitor",
        auto_refresh: bool = True,
    ) -> None:
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        if not refresh_interval > 0:
            raise ValueError(f"refresh_interval must be positive, got {refresh_interval}")
        self.solve = solve
        self.refresh_interval = float(refresh_interval)
        self.title = title
        self.auto_refresh = bool(auto_refresh)
        self.runner: SolveRunner | None = None
        self.series = ProgressSeries()
        self._pending: ProgressSeries | None = None
        self.model = None
        self.error: BaseException | None = None
        self._status = "idle"
        self._finalized = True
        self._shown_incumbent = 0
        self._lock = threading.RLock()
        self._refresher = Refresher(self._safe_poll, self._next_delay, "riskexplore-monitor")
        self._finish_callbacks: list[Callable[[Any, BaseException | None], None]] = []
        self.n_refreshes = 0
        self.first_point_latency: float | None = None

        self.figure = PlotView(bounds_figure(None, log_time=log_time, title=title))
        self.solve_button = w.Button(description="Solve", button_style="primary", icon="play")
        self.stop_button = w.Button(
            description="Stop", button_style="danger", icon="stop", disabled=True
        )
        self.log_time_box = w.Checkbox(value=bool(log_time), description="log time", indent=False)
        self.status_label = w.HTML(value=self._status_html())
        self.message = w.HTML(value="")
        self.card = ModelCardView()
        self.solve_button.on_click(lambda _b: self.start())
        self.stop_button.on_click(lambda _b: self.stop())
        self.log_time_box.observe(self._on_log_time, names="value")
        controls = w.HBox(
            [self.solve_button, self.stop_button, self.log_time_box, self.status_label],
            layout=w.Layout(align_items="center"),
        )
        self.widget = w.VBox([controls, self.message, self.figure, self.card.widget])

    @classmethod
    def for_data(cls, fit, X, y, *, constraints=None, monitor_kw=None, **fit_kw) -> SolveMonitor:
        """A monitor whose Solve button fits ``fit`` (a model family such as
        ``"risk_score"`` or ``"checklist"``, or a fit function) on ``X, y``;
        ``constraints`` may be a :class:`ConstraintBuilder`, read at each solve."""
        solve = solve_function(fit, X, y, constraints=constraints, **fit_kw)
        return cls(solve, **(monitor_kw or {}))

    # --- display ---------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def on_finish(self, callback: Callable[[Any, BaseException | None], None]) -> None:
        """Call ``callback(model, error)`` in the refresh thread when a solve ends."""
        self._finish_callbacks.append(callback)

    # --- control ---------------------------------------------------------------------
    @property
    def log_time(self) -> bool:
        """Whether the time axis is logarithmic (the checkbox)."""
        return bool(self.log_time_box.value)

    @property
    def running(self) -> bool:
        """Whether a solve is running (or its result not yet shown)."""
        return self.runner is not None and not self._finalized

    @property
    def status(self) -> str:
        """``"idle"``, ``"running"``, ``"stopping"``, then the final status: ``"optimal"``,
        ``"time_limit"``, ``"node_limit"``, ``"stopped"`` or ``"error"``."""
        return self._status

    def start(self, solve: Callable[..., Any] | None = None) -> SolveRunner | None:
        """Start a solve (what the Solve button does). Returns its runner.

        While a solve runs, another start is refused with a message. The previous results
        stay on screen until the new solve reports its first progress.
        """
        with self._lock:
            if self.running:
                self._show_message("A solve is already running; press Stop first.", "warning")
                return self.runner
            if solve is not None:
                self.solve = solve
            if self.solve is None:
                self._show_message("Nothing to solve: give the monitor a solve function.")
                return None
            self.message.value = ""
            self.error = None
            self.runner = SolveRunner(self.solve)
            self._pending = ProgressSeries()
            self._finalized = False
            self.first_point_latency = None
            self._status = "starting"
            self.solve_button.disabled = True
            self.stop_button.disabled = False
            self.runner.start()
            self.status_label.value = self._status_html()
        self._ensure_refresh()
        return self.runner

    def stop(self) -> None:
        """Ask the solve to stop (what the Stop button does); the best model is kept."""
        with self._lock:
            if not self.running:
                return
            self.runner.stop()
            self._status = "stopping"
            self.stop_button.disabled = True
            self.status_label.value = self._status_html()

    def show_model(self, model) -> None:
        """Show a finished model as its solve ended: its trace on the plot (bounds, gap,
        work), its certificate's status and its card; ``None`` empties the monitor.

        This is how a run opened from a study is drawn again (see
        :meth:`Explorer.open_study <riskexplore.widgets.explorer.widget.Explorer.open_study>`);
        no solve runs and no finish callback is called.

        Parameters
        ----------
        model : RiskScore, Checklist or None
            A fitted model (its ``trace``, if any, is drawn).

        Raises
        ------
        InputError
            While a solve is running.
        """
        with self._lock:
            if self.running:
                raise InputError("a solve is running in this monitor; stop it first")
            series = ProgressSeries()
            trace = getattr(model, "trace", None)
            if trace is not None:
                series.extend(trace.events)
            certificate = getattr(model, "certificate", None)
            self.runner, self._pending, self.error = None, None, None
            self.series, self.model = series, model
            self._shown_incumbent = series.incumbent_version
            self._finalized = True
            self._status = (
                "idle" if model is None else str(getattr(certificate, "status", "") or "finished")
            )
            self.message.value = ""
            self.solve_button.disabled = False
            self.stop_button.disabled = True
            if model is None:
                self.card.clear()
            else:
                self.card.show(model)
            self._redraw()
            self.figure.layout.title.text = self._title()
            self.status_label.value = self._status_html()

    # --- refreshing ------------------------------------------------------------------
    def _ensure_refresh(self) -> None:
        if self.auto_refresh:
            self._refresher.ensure_running()

    @property
    def _task(self) -> asyncio.Task | None:
        """The refresh task on the kernel's loop, if refreshing runs there."""
        return self._refresher.task

    @property
    def _thread(self) -> threading.Thread | None:
        """The refresh thread, if refreshing runs without an event loop."""
        return self._refresher.thread

    def _next_delay(self) -> float:
        # poll quickly until the first point is shown, then at the refresh rate
        return (
            min(self.refresh_interval, 0.1) if self._pending is not None else self.refresh_interval
        )

    def _safe_poll(self) -> bool:
        try:
            return self.poll()
        except Exception as exc:  # a refresh failure must not kill the loop silently
            log.exception("solve monitor refresh failed")
            self._show_message(f"Display update failed: {describe_error(exc)}")
            return self.running

    def poll(self) -> bool:
        """Drain new events and refresh the view; True while the solve is still running."""
        with self._lock:
            runner = self.runner
            if runner is None or self._finalized:
                return False
            finished = runner.finished  # read before draining: no event is left behind
            events = runner.drain()
            if events:
                if self._pending is not None:  # first progress of a new solve: switch
                    self.series = self._pending
                    self._pending = None
                    self._shown_incumbent = 0
                    self.first_point_latency = time.perf_counter() - runner.started_at
                self.series.extend(events)
                if self._status == "starting":
                    self._status = "running"
            if events or finished:
                self._redraw()
            self.n_refreshes += 1
            if finished:
                self._finish(runner)  # marks the monitor idle last
            else:
                self.status_label.value = self._status_html()
            return not finished

    def wait(self, timeout: float = 60.0, interval: float = 0.05) -> str:
        """Poll until the solve ends (for scripts and tests; blocks the caller).

        Returns the final status; raises ``TimeoutError`` after ``timeout`` seconds.
        """
        deadline = time.perf_counter() + timeout
        while self.poll():
            if time.perf_counter() > deadline:
                raise TimeoutError(f"solve still running after {timeout} s")
            time.sleep(interval)
        return self._status

    def _finish(self, runner: SolveRunner) -> None:
        self._pending = None
        self.solve_button.disabled = False
        self.stop_button.disabled = True
        if runner.stopped_waiting:  # stopped before a core was free: nothing ran
            self._status = "stopped"
            self._show_message(
                "Stopped before a processor core was free: nothing was searched.", "info"
            )
        elif runner.error is not None:
            self.error = runner.error
            self._status = "error"
            self._show_message(describe_error(runner.error))
        else:
            self.model = runner.result
            self._status = runner.status
            try:
                self.card.show(self.model)
            except Exception as exc:
                self._show_message(f"Could not show the model: {describe_error(exc)}")
        self.figure.layout.title.text = self._title()
        self.status_label.value = self._status_html()
        self._finalized = True
        for callback in list(self._finish_callbacks):
            try:
                callback(self.model if runner.error is None else None, runner.error)
            except Exception:
                log.exception("solve monitor finish callback failed")

    def _redraw(self) -> None:
        with self.figure.batch_update():
            update_bounds_figure(self.figure, self.series, title=self._title())
        series = self.series
        if not self._finalized and series.incumbent_version != self._shown_incumbent:
            self._shown_incumbent = series.incumbent_version
            i = len(series.incumbent_time) - 1
            self.card.show_incumbent(
                series.incumbent,
                float(series.incumbent_upper[i]),
                float(series.lower[-1]) if len(series) else -math.inf,
                float(series.incumbent_time[i]),
                template=self.model,
            )

    def _on_log_time(self, change) -> None:
        with self._lock, self.figure.batch_update():
            update_bounds_figure(self.figure, self.series, log_time=bool(change["new"]))

    # --- text ------------------------------------------------------------------------
    def _title(self) -> str:
        if self._status not in _LIVE:
            return f"{self.title} — {_STATUS_TEXT.get(self._status, self._status)}"
        phase = self.series.phase
        return f"{self.title} — {phase}" if phase else self.title

    def _status_html(self) -> str:
        status = _STATUS_TEXT.get(self._status, self._status)
        parts = [f"<b>{html.escape(status)}</b>"]
        if self._status == "error":
            pass
        elif self._pending is None and len(self.series):
            parts.append(html.escape(self.series.summary()))
        elif self.runner is not None and not self._finalized:
            ahead = self.runner.waiting
            if ahead is not None and self._status in ("starting", "stopping"):
                parts = [f"<b>{html.escape(status)}</b>"] if self._status == "stopping" else []
                parts.append(waiting_text(ahead))
            else:
                parts.append(f"{self.runner.elapsed:.1f} s")
        return (
            '<span class="rx-status" style="font-family:system-ui,sans-serif;margin-left:8px">'
            + " · ".join(parts)
            + "</span>"
        )

    def _show_message(self, text: str, level: str = "error") -> None:
        self.message.value = message_html(text, level)

    # --- static output ---------------------------------------------------------------
    def static_figure(self):
        """The current figure as a plain ``go.Figure`` (for papers and saving)."""
        return bounds_figure(self.series, log_time=self.log_time, title=self._title())

    def save(self, path, **kwargs):
        """Save the current figure (``.html`` always; images need kaleido)."""
        return save_figure(self.static_figure(), path, **kwargs)
