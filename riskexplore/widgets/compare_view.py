"""Compare view: constrained against unconstrained side by side — both cards, both
reliability diagrams, the metric deltas and the certified price of the constraints.

One ``PlotView`` (:func:`~riskexplore.figures.compare.compare_figure`) plus the
two printable cards (HTML, with certificates), a plain-text price line and, for risk
scores, a line with the certified price of a fixed scale (:meth:`CompareView.show_scale_price`).
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from typing import Any

from riskexplore.core.core_gate import CoreGate, run_gated
from riskexplore.evaluation.compare import comparison_from_models
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.compare import compare_figure, counts_mistakes, price_text
from riskexplore.widgets.cards import message_html, model_html, show_figure

__all__ = ["CompareView"]


class CompareView:
    """Two models side by side.

    Use :meth:`show` with a :class:`~riskexplore.evaluation.compare.Comparison` (e.g.
    from ``compare_models``) or :meth:`show_models` with two fitted models.

    Parameters
    ----------
    comparison : Comparison, optional
        Shown at once when given (see :meth:`show`).
    X, y, X_test, y_test : optional
        The data its figure is drawn on.

    Attributes
    ----------
    comparison : Comparison or None
    price_label : ipywidgets.HTML
        The certified price of the constraints in words.
    scale_label : ipywidgets.HTML
        The certified price of a fixed scale (risk scores), in words.
    cards : ipywidgets.HTML
        Both printable models with their certificates.
    figure : riskexplore.widgets.plot_view.PlotView
    message : ipywidgets.HTML
    widget : ipywidgets.VBox

    Examples
    --------
    >>> from riskexplore import Exclude, fit_risk_score, load_dataset
    >>> from riskexplore.widgets import CompareView
    >>> mammo = load_dataset("mammo")
    >>> rule = Exclude("IrregularShape")
    >>> free = fit_risk_score(mammo.X, mammo.y, max_size=3, time_limit=10)
    >>> ruled = fit_risk_score(mammo.X, mammo.y, max_size=3, time_limit=10, constraints=[rule])
    >>> view = CompareView()
    >>> view.show_models(free, ruled, mammo.X, mammo.y, constraints=[rule])
    True
    >>> view  # doctest: +SKIP
    >>> low, high = view.comparison.price_of_constraints  # certified: V*(rules) - V*
    >>> 0 <= high
    True
    """

    def __init__(self, comparison=None, X=None, y=None, X_test=None, y_test=None):
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        self.comparison = None
        self._data: tuple = (None, None, None, None)
        self.figure = PlotView(_empty_figure())
        self.price_label = w.HTML()
        self.scale_label = w.HTML()
        self._scale_job: tuple[threading.Thread, threading.Event, Any] | None = None
        self._scale_lock = threading.Lock()
        self.cards = w.HTML()
        self.message = w.HTML()
        self.widget = w.VBox(
            [self.message, self.price_label, self.scale_label, self.cards, self.figure]
        )
        if comparison is not None:
            self.show(comparison, X, y, X_test, y_test)

    @property
    def price(self):
        """The certified price interval shown, or None."""
        return None if self.comparison is None else self.comparison.price_of_constraints

    def show_models(
        self,
        unconstrained,
        constrained,
        X,
        y,
        X_test=None,
        y_test=None,
        *,
        constraints=(),
        nested: bool = True,
    ) -> bool:
        """Compare two fitted models (``nested``: same problem plus ``constraints``)."""
        try:
            comparison = comparison_from_models(
                unconstrained,
                constrained,
                X,
                y,
                X_test=X_test,
                y_test=y_test,
                constraints=constraints,
                nested=nested,
            )
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return False
        return self.show(comparison, X, y, X_test, y_test)

    def show(self, comparison, X=None, y=None, X_test=None, y_test=None) -> bool:
        """Show a Comparison (reliability diagrams need ``X, y``)."""
        from riskexplore.widgets.plot_view import replace_figure

        try:
            fig = compare_figure(comparison, X, y, X_test, y_test)
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return False
        self.comparison = comparison
        self._data = (X, y, X_test, y_test)
        self.message.value = ""
        price = price_text(comparison.price_of_constraints, in_mistakes=counts_mistakes(comparison))
        self.price_label.value = (
            '<div class="rx-price" style="font-family:system-ui,sans-serif;font-size:15px;'
            f'margin:6px 0"><b>{html.escape(price)}</b>'
            + "".join(f"<div>{html.escape(n)}</div>" for n in comparison.notes)
            + "</div>"
        )
        parts = []
        for name, model in zip(comparison.names, comparison.models, strict=True):
            body = (
                model_html(model, name)
                if model is not None
                else f"<div><b>{html.escape(name)}</b>: no model</div>"
            )
            # a wide card (a long score table) scrolls within its half, never overlapping
            parts.append(f'<div style="flex:1;min-width:320px;overflow-x:auto">{body}</div>')
        self.cards.value = '<div style="display:flex;gap:16px;flex-wrap:wrap">' + "".join(parts)
        self.cards.value += "</div>"
        replace_figure(self.figure, fig)
        show_figure(self)
        return True

    def show_scale_price(self, text: str, pending: bool = False) -> None:
        """Show the price of a fixed scale in words (``""`` hides the line).

        Parameters
        ----------
        text : str
            The sentence (e.g. :meth:`~riskexplore.risk_score.scale_price.ScalePrice.describe`).
        pending : bool
            Whether it announces a computation still running (shown in grey).
        """
        if not text:
            self.scale_label.value = ""
            return
        color = "#777" if pending else "#222"
        self.scale_label.value = (
            f'<div class="rx-scale-price" style="font-family:system-ui,sans-serif;'
            f'font-size:14px;margin:2px 0 8px 0;color:{color}">{html.escape(text)}</div>'
        )

    def run_scale_price(
        self, job: Callable[..., Any], on_done: Callable[[Any], None], key: Any = None
    ) -> None:
        """Work out the price of a fixed scale in a background thread.

        The line says so while ``job(stop=event)`` runs; then ``on_done(result)`` is
        called in that thread (an error is shown on the line instead). A job with the
        same ``key`` already running is left alone; another one is cancelled first.

        Parameters
        ----------
        job : callable
            ``job(stop=threading.Event) -> ScalePrice``.
        on_done : callable
            Receives the result (unless the job was cancelled).
        key : object, optional
            What the job prices (the same key: the same job).
        """
        with self._scale_lock:
            running = self._scale_job
            if running is not None and running[0].is_alive() and running[2] is key:
                return
        self.cancel_scale_price()
        stop = threading.Event()

        def work() -> None:
            try:
                result = run_gated(lambda: job(stop=stop), CoreGate.from_environment(), stop=stop)
                error = None
            except Exception as exc:  # shown on the line, never raised in the thread
                result, error = None, exc
            if stop.is_set():  # cancelled: a new search or new data took over
                return
            if error is not None:
                self.show_scale_price(
                    f"The price of a fixed scale could not be computed: {describe_error(error)}"
                )
            else:
                on_done(result)

        thread = threading.Thread(target=work, daemon=True, name="riskexplore-scale-price")
        with self._scale_lock:
            self._scale_job = (thread, stop, key)
        self.show_scale_price(
            "Working out what a fixed scale costs (one more search, in the background)…",
            pending=True,
        )
        thread.start()

    def cancel_scale_price(self) -> None:
        """Stop the price of a fixed scale being worked out (it is discarded)."""
        with self._scale_lock:
            job, self._scale_job = self._scale_job, None
        if job is not None and job[0].is_alive():
            job[1].set()
            self.show_scale_price(
                "The price of a fixed scale is worked out again when the search ends.",
                pending=True,
            )

    def wait_scale_price(self, timeout: float | None = None) -> None:
        """Block until the price of a fixed scale is worked out (for scripts and tests).

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most.
        """
        job = self._scale_job
        if job is not None:
            job[0].join(timeout)

    def clear(self) -> None:
        """Show no comparison (e.g. the data changed)."""
        from riskexplore.widgets.plot_view import replace_figure

        self.comparison, self._data = None, (None, None, None, None)
        self.message.value = self.price_label.value = self.cards.value = ""
        self.scale_label.value = ""
        replace_figure(self.figure, _empty_figure())
        show_figure(self)

    def static_figure(self):
        """The comparison as a plain ``go.Figure`` (raises ValueError before a comparison)."""
        if self.comparison is None:
            raise ValueError("nothing compared yet")
        return compare_figure(self.comparison, *self._data)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def _empty_figure():
    """The figure shown before anything is compared."""
    import plotly.graph_objects as go

    title = "Compare: solve without and with constraints first"
    return go.Figure(layout={"height": 120, "title": title})
