"""Size path view: loss (and test AUC/CAL) against model size, each size with its
certified interval; click a size to see that model.

The path is computed by :func:`~riskexplore.evaluation.paths.risk_score_size_path` (or
``checklist_size_path``) in a worker thread; its ``callback`` puts each finished row on a
queue which an asyncio task on the kernel loop drains (a daemon thread without a running
loop), refilling the figure inside ``fig.batch_update()`` — the same pattern as
:class:`~riskexplore.widgets.monitor.SolveMonitor`. Scripts and tests pass
``auto_refresh=False`` and call :meth:`ParetoView.poll` / :meth:`ParetoView.wait`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from riskexplore.core.core_gate import CoreGate, run_gated
from riskexplore.core.registry import DEFAULT_FAMILY, get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.paths import size_path
from riskexplore.evaluation.tables import path_frame
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.paths import pareto_figure, update_pareto_figure
from riskexplore.widgets._refresh import Refresher
from riskexplore.widgets.cards import ModelCardView, message_html

__all__ = ["ParetoView"]

log = logging.getLogger(__name__)


class ParetoView:
    """Size path figure with progressive filling and click-to-inspect.

    Parameters
    ----------
    path : SizePath, optional
        A computed path to show at once.
    refresh_interval : float
        Seconds between drains of the row queue while a path is computed.
    auto_refresh : bool
        Drain by itself (asyncio task on the kernel loop, else a daemon thread).

    Attributes
    ----------
    figure : riskexplore.widgets.plot_view.PlotView
    rows : list of dict
        Rows received so far (without models).
    models : dict
        Size limit -> model.
    selected : int or None
        Size whose model is shown in :attr:`card`.
    card : ModelCardView
    compute_button, stop_button : ipywidgets.Button
    status_label, message : ipywidgets.HTML
    path : SizePath or None
        The finished path.
    error : BaseException or None
    widget : ipywidgets.VBox

    Examples
    --------
    The best risk score of each size, drawn size by size while they are solved:

    >>> from riskexplore import load_dataset
    >>> from riskexplore.widgets import ParetoView
    >>> mammo = load_dataset("mammo")
    >>> view = ParetoView()
    >>> view  # doctest: +SKIP
    >>> view.start(mammo.X, mammo.y, sizes=3, time_limit_per_size=5)
    True
    >>> view.wait(timeout=120)
    True
    >>> [row["size"] for row in view.rows]
    [1, 2, 3]
    >>> view.select(2)  # as a click on the size-2 point: its model in view.card
    True
    """

    def __init__(
        self,
        path=None,
        *,
        kind: str = DEFAULT_FAMILY,
        refresh_interval: float = 0.3,
        auto_refresh: bool = True,
        title: str = "Model size path",
    ) -> None:
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        self.kind = kind
        self.title = title
        self.refresh_interval = float(refresh_interval)
        self.auto_refresh = bool(auto_refresh)
        self.rows: list[dict[str, Any]] = []
        self.models: dict[int, Any] = {}
        self.selected: int | None = None
        self.path = None
        self.error: BaseException | None = None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._finished = threading.Event()
        self._finished.set()
        self._running = False
        self._lock = threading.RLock()
        self._refresher = Refresher(
            self._safe_poll, lambda: self.refresh_interval, "riskexplore-path-refresh"
        )
        self._solve = None
        #: Called by the Compute button instead of :meth:`start` when set (the Explorer
        #: computes the path of its current data, settings and constraints).
        self.on_compute = None

        self.figure = PlotView(pareto_figure(None, kind=kind, title=title))
        self.compute_button = w.Button(description="Compute path", icon="play")
        self.stop_button = w.Button(description="Stop", icon="stop", disabled=True)
        self.status_label = w.HTML()
        self.message = w.HTML()
        self.card = ModelCardView()
        self.compute_button.on_click(lambda _b: self._compute())
        self.stop_button.on_click(lambda _b: self.stop())
        self._bind_clicks()
        controls = w.HBox([self.compute_button, self.stop_button, self.status_label])
        self.widget = w.VBox([controls, self.message, self.figure, self.card.widget])
        if path is not None:
            self.show_path(path)

    # --- setup -----------------------------------------------------------------------
    def _bind_clicks(self) -> None:
        n = len(self.figure.data) - 1  # every metric trace, not the "selected" marker
        for trace in self.figure.data[:n]:
            trace.on_click(self._on_click)

    def _on_click(self, trace, points, _state) -> None:
        if points.point_inds:
            i = points.point_inds[0]
            x = trace.x[i] if trace.x is not None else None
            if x is not None:
                self.select(int(x))

    def _compute(self) -> None:
        if self.on_compute is not None:
            self.on_compute()
        else:
            self.start()

    def configure(self, X, y, *, kind=DEFAULT_FAMILY, **path_kw) -> None:
        """Set what the Compute button computes: the path of ``kind`` on ``(X, y)``
        (``path_kw``: ``sizes``/``n_values``, ``time_limit_per_size``, ``X_test``,
        ``y_test`` and fit arguments)."""
        self._solve = (X, y, kind, dict(path_kw))

    # --- control ---------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether a path is being computed."""
        return self._running

    def start(self, X=None, y=None, *, kind=None, **path_kw) -> bool:
        """Compute a path in a worker thread (arguments as :meth:`configure`; without
        them the configured ones). False (and a message) if refused."""
        with self._lock:
            if self._running:
                self._show("A path is already being computed; press Stop first.", "warning")
                return False
            if X is not None:
                self.configure(X, y, kind=kind or DEFAULT_FAMILY, **path_kw)
            if self._solve is None:
                self._show("Nothing to compute: load data first.", "warning")
                return False
            X, y, kind, path_kw = self._solve
            try:
                kind = get_family(kind).name
            except InputError as exc:
                self._show(str(exc))
                return False
            self._reset(kind)
            self._stop = threading.Event()
            self._finished = threading.Event()
            self._running = True
            self.compute_button.disabled = True
            self.stop_button.disabled = False
            self.status_label.value = "computing…"
            self._thread = threading.Thread(
                target=self._work,
                args=(X, y, kind, path_kw, self._queue, self._stop, self._finished),
                name="riskexplore-path",
                daemon=True,
            )
            self._thread.start()
        self._ensure_refresh()
        return True

    def stop(self) -> None:
        """Stop the path (the current size keeps its best model; later sizes are skipped)."""
        self._stop.set()
        self.stop_button.disabled = True

    def clear(self) -> None:
        """Stop any path being computed and show an empty path (e.g. the data changed)."""
        with self._lock:
            if self._running:
                self.stop()
            self._reset(self.kind)
            self.status_label.value = ""

    def _reset(self, kind: str) -> None:
        from riskexplore.widgets.plot_view import replace_figure

        self.rows, self.models, self.selected, self.path, self.error = [], {}, None, None, None
        self._queue = queue.SimpleQueue()
        self.message.value = ""
        self.card.clear()
        if kind != self.kind:
            self.kind = kind
            replace_figure(self.figure, pareto_figure(None, kind=kind, title=self.title))
            self._bind_clicks()
        else:
            self._redraw()

    def _work(self, X, y, kind, path_kw, rows, stop, finished) -> None:
        try:
            path = run_gated(
                lambda: size_path(
                    X,
                    y,
                    family=kind,
                    callback=lambda row: rows.put(("row", row)),
                    stop=stop,
                    **path_kw,
                ),
                CoreGate.from_environment(),
                stop=stop,
            )
            if path is None:  # stopped before a core was free
                raise InputError("stopped before a processor core was free: nothing was computed")
            rows.put(("done", path))
        except BaseException as exc:  # shown on the kernel thread
            rows.put(("error", exc))
        finally:
            finished.set()

    # --- refreshing ------------------------------------------------------------------
    def _ensure_refresh(self) -> None:
        if self.auto_refresh:
            self._refresher.ensure_running()

    @property
    def _task(self):
        """The refresh task on the kernel's loop, if refreshing runs there."""
        return self._refresher.task

    def _safe_poll(self) -> bool:
        try:
            return self.poll()
        except Exception as exc:
            log.exception("path view refresh failed")
            self._show(f"Display update failed: {describe_error(exc)}")
            return self._running

    def poll(self) -> bool:
        """Drain finished rows into the figure; True while the path is being computed."""
        with self._lock:
            if not self._running:
                return False
            finished = self._finished.is_set()
            changed, final = False, None
            while True:
                try:
                    kind, payload = self._queue.get_nowait()
                except queue.Empty:
                    break
                if kind == "row":
                    self._add_row(payload)
                    changed = True
                else:
                    final = (kind, payload)
            if final is not None:
                kind, payload = final
                if kind == "done":
                    self.path = payload
                    self.rows = [dict(r) for r in payload.rows]  # final tightened intervals
                    for row, model in zip(payload.rows, payload.models, strict=True):
                        self.models[int(row["size"])] = model
                else:
                    self.error = payload
                    self._show(describe_error(payload))
                changed = True
            if changed:
                self._redraw()
            if finished and final is not None:
                self._running = False
                self.compute_button.disabled = False
                self.stop_button.disabled = True
                self.status_label.value = "failed" if self.error else f"done: {_sizes(self.rows)}"
                if self.selected is None and self.models:
                    best = [s for s, m in self.models.items() if m is not None]
                    if best:
                        self.select(max(best))
                return False
            self.status_label.value = f"computing… {_sizes(self.rows)} finished"
            return True

    def wait(self, timeout: float = 120.0, interval: float = 0.05) -> bool:
        """Poll until the path is done (blocks); True if it succeeded."""
        deadline = time.perf_counter() + timeout
        while self.poll():
            if time.perf_counter() > deadline:
                raise TimeoutError(f"path still running after {timeout} s")
            time.sleep(interval)
        return self.error is None

    def _add_row(self, row: dict[str, Any]) -> None:
        model = row.get("model")
        clean = {k: v for k, v in row.items() if k != "model"}
        size = int(clean["size"])
        self.rows = [r for r in self.rows if int(r["size"]) != size] + [clean]
        self.models[size] = model

    def _redraw(self) -> None:
        with self.figure.batch_update():
            update_pareto_figure(self.figure, self.rows, kind=self.kind, selected=self.selected)

    # --- showing ---------------------------------------------------------------------
    def show_path(self, path) -> None:
        """Show a finished :class:`~riskexplore.evaluation.paths.SizePath`."""
        from riskexplore.widgets.plot_view import replace_figure

        kind = getattr(path, "kind", self.kind)
        if kind != self.kind:
            self.kind = kind
            replace_figure(self.figure, pareto_figure(None, kind=kind, title=self.title))
            self._bind_clicks()
        self.path = path
        self.rows = [dict(r) for r in path.rows]
        self.models = {int(r["size"]): m for r, m in zip(path.rows, path.models, strict=True)}
        self._redraw()

    def select(self, size: int) -> bool:
        """Show the model of size limit ``size`` (what clicking a point does)."""
        model = self.models.get(int(size))
        if model is None:
            self._show(f"No model for size {size}.", "warning")
            return False
        self.selected = int(size)
        self.card.show(model, f"Best model with size ≤ {size}")
        self._redraw()
        return True

    @property
    def frame(self):
        """The rows so far as a DataFrame."""
        return path_frame(self.rows)

    def static_figure(self):
        """The current path as a plain ``go.Figure``."""
        return pareto_figure(self.rows, kind=self.kind, selected=self.selected, title=self.title)

    def _show(self, text: str, level: str = "error") -> None:
        self.message.value = message_html(text, level)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def _sizes(rows) -> str:
    """``"1 size"``, ``"3 sizes"``."""
    return f"{len(rows)} size{'' if len(rows) == 1 else 's'}"
