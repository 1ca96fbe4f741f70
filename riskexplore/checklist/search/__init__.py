"""Certifiably optimal checklists by an exact search over item subsets.

This is the default checklist engine (the HiGHS MIP of :mod:`riskexplore.checklist.mip`
stays for cross-checks). Its modules, from the data up (all under
``riskexplore.checklist.search``):

* ``data``: the arrays of a search, built from a
  :class:`~riskexplore.checklist.problem.ChecklistProblem`;
* ``cells``: rows that no completion can tell apart (the equivalent-row bound);
* ``bounds`` and ``kernel``: the compiled depth-first loop and its bounds;
* ``arrays``: the working arrays of one search's compiled loop (stack, frontier,
  deferred nodes, the incumbent it prunes against) and the nodes still open;
* ``driver``: one search, its incumbent, certificate and events (the method, and why
  its certificate is valid, are described there); ``stats``: what it reports;
* ``refine``: best-first refinement of the frontier;
* ``parallel``: subtrees searched by threads or on a Dask cluster;
* ``solve``: :func:`solve_checklist_exact`, one search on every core;
* ``feasibility``: feasibility checks and culprits.
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
