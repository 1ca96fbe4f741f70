"""Readable operational constraints (Table 1 of the RiskSLIM paper).

Each constraint is a small frozen dataclass with

* ``to_rows(feature_names) -> list[LinearRow]``: the linear rows it compiles to, over
  the points ``lambda_j`` (and the intercept ``lambda_0``) and the inclusion indicators
  ``alpha_j = 1[lambda_j != 0]``;
* ``describe() -> str``: the constraint in plain words, also used as the rows' name
  (so it shows in error messages and in the list of violated constraints).

Feature names are checked when the constraint is compiled; an unknown name raises
:class:`~riskexplore.errors.ConstraintError` naming the constraint and suggesting close
matches.

Examples
--------
>>> rows = constraints_to_rows(
...     [MaxFeatures(5), AtMostKOf(["age<30", "age<45", "age<60"], k=1),
...      Implies("male", then_any=["hypertension", "bmi>=30"]),
...      PredictedRisk(when={"male": 1, "hypertension": 1}, at_least=0.9)],
...     feature_names)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from riskexplore.core.constraints import (
    ReadableConstraint,
    check_name,
    check_names,
    compile_constraints,
    format_number,
    listing,
    name_tuple,
    one_or_more_names,
    real_number,
    whole_number,
)
from riskexplore.errors import ConstraintError
from riskexplore.risk_score.pyomo import rows_from_pyomo
from riskexplore.risk_score.rows import INTERCEPT, LinearRow

__all__ = [
    "AtLeastKOf",
    "AtMostKOf",
    "Exclude",
    "Exclusive",
    "Implies",
    "Include",
    "LinearConstraint",
    "MaxFeatures",
    "MinFeatures",
    "NotTogether",
    "PointsBetween",
    "PredictedRisk",
    "RiskScoreConstraint",
    "Sign",
    "constraints_to_rows",
]

#: Tolerance used when rounding logit(p) to an integer score threshold, so that
#: e.g. logit(0.5) = 0 (up to floating point noise) is not rounded to 1.
_ROUND_TOL = 1e-9


class RiskScoreConstraint(ReadableConstraint):
    """Base class of the readable risk-score constraints.

    ``to_rows(feature_names)`` compiles the constraint to :class:`LinearRow` objects over
    the points and inclusion indicators; ``describe()`` names them.
    """


# --- model size ------------------------------------------------------------------------
@dataclass(frozen=True)
class MaxFeatures(RiskScoreConstraint):
    """Use at most ``k`` features: ``sum_j alpha_j <= k``."""

    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", whole_number(self.k, "MaxFeatures: k"))

    def describe(self) -> str:
        return f"Use at most {self.k} feature{'s' if self.k != 1 else ''}"

    def to_rows(self, feature_names):
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in feature_names}, upper=float(self.k)
            )
        ]


@dataclass(frozen=True)
class MinFeatures(RiskScoreConstraint):
    """Use at least ``k`` features: ``sum_j alpha_j >= k``."""

    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", whole_number(self.k, "MinFeatures: k"))

    def describe(self) -> str:
        return f"Use at least {self.k} feature{'s' if self.k != 1 else ''}"

    def to_rows(self, feature_names):
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in feature_names}, lower=float(self.k)
            )
        ]


# --- groups ----------------------------------------------------------------------------
@dataclass(frozen=True)
class AtMostKOf(RiskScoreConstraint):
    """Group sparsity: use at most ``k`` of ``features`` (``sum_{j in G} alpha_j <= k``).

    Typical use: at most one of several thresholds of the same variable,
    ``AtMostKOf(["age<30", "age<45", "age<60"])``.
    """

    features: tuple[str, ...]
    k: int = 1

    def __post_init__(self) -> None:
        features = name_tuple(self.features, type(self).__name__, "feature")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "k", whole_number(self.k, f"{type(self).__name__}: k"))

    def describe(self) -> str:
        return f"Use at most {self.k} of: {listing(self.features)}"

    def to_rows(self, feature_names):
        check_names(self.describe(), self.features, feature_names, "feature")
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in self.features}, upper=float(self.k)
            )
        ]


@dataclass(frozen=True)
class AtLeastKOf(RiskScoreConstraint):
    """Use at least ``k`` of ``features`` (``sum_{j in G} alpha_j >= k``).

    ``k`` larger than the group is accepted here and reported by the feasibility check.
    """

    features: tuple[str, ...]
    k: int = 1

    def __post_init__(self) -> None:
        features = name_tuple(self.features, type(self).__name__, "feature")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "k", whole_number(self.k, f"{type(self).__name__}: k"))

    def describe(self) -> str:
        return f"Use at least {self.k} of: {listing(self.features)}"

    def to_rows(self, feature_names):
        check_names(self.describe(), self.features, feature_names, "feature")
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in self.features}, lower=float(self.k)
            )
        ]


@dataclass(frozen=True)
class Implies(RiskScoreConstraint):
    """If ``if_feature`` is used then at least one of ``then_any`` is used.

    ``alpha_if <= sum_{j in then_any} alpha_j``. ``then_any`` may be a single name.
    """

    if_feature: str
    then_any: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.if_feature, str):
            raise ConstraintError(
                f"Implies: if_feature must be a feature name, got {self.if_feature!r}"
            )
        then = one_or_more_names(
            self.then_any, f"Implies({self.if_feature!r}, then_any=...)", "feature"
        )
        if self.if_feature in then:
            raise ConstraintError(
                f"Implies: {self.if_feature!r} cannot imply itself; remove it from then_any"
            )
        object.__setattr__(self, "then_any", then)

    def describe(self) -> str:
        return f"If {self.if_feature} is used then {listing(self.then_any, ' or ')} is used"

    def to_rows(self, feature_names):
        label = self.describe()
        check_names(label, (self.if_feature, *self.then_any), feature_names, "feature")
        included = {self.if_feature: 1.0}
        included.update({f: -1.0 for f in self.then_any})
        return [LinearRow(label, included=included, upper=0.0)]


@dataclass(frozen=True)
class NotTogether(RiskScoreConstraint):
    """Features ``a`` and ``b`` are not both used: ``alpha_a + alpha_b <= 1``."""

    a: str
    b: str

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ConstraintError(f"NotTogether: needs two different features, got {self.a!r}")

    def describe(self) -> str:
        return f"Do not use both {self.a} and {self.b}"

    def to_rows(self, feature_names):
        check_names(self.describe(), (self.a, self.b), feature_names, "feature")
        return [LinearRow(self.describe(), included={self.a: 1.0, self.b: 1.0}, upper=1.0)]


#: Alias of :class:`NotTogether`.
Exclusive = NotTogether


# --- predicted risk --------------------------------------------------------------------
@dataclass(frozen=True)
class PredictedRisk(RiskScoreConstraint):
    """Bound the predicted risk of one given example.

    ``PredictedRisk(when={"male": 1, "hypertension": 1}, at_least=0.9)`` reads "predicted
    risk >= 90% when male=1 and hypertension=1 (all other features 0)", i.e.
    ``lambda_0 + sum_j x_j lambda_j >= logit(0.9)``.

    Parameters
    ----------
    when : mapping of feature name to value
        The example's feature values; features not listed take the value ``others``.
    at_least, at_most : float in (0, 1), optional
        Bounds on the predicted risk; give one or both.
    others : float
        Value of every feature not in ``when`` (default 0).

    Notes
    -----
    When every value of the example is an integer, the score is an integer, so the rows
    use the integer thresholds ``ceil(logit(at_least))`` and ``floor(logit(at_most))``
    (equivalent, and tighter for the solver's relaxation). Otherwise ``logit(p)`` is used
    as is. Each bound becomes its own row. Each row also carries the unrounded bound on
    the risk's logit (``LinearRow.logit_bounds``): with a learned score-to-risk multiplier
    ``m`` the constraint reads ``score / m >= logit(at_least)``.
    """

    when: tuple[tuple[str, float], ...] = ()
    at_least: float | None = None
    at_most: float | None = None
    others: float = 0.0

    def __post_init__(self) -> None:
        when = self.when
        if isinstance(when, Mapping):
            when = tuple(when.items())
        elif isinstance(when, str):
            raise ConstraintError("PredictedRisk: when must map feature names to values")
        try:
            pairs = tuple((name, value) for name, value in when)
        except (TypeError, ValueError):
            raise ConstraintError(
                f"PredictedRisk: when must map feature names to values, got {self.when!r}"
            ) from None
        names = [n for n, _ in pairs]
        if len(set(names)) != len(names):
            raise ConstraintError("PredictedRisk: a feature appears twice in when")
        pairs = tuple((n, real_number(v, f"PredictedRisk: value of {n!r}")) for n, v in pairs)
        object.__setattr__(self, "when", pairs)
        object.__setattr__(self, "others", real_number(self.others, "PredictedRisk: others"))
        if self.at_least is None and self.at_most is None:
            raise ConstraintError("PredictedRisk: give at_least=p and/or at_most=p")
        for attr in ("at_least", "at_most"):
            p = getattr(self, attr)
            if p is None:
                continue
            p = real_number(p, f"PredictedRisk: {attr}")
            if not 0.0 < p < 1.0:
                raise ConstraintError(
                    f"PredictedRisk: {attr} must be a probability strictly between 0 and 1, got {p}"
                )
            object.__setattr__(self, attr, p)
        if self.at_least is not None and self.at_most is not None and self.at_least > self.at_most:
            raise ConstraintError(
                f"PredictedRisk: at_least={self.at_least} exceeds at_most={self.at_most}"
            )

    @property
    def example(self) -> dict[str, float]:
        """The example's feature values, ``{name: value}``."""
        return dict(self.when)

    def _example_text(self) -> str:
        if self.when:
            given = " and ".join(f"{n}={format_number(v)}" for n, v in self.when)
            return f"when {given} (all other features {format_number(self.others)})"
        return f"when all features are {format_number(self.others)}"

    def _describe_bound(self, attr: str) -> str:
        op = ">=" if attr == "at_least" else "<="
        return f"Predicted risk {op} {getattr(self, attr):.4g} {self._example_text()}"

    def describe(self) -> str:
        parts = []
        if self.at_least is not None:
            parts.append(f">= {self.at_least:.4g}")
        if self.at_most is not None:
            parts.append(f"<= {self.at_most:.4g}")
        return f"Predicted risk {' and '.join(parts)} {self._example_text()}"

    def to_rows(self, feature_names):
        label = self.describe()
        check_names(label, self.example, feature_names, "feature")
        points: dict[str, float] = {INTERCEPT: 1.0}
        if self.others != 0:
            points.update({f: self.others for f in feature_names})
        points.update({n: v for n, v in self.when})
        points = {k: v for k, v in points.items() if v != 0}
        integral = all(float(v).is_integer() for v in points.values())
        rows = []
        if self.at_least is not None:
            t = _logit(self.at_least)
            lower = math.ceil(t - _ROUND_TOL) if integral else t
            rows.append(
                LinearRow(
                    self._describe_bound("at_least"),
                    dict(points),
                    lower=float(lower),
                    logit_bounds=(t, math.inf),
                )
            )
        if self.at_most is not None:
            t = _logit(self.at_most)
            upper = math.floor(t + _ROUND_TOL) if integral else t
            rows.append(
                LinearRow(
                    self._describe_bound("at_most"),
                    dict(points),
                    upper=float(upper),
                    logit_bounds=(-math.inf, t),
                )
            )
        return rows


def _logit(p: float) -> float:
    return math.log(p) - math.log1p(-p)


# --- single features -------------------------------------------------------------------
@dataclass(frozen=True)
class Sign(RiskScoreConstraint):
    """Points of ``feature`` are >= 0 (``sign=+1``) or <= 0 (``sign=-1``).

    The same restriction can be given as coefficient bounds (``signs=`` of the problem);
    as a row it shows by name in the constraint list.
    """

    feature: str
    sign: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.sign, bool) or self.sign not in (1, -1):
            raise ConstraintError(
                f"Sign({self.feature!r}): sign must be +1 or -1, got {self.sign!r}"
            )

    def describe(self) -> str:
        word = "non-negative" if self.sign > 0 else "non-positive"
        return f"Points of {self.feature} are {word}"

    def to_rows(self, feature_names):
        check_name(self.describe(), self.feature, feature_names, "feature")
        if self.sign > 0:
            return [LinearRow(self.describe(), {self.feature: 1.0}, lower=0.0)]
        return [LinearRow(self.describe(), {self.feature: 1.0}, upper=0.0)]


@dataclass(frozen=True)
class Include(RiskScoreConstraint):
    """Always use ``feature``: ``alpha_j >= 1``.

    Solvers also enforce ``lambda_j != 0`` whenever ``alpha_j = 1``.
    """

    feature: str

    def describe(self) -> str:
        return f"Use {self.feature}"

    def to_rows(self, feature_names):
        check_name(self.describe(), self.feature, feature_names, "feature")
        return [LinearRow(self.describe(), included={self.feature: 1.0}, lower=1.0)]


@dataclass(frozen=True)
class Exclude(RiskScoreConstraint):
    """Never use ``feature``: ``alpha_j <= 0`` and ``lambda_j = 0`` (two rows)."""

    feature: str

    def describe(self) -> str:
        return f"Do not use {self.feature}"

    def to_rows(self, feature_names):
        label = self.describe()
        check_name(label, self.feature, feature_names, "feature")
        return [
            LinearRow(label, included={self.feature: 1.0}, upper=0.0),
            LinearRow(label, points={self.feature: 1.0}, lower=0.0, upper=0.0),
        ]


@dataclass(frozen=True)
class PointsBetween(RiskScoreConstraint):
    """``lo <= lambda_j <= hi``; use ``None`` for an open side."""

    feature: str
    lo: float | None = None
    hi: float | None = None

    def __post_init__(self) -> None:
        if self.lo is None and self.hi is None:
            raise ConstraintError(f"PointsBetween({self.feature!r}): give lo and/or hi")
        lo = -math.inf if self.lo is None else real_number(self.lo, "PointsBetween: lo")
        hi = math.inf if self.hi is None else real_number(self.hi, "PointsBetween: hi")
        if lo > hi:
            raise ConstraintError(
                f"PointsBetween({self.feature!r}): lo={format_number(lo)} exceeds "
                f"hi={format_number(hi)}"
            )

    def describe(self) -> str:
        if self.lo is None:
            return f"Points of {self.feature} at most {format_number(self.hi)}"
        if self.hi is None:
            return f"Points of {self.feature} at least {format_number(self.lo)}"
        lo, hi = format_number(self.lo), format_number(self.hi)
        return f"Points of {self.feature} between {lo} and {hi}"

    def to_rows(self, feature_names):
        check_name(self.describe(), self.feature, feature_names, "feature")
        lo = -math.inf if self.lo is None else float(self.lo)
        hi = math.inf if self.hi is None else float(self.hi)
        return [LinearRow(self.describe(), {self.feature: 1.0}, lower=lo, upper=hi)]


# --- general ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LinearConstraint(RiskScoreConstraint):
    """Any linear constraint: ``lower <= sum points[f]*lambda_f + sum included[f]*alpha_f
    <= upper``. Use ``INTERCEPT`` (``"(Intercept)"``) as a key of ``points`` for
    ``lambda_0``.
    """

    points: tuple[tuple[str, float], ...] = ()
    included: tuple[tuple[str, float], ...] = ()
    lower: float = -math.inf
    upper: float = math.inf
    name: str | None = None

    def __post_init__(self) -> None:
        for attr in ("points", "included"):
            value = getattr(self, attr)
            if isinstance(value, Mapping):
                value = tuple(value.items())
            try:
                pairs = tuple(
                    (n, real_number(c, f"LinearConstraint: coefficient of {n!r}")) for n, c in value
                )
            except (TypeError, ValueError) as exc:
                if isinstance(exc, ConstraintError):
                    raise
                raise ConstraintError(
                    f"LinearConstraint: {attr} must map feature names to numbers"
                ) from None
            object.__setattr__(self, attr, pairs)
        if not self.points and not self.included:
            raise ConstraintError("LinearConstraint: needs at least one variable")
        lower = (
            -math.inf if self.lower is None else real_number(self.lower, "LinearConstraint: lower")
        )
        upper = (
            math.inf if self.upper is None else real_number(self.upper, "LinearConstraint: upper")
        )
        if lower == -math.inf and upper == math.inf:
            raise ConstraintError("LinearConstraint: give lower and/or upper")
        if lower > upper:
            raise ConstraintError(
                f"LinearConstraint {self.describe()!r}: lower {lower} exceeds upper {upper}"
            )
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)

    def describe(self) -> str:
        if self.name:
            return self.name
        terms = [f"{format_number(c)}*points[{n}]" for n, c in self.points]
        terms += [f"{format_number(c)}*used[{n}]" for n, c in self.included]
        body = " + ".join(terms)
        lower, upper = self.lower, self.upper
        if lower is not None and upper is not None and lower == upper:
            return f"{body} == {format_number(lower)}"
        if lower is not None and lower != -math.inf and upper is not None and upper != math.inf:
            return f"{format_number(lower)} <= {body} <= {format_number(upper)}"
        if lower is not None and lower != -math.inf:
            return f"{body} >= {format_number(lower)}"
        return f"{body} <= {format_number(upper)}"

    def to_rows(self, feature_names):
        label = self.describe()
        check_names(label, (n for n, _ in self.points if n != INTERCEPT), feature_names, "feature")
        check_names(label, (n for n, _ in self.included), feature_names, "feature")
        points: dict[str, float] = {}
        for n, c in self.points:
            points[n] = points.get(n, 0.0) + c
        included: dict[str, float] = {}
        for n, c in self.included:
            included[n] = included.get(n, 0.0) + c
        return [LinearRow(label, points, included, lower=self.lower, upper=self.upper)]


# --- compiling -------------------------------------------------------------------------
def constraints_to_rows(
    constraints: Iterable, feature_names: Sequence[str], problem: Any = None
) -> list[LinearRow]:
    """Compile readable constraints, Pyomo models and raw rows to :class:`LinearRow`.

    Parameters
    ----------
    constraints : iterable
        :class:`LinearRow` objects, readable constraints (objects with
        ``to_rows(feature_names)``, such as the classes above), Pyomo models built by
        :func:`riskexplore.risk_score.pyomo.risk_score_model`, and (nested) lists or
        tuples of these.
    feature_names : sequence of str
        The features of the problem.
    problem : RiskScoreProblem, optional
        The problem being built (constraints on the data, such as
        :class:`GroupCalibration`, need it).

    Returns
    -------
    list of LinearRow
        The rows.

    Raises
    ------
    ConstraintError
        For anything else, malformed constraints and unknown features.
    """
    return compile_constraints(
        constraints,
        feature_names,
        row_types=(LinearRow,),
        read_pyomo=rows_from_pyomo,
        problem=problem,
        family="risk score",
        examples="a readable constraint (e.g. MaxFeatures, AtMostKOf, Implies), a LinearRow, "
        "a Pyomo model from risk_score_model, or a list of these",
    )
