"""The Explorer's own page: its steps laid out in boxes and its results' tabs.

Built on first use (:attr:`Explorer.widget`, :attr:`Explorer.results_tabs`): the
dashboards lay the Explorer's views out themselves and never build these.
"""

from __future__ import annotations

from typing import Any

__all__ = ["explorer_page", "results_tabs"]


def results_tabs(explorer: Any, extra_tabs=()):
    """The results' tabs: reliability, AUC / CAL, size path, compare and the added tabs.

    Parameters
    ----------
    explorer : Explorer
        The Explorer.
    extra_tabs : sequence of (str, ipywidgets.Widget)
        Tabs added to the Explorer before its tabs are built (title, content).

    Returns
    -------
    ipywidgets.Tab
        The tabs.
    """
    import ipywidgets as w

    tabs = w.Tab(
        children=[
            w.VBox([explorer.reliability_run, explorer.reliability.widget]),
            explorer.metrics.widget,
            explorer.pareto.widget,
            explorer.compare.widget,
            *(widget for _title, widget in extra_tabs),
        ]
    )
    titles = ("Reliability", "AUC / CAL", "Size path", "Compare")
    for i, title in enumerate(titles + tuple(t for t, _w in extra_tabs)):
        tabs.set_title(i, title)
    return tabs


def explorer_page(explorer: Any):
    """The whole page: data, settings, constraints, the two searches and the results.

    Parameters
    ----------
    explorer : Explorer
        The Explorer.

    Returns
    -------
    ipywidgets.VBox
        The page.
    """
    import ipywidgets as w

    controls = explorer.settings_controls
    data_box = w.VBox(
        [
            w.HTML("<h4 style='margin:4px 0'>1 · Data</h4>"),
            w.HBox([explorer.dataset_picker, explorer.upload]),
            explorer.outcome_picker,
            explorer.data_info,
        ]
    )
    settings_box = w.VBox(
        [
            w.HTML("<h4 style='margin:4px 0'>2 · Model and settings</h4>"),
            explorer.family_picker,
            *controls.family_boxes.values(),  # (each shown while chosen)
            explorer.time_limit,
            explorer.test_fraction,
        ]
    )
    columns_box = w.VBox(
        [
            w.HTML("<h4 style='margin:4px 0'>Columns: kinds and cut points</h4>"),
            explorer.binarization.widget,
        ]
    )
    constraints_box = w.VBox(
        [w.HTML("<h4 style='margin:4px 0'>3 · Constraints</h4>"), explorer.constraints_box]
    )
    solve_box = w.VBox(
        [
            w.HTML("<h4 style='margin:4px 0'>4 · Solve</h4>"),
            w.HBox([explorer.solve_free, explorer.solve_bound]),
            w.HBox(
                [
                    w.Box(
                        [explorer.monitors["unconstrained"].widget], layout=w.Layout(width="50%")
                    ),
                    w.Box([explorer.monitors["constrained"].widget], layout=w.Layout(width="50%")),
                ]
            ),
        ]
    )
    return w.VBox(
        [
            w.HTML("<h3 style='margin:4px 0'>riskexplore · Explorer</h3>"),
            explorer.message,
            w.HBox([data_box, settings_box], layout=w.Layout(flex_flow="row wrap")),
            columns_box,
            constraints_box,
            solve_box,
            w.HTML("<h4 style='margin:4px 0'>5 · Results</h4>"),
            explorer.results_tabs,
        ]
    )
