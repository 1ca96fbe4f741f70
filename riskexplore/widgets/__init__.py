"""Notebook widgets: thin views over plain-Python state, for Jupyter and Voila.

* :class:`Explorer` (over its plain-Python :class:`ExplorerState`) -- data, settings,
  constraints, Solve and every result view on one page.
* :class:`AlternativesView` (over its plain-Python :class:`AlternativesState`) -- the
  near-optimal set as cards to click through, hand edits with their certified distance
  to the best model, and the price of each feature (the Explorer's "Alternatives" tab).
* :class:`AuditView` (over its plain-Python :class:`AuditState`) -- the model group by
  group: findings in plain words with the rule that limits each, the table, a forest
  plot and a reliability diagram per group (the Explorer's "By group" tab).
* :class:`SolveMonitor` -- a solve's live bounds, gap and work, Solve and Stop buttons, the
  incumbent's card; :class:`SolveRunner` is its Jupyter-free core (worker thread and
  event queue).
* :class:`ModelCardView` -- a fitted model as printed, with its certificate.
* :class:`ConstraintBuilder`, :class:`ChecklistConstraintBuilder` -- add and remove
  readable constraints by picking names from lists.
* :class:`ReliabilityView`, :class:`MetricsPanel`, :class:`ParetoView`,
  :class:`CompareView` -- the result views; each shows a figure of
  :mod:`riskexplore.figures` in a :class:`PlotView` (our plotly widget: any number per
  page).

Names are imported on first use: ``import riskexplore.widgets`` loads neither ipywidgets
nor plotly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.exploration.alternatives import (
        AlternativesState as AlternativesState,
    )
    from riskexplore.exploration.audit import AuditState as AuditState
    from riskexplore.exploration.explorer import ExplorerState as ExplorerState
    from riskexplore.exploration.runner import (
        SolveRunner as SolveRunner,
    )
    from riskexplore.exploration.runner import (
        describe_error as describe_error,
    )
    from riskexplore.exploration.runner import (
        solve_function as solve_function,
    )
    from riskexplore.widgets.alternatives.view import AlternativesView as AlternativesView
    from riskexplore.widgets.audit.view import AuditView as AuditView
    from riskexplore.widgets.builders.checklist import (
        ChecklistConstraintBuilder as ChecklistConstraintBuilder,
    )
    from riskexplore.widgets.builders.risk_score import (
        ConstraintBuilder as ConstraintBuilder,
    )
    from riskexplore.widgets.builders.risk_score import (
        check_constraints as check_constraints,
    )
    from riskexplore.widgets.cards import (
        ModelCardView as ModelCardView,
    )
    from riskexplore.widgets.cards import (
        certificate_html as certificate_html,
    )
    from riskexplore.widgets.cards import (
        model_html as model_html,
    )
    from riskexplore.widgets.compare_view import CompareView as CompareView
    from riskexplore.widgets.explorer.widget import Explorer as Explorer
    from riskexplore.widgets.metrics_panel import MetricsPanel as MetricsPanel
    from riskexplore.widgets.monitor import SolveMonitor as SolveMonitor
    from riskexplore.widgets.pareto import ParetoView as ParetoView
    from riskexplore.widgets.plot_view import PlotView as PlotView
    from riskexplore.widgets.reliability import ReliabilityView as ReliabilityView

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
