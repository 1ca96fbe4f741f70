"""The Explorer's results (its step 5): the views of the runs on the current data.

:class:`ResultViews` holds the reliability diagram of either run, the AUC / CAL panel, the
size path and the comparison of the two runs with the certified price of the constraints
(risk scores: and the certified price of a fixed scale, computed in the background). It
draws them from the Explorer's plain-Python state
(:class:`~riskexplore.exploration.explorer.ExplorerState`) when a run finishes, and clears
them when the data change, so that no result of other data stays on screen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.runner import describe_error
from riskexplore.widgets.cards import message_html, show_yes_no_only
from riskexplore.widgets.compare_view import CompareView
from riskexplore.widgets.explorer.survival_results import SurvivalResultView
from riskexplore.widgets.metrics_panel import MetricsPanel
from riskexplore.widgets.pareto import ParetoView
from riskexplore.widgets.reliability import ReliabilityView

__all__ = ["RUNS", "ResultViews"]

#: The Explorer's two runs.
RUNS = ("unconstrained", "constrained")


class ResultViews:
    """The result views of an Explorer, drawn from its state.

    Parameters
    ----------
    state : callable
        ``() -> ExplorerState``: the state shown now (opening a study replaces it).
    show : callable
        ``(text, level) -> None``: a message on the page.
    lock : threading.RLock
        The Explorer's lock: a finished run and a computed price are shown one at a time.
    auto_refresh : bool
        The size path view refreshes by itself (else call its ``poll``).

    Attributes
    ----------
    reliability : ReliabilityView
        The reliability diagram of the run chosen in :attr:`reliability_run`.
    reliability_run : ipywidgets.ToggleButtons
        ``"unconstrained"`` or ``"constrained"``.
    metrics : MetricsPanel
        AUC and calibration of both runs.
    pareto : ParetoView
        The size path.
    compare : CompareView
        The two runs side by side, with the certified prices.
    followers : list
        Further views drawn and cleared with the results (each with ``refresh()`` and
        ``clear()``; the Explorer's "By group" tab).
    """

    def __init__(
        self,
        state: Callable[[], ExplorerState],
        show: Callable[..., None],
        lock: threading.RLock,
        *,
        auto_refresh: bool = True,
    ) -> None:
        self._state, self._show, self._lock = state, show, lock
        self.followers: list[Any] = []
        self._build(auto_refresh)
        self._wire()

    def _build(self, auto_refresh: bool) -> None:
        import ipywidgets as w

        self.reliability = ReliabilityView()
        self.reliability_run = w.ToggleButtons(options=list(RUNS), value="unconstrained")
        self.metrics = MetricsPanel()
        self.pareto = ParetoView(auto_refresh=auto_refresh)
        self.compare = CompareView()
        # survival mode: Kaplan-Meier curves in place of the reliability diagram
        self.survival = SurvivalResultView()
        self._binary_children = self.reliability.widget.children
        self._survival_children = (self.reliability.message, self.survival.widget)

    def _wire(self) -> None:
        self.reliability_run.observe(lambda _c: self.show_reliability(), names="value")

    # --- drawing and clearing ---------------------------------------------------------
    def refresh(self, run: str | None = None) -> None:
        """Draw the runs on the current data (nothing when there is none).

        Parameters
        ----------
        run : str, optional
            The run just finished: its reliability diagram is shown.
        """
        st = self._state()
        current = st.current_results()
        if not current:
            return
        if run in current:
            self.reliability_run.value = run
        self.show_reliability()
        for view in self.followers:
            view.refresh()
        if st.survival_mode:  # the panels below need a 0/1 outcome
            for view in (self.metrics, self.compare):  # in two places: each says why
                show_yes_no_only(view)
            return
        self.metrics.show(current, st.X, st.y, st.X_test, st.y_test)
        try:
            comparison = st.comparison()
        except Exception as exc:
            self._show(f"Could not compare the runs: {describe_error(exc)}")
            return
        if comparison is not None:
            self.compare.show(comparison, st.X, st.y, st.X_test, st.y_test)
            self.show_scale_price()

    def clear(self) -> None:
        """Clear the reliability, AUC / CAL, comparison and size path views."""
        for view in (self.reliability, self.metrics, self.compare, self.pareto):
            view.clear()
        self.survival.hide()
        self.reliability.widget.children = self._binary_children

    def clear_stale(self) -> None:
        """Clear every view (and stop pricing a fixed scale) when no run is on the current
        data: results of earlier data must not stay on screen under the new data's name
        (their runs stay in ``state.runs``, tagged with the data version they used)."""
        if self._state().current_results():
            return
        self.compare.cancel_scale_price()
        self.clear()
        for view in self.followers:
            view.clear()

    def show_reliability(self) -> None:
        """The reliability diagram of the run chosen in :attr:`reliability_run`."""
        st = self._state()
        run = self.reliability_run.value
        model = st.current_results().get(run)
        survival = model is not None and st.survival_mode
        kids = self._survival_children if survival else self._binary_children
        if self.reliability.widget.children != kids:
            self.reliability.widget.children = kids
        if survival:
            self.reliability.clear()
            self.survival.show(model, st)
            return
        self.survival.hide()
        if model is not None:
            self.reliability.show(model, st.X, st.y, st.X_test, st.y_test)
        else:  # never the other run's diagram under this run's name
            self.reliability.clear()
            self.reliability.message.value = message_html(
                f"No {run} model on the current data yet: run that solve first.", "info"
            )

    def show_scale_price(self) -> None:
        """The comparison's line on the price of a fixed scale; when it is missing the
        compare view works it out in the background (one more search)."""
        with self._lock:
            st = self._state()
            price = st.current_scale_price()
            job = None if price is not None else st.scale_price_function()
            if job is None:
                text = "" if price is None else price.describe("(without your rules)")
                self.compare.show_scale_price(text)
                return

            def done(result, run=job.run) -> None:
                with self._lock:
                    self._state().record_scale_price(run, result)
                    if self.compare.comparison is not None:
                        self.show_scale_price()

            self.compare.run_scale_price(job, done, key=job.run)

    def figures(self) -> dict[str, Any]:
        """Static ``go.Figure`` of each view that has something to show: ``"reliability"``,
        ``"metrics"``, ``"pareto"``, ``"compare"`` (survival mode: ``"survival"``, the
        Kaplan-Meier curves)."""
        out: dict[str, Any] = {}
        if self.survival.static_figure() is not None:
            out["survival"] = self.survival.static_figure()
        if self.reliability.model is not None:
            out["reliability"] = self.reliability.static_figure()
        if self.metrics.models:
            out["metrics"] = self.metrics.static_figure()
        if self.pareto.rows:
            out["pareto"] = self.pareto.static_figure()
        if self.compare.comparison is not None:
            out["compare"] = self.compare.static_figure()
        return out

    def wait(self, limit: float) -> None:
        """Block until the price of a fixed scale and the size path are computed.

        Parameters
        ----------
        limit : float
            Seconds per search (twice for the price, ten times for the path).
        """
        self.compare.wait_scale_price(timeout=2 * limit)
        if self.pareto.running:
            self.pareto.wait(timeout=limit * 10)

    # --- size path --------------------------------------------------------------------
    def _path_kwargs(self, sizes=None, time_limit_per_size=None) -> dict[str, Any]:
        st = self._state()
        fit = st.fit_kwargs()
        limit = fit.pop("time_limit")
        per_size = float(time_limit_per_size or max(1.0, limit / 4))
        kw: dict[str, Any] = {"time_limit_per_size": per_size}
        if st.X_test is not None:
            kw.update(X_test=st.X_test, y_test=st.training_outcome(test=True))
        size_parameter = st.model_family.size_parameter
        kw["sizes"] = sizes if sizes is not None else fit.pop(size_parameter)
        fit.pop(size_parameter, None)
        kw.update(fit)
        return kw

    def configure_path(self) -> None:
        """Give the size path view the current data and settings (its Compute button)."""
        st = self._state()
        if st.X is not None:
            try:
                y = st.training_outcome()  # a survival family's: time and event
                self.pareto.configure(st.X, y, kind=st.family, **self._path_kwargs())
            except Exception as exc:  # pragma: no cover - settings are validated
                self._show(describe_error(exc))

    def compute_path(
        self, constraints: list, sizes=None, time_limit_per_size=None, wait: bool = False
    ) -> bool:
        """Compute the size path of the current family (sizes 1..max by default) with
        ``constraints``, filling the size path view progressively.

        Parameters
        ----------
        constraints : list
            The active constraints.
        sizes : sequence of int, optional
            The sizes (default: 1 to the size limit).
        time_limit_per_size : float, optional
            Seconds per size (default: a quarter of the time limit, at least 1).
        wait : bool
            Block until the path is computed.

        Returns
        -------
        bool
            False (and a message) if it could not start.
        """
        st = self._state()
        try:
            st.check_ready()
        except Exception as exc:
            self._show(describe_error(exc))
            return False
        kw = self._path_kwargs(sizes, time_limit_per_size)
        if constraints:
            kw["constraints"] = constraints
        ok = self.pareto.start(st.X, st.training_outcome(), kind=st.family, **kw)
        if ok and wait:
            self.pareto.wait(timeout=600)
        return ok
