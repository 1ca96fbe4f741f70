"""Notebook widgets: thin views over the plain-Python core.

* :class:`SolveMonitor` — live bounds/gap/work plot of a solve, Solve and Stop buttons,
  the incumbent's card; risk scores and checklists alike.
* :class:`ModelCardView` — a fitted model as printed, with its certificate.
* :class:`ConstraintBuilder` — add and remove readable constraints by picking feature
  names from lists; shows the active set in plain words.
* :class:`SolveRunner`, :class:`ProgressSeries` — the Jupyter-free core (worker thread,
  event queue, numpy series).
* :func:`bounds_figure`, :func:`card_figure`, :func:`save_figure` — static plotly figures;
  :class:`PlotView` shows one live in the notebook (any number per page).
* :class:`Explorer` (with its plain-Python :class:`ExplorerState`) — data, settings,
  constraints, Solve and every result view on one page; the views also work alone:
  :class:`ReliabilityView`, :class:`MetricsPanel`, :class:`ParetoView`,
  :class:`CompareView`, :class:`ChecklistConstraintBuilder`; their static figures are
  :func:`reliability_figure`, :func:`metrics_figure`, :func:`pareto_figure`,
  :func:`compare_figure`.

Names are imported on first use: ``import riskexplore.widgets`` loads neither ipywidgets
nor plotly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "SolveRunner": "riskexplore.widgets.runner",
    "ProgressSeries": "riskexplore.widgets.runner",
    "solve_function": "riskexplore.widgets.runner",
    "describe_error": "riskexplore.widgets.runner",
    "bounds_figure": "riskexplore.widgets.figures",
    "update_bounds_figure": "riskexplore.widgets.figures",
    "card_figure": "riskexplore.widgets.figures",
    "save_figure": "riskexplore.widgets.figures",
    "image_export_available": "riskexplore.widgets.figures",
    "SolveMonitor": "riskexplore.widgets.monitor",
    "PlotView": "riskexplore.widgets.plot_view",
    "ModelCardView": "riskexplore.widgets.cards",
    "model_html": "riskexplore.widgets.cards",
    "certificate_html": "riskexplore.widgets.cards",
    "ConstraintBuilder": "riskexplore.widgets.constraint_builder",
    "check_constraints": "riskexplore.widgets.constraint_builder",
    "reliability_figure": "riskexplore.widgets.views_figures",
    "metrics_figure": "riskexplore.widgets.views_figures",
    "pareto_figure": "riskexplore.widgets.views_figures",
    "compare_figure": "riskexplore.widgets.views_figures",
    "comparison_from_models": "riskexplore.widgets.views_figures",
    "ReliabilityView": "riskexplore.widgets.reliability",
    "MetricsPanel": "riskexplore.widgets.metrics_panel",
    "ParetoView": "riskexplore.widgets.pareto",
    "CompareView": "riskexplore.widgets.compare_view",
    "ChecklistConstraintBuilder": "riskexplore.widgets.checklist_builder",
    "Explorer": "riskexplore.widgets.explorer",
    "ExplorerState": "riskexplore.widgets.explorer",
}

__all__ = [
    "ChecklistConstraintBuilder",
    "CompareView",
    "ConstraintBuilder",
    "Explorer",
    "ExplorerState",
    "MetricsPanel",
    "ParetoView",
    "ReliabilityView",
    "compare_figure",
    "comparison_from_models",
    "metrics_figure",
    "pareto_figure",
    "reliability_figure",
    "ModelCardView",
    "PlotView",
    "ProgressSeries",
    "SolveMonitor",
    "SolveRunner",
    "bounds_figure",
    "card_figure",
    "certificate_html",
    "check_constraints",
    "describe_error",
    "image_export_available",
    "model_html",
    "save_figure",
    "solve_function",
    "update_bounds_figure",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riskexplore.widgets' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # pragma: no cover
    from riskexplore.widgets.cards import ModelCardView, certificate_html, model_html
    from riskexplore.widgets.checklist_builder import ChecklistConstraintBuilder
    from riskexplore.widgets.compare_view import CompareView
    from riskexplore.widgets.constraint_builder import ConstraintBuilder, check_constraints
    from riskexplore.widgets.explorer import Explorer, ExplorerState
    from riskexplore.widgets.figures import (
        bounds_figure,
        card_figure,
        image_export_available,
        save_figure,
        update_bounds_figure,
    )
    from riskexplore.widgets.metrics_panel import MetricsPanel
    from riskexplore.widgets.monitor import SolveMonitor
    from riskexplore.widgets.pareto import ParetoView
    from riskexplore.widgets.plot_view import PlotView
    from riskexplore.widgets.reliability import ReliabilityView
    from riskexplore.widgets.runner import (
        ProgressSeries,
        SolveRunner,
        describe_error,
        solve_function,
    )
    from riskexplore.widgets.views_figures import (
        compare_figure,
        comparison_from_models,
        metrics_figure,
        pareto_figure,
        reliability_figure,
    )
