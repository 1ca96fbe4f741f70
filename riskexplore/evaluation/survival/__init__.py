"""Survival metrics on plain arrays (times, events, scores): any model's, any family's.

* :mod:`~riskexplore.evaluation.survival.product_limit` -- :func:`kaplan_meier` (Greenwood
  variance, log(-log) interval) and the censoring distribution;
* :mod:`~riskexplore.evaluation.survival.concordance` -- :func:`harrell_c`, :func:`uno_c`;
* :mod:`~riskexplore.evaluation.survival.time_auc` -- :func:`time_dependent_auc` at a horizon;
* :mod:`~riskexplore.evaluation.survival.calibration` -- :func:`survival_calibration`,
  predicted against Kaplan-Meier risk per score at a horizon;
* :mod:`~riskexplore.evaluation.survival.cox_slope` -- :func:`cox_slope`, the calibration
  slope;
* :mod:`~riskexplore.evaluation.survival.score_groups` -- :func:`score_groups`, adjacent
  scores merged into groups for Kaplan-Meier curves;
* :mod:`~riskexplore.evaluation.survival.validation` -- :func:`validate_survival`, all of
  it on other rows, as a
  :class:`~riskexplore.evaluation.survival.result.SurvivalValidation`.

The outcome is checked by :func:`riskexplore.data.survival.check_survival_outcome`. Names
are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.evaluation.survival.calibration import (
        survival_calibration as survival_calibration,
    )
    from riskexplore.evaluation.survival.concordance import Concordance as Concordance
    from riskexplore.evaluation.survival.concordance import harrell_c as harrell_c
    from riskexplore.evaluation.survival.concordance import uno_c as uno_c
    from riskexplore.evaluation.survival.cox_slope import cox_slope as cox_slope
    from riskexplore.evaluation.survival.product_limit import KaplanMeier as KaplanMeier
    from riskexplore.evaluation.survival.product_limit import (
        censoring_kaplan_meier as censoring_kaplan_meier,
    )
    from riskexplore.evaluation.survival.product_limit import kaplan_meier as kaplan_meier
    from riskexplore.evaluation.survival.result import (
        SurvivalValidation as SurvivalValidation,
    )
    from riskexplore.evaluation.survival.score_groups import score_groups as score_groups
    from riskexplore.evaluation.survival.time_auc import (
        time_dependent_auc as time_dependent_auc,
    )
    from riskexplore.evaluation.survival.validation import (
        validate_survival as validate_survival,
    )

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
