"""The risk score problem (RiskSLIM-MINLP): data, coefficient set, size bounds, rows.

RiskSLIM-MINLP is Definition 1 of Ustun & Rudin [1]_ (Section 2); the defaults below are
the settings of their experiments (Section 5.1): points in ``{-5, ..., 5}``, intercept in
``{-100, ..., 100}`` and ``C0 = 1e-6``.

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

import numpy as np

from riskexplore.core.params import Check, Interval, Options, validate
from riskexplore.core.rates import group_frame
from riskexplore.data.validation import check_magnitude, check_training_data
from riskexplore.errors import InputError
from riskexplore.risk_score.coefficients import CoefficientSet
from riskexplore.risk_score.constraints import constraints_to_rows
from riskexplore.risk_score.loss import LogisticLoss
from riskexplore.risk_score.rows import INTERCEPT, LinearRow, RowMatrix, compile_rows

__all__ = [
    "C0",
    "COEF_MAX",
    "COEF_MIN",
    "FIXED_SCALE_ONLY",
    "FIXED_SCALE_ONLY_WORDS",
    "INTERCEPT_MAX",
    "INTERCEPT_MIN",
    "MULTIPLIER_MAX",
    "MULTIPLIER_MIN",
    "SCALES",
    "RiskScoreProblem",
    "RiskScoreSettings",
    "fixed_scale_only",
]

#: Default bounds on every feature's points ({-5, ..., 5}, as in Ustun & Rudin (2019),
#: Section 5.1).
COEF_MIN, COEF_MAX = -5, 5
#: Default bounds on the intercept.
INTERCEPT_MIN, INTERCEPT_MAX = -100, 100
#: Default penalty per feature used (small: it only breaks ties towards fewer features).
C0 = 1e-6
#: How points become a risk: ``"fixed"`` (risk = sigma(score), the logistic link of
#: Ustun & Rudin (2019), Section 2) or
#: ``"learned"`` (risk = sigma(score / m) with a learned multiplier ``m``; see
#: :mod:`riskexplore.risk_score.scaled.model_class`).
SCALES = ("fixed", "learned")

#: The largest absolute feature value of a risk score's data: the points multiply the
#: features in the solvers' linear programs, whose arithmetic fails beyond about 1e15
#: (values of 1e18 broke HiGHS's solves; 1e15 was still solved).
MAX_FEATURE_MAGNITUDE = 1e9
#: Default range of the learned multiplier ``m``.
MULTIPLIER_MIN, MULTIPLIER_MAX = 0.25, 10.0

_POSITIVE = Interval(float, 0, None, closed="neither")
_POSITIVE_FINITE = Check(
    lambda v: _POSITIVE.satisfied_by(v) and math.isfinite(v), "a positive number"
)

#: What the problem's own settings may be (see :mod:`riskexplore.core.params`; the
#: coefficient bounds are checked by :class:`CoefficientSet`).
PARAMETERS = {
    "positive_weight": [_POSITIVE_FINITE],
    "min_size": [Interval(int, 0, None)],
    "max_size": [Interval(int, 0, None), None],
    "scale": [Options(SCALES)],
    "multiplier_min": [_POSITIVE_FINITE],
    "multiplier_max": [_POSITIVE_FINITE],
}


#: Why near-optimal sets, hand edits and feature prices refuse the learned scale (their
#: certificates use the fixed scale's loss and lower bound).
FIXED_SCALE_ONLY = (
    "near-optimal sets, hand edits and feature prices of risk scores are certified with the "
    "fixed scale only (risk = σ(score)), not with the learned one (scale='learned', "
    "risk = σ(score / m)): choose the fixed scale (scale='fixed', the default)"
)


#: The same in words for a page (no option names).
FIXED_SCALE_ONLY_WORDS = (
    "Other good scores, hand edits and the price of each characteristic are certified with "
    "the fixed scale only (risk = σ(score)), not with a learned scale (risk = σ(score / m)). "
    "Choose the fixed scale to use them."
)


def fixed_scale_only(
    settings: Mapping[str, Any], model: Any = None, words: bool = False
) -> str | None:
    """Why near-optimal sets, hand edits and feature prices cannot use these settings or
    this model (the learned scale), or None.

    Parameters
    ----------
    settings : mapping
        Fit settings (``scale``, ...).
    model : RiskScore, optional
        A model they would start from.
    words : bool
        The reason for a page (:data:`FIXED_SCALE_ONLY_WORDS`) rather than for an error.

    Returns
    -------
    str or None
        :data:`FIXED_SCALE_ONLY` (or its words) for the learned scale, else None.
    """
    learned = settings.get("scale") == "learned"
    if model is not None and getattr(model, "scale", "fixed") == "learned":
        learned = True
    if not learned:
        return None
    return FIXED_SCALE_ONLY_WORDS if words else FIXED_SCALE_ONLY


def multiplier_range(
    scale: str = "fixed",
    multiplier_min: float = MULTIPLIER_MIN,
    multiplier_max: float = MULTIPLIER_MAX,
) -> tuple[float, float]:
    """The range of the multiplier ``m`` for a scale, after checking the settings.

    Parameters
    ----------
    scale : {"fixed", "learned"}
        How points become a risk: ``sigma(score)`` or ``sigma(score / m)``.
    multiplier_min, multiplier_max : float
        Bounds on ``m`` for the learned scale (``0 < min < max``); the fixed scale
        takes them only at their defaults.

    Returns
    -------
    (float, float)
        ``(1.0, 1.0)`` for the fixed scale, ``(multiplier_min, multiplier_max)`` for the
        learned one.

    Raises
    ------
    InputError
        For an unknown scale, bounds that are not positive numbers, ``min >= max``, or
        bounds given with the fixed scale.
    """
    validate(
        PARAMETERS,
        {"scale": scale, "multiplier_min": multiplier_min, "multiplier_max": multiplier_max},
    )
    lo, hi = float(multiplier_min), float(multiplier_max)
    if lo >= hi:
        raise InputError(f"multiplier_min ({lo:g}) must be less than multiplier_max ({hi:g})")
    if scale == "fixed":
        if (lo, hi) != (MULTIPLIER_MIN, MULTIPLIER_MAX):
            raise InputError(
                "multiplier_min and multiplier_max are bounds of the learned scale; "
                "pass scale='learned' (the fixed scale has m = 1)"
            )
        return 1.0, 1.0
    return lo, hi


class RiskScoreSettings(TypedDict, total=False):
    """The keyword arguments of :class:`RiskScoreProblem` (for ``**settings`` of the
    functions that build one, so that editors and type checkers see every key)."""

    sample_weight: Any
    positive_weight: float
    feature_names: Any
    coef_min: int
    coef_max: int
    intercept_min: int
    intercept_max: int
    c0: float
    bounds: Mapping[str, tuple[int, int]] | None
    signs: Mapping[str, int] | None
    c0_by_feature: Mapping[str, float] | None
    coefficient_set: CoefficientSet | None
    min_size: int
    max_size: int | None
    constraints: Iterable
    scale: str
    multiplier_min: float
    multiplier_max: float
    groups: Any


class RiskScoreProblem:
    """``min l(lam) + sum_j c0_j 1[lam_j != 0]`` over integer ``lam`` obeying every bound
    and constraint.

    Parameters
    ----------
    X : DataFrame or array (n, d)
        Numeric features, no missing values.
    y : array-like (n,)
        Binary outcome; the larger value is the positive class.
    sample_weight : array-like (n,), optional
    positive_weight : float
        Extra weight on positive examples (class weight).
    coef_min, coef_max : int
        Bounds on every feature's points (default -5..5).
    intercept_min, intercept_max : int
        Bounds on the intercept (default -100..100).
    c0 : float
        Penalty per feature used (default 1e-6).
    bounds, signs, c0_by_feature : mappings by feature name, optional
        Per-feature overrides (see :meth:`CoefficientSet.uniform`).
    coefficient_set : CoefficientSet, optional
        Use instead of the uniform arguments above.
    min_size, max_size : int, optional
        Bounds on the number of features used.
    constraints : iterable
        Readable constraints, :class:`LinearRow` objects or Pyomo models.
    scale : {"fixed", "learned"}
        How points become a risk: ``sigma(score)`` (the logistic link of Ustun &
        Rudin [1]_, Section 2) or ``sigma(score / m)`` with a multiplier ``m`` learned in
        ``[multiplier_min, multiplier_max]`` (see :func:`multiplier_range`).
    multiplier_min, multiplier_max : float
        Bounds on ``m`` for the learned scale (default 0.25 and 10).
    groups : Series or DataFrame, optional
        Columns that define groups of rows for group constraints
        (:class:`~riskexplore.risk_score.group_calibration.GroupCalibration`), one row per
        example, when they are not features (features can be used as group columns
        directly).

    Attributes
    ----------
    scale : str
        ``"fixed"`` or ``"learned"``.
    multiplier_range : (float, float)
        The range of ``m`` (``(1.0, 1.0)`` for the fixed scale).
    groups : DataFrame or None
        The group columns given.
    binarizer : Binarizer or None
        The binarizer that made the features (items) of a raw table, set by
        :func:`~riskexplore.risk_score.fit.build_problem`; None for features given as is.

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019.
    """

    #: The binarizer of a raw table's items (set by ``build_problem``), else None.
    binarizer = None
    #: The record of the bands of a raw table (set by ``build_problem``), else None.
    bands = None

    def __init__(
        self,
        X,
        y,
        *,
        sample_weight=None,
        positive_weight: float = 1.0,
        feature_names=None,
        coef_min: int = COEF_MIN,
        coef_max: int = COEF_MAX,
        intercept_min: int = INTERCEPT_MIN,
        intercept_max: int = INTERCEPT_MAX,
        c0: float = C0,
        bounds: Mapping[str, tuple[int, int]] | None = None,
        signs: Mapping[str, int] | None = None,
        c0_by_feature: Mapping[str, float] | None = None,
        coefficient_set: CoefficientSet | None = None,
        min_size: int = 0,
        max_size: int | None = None,
        constraints: Iterable = (),
        scale: str = "fixed",
        multiplier_min: float = MULTIPLIER_MIN,
        multiplier_max: float = MULTIPLIER_MAX,
        groups=None,
    ) -> None:
        X, y, w, names = check_training_data(X, y, sample_weight, feature_names)
        check_magnitude(X, names, MAX_FEATURE_MAGNITUDE, "a risk score")
        validate(
            PARAMETERS,
            {"positive_weight": positive_weight, "min_size": min_size, "max_size": max_size},
        )
        self.multiplier_range = multiplier_range(scale, multiplier_min, multiplier_max)
        self.scale = str(scale)
        self.X, self.y, self.feature_names = X, y, names
        self.sample_weight = w * np.where(y > 0, positive_weight, 1.0)
        if coefficient_set is None:
            coefficient_set = CoefficientSet.uniform(
                names,
                coef_min=coef_min,
                coef_max=coef_max,
                c0=c0,
                intercept_min=intercept_min,
                intercept_max=intercept_max,
                bounds=bounds,
                signs=signs,
                c0_by_feature=c0_by_feature,
            )
        self._set_model_space(coefficient_set, min_size, max_size, groups, constraints)
        lo, hi = coefficient_set.full_bounds()
        self.loss = LogisticLoss.from_data(X, y, self.sample_weight, lo, hi)

    def _set_model_space(
        self, coefficient_set: CoefficientSet, min_size, max_size, groups, constraints
    ) -> None:
        """Check and keep the coefficient set, the size bounds, the groups and the rows
        (``self.X`` and ``self.feature_names`` set first)."""
        names = self.feature_names
        if list(coefficient_set.feature_names) != names:
            raise InputError("coefficient_set.feature_names must match the data's columns")
        self.coefficient_set = coefficient_set
        d = len(names)
        self.min_size = int(min_size)
        self.max_size = d if max_size is None else int(min(max_size, d))
        if self.min_size < 0 or self.max_size < self.min_size:
            raise InputError(
                f"model size bounds [{min_size}, {max_size}] are empty; need "
                f"0 <= min_size <= max_size"
            )
        self.groups = group_frame(groups, self.X.shape[0])
        #: Combinatorial rules (:class:`~riskexplore.risk_score.operating_point.ScoreRule`),
        #: registered by their constraints while the rows compile.
        self.rules: list = []
        self.rows: list[LinearRow] = constraints_to_rows(constraints, names, problem=self)
        self.row_matrix: RowMatrix = compile_rows(self.rows, names)

    # --- shapes and bounds -------------------------------------------------------------
    @property
    def n_features(self) -> int:
        """The number of features ``d``."""
        return len(self.feature_names)

    @property
    def c0(self) -> np.ndarray:
        """The penalty per feature used, one per feature."""
        return self.coefficient_set.c0

    def lam_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of ``[lambda_0, lambda_1..d]`` as floats."""
        return self.coefficient_set.full_bounds()

    def require_fixed_scale(self, what: str) -> None:
        """Raise :class:`InputError` unless the problem has the fixed scale.

        Parameters
        ----------
        what : str
            The method that needs it (named in the message).
        """
        if self.scale != "fixed":
            raise InputError(
                f"{what}: fixed scale only (risk = sigma(score)); scale={self.scale!r} is "
                "fitted by fit_risk_score"
            )

    def require_no_rules(self, what: str) -> None:
        """Raise :class:`InputError` when the problem has operating-point rules.

        Parameters
        ----------
        what : str
            The solver that cannot certify them (named in the message).
        """
        if self.rules:
            raise InputError(
                f"{what} cannot certify operating-point rules ({self.rules[0].name}); "
                "fit_risk_score certifies them (solve_lcpa, solve_scaled_lcpa)"
            )

    def intercept_in_rows(self) -> bool:
        """Whether a constraint row involves the intercept."""
        return any(INTERCEPT in row.points for row in self.rows)

    # --- evaluating models -------------------------------------------------------------
    def point(self, lam: np.ndarray) -> np.ndarray:
        """The solver vector ``[lam, alpha]`` of an integer model ``lam``."""
        return np.concatenate([lam, (lam[1:] != 0).astype(float)])

    def objective(self, lam: np.ndarray) -> float:
        """``loss + sum_j c0_j 1[lam_j != 0]`` of the integer model ``lam``."""
        lam = np.asarray(lam, dtype=float)
        return self.loss.value(lam, integral=True) + float(self.c0 @ (lam[1:] != 0))

    def loss_of(self, lam: np.ndarray) -> float:
        """The normalised logistic loss of the integer model ``lam`` (no penalty)."""
        return self.loss.value(np.asarray(lam, dtype=float), integral=True)

    def violations(self, lam: np.ndarray, tol: float = 1e-7, rules: bool = True) -> list[str]:
        """Names of every bound and constraint that the integer model ``lam`` breaks.

        Parameters
        ----------
        lam : ndarray
            The model ``[intercept, points...]``.
        tol : float
            Slack on the bounds and rows.
        rules : bool
            Check the combinatorial rules (:attr:`rules`) too; False checks only what the
            solvers' linear programs hold (bounds, size, rows).

        Returns
        -------
        list of str
            The names, empty for a feasible model.
        """
        lam = np.asarray(lam, dtype=float)
        lo, hi = self.lam_bounds()
        out = []
        for j in np.flatnonzero((lam < lo - tol) | (lam > hi + tol)):
            name = "intercept" if j == 0 else self.feature_names[j - 1]
            out.append(f"bounds of {name}")
        size = int(np.count_nonzero(lam[1:]))
        if not self.min_size <= size <= self.max_size:
            out.append(f"model size {size} outside [{self.min_size}, {self.max_size}]")
        out.extend(self.row_matrix.violations(self.point(lam), tol))
        if rules:
            out.extend(rule.name for rule in self.rules if not rule.meets(lam))
        return out

    def meets_rules(self, lam: np.ndarray) -> bool:
        """Whether the integer model ``lam`` meets every combinatorial rule.

        Parameters
        ----------
        lam : ndarray
            The model ``[intercept, points...]``.

        Returns
        -------
        bool
            True without rules.
        """
        return all(rule.meets(lam) for rule in self.rules)

    def rules_possible(self, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Whether a box of models may hold one that meets every rule (False: none can).

        Parameters
        ----------
        lower, upper : ndarray
            Bounds of ``[intercept, points...]`` (a search node's columns; further
            columns are ignored).

        Returns
        -------
        bool
            True without rules.
        """
        return all(rule.possible(lower, upper) for rule in self.rules)

    def is_feasible(self, lam: np.ndarray) -> bool:
        """Whether the integer model ``lam`` meets every bound and constraint.

        Parameters
        ----------
        lam : ndarray
            The model ``[intercept, points...]``.

        Returns
        -------
        bool
            True without violations.
        """
        return not self.violations(lam)

    def as_dict(self, lam: np.ndarray) -> dict:
        """``{"intercept": int, "points": {name: int}}`` with the non-zero points."""
        lam = np.rint(np.asarray(lam)).astype(int)
        points = {n: int(v) for n, v in zip(self.feature_names, lam[1:], strict=True) if v}
        return {"intercept": int(lam[0]), "points": points}
