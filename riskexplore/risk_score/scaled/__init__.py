"""The learned-scale engine: risk scores whose score-to-risk multiplier is learned.

Its modules (all under ``riskexplore.risk_score.scaled``):

* ``model_class``: :class:`ScaledClass`, the class ``risk = sigma((lambda_0 + x.lambda) / m)``
  (feasibility, objective, the best multiplier of given points) and the problem at a
  fixed ``m``;
* ``lp``: the surrogate LP in ``(w, t)`` with ``t = 1/m`` and ``w = t lambda``;
* ``heuristics``: polishing that alternates points and multiplier, and rounding along rays;
* ``search``: :func:`solve_scaled_lcpa`, LCPA in ``(w, t)`` (the branch-and-bound of
  :mod:`riskexplore.risk_score.lcpa` with the support screen of
  :mod:`riskexplore.risk_score.support` at its nodes);
* ``incumbents``: where its models come from (a warm start with its multiplier, the
  beam search and screens' best supports rounded along rays, LP points rounded at
  their ``t``).

With ``m = 1`` the same search is also the fixed scale's engine when the screen can take
the root (:func:`riskexplore.risk_score.fit.fixed_scale_engine`). Names are imported on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.risk_score.scaled.model_class import ScaledClass as ScaledClass
    from riskexplore.risk_score.scaled.search import ScaledLCPASettings as ScaledLCPASettings
    from riskexplore.risk_score.scaled.search import solve_scaled_lcpa as solve_scaled_lcpa

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
