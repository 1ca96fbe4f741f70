"""Survival scores (issue 36): the Cox loss, its bounds, problem, model, fit and family.

* :mod:`~riskexplore.risk_score.survival.risk_sets` -- rows sorted by time with their tie
  groups, the risk-set sums;
* :mod:`~riskexplore.risk_score.survival.cox` -- :class:`CoxLoss`, the mean Breslow negative
  partial log-likelihood of integer points, in the shape of the engine's datafit;
* :mod:`~riskexplore.risk_score.survival.bounds` -- :func:`cox_loss_bounds`, valid bounds on
  the loss over a box of points;
* :mod:`~riskexplore.risk_score.survival.baseline` -- :func:`breslow_baseline`, the baseline
  cumulative hazard, and the risk by a horizon;
* :mod:`~riskexplore.risk_score.survival.support` -- certified bounds on one support and
  the root's feature floors (root fixing);
* :mod:`~riskexplore.risk_score.survival.problem` -- :class:`SurvivalProblem`, the Cox loss
  as LCPA's datafit (no intercept);
* :mod:`~riskexplore.risk_score.survival.model` -- :class:`SurvivalScore`, the fitted model;
* :mod:`~riskexplore.risk_score.survival.fit` -- :func:`fit_survival_score`.

Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.risk_score.survival.baseline import BreslowBaseline as BreslowBaseline
    from riskexplore.risk_score.survival.baseline import breslow_baseline as breslow_baseline
    from riskexplore.risk_score.survival.bounds import cox_loss_bounds as cox_loss_bounds
    from riskexplore.risk_score.survival.cox import CoxLoss as CoxLoss
    from riskexplore.risk_score.survival.fit import fit_survival_score as fit_survival_score
    from riskexplore.risk_score.survival.fit import (
        iter_fit_survival_score as iter_fit_survival_score,
    )
    from riskexplore.risk_score.survival.model import SurvivalScore as SurvivalScore
    from riskexplore.risk_score.survival.problem import SurvivalProblem as SurvivalProblem

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
