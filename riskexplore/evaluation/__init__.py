"""Evaluation of risk scores and checklists: metrics, cross-validation, paths, comparisons.

* :mod:`~riskexplore.evaluation.metrics` -- CAL (as in the RiskSLIM paper, 10
  equal-frequency bins above 30 distinct scores), reliability tables with exact
  intervals, AUC, logistic loss, Brier score, error rates per (intersectional) group.
* :mod:`~riskexplore.evaluation.cv` -- K-fold CV of model recipes and nested CV that
  chooses free parameters by mean test AUC (or loss; never CAL).
* :mod:`~riskexplore.evaluation.paths` -- size paths of risk scores and checklists with
  certified intervals, sharing one CutPool and warm starts.
* :mod:`~riskexplore.evaluation.compare` -- constrained vs unconstrained risk scores and
  the certified price of the constraints; two fitted models side by side.

Names are imported on first use. (``compare(model_a, model_b, X, y)`` lives in
:mod:`riskexplore.evaluation.compare`; it is not re-exported here, where ``compare`` is
the submodule.)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "auc": "metrics",
    "auc_strict": "metrics",
    "brier_score": "metrics",
    "calibration_error": "metrics",
    "classification_rates": "metrics",
    "logistic_loss": "metrics",
    "model_metrics": "metrics",
    "reliability_table": "metrics",
    "risk_score_metrics": "metrics",
    "NestedCVResult": "cv",
    "cross_validate_recipe": "cv",
    "nested_cv_select": "cv",
    "risk_score_recipe": "cv",
    "SizePath": "paths",
    "checklist_size_path": "paths",
    "risk_score_size_path": "paths",
    "Comparison": "compare",
    "compare_models": "compare",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riskexplore.evaluation' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"riskexplore.evaluation.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
