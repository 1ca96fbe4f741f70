"""Evaluation of fitted models of every family: metrics, tables, cross-validation, paths,
comparisons and grids of solves.

* :mod:`~riskexplore.evaluation.metrics` -- CAL (as in the RiskSLIM paper, 10
  equal-frequency bins above 30 distinct scores), reliability tables with exact
  intervals, AUC, ROC curves, logistic loss, Brier score, error rates per
  (intersectional) group.
* :mod:`~riskexplore.evaluation.tables` -- reliability and metrics tables of models on
  training and held-out data, size paths as frames.
* :mod:`~riskexplore.evaluation.cv` -- K-fold CV of model recipes and nested CV that
  chooses free parameters by mean test AUC (or loss; never CAL).
* :mod:`~riskexplore.evaluation.paths` -- size paths of any family with certified
  intervals.
* :mod:`~riskexplore.evaluation.compare` -- constrained vs unconstrained risk scores and
  the certified price of the constraints; two fitted models side by side.
* :mod:`~riskexplore.evaluation.grids` -- grids of solves, serially, on joblib processes
  or on a Dask cluster.
* :mod:`~riskexplore.evaluation.near_optimal` -- certified sets of near-optimal models
  (every model within a tolerance of the optimum, with each model's metrics).
* :mod:`~riskexplore.evaluation.prices` -- the certified price of leaving out,
  or forcing in, each feature.
* :mod:`~riskexplore.evaluation.audit` -- subgroup audits of any fitted model: metrics
  with intervals per group, gaps to the rest, findings in plain words.
* :mod:`~riskexplore.evaluation.validation` -- a fitted model on other rows (AUC,
  calibration intercept and slope, O/E, decision curve, score table) and recalibration.
* :mod:`~riskexplore.evaluation.intervals` -- Wilson, Newcombe, DeLong and bootstrap
  intervals (shared by the audit and the validation).

Names are imported on first use. (The certified price of a fixed scale, risk scores with
``m = 1`` against a learned multiplier, is a risk-score concept:
:mod:`riskexplore.risk_score.scale_price`; ``ScalePrice`` and ``price_of_fixed_scale``
are still exported here.) (``compare(model_a, model_b, X, y)`` lives in
:mod:`riskexplore.evaluation.compare`; it is not re-exported here, where ``compare`` is
the submodule.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.evaluation.compare import Comparison as Comparison
    from riskexplore.evaluation.compare import compare_models as compare_models
    from riskexplore.evaluation.cv import NestedCVResult as NestedCVResult
    from riskexplore.evaluation.cv import cross_validate_recipe as cross_validate_recipe
    from riskexplore.evaluation.cv import nested_cv_select as nested_cv_select
    from riskexplore.evaluation.cv import risk_score_recipe as risk_score_recipe
    from riskexplore.evaluation.grids import run_grid as run_grid
    from riskexplore.evaluation.metrics import auc as auc
    from riskexplore.evaluation.metrics import auc_strict as auc_strict
    from riskexplore.evaluation.metrics import brier_score as brier_score
    from riskexplore.evaluation.metrics import calibration_error as calibration_error
    from riskexplore.evaluation.metrics import classification_rates as classification_rates
    from riskexplore.evaluation.metrics import logistic_loss as logistic_loss
    from riskexplore.evaluation.metrics import model_metrics as model_metrics
    from riskexplore.evaluation.metrics import reliability_table as reliability_table
    from riskexplore.evaluation.metrics import risk_score_metrics as risk_score_metrics
    from riskexplore.evaluation.metrics import roc_curve as roc_curve
    from riskexplore.evaluation.near_optimal import NearOptimalSet as NearOptimalSet
    from riskexplore.evaluation.near_optimal import (
        near_optimal_checklists as near_optimal_checklists,
    )
    from riskexplore.evaluation.near_optimal import near_optimal_models as near_optimal_models
    from riskexplore.evaluation.near_optimal import (
        near_optimal_risk_scores as near_optimal_risk_scores,
    )
    from riskexplore.evaluation.near_optimal import (
        near_optimal_survival_scores as near_optimal_survival_scores,
    )
    from riskexplore.evaluation.paths import SizePath as SizePath
    from riskexplore.evaluation.paths import checklist_size_path as checklist_size_path
    from riskexplore.evaluation.paths import risk_score_size_path as risk_score_size_path
    from riskexplore.evaluation.paths import size_path as size_path
    from riskexplore.evaluation.paths import survival_score_size_path as survival_score_size_path
    from riskexplore.evaluation.prices import FeaturePrices as FeaturePrices
    from riskexplore.evaluation.prices import feature_prices as feature_prices
    from riskexplore.evaluation.tables import metrics_table as metrics_table
    from riskexplore.evaluation.tables import reliability_tables as reliability_tables
    from riskexplore.risk_score.scale_price import ScalePrice as ScalePrice
    from riskexplore.risk_score.scale_price import price_of_fixed_scale as price_of_fixed_scale

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
