"""Compare view: constrained against unconstrained side by side — both cards, both
reliability diagrams, the metric deltas and the certified price of the constraints.

One ``PlotView`` (:func:`~riskexplore.figures.compare.compare_figure`) plus the
two printable cards (HTML, with certificates) and a plain-text price line.
"""

from __future__ import annotations

import html

from riskexplore.evaluation.compare import comparison_from_models
from riskexplore.figures.compare import compare_figure, price_text
from riskexplore.widgets.cards import message_html, model_html
from riskexplore.widgets.runner import describe_error

__all__ = ["CompareView"]


class CompareView:
    """Two models side by side.

    Use :meth:`show` with a :class:`~riskexplore.evaluation.compare.Comparison` (e.g.
    from ``compare_models``) or :meth:`show_models` with two fitted models.

    Attributes
    ----------
    comparison : Comparison or None
    price_label : ipywidgets.HTML
        The certified price of the constraints in words.
    cards : ipywidgets.HTML
        Both printable models with their certificates.
    figure : riskexplore.widgets.plot_view.PlotView
    message : ipywidgets.HTML
    widget : ipywidgets.VBox
    """

    def __init__(self, comparison=None, X=None, y=None, X_test=None, y_test=None):
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        self.comparison = None
        self._data: tuple = (None, None, None, None)
        self.figure = PlotView(_empty_figure())
        self.price_label = w.HTML()
        self.cards = w.HTML()
        self.message = w.HTML()
        self.widget = w.VBox([self.message, self.price_label, self.cards, self.figure])
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
        self.price_label.value = (
            '<div class="rx-price" style="font-family:system-ui,sans-serif;font-size:15px;'
            f'margin:6px 0"><b>{html.escape(price_text(comparison.price_of_constraints))}</b>'
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
            parts.append(f'<div style="flex:1;min-width:320px">{body}</div>')
        self.cards.value = '<div style="display:flex;gap:16px;flex-wrap:wrap">' + "".join(parts)
        self.cards.value += "</div>"
        replace_figure(self.figure, fig)
        return True

    def clear(self) -> None:
        """Show no comparison (e.g. the data changed)."""
        from riskexplore.widgets.plot_view import replace_figure

        self.comparison, self._data = None, (None, None, None, None)
        self.message.value = self.price_label.value = self.cards.value = ""
        replace_figure(self.figure, _empty_figure())

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
