"""The fixed-scale engine: RiskSLIM's lattice cutting plane algorithm on HiGHS LPs.

Its modules, from the LP up (all under ``riskexplore.risk_score.lcpa``):

* ``lp``: the surrogate LP (RiskSLIM-LP) with its loss cuts, on HiGHS;
* ``bounds``: initial bounds on the objective terms and their chained updates;
* ``cut_pool``: loss cuts and models shared between solves on the same data;
* ``heuristics``: sequential rounding and discrete coordinate descent (polishing);
* ``search``: :func:`solve_lcpa`, LCPA as our own branch-and-bound (why its certificate
  is valid is described there), with its collaborators ``nodes`` (a node of the tree and
  how it splits), ``incumbents`` (the heuristics that find models: the starting ones, the
  root's beam search and cutting planes, rounding LP points) and ``report`` (the events
  and the result);
* ``pseudo_costs``: which fractional column to branch on;
* ``parallel``: the same search on ``n_jobs`` threads that share the queue, the incumbent
  and the cuts;
* ``cpa``: :func:`solve_cpa`, the plain cutting plane algorithm (a baseline that stalls).

The learned-scale engine (:mod:`riskexplore.risk_score.scaled`) extends this search, and
both use the support screen (:mod:`riskexplore.risk_score.support`). Names are imported
on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.risk_score.lcpa.cpa import solve_cpa as solve_cpa
    from riskexplore.risk_score.lcpa.cut_pool import CutPool as CutPool
    from riskexplore.risk_score.lcpa.search import LCPASettings as LCPASettings
    from riskexplore.risk_score.lcpa.search import solve_lcpa as solve_lcpa

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
