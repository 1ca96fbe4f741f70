"""AUC/CAL panel: train/test AUC, CAL, loss, size and gap of one or more models, and
their ROC curves (one ``PlotView``; see
:func:`~riskexplore.figures.metrics.metrics_figure`)."""

from __future__ import annotations

from riskexplore.evaluation.tables import as_models, metrics_table
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.metrics import metrics_figure
from riskexplore.widgets.cards import message_html, show_figure

__all__ = ["MetricsPanel"]


class MetricsPanel:
    """Metrics table and ROC curves of models.

    Parameters
    ----------
    models : model, list or ``{name: model}``, optional
    X, y, X_test, y_test : data the models are evaluated on.

    Attributes
    ----------
    figure : riskexplore.widgets.plot_view.PlotView
    table : pandas.DataFrame or None
        The metrics shown (:func:`~riskexplore.evaluation.tables.metrics_table`).
    message : ipywidgets.HTML
    widget : ipywidgets.VBox

    Examples
    --------
    >>> from riskexplore import fit_checklist, fit_risk_score, load_dataset
    >>> from riskexplore.widgets import MetricsPanel
    >>> mammo = load_dataset("mammo")
    >>> score = fit_risk_score(mammo.X, mammo.y, max_size=3, time_limit=10)
    >>> panel = MetricsPanel({"score": score}, mammo.X, mammo.y)
    >>> panel  # doctest: +SKIP
    >>> list(panel.table.index)
    ['score']
    """

    def __init__(self, models=None, X=None, y=None, X_test=None, y_test=None, *, title=None):
        import ipywidgets as w

        from riskexplore.widgets.plot_view import PlotView

        self.title = title or "Performance"
        self.models: dict = {}
        self.table = None
        self._data: tuple = (None, None, None, None)
        self.figure = PlotView(metrics_figure(None, title=self.title))
        self.message = w.HTML()
        self.widget = w.VBox([self.message, self.figure])
        if models is not None:
            self.show(models, X, y, X_test, y_test)

    def show(self, models, X, y, X_test=None, y_test=None) -> bool:
        """Show the models' metrics and ROC curves; False (and a message) on failure."""
        from riskexplore.widgets.plot_view import replace_figure

        try:
            models = as_models(models)
            table = metrics_table(models, X, y, X_test, y_test)
            fig = metrics_figure(models, X, y, X_test, y_test, title=self.title)
        except Exception as exc:
            self.message.value = message_html(describe_error(exc))
            return False
        self.models, self.table = models, table
        self._data = (X, y, X_test, y_test)
        self.message.value = ""
        replace_figure(self.figure, fig)
        show_figure(self)
        return True

    def clear(self) -> None:
        """Show no model (e.g. the data changed)."""
        from riskexplore.widgets.plot_view import replace_figure

        self.models, self.table, self._data = {}, None, (None, None, None, None)
        self.message.value = ""
        replace_figure(self.figure, metrics_figure(None, title=self.title))
        show_figure(self)

    def static_figure(self):
        """The current metrics as a plain ``go.Figure``."""
        return metrics_figure(self.models, *self._data, title=self.title)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
