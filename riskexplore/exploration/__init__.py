"""Exploration: the plain-Python state behind the widgets, usable without Jupyter.

* :class:`ExplorerState` -- data, settings, constraints, the solve and its results.
* :class:`AlternativesState` -- the near-optimal set, its selection, hand edits and
  feature prices.
* :class:`AuditState` -- the By group view's settings, audit and suggested rules.
* :class:`SolveRunner` -- a solve on a worker thread, its events on a queue;
  :class:`~riskexplore.exploration.jobs.Jobs` -- named worker-thread jobs.
* :class:`~riskexplore.exploration.study.Study` -- study files (:mod:`.study`).

Nothing here imports ipywidgets or plotly (an import-linter contract): a script, a test or
another front end drives the same state the widgets show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.exploration.alternatives import AlternativesState as AlternativesState
    from riskexplore.exploration.audit import AuditState as AuditState
    from riskexplore.exploration.explorer import ExplorerState as ExplorerState
    from riskexplore.exploration.runner import SolveRunner as SolveRunner
    from riskexplore.exploration.runner import describe_error as describe_error
    from riskexplore.exploration.runner import solve_function as solve_function
    from riskexplore.exploration.study import Study as Study

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
