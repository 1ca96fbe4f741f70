"""The survival score problem: integer points minimising the Cox loss plus ``c0 ||points||_0``.

:class:`SurvivalProblem` is a :class:`~riskexplore.risk_score.problem.RiskScoreProblem`
whose datafit is the :class:`~riskexplore.risk_score.survival.cox.CoxLoss` and whose
intercept is pinned to 0 (the Cox loss ignores a constant added to every score), so the
risk scores' cutting-plane search (LCPA) certifies it unchanged. Constraints that stay
linear in the points are offered (``MaxFeatures``, ``AtMostKOf``, ``Implies``,
``NotTogether``, ``PointsBetween``, ``LinearConstraint``, ...). Constraints on a predicted
risk, group calibration and operating-point rules are not (v1): the risk by a horizon
``1 - exp(-H0(h) e^s)`` depends through Breslow's ``H0`` on every point, so it is no
linear row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from riskexplore.data.survival import check_survival_outcome, check_survival_weights
from riskexplore.data.validation import check_magnitude, check_training_features
from riskexplore.errors import InputError
from riskexplore.risk_score.coefficients import CoefficientSet
from riskexplore.risk_score.constraints import PredictedRisk
from riskexplore.risk_score.group_calibration import GroupCalibration
from riskexplore.risk_score.operating_point import OperatingPoint
from riskexplore.risk_score.problem import (
    C0,
    COEF_MAX,
    COEF_MIN,
    MAX_FEATURE_MAGNITUDE,
    RiskScoreProblem,
)
from riskexplore.risk_score.survival.cox import CoxLoss

__all__ = ["SurvivalProblem", "survival_outcome"]

#: Constraints that bound a predicted risk or pick an operating point: not linear for Cox.
_NOT_OFFERED = (PredictedRisk, GroupCalibration, OperatingPoint)


def survival_outcome(time, event) -> np.ndarray:
    """The outcome as scikit-survival's structured array ``[("event", bool), ("time", float)]``.

    Parameters
    ----------
    time, event : array-like
        Checked times and events.

    Returns
    -------
    ndarray
        One record per row.
    """
    y = np.empty(len(time), dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = event, time
    return y


def _flat(constraints) -> Iterable:
    for c in constraints:
        if isinstance(c, (list, tuple)):
            yield from _flat(c)
        else:
            yield c


def _refuse_risk_constraints(constraints) -> None:
    for c in _flat(constraints):
        if isinstance(c, _NOT_OFFERED):
            raise InputError(
                f"{type(c).__name__} is not offered for survival scores: the risk by a "
                "horizon depends on every point through the baseline hazard, so it is no "
                "linear constraint; use constraints on the points (MaxFeatures, AtMostKOf, "
                "Implies, NotTogether, PointsBetween, LinearConstraint)"
            )


class SurvivalProblem(RiskScoreProblem):
    """``min CoxLoss(points) + sum_j c0_j 1[points_j != 0]`` over integer points.

    Parameters
    ----------
    X : DataFrame or array (n, d)
        Numeric features, no missing values.
    time, event : array-like
        The survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`; ``event=None`` takes a
        structured array in ``time``).
    sample_weight : array-like, optional
        Frequency weights.
    feature_names, coef_min, coef_max, c0, bounds, signs, c0_by_feature, coefficient_set
        As for :class:`~riskexplore.risk_score.problem.RiskScoreProblem` (default points
        -5..5); the intercept is pinned to 0.
    min_size, max_size : int, optional
        Bounds on the number of features used.
    constraints : iterable
        Constraints on the points (no predicted-risk, calibration or operating-point
        constraint).
    time_unit : str, optional
        The unit of ``time`` in words (``"days"``): the model's card says "risk by 365
        days".

    Attributes
    ----------
    y : ndarray
        The outcome as a structured array ``[("event", bool), ("time", float)]``.
    """

    def __init__(
        self,
        X,
        time,
        event=None,
        *,
        sample_weight=None,
        feature_names=None,
        coef_min: int = COEF_MIN,
        coef_max: int = COEF_MAX,
        c0: float = C0,
        bounds: Mapping[str, tuple[int, int]] | None = None,
        signs: Mapping[str, int] | None = None,
        c0_by_feature: Mapping[str, float] | None = None,
        coefficient_set: CoefficientSet | None = None,
        min_size: int = 0,
        max_size: int | None = None,
        constraints: Iterable = (),
        time_unit: str | None = None,
    ) -> None:
        time, event = check_survival_outcome(time, event)
        if time_unit is not None and (not isinstance(time_unit, str) or not time_unit.strip()):
            raise InputError(f"time_unit must be a word such as 'days', got {time_unit!r}")
        self.time_unit = time_unit
        X, names = check_training_features(X, feature_names)
        if X.shape[0] != len(time):
            raise InputError(
                f"X has {X.shape[0]} rows but the outcome has {len(time)}; give one time and "
                "one event per row of X"
            )
        check_magnitude(X, names, MAX_FEATURE_MAGNITUDE, "a survival score")
        _refuse_risk_constraints(constraints)
        self.multiplier_range, self.scale = (1.0, 1.0), "fixed"
        self.X, self.y, self.feature_names = X, survival_outcome(time, event), names
        self.sample_weight = check_survival_weights(sample_weight, len(time))
        self.loss = CoxLoss.from_data(X, time, event, self.sample_weight)
        if coefficient_set is None:
            coefficient_set = CoefficientSet.uniform(
                names,
                coef_min=coef_min,
                coef_max=coef_max,
                c0=c0,
                intercept_min=0,
                intercept_max=0,
                bounds=bounds,
                signs=signs,
                c0_by_feature=c0_by_feature,
            )
        elif (coefficient_set.intercept_lower, coefficient_set.intercept_upper) != (0, 0):
            raise InputError("a survival score has no intercept: give intercept bounds 0..0")
        self._set_model_space(coefficient_set, min_size, max_size, None, constraints)

    def as_dict(self, lam: np.ndarray) -> dict:
        """``{"hazard_points": {name: int}}``, the non-zero points of the integer model
        ``lam`` (the key tells a survival score's incumbents from a risk score's).

        Parameters
        ----------
        lam : ndarray
            The model ``[0, points...]``.

        Returns
        -------
        dict
            The incumbent of solve events.
        """
        return {"hazard_points": super().as_dict(lam)["points"]}

    @property
    def time(self) -> np.ndarray:
        """The follow-up times, in the rows' order."""
        return self.y["time"]

    @property
    def event(self) -> np.ndarray:
        """The event indicators, in the rows' order."""
        return self.y["event"]
