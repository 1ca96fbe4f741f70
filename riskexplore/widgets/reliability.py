"""Reliability diagram widget: predicted against observed risk, train and test overlaid.

One ``PlotView`` built by :func:`~riskexplore.figures.reliability.reliability_figure`;
:meth:`ReliabilityView.show` refills its traces inside ``fig.batch_update()``.
"""

from __future__ import annotations

from riskexplore.core.registry import family_of
from riskexplore.evaluation.metrics import predicts_risk
from riskexplore.evaluation.tables import reliability_tables
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.reliability import reliability_figure, update_reliability_figure
from riskexplore.widgets.cards import message_html, show_figure

__all__ = ["ReliabilityView"]


class ReliabilityView:
    """Reliability diagram of a fitted model (risk score or checklist).

    Parameters
    ----------
    model, X, y, X_test, y_test : optional
        Shown at once when given (see :meth:`show`).

    Attributes
    ----------
    figure : riskexplore.widgets.plot_view.PlotView
    message : ipywidgets.HTML
        Readable errors (the previous diagram stays).
    tables : dict
        ``{"train": table, "test": table}`` shown (reliability tables).
    widget : ipywidgets.VBox

    Examples
    --------
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> from riskexplore.widgets import ReliabilityView
    >>> mammo = load_dataset("mammo")
    >>> test = mammo.X.index[::4]  # a quarter of the rows held out
    >>> X, y = mammo.X.drop(test), mammo.y.drop(test)
    >>> X_test, y_test = mammo.X.loc[test], mammo.y.loc[test]
    >>> model = fit_risk_score(X, y, max_size=3, time_limit=10)
    >>> view = ReliabilityView(model, X, y, X_test, y_test)
    >>> view  # doctest: +SKIP
    >>> sorted(view.tables)
    ['test', 'train']
    """

    def __init__(self, model=None, X=None, y=None, X_test=None, y_test=None, *, title=None):
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        self.title = title or "Reliability diagram"
        self.model = None
        self.tables: dict = {}
        self.figure = PlotView(reliability_figure(None, title=self.title))
        self.message = w.HTML()
        self.widget = w.VBox([self.message, self.figure])
        if model is not None:
            self.show(model, X, y, X_test, y_test)

    def show(self, model, X, y, X_test=None, y_test=None) -> bool:
        """Show ``model`` on ``(X, y)`` and ``(X_test, y_test)``; False (and a message)
        if it cannot be evaluated."""
        try:
            tables = reliability_tables(model, X, y, X_test, y_test)
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return False
        self.model, self.tables = model, tables
        self.message.value = ""
        kind = (
            "" if predicts_risk(model) else f" ({family_of(model).label.lower()}: 0/1 prediction)"
        )
        with self.figure.batch_update():
            update_reliability_figure(self.figure, tables)
            self.figure.layout.title.text = self.title + kind
        show_figure(self)
        return True

    def clear(self) -> None:
        """Show an empty diagram (e.g. the data changed)."""
        self.model, self.tables = None, {}
        with self.figure.batch_update():
            update_reliability_figure(self.figure, {})
        show_figure(self)

    def static_figure(self):
        """The diagram as a plain ``go.Figure``."""
        return reliability_figure(self.tables, title=self.figure.layout.title.text)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
