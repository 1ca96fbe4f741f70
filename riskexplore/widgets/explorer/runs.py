"""The Explorer's runs (its step 4): the unconstrained and the constrained solve.

:class:`RunControls` holds a Solve button and a
:class:`~riskexplore.widgets.monitor.SolveMonitor` per run. It starts a run on what the
Explorer's plain-Python state (:class:`~riskexplore.exploration.explorer.ExplorerState`)
holds at that moment, and when the run ends records its model in the state with what it
used (family, settings, constraints, data version), or says on the page why there is none.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.runner import describe_error
from riskexplore.widgets.explorer.results import RUNS
from riskexplore.widgets.monitor import SolveMonitor

__all__ = ["RunControls"]


class RunControls:
    """The Solve buttons and the monitors of an Explorer's two runs.

    Parameters
    ----------
    state : callable
        ``() -> ExplorerState``: the state shown now (opening a study replaces it).
    show : callable
        ``(text, level) -> None``: a message on the page.
    lock : threading.RLock
        The Explorer's lock: a finished run and a computed price are shown one at a time.
    on_start : callable
        ``() -> None``, called just before a run starts (the comparison's background
        search yields the processor).
    on_result : callable
        ``(run) -> None``, called once a run's model is recorded (draw the results).
    auto_refresh : bool
        The monitors refresh by themselves (else call their ``poll``).

    Attributes
    ----------
    solve_free, solve_bound : ipywidgets.Button
        Solve unconstrained, solve constrained (the Explorer wires them).
    monitors : dict
        ``"unconstrained"`` / ``"constrained"`` -> :class:`SolveMonitor`.
    """

    def __init__(
        self,
        state: Callable[[], ExplorerState],
        show: Callable[..., None],
        lock: threading.RLock,
        *,
        on_start: Callable[[], None],
        on_result: Callable[[str], None],
        auto_refresh: bool = True,
    ) -> None:
        self._state, self._show, self._lock = state, show, lock
        self._on_start, self._on_result = on_start, on_result
        # what each run solves, read when it finishes (one run per monitor at a time)
        self._contexts: dict[str, tuple] = {}
        self._build(auto_refresh)
        self._wire()

    def _build(self, auto_refresh: bool) -> None:
        import ipywidgets as w

        self.solve_free = w.Button(
            description="Solve unconstrained",
            icon="play",
            button_style="primary",
            layout=w.Layout(width="200px"),
        )
        self.solve_bound = w.Button(
            description="Solve constrained",
            icon="play",
            button_style="warning",
            layout=w.Layout(width="200px"),
        )
        self.monitors = {
            run: SolveMonitor(title=f"{run.capitalize()} solve", auto_refresh=auto_refresh)
            for run in RUNS
        }
        for monitor in self.monitors.values():
            monitor.solve_button.layout.display = "none"  # the Explorer's buttons start runs

    def _wire(self) -> None:
        for run, monitor in self.monitors.items():
            monitor.on_finish(lambda model, error, run=run: self.finished(run, model, error))

    @property
    def running(self) -> bool:
        """Whether either run is running."""
        return any(m.running for m in self.monitors.values())

    def start(self, run: str, constraints: list) -> tuple[SolveMonitor | None, bool]:
        """Start ``run`` with ``constraints`` on the current data and settings.

        Parameters
        ----------
        run : {"unconstrained", "constrained"}
            The run.
        constraints : list
            Its constraints (the constrained run needs at least one).

        Returns
        -------
        (SolveMonitor or None, bool)
            The run's monitor and True when it started; the monitor and False when the
            run is still running; None and False (and a message) when the data,
            settings or constraints cannot be solved.
        """
        monitor = self.monitors[run]
        if monitor.running:
            self._show(f"The {run} solve is still running; press Stop first.", "warning")
            return monitor, False
        if run == "constrained" and not constraints:
            self._show("Add at least one constraint before the constrained solve.", "warning")
            return None, False
        st = self._state()
        try:
            solve = st.solve_function(constraints)
        except Exception as exc:
            self._show(describe_error(exc))
            return None, False
        self._contexts[run] = (st.family, dict(st.settings), list(constraints), st.data_version)
        self._on_start()
        if monitor.start(solve) is None:
            return None, False
        self._show(f"Solving {run} ({st.model_family.label.lower()})…", "info")
        return monitor, True

    def finished(self, run: str, model, error: BaseException | None) -> None:
        """What the end of a run does: record its model in the state and draw the results,
        or say why there is none (the runs' monitors call it).

        Parameters
        ----------
        run : {"unconstrained", "constrained"}
            The run.
        model : RiskScore, Checklist or None
            Its model (None when it failed or was stopped).
        error : Exception or None
            Why it failed.
        """
        with self._lock:
            if error is not None or model is None:
                if error is None and self.monitors[run].status == "stopped":
                    self._show(f"The {run} solve was stopped before it started.", "info")
                    return
                self._show(
                    f"The {run} solve failed: {describe_error(error)}"
                    if error is not None
                    else f"The {run} solve found no model."
                )
                return
            family, settings, constraints, version = self._contexts[run]
            self._state().record(run, model, family, settings, constraints, version)
            self._show(f"The {run} solve finished: {model.certificate_line()}", "info")
            self._on_result(run)

    def wait(self, limit: float) -> None:
        """Block until every started run ends.

        Parameters
        ----------
        limit : float
            Seconds per run.
        """
        for monitor in self.monitors.values():
            if monitor.runner is not None:
                monitor.wait(timeout=limit)

    def show_models(self, results: dict[str, Any]) -> None:
        """Show each run's model in its monitor (a study's), or none.

        Parameters
        ----------
        results : dict
            ``"unconstrained"`` / ``"constrained"`` -> model.
        """
        for run, monitor in self.monitors.items():
            monitor.show_model(results.get(run))

    def figures(self) -> dict[str, Any]:
        """Static ``go.Figure`` of each started run's progress (keys: the runs)."""
        return {
            run: monitor.static_figure()
            for run, monitor in self.monitors.items()
            if monitor.runner is not None
        }
