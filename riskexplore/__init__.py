"""riskexplore: certifiably optimal risk scores and predictive checklists.

>>> from riskexplore import fit_risk_score, load_dataset
>>> data = load_dataset("breastcancer")
>>> model = fit_risk_score(data.X, data.y, max_size=3, time_limit=20)  # doctest: +SKIP
>>> print(model.to_text())  # doctest: +SKIP

The public names below are listed once, as imports that editors and type checkers read;
at run time each is imported on first use, so ``import riskexplore`` stays light. The
layers of the package are described in ``ARCHITECTURE.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

#: The version of the package, kept here only (pyproject.toml reads it; CHANGELOG.md).
__version__ = "0.2.0"

if TYPE_CHECKING:  # the public names (imported on first use)
    # checklists: model, fit, estimator, problem and constraints
    # (``Implies`` of checklists is exported as ``ChecklistImplies``)
    from riskexplore.checklist.constraints import AtMostKItems as AtMostKItems
    from riskexplore.checklist.constraints import ExcludeItem as ExcludeItem
    from riskexplore.checklist.constraints import FNRLimit as FNRLimit
    from riskexplore.checklist.constraints import FPRLimit as FPRLimit
    from riskexplore.checklist.constraints import GroupRateGap as GroupRateGap
    from riskexplore.checklist.constraints import Implies as ChecklistImplies  # noqa: F401
    from riskexplore.checklist.constraints import IncludeItem as IncludeItem
    from riskexplore.checklist.constraints import MaxItems as MaxItems
    from riskexplore.checklist.constraints import MinItems as MinItems
    from riskexplore.checklist.constraints import MRange as MRange
    from riskexplore.checklist.constraints import OneItemPerGroup as OneItemPerGroup
    from riskexplore.checklist.constraints import PredictNegativeWhen as PredictNegativeWhen
    from riskexplore.checklist.constraints import PredictPositiveWhen as PredictPositiveWhen
    from riskexplore.checklist.constraints import WorstGroupRate as WorstGroupRate
    from riskexplore.checklist.estimator import ChecklistClassifier as ChecklistClassifier
    from riskexplore.checklist.fit import fit_checklist as fit_checklist
    from riskexplore.checklist.fit import iter_fit_checklist as iter_fit_checklist
    from riskexplore.checklist.model import Checklist as Checklist
    from riskexplore.checklist.problem import ChecklistProblem as ChecklistProblem

    # shared by both families: certificates, events, limits
    from riskexplore.core.certificate import Certificate as Certificate
    from riskexplore.core.events import SolveEvent as SolveEvent
    from riskexplore.core.events import Trace as Trace
    from riskexplore.core.limits import Limits as Limits

    # data: binarization of raw tables (both families), CSV files, bundled datasets
    from riskexplore.data.binarize import Binarizer as Binarizer
    from riskexplore.data.tables import read_csv_table as read_csv_table
    from riskexplore.datasets import list_datasets as list_datasets
    from riskexplore.datasets import load_dataset as load_dataset

    # errors
    from riskexplore.errors import ConstraintError as ConstraintError
    from riskexplore.errors import DataWarning as DataWarning
    from riskexplore.errors import InfeasibleError as InfeasibleError
    from riskexplore.errors import InputError as InputError
    from riskexplore.errors import RiskExploreError as RiskExploreError

    # does the model work for every group? the subgroup audit
    from riskexplore.evaluation.audit.run import AuditResult as AuditResult
    from riskexplore.evaluation.audit.run import audit as audit
    from riskexplore.evaluation.near_optimal import (
        near_optimal_checklists as near_optimal_checklists,
    )
    from riskexplore.evaluation.near_optimal import (
        near_optimal_risk_scores as near_optimal_risk_scores,
    )
    from riskexplore.evaluation.near_optimal import (
        near_optimal_survival_scores as near_optimal_survival_scores,
    )
    from riskexplore.evaluation.paths import survival_score_size_path as survival_score_size_path

    # beyond the optimum: near-optimal sets and the price of each feature
    from riskexplore.evaluation.prices import feature_prices as feature_prices

    # on other patients: external validation and recalibration
    from riskexplore.evaluation.validation.recalibration import recalibrate as recalibrate
    from riskexplore.evaluation.validation.result import Validation as Validation
    from riskexplore.evaluation.validation.run import validate as validate

    # risk scores: model, fit, estimator, problem and constraints
    from riskexplore.risk_score.constraints import AtLeastKOf as AtLeastKOf
    from riskexplore.risk_score.constraints import AtMostKOf as AtMostKOf
    from riskexplore.risk_score.constraints import Exclude as Exclude
    from riskexplore.risk_score.constraints import Implies as Implies
    from riskexplore.risk_score.constraints import Include as Include
    from riskexplore.risk_score.constraints import LinearConstraint as LinearConstraint
    from riskexplore.risk_score.constraints import MaxFeatures as MaxFeatures
    from riskexplore.risk_score.constraints import MinFeatures as MinFeatures
    from riskexplore.risk_score.constraints import NotTogether as NotTogether
    from riskexplore.risk_score.constraints import PointsBetween as PointsBetween
    from riskexplore.risk_score.constraints import PredictedRisk as PredictedRisk
    from riskexplore.risk_score.constraints import Sign as Sign
    from riskexplore.risk_score.estimator import RiskSlimClassifier as RiskSlimClassifier
    from riskexplore.risk_score.fit import fit_risk_score as fit_risk_score
    from riskexplore.risk_score.fit import iter_fit_risk_score as iter_fit_risk_score
    from riskexplore.risk_score.group_calibration import GroupCalibration as GroupCalibration
    from riskexplore.risk_score.model import RiskScore as RiskScore
    from riskexplore.risk_score.operating_point import OperatingPoint as OperatingPoint
    from riskexplore.risk_score.problem import RiskScoreProblem as RiskScoreProblem
    from riskexplore.risk_score.survival.fit import fit_survival_score as fit_survival_score
    from riskexplore.risk_score.survival.fit import (
        iter_fit_survival_score as iter_fit_survival_score,
    )
    from riskexplore.risk_score.survival.model import SurvivalScore as SurvivalScore

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
