"""The Explorer's results in survival mode: Kaplan-Meier curves by score group in place of
the reliability diagram, and a plain note on the panels that need a yes/no outcome.

The curves are those of :func:`~riskexplore.evaluation.survival.validation.validate_survival`
on the rows kept aside (the training rows when none are), drawn by
:func:`~riskexplore.figures.survival.km_figure`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from riskexplore.evaluation.survival.validation import validate_survival
from riskexplore.exploration.runner import describe_error
from riskexplore.figures.survival import km_figure
from riskexplore.widgets.cards import YES_NO_ONLY, message_html
from riskexplore.widgets.plot_view import PlotView

__all__ = ["YES_NO_ONLY", "SurvivalResultView"]

#: Bootstrap resamples of the C-index intervals (the view draws only the curves).
_N_BOOT = 20
#: Fewest rows of a score group's curve: held-out rows are few, and one curve shows nothing.
MIN_GROUP_ROWS = 10


class SurvivalResultView:
    """Kaplan-Meier curves by score group of a survival score.

    Attributes
    ----------
    message : ipywidgets.HTML
        What the curves are drawn on, or why there are none.
    figure : PlotView
        The curves.
    widget : ipywidgets.VBox
        Both (hidden outside survival mode).
    """

    def __init__(self) -> None:
        import ipywidgets as w

        self.message = w.HTML()
        self.figure = PlotView(None)
        self.widget = w.VBox([self.message, self.figure])
        self.widget.add_class("rx-survival-results")
        self.widget.layout.display = "none"
        self._figure = None

    def show(self, model, state: Any) -> bool:
        """Draw the curves of ``model`` on ``state``'s held-out rows (or training rows).

        Parameters
        ----------
        model : SurvivalScore
            A fitted survival score.
        state : ExplorerState
            The Explorer's state (survival mode).

        Returns
        -------
        bool
            Whether the curves were drawn.
        """
        self.widget.layout.display = None
        test = state.X_test is not None and len(state.X_test) > 0
        X, y = (state.X_test, state.training_outcome(test=True)) if test else (
            state.X, state.training_outcome())  # fmt: skip
        where = "patients kept aside" if test else "patients the score was built from"
        train = state.training_outcome()
        try:
            horizon = float(model.horizons[0])
            validation = validate_survival(
                model.total_points(X), model.predict_risk(X, horizon), y["time"], y["event"],
                horizon, train_time=train["time"], train_event=train["event"], n_boot=_N_BOOT,
                min_group_rows=MIN_GROUP_ROWS,
            )  # fmt: skip
            self._figure = km_figure(
                replace(validation, time_unit=model.time_unit),
                title=f"Survival by score group on the {len(y)} {where}",
                time_label=f"time ({state.settings.get('time_column')})",
                height=440,
            )
        except Exception as exc:
            self.clear()
            self.message.value = message_html(describe_error(exc))
            return False
        self.message.value = ""
        self.figure.update(self._figure)
        return True

    def clear(self) -> None:
        """Remove the curves."""
        self._figure = None
        self.message.value = ""
        self.figure.update(None)

    def hide(self) -> None:
        """Hide the view (outside survival mode)."""
        self.clear()
        self.widget.layout.display = "none"

    def static_figure(self):
        """The ``go.Figure`` shown, or None."""
        return self._figure
