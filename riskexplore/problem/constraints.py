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
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from riskexplore.errors import ConstraintError
from riskexplore.problem._common import Described, check_name, check_names
from riskexplore.problem._common import listing as _listing
from riskexplore.problem.rows import INTERCEPT, LinearRow

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
    "ReadableConstraint",
    "Sign",
    "constraints_to_rows",
]

#: Tolerance used when rounding logit(p) to an integer score threshold, so that
#: e.g. logit(0.5) = 0 (up to floating point noise) is not rounded to 1.
_ROUND_TOL = 1e-9


# --- helpers ---------------------------------------------------------------------------
def _check_feature(label: str, name, feature_names: Sequence[str]) -> str:
    """Return ``name`` if it is a known feature, else raise a helpful ConstraintError."""
    return check_name(label, name, feature_names, "feature")


def _check_features(label: str, names: Iterable, feature_names: Sequence[str]) -> None:
    check_names(label, names, feature_names, "feature")


def _name_tuple(features, what: str) -> tuple[str, ...]:
    """Normalise a group of feature names to a tuple without duplicates (order kept)."""
    if isinstance(features, str):
        raise ConstraintError(
            f"{what}: pass a list of feature names, not the single string {features!r}"
        )
    try:
        items = list(features)
    except TypeError:
        raise ConstraintError(
            f"{what}: expected a list of feature names, got {features!r}"
        ) from None
    if not items:
        raise ConstraintError(f"{what}: the list of features is empty")
    return tuple(dict.fromkeys(items))


def _count(k, what: str) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not float(k).is_integer():
        raise ConstraintError(f"{what}: k must be a whole number, got {k!r}")
    if k < 0:
        raise ConstraintError(f"{what}: k must be >= 0, got {k}")
    return int(k)


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConstraintError(f"{what} must be a number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ConstraintError(f"{what} is NaN")
    return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class ReadableConstraint(Described):
    """Base class of readable constraints: ``to_rows`` and ``describe``."""

    def to_rows(self, feature_names: Sequence[str]) -> list[LinearRow]:  # pragma: no cover
        raise NotImplementedError


# --- model size ------------------------------------------------------------------------
@dataclass(frozen=True)
class MaxFeatures(ReadableConstraint):
    """Use at most ``k`` features: ``sum_j alpha_j <= k``."""

    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _count(self.k, "MaxFeatures"))

    def describe(self) -> str:
        return f"Use at most {self.k} feature{'s' if self.k != 1 else ''}"

    def to_rows(self, feature_names):
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in feature_names}, upper=float(self.k)
            )
        ]


@dataclass(frozen=True)
class MinFeatures(ReadableConstraint):
    """Use at least ``k`` features: ``sum_j alpha_j >= k``."""

    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _count(self.k, "MinFeatures"))

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
class AtMostKOf(ReadableConstraint):
    """Group sparsity: use at most ``k`` of ``features`` (``sum_{j in G} alpha_j <= k``).

    Typical use: at most one of several thresholds of the same variable,
    ``AtMostKOf(["age<30", "age<45", "age<60"])``.
    """

    features: tuple[str, ...]
    k: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", _name_tuple(self.features, type(self).__name__))
        object.__setattr__(self, "k", _count(self.k, type(self).__name__))

    def describe(self) -> str:
        return f"Use at most {self.k} of: {_listing(self.features)}"

    def to_rows(self, feature_names):
        _check_features(self.describe(), self.features, feature_names)
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in self.features}, upper=float(self.k)
            )
        ]


@dataclass(frozen=True)
class AtLeastKOf(ReadableConstraint):
    """Use at least ``k`` of ``features`` (``sum_{j in G} alpha_j >= k``).

    ``k`` larger than the group is accepted here and reported by the feasibility check.
    """

    features: tuple[str, ...]
    k: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", _name_tuple(self.features, type(self).__name__))
        object.__setattr__(self, "k", _count(self.k, type(self).__name__))

    def describe(self) -> str:
        return f"Use at least {self.k} of: {_listing(self.features)}"

    def to_rows(self, feature_names):
        _check_features(self.describe(), self.features, feature_names)
        return [
            LinearRow(
                self.describe(), included={f: 1.0 for f in self.features}, lower=float(self.k)
            )
        ]


@dataclass(frozen=True)
class Implies(ReadableConstraint):
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
        then = (self.then_any,) if isinstance(self.then_any, str) else self.then_any
        then = _name_tuple(then, f"Implies({self.if_feature!r}, then_any=...)")
        if self.if_feature in then:
            raise ConstraintError(
                f"Implies: {self.if_feature!r} cannot imply itself; remove it from then_any"
            )
        object.__setattr__(self, "then_any", then)

    def describe(self) -> str:
        return f"If {self.if_feature} is used then {_listing(self.then_any, ' or ')} is used"

    def to_rows(self, feature_names):
        label = self.describe()
        _check_features(label, (self.if_feature, *self.then_any), feature_names)
        included = {self.if_feature: 1.0}
        included.update({f: -1.0 for f in self.then_any})
        return [LinearRow(label, included=included, upper=0.0)]


@dataclass(frozen=True)
class NotTogether(ReadableConstraint):
    """Features ``a`` and ``b`` are not both used: ``alpha_a + alpha_b <= 1``."""

    a: str
    b: str

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ConstraintError(f"NotTogether: needs two different features, got {self.a!r}")

    def describe(self) -> str:
        return f"Do not use both {self.a} and {self.b}"

    def to_rows(self, feature_names):
        _check_features(self.describe(), (self.a, self.b), feature_names)
        return [LinearRow(self.describe(), included={self.a: 1.0, self.b: 1.0}, upper=1.0)]


#: Alias of :class:`NotTogether`.
Exclusive = NotTogether


# --- predicted risk --------------------------------------------------------------------
@dataclass(frozen=True)
class PredictedRisk(ReadableConstraint):
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
        pairs = tuple((n, _number(v, f"PredictedRisk: value of {n!r}")) for n, v in pairs)
        object.__setattr__(self, "when", pairs)
        object.__setattr__(self, "others", _number(self.others, "PredictedRisk: others"))
        if self.at_least is None and self.at_most is None:
            raise ConstraintError("PredictedRisk: give at_least=p and/or at_most=p")
        for attr in ("at_least", "at_most"):
            p = getattr(self, attr)
            if p is None:
                continue
            p = _number(p, f"PredictedRisk: {attr}")
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
        return dict(self.when)

    def _example_text(self) -> str:
        if self.when:
            given = " and ".join(f"{n}={_fmt(v)}" for n, v in self.when)
            return f"when {given} (all other features {_fmt(self.others)})"
        return f"when all features are {_fmt(self.others)}"

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
        _check_features(label, self.example, feature_names)
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
class Sign(ReadableConstraint):
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
        _check_feature(self.describe(), self.feature, feature_names)
        if self.sign > 0:
            return [LinearRow(self.describe(), {self.feature: 1.0}, lower=0.0)]
        return [LinearRow(self.describe(), {self.feature: 1.0}, upper=0.0)]


@dataclass(frozen=True)
class Include(ReadableConstraint):
    """Always use ``feature``: ``alpha_j >= 1``.

    Solvers also enforce ``lambda_j != 0`` whenever ``alpha_j = 1``.
    """

    feature: str

    def describe(self) -> str:
        return f"Use {self.feature}"

    def to_rows(self, feature_names):
        _check_feature(self.describe(), self.feature, feature_names)
        return [LinearRow(self.describe(), included={self.feature: 1.0}, lower=1.0)]


@dataclass(frozen=True)
class Exclude(ReadableConstraint):
    """Never use ``feature``: ``alpha_j <= 0`` and ``lambda_j = 0`` (two rows)."""

    feature: str

    def describe(self) -> str:
        return f"Do not use {self.feature}"

    def to_rows(self, feature_names):
        label = self.describe()
        _check_feature(label, self.feature, feature_names)
        return [
            LinearRow(label, included={self.feature: 1.0}, upper=0.0),
            LinearRow(label, points={self.feature: 1.0}, lower=0.0, upper=0.0),
        ]


@dataclass(frozen=True)
class PointsBetween(ReadableConstraint):
    """``lo <= lambda_j <= hi``; use ``None`` for an open side."""

    feature: str
    lo: float | None = None
    hi: float | None = None

    def __post_init__(self) -> None:
        if self.lo is None and self.hi is None:
            raise ConstraintError(f"PointsBetween({self.feature!r}): give lo and/or hi")
        lo = -math.inf if self.lo is None else _number(self.lo, "PointsBetween: lo")
        hi = math.inf if self.hi is None else _number(self.hi, "PointsBetween: hi")
        if lo > hi:
            raise ConstraintError(
                f"PointsBetween({self.feature!r}): lo={_fmt(lo)} exceeds hi={_fmt(hi)}"
            )

    def describe(self) -> str:
        if self.lo is None:
            return f"Points of {self.feature} at most {_fmt(self.hi)}"
        if self.hi is None:
            return f"Points of {self.feature} at least {_fmt(self.lo)}"
        return f"Points of {self.feature} between {_fmt(self.lo)} and {_fmt(self.hi)}"

    def to_rows(self, feature_names):
        _check_feature(self.describe(), self.feature, feature_names)
        lo = -math.inf if self.lo is None else float(self.lo)
        hi = math.inf if self.hi is None else float(self.hi)
        return [LinearRow(self.describe(), {self.feature: 1.0}, lower=lo, upper=hi)]


# --- general ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LinearConstraint(ReadableConstraint):
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
                    (n, _number(c, f"LinearConstraint: coefficient of {n!r}")) for n, c in value
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
        lower = -math.inf if self.lower is None else _number(self.lower, "LinearConstraint lower")
        upper = math.inf if self.upper is None else _number(self.upper, "LinearConstraint upper")
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
        terms = [f"{_fmt(c)}*points[{n}]" for n, c in self.points]
        terms += [f"{_fmt(c)}*used[{n}]" for n, c in self.included]
        body = " + ".join(terms)
        lower, upper = self.lower, self.upper
        if lower is not None and upper is not None and lower == upper:
            return f"{body} == {_fmt(lower)}"
        if lower is not None and lower != -math.inf and upper is not None and upper != math.inf:
            return f"{_fmt(lower)} <= {body} <= {_fmt(upper)}"
        if lower is not None and lower != -math.inf:
            return f"{body} >= {_fmt(lower)}"
        return f"{body} <= {_fmt(upper)}"

    def to_rows(self, feature_names):
        label = self.describe()
        _check_features(label, (n for n, _ in self.points if n != INTERCEPT), feature_names)
        _check_features(label, (n for n, _ in self.included), feature_names)
        points: dict[str, float] = {}
        for n, c in self.points:
            points[n] = points.get(n, 0.0) + c
        included: dict[str, float] = {}
        for n, c in self.included:
            included[n] = included.get(n, 0.0) + c
        return [LinearRow(label, points, included, lower=self.lower, upper=self.upper)]


# --- compiling -------------------------------------------------------------------------
def constraints_to_rows(constraints: Iterable, feature_names: Sequence[str]) -> list[LinearRow]:
    """Compile readable constraints, Pyomo models and raw rows to :class:`LinearRow`.

    Accepts :class:`LinearRow` objects, objects with ``to_rows(feature_names)`` (the
    readable constraints above), Pyomo models built by
    :func:`riskexplore.problem.pyomo_bridge.risk_score_model`, and (nested) lists or tuples
    of these. Anything else raises :class:`ConstraintError`.
    """
    feature_names = list(feature_names)
    rows: list[LinearRow] = []
    _collect(constraints, feature_names, rows, top=True)
    return rows


def _collect(item, feature_names: list[str], rows: list[LinearRow], top: bool = False) -> None:
    if isinstance(item, LinearRow):
        rows.append(item)
        return
    if hasattr(item, "to_rows") and not isinstance(item, type):
        out = item.to_rows(feature_names)
        for row in out:
            if not isinstance(row, LinearRow):
                raise ConstraintError(
                    f"{type(item).__name__}.to_rows returned {row!r}, not a LinearRow"
                )
        rows.extend(out)
        return
    if _is_pyomo_model(item):
        from riskexplore.problem.pyomo_bridge import rows_from_pyomo

        rows.extend(rows_from_pyomo(item, feature_names))
        return
    if isinstance(item, (list, tuple)) or (
        top and isinstance(item, Iterable) and not isinstance(item, (str, bytes, Mapping))
    ):
        for sub in item:
            _collect(sub, feature_names, rows)
        return
    raise ConstraintError(
        f"cannot use {item!r} as a constraint; use a readable constraint (e.g. MaxFeatures, "
        "AtMostKOf, Implies), a LinearRow, a Pyomo model from risk_score_model, or a list "
        "of these"
    )


def _is_pyomo_model(item) -> bool:
    module = type(item).__module__ or ""
    return module.startswith("pyomo.") and hasattr(item, "component_data_objects")
