"""The page of the "Alternatives" view: its widgets laid out in boxes.

:func:`alternatives_page` puts the view's controls on top, then the set's cards beside the
model shown (with its metrics, reliability diagram and the features' frequency below,
folded until a set is found), then the price of each feature. The boxes carry the CSS
classes ``rx-alt-controls``, ``rx-alt-results`` and ``rx-alt-prices``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from riskexplore.widgets.alternatives.html import STYLE

__all__ = ["AlternativesPage", "alternatives_page"]


class AlternativesPage(NamedTuple):
    """The boxes of the view's page.

    Attributes
    ----------
    widget : ipywidgets.VBox
        The whole page.
    controls : ipywidgets.HBox
        Tolerance, most models, Find and Stop.
    results : ipywidgets.VBox
        The cards, the model shown and its views.
    prices_box : ipywidgets.VBox
        The prices' buttons, table and figure.
    prices_plot : ipywidgets.VBox
        The prices' figure (folded until prices are computed).
    """

    widget: Any
    controls: Any
    results: Any
    prices_box: Any
    prices_plot: Any


def alternatives_page(view: Any) -> AlternativesPage:
    """Lay out the widgets of ``view``.

    Parameters
    ----------
    view : AlternativesView
        The view, its widgets made.

    Returns
    -------
    AlternativesPage
        The boxes.
    """
    import ipywidgets as w

    controls = w.HBox(
        [view.tolerance, view.max_models, view.find_button, view.stop_button],
        layout=w.Layout(flex_flow="row wrap", align_items="center"),
    ).add_class("rx-alt-controls")
    chooser = w.VBox(
        [view.summary, view.cards],
        layout=w.Layout(flex="1 1 320px", min_width="280px", margin="0 16px 0 0"),
    )
    shown = w.VBox(
        [view.card, view.distance, view.edit_title, view.edit_box, view.reset_button],
        layout=w.Layout(flex="2 1 480px", min_width="0"),
    )
    prices_controls = w.HBox(
        [view.prices_button, view.prices_stop, view.prices_status],
        layout=w.Layout(align_items="center"),
    )
    prices_plot = w.VBox([view.prices_figure], layout=w.Layout(width="100%"))
    prices_box = w.VBox([prices_controls, view.prices_table, prices_plot])
    prices_box.add_class("rx-alt-prices")
    results = w.VBox(
        [
            w.HBox([chooser, shown], layout=w.Layout(flex_flow="row wrap", width="100%")),
            view.metrics.widget,
            view.reliability.widget,
            view.frequency,
        ],
        layout=w.Layout(width="100%"),
    ).add_class("rx-alt-results")
    page = [w.HTML(STYLE), controls, view.status_label, view.message, results, prices_box]
    return AlternativesPage(w.VBox(page), controls, results, prices_box, prices_plot)
