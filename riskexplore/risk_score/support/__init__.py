"""Certified bounds per support: every set of features a model may use, bounded at once.

Its modules (all under ``riskexplore.risk_score.support``):

* ``kernel``: compiled (numba) logistic regressions on a few features with a certified
  lower bound, valid whether or not Newton converged;
* ``merge``: a support's rows merged by their values on it (one row per pattern);
* ``binned``: where they do not merge (real-valued features), rows grouped by bins at
  their centroids, a weaker bound by Jensen's inequality for one pass over the rows;
* ``combinations``: a region's supports in lexicographic order, in batches of arrays;
* ``screen``: :func:`screen_supports`, the bound of every support of a region, and
  :func:`beam_supports`, a forward selection with the same kernel;
* ``fixing``: root feature fixing, the screen's floor on every model that uses a feature;
* ``lattice``: :func:`search_support`, the integer models of one support (the multiplier 1,
  no row on the points) by a depth-first search with the kernel's bound, without LPs.

Both engines use them: the learned-scale search screens its nodes
(:mod:`riskexplore.risk_score.scaled`) and searches its one-support nodes by the lattice
search at ``m = 1``, LCPA fixes features at the root
(:mod:`riskexplore.risk_score.lcpa`). Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.risk_score.support.fixing import FeatureFixing as FeatureFixing
    from riskexplore.risk_score.support.fixing import root_feature_floors as root_feature_floors
    from riskexplore.risk_score.support.lattice import search_support as search_support
    from riskexplore.risk_score.support.screen import ScreenResult as ScreenResult
    from riskexplore.risk_score.support.screen import SupportData as SupportData
    from riskexplore.risk_score.support.screen import beam_supports as beam_supports
    from riskexplore.risk_score.support.screen import screen_supports as screen_supports

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
