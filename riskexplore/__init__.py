"""riskexplore: certifiably optimal risk scores and predictive checklists.

>>> from riskexplore import fit_risk_score, load_dataset
>>> data = load_dataset("breastcancer")
>>> model = fit_risk_score(data.X, data.y, max_size=3, time_limit=20)  # doctest: +SKIP
>>> print(model.to_text())  # doctest: +SKIP

Names are imported on first use, so ``import riskexplore`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_CONSTRAINTS = (
    "MaxFeatures",
    "MinFeatures",
    "AtMostKOf",
    "AtLeastKOf",
    "Implies",
    "NotTogether",
    "PredictedRisk",
    "Sign",
    "Include",
    "Exclude",
    "PointsBetween",
    "LinearConstraint",
)

#: Constraints of predictive checklists (``Implies`` is exported as ``ChecklistImplies``,
#: since ``Implies`` is the risk-score constraint).
_CHECKLIST_CONSTRAINTS = (
    "MaxItems",
    "MinItems",
    "MRange",
    "OneItemPerGroup",
    "AtMostKItems",
    "IncludeItem",
    "ExcludeItem",
    "PredictPositiveWhen",
    "PredictNegativeWhen",
    "FNRLimit",
    "FPRLimit",
    "GroupRateGap",
    "WorstGroupRate",
)

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "RiskScore": "riskexplore.risk_score.model",
    "Certificate": "riskexplore.core.certificate",
    "fit_risk_score": "riskexplore.risk_score.fit",
    "iter_fit_risk_score": "riskexplore.risk_score.fit",
    "RiskSlimClassifier": "riskexplore.risk_score.estimator",
    "RiskScoreProblem": "riskexplore.risk_score.problem",
    "load_dataset": "riskexplore.datasets",
    "list_datasets": "riskexplore.datasets",
    "read_csv_table": "riskexplore.data.tables",
    "Limits": "riskexplore.core.limits",
    "SolveEvent": "riskexplore.core.events",
    "Trace": "riskexplore.core.events",
    "RiskExploreError": "riskexplore.errors",
    "InputError": "riskexplore.errors",
    "ConstraintError": "riskexplore.errors",
    "InfeasibleError": "riskexplore.errors",
    **dict.fromkeys(_CONSTRAINTS, "riskexplore.risk_score.constraints"),
    "Checklist": "riskexplore.checklist.model",
    "fit_checklist": "riskexplore.checklist.fit",
    "iter_fit_checklist": "riskexplore.checklist.fit",
    "ChecklistClassifier": "riskexplore.checklist.estimator",
    "Binarizer": "riskexplore.checklist.binarize",
    "ChecklistProblem": "riskexplore.checklist.problem",
    **dict.fromkeys(_CHECKLIST_CONSTRAINTS, "riskexplore.checklist.constraints"),
    "ChecklistImplies": "riskexplore.checklist.constraints",
}

#: public names that differ from the defining module's name for the object
_ALIASES = {"ChecklistImplies": "Implies"}

__all__ = [
    "AtLeastKOf",
    "AtMostKItems",
    "AtMostKOf",
    "Binarizer",
    "Certificate",
    "Checklist",
    "ChecklistClassifier",
    "ChecklistImplies",
    "ChecklistProblem",
    "ExcludeItem",
    "FNRLimit",
    "FPRLimit",
    "GroupRateGap",
    "IncludeItem",
    "MRange",
    "MaxItems",
    "MinItems",
    "OneItemPerGroup",
    "PredictNegativeWhen",
    "PredictPositiveWhen",
    "WorstGroupRate",
    "fit_checklist",
    "iter_fit_checklist",
    "ConstraintError",
    "Exclude",
    "Implies",
    "Include",
    "InfeasibleError",
    "InputError",
    "Limits",
    "LinearConstraint",
    "MaxFeatures",
    "MinFeatures",
    "NotTogether",
    "PointsBetween",
    "PredictedRisk",
    "RiskExploreError",
    "RiskScore",
    "RiskScoreProblem",
    "RiskSlimClassifier",
    "Sign",
    "SolveEvent",
    "Trace",
    "fit_risk_score",
    "iter_fit_risk_score",
    "list_datasets",
    "load_dataset",
    "read_csv_table",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riskexplore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _ALIASES.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # pragma: no cover
    from riskexplore.checklist.binarize import Binarizer
    from riskexplore.checklist.constraints import (
        AtMostKItems,
        ExcludeItem,
        FNRLimit,
        FPRLimit,
        GroupRateGap,
        IncludeItem,
        MaxItems,
        MinItems,
        MRange,
        OneItemPerGroup,
        PredictNegativeWhen,
        PredictPositiveWhen,
        WorstGroupRate,
    )
    from riskexplore.checklist.constraints import Implies as ChecklistImplies
    from riskexplore.checklist.estimator import ChecklistClassifier
    from riskexplore.checklist.fit import fit_checklist, iter_fit_checklist
    from riskexplore.checklist.model import Checklist
    from riskexplore.checklist.problem import ChecklistProblem
    from riskexplore.core.certificate import Certificate
    from riskexplore.core.events import SolveEvent, Trace
    from riskexplore.core.limits import Limits
    from riskexplore.data.tables import read_csv_table
    from riskexplore.datasets import list_datasets, load_dataset
    from riskexplore.errors import ConstraintError, InfeasibleError, InputError, RiskExploreError
    from riskexplore.risk_score.constraints import (
        AtLeastKOf,
        AtMostKOf,
        Exclude,
        Implies,
        Include,
        LinearConstraint,
        MaxFeatures,
        MinFeatures,
        NotTogether,
        PointsBetween,
        PredictedRisk,
        Sign,
    )
    from riskexplore.risk_score.estimator import RiskSlimClassifier
    from riskexplore.risk_score.fit import fit_risk_score, iter_fit_risk_score
    from riskexplore.risk_score.model import RiskScore
    from riskexplore.risk_score.problem import RiskScoreProblem
