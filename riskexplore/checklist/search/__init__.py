"""Certifiably optimal checklists by an exact search over item subsets.

This is the default checklist engine (the HiGHS MIP of :mod:`riskexplore.checklist.mip`
stays for cross-checks). The modules, from the data up:

* :mod:`~riskexplore.checklist.search.data`: the arrays of a search, built from a :class:`ChecklistProblem`;
* :mod:`~riskexplore.checklist.search.cells`: rows that no completion can tell apart (the equivalent-row bound);
* :mod:`~riskexplore.checklist.search.bounds` and :mod:`~riskexplore.checklist.search.kernel`: the compiled depth-first loop and its bounds;
* :mod:`~riskexplore.checklist.search.driver`: one search, its incumbent, certificate and events;
* :mod:`~riskexplore.checklist.search.parallel`: subtrees searched by threads or on a Dask cluster;
* :mod:`~riskexplore.checklist.search.solve`: :func:`solve_checklist_exact`, one search on every core;
* :mod:`~riskexplore.checklist.search.feasibility`: feasibility checks and culprits.

The method and why its certificate is valid are described in :mod:`~riskexplore.checklist.search.driver`.
"""

from riskexplore.checklist.search.data import build_search
from riskexplore.checklist.search.driver import ExactSearch, ExactSearchSettings, OpenNode
from riskexplore.checklist.search.feasibility import check_feasible_exact
from riskexplore.checklist.search.solve import solve_checklist_exact, warm_up

__all__ = [
    "ExactSearch",
    "ExactSearchSettings",
    "OpenNode",
    "build_search",
    "check_feasible_exact",
    "solve_checklist_exact",
    "warm_up",
]
