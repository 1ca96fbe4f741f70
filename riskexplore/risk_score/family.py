"""Risk scores as a model family: what the layers above need to know about them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

import riskexplore.risk_score.constraints as rules
from riskexplore.core.certificate import Certificate
from riskexplore.core.params import Interval, validate
from riskexplore.core.registry import (
    BUILTIN_COMMANDS,
    AlternativesSpec,
    AuditSpec,
    ModelFamily,
    PathPlot,
    PlugIns,
    RawTableSpec,
    ScalePriceSpec,
    ValidationSpec,
)
from riskexplore.data.binarize import Binarizer
from riskexplore.data.validation import check_magnitude, check_training_data
from riskexplore.errors import InputError
from riskexplore.risk_score import edits
from riskexplore.risk_score.constraints import AtMostKOf, Exclude, Include
from riskexplore.risk_score.fit import build_problem, fit_risk_score
from riskexplore.risk_score.group_calibration import GroupCalibration
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.model import RiskScore, format_intercept, format_multiplier
from riskexplore.risk_score.near_optimal import near_optimal_models
from riskexplore.risk_score.operating_point import OperatingPoint
from riskexplore.risk_score.problem import (
    COEF_MAX,
    COEF_MIN,
    MAX_FEATURE_MAGNITUDE,
    MULTIPLIER_MAX,
    MULTIPLIER_MIN,
    PARAMETERS,
    fixed_scale_only,
    multiplier_range,
)
from riskexplore.risk_score.raw_settings import split_raw
from riskexplore.risk_score.raw_table import BINARIZE_OPTIONS
from riskexplore.risk_score.recalibration import recalibrate_risk_score
from riskexplore.risk_score.scale_price import ScalePrice, price_of_run
from riskexplore.risk_score.size_path import RiskScorePathSession, describe_path_row

__all__ = ["FAMILY"]

#: The Explorer's risk-score settings and their defaults (``scale``: how points become a
#: risk, ``"fixed"`` or ``"learned"``, with the learned multiplier's bounds).
SETTINGS: dict[str, Any] = {
    "max_size": 5,
    "coef_min": COEF_MIN,
    "coef_max": COEF_MAX,
    "scale": "fixed",
    "multiplier_min": MULTIPLIER_MIN,
    "multiplier_max": MULTIPLIER_MAX,
}

#: The readable constraints on the points alone (linear in the points, so survival scores
#: take them too).
POINTS_CONSTRAINT_TYPES: tuple[type, ...] = (
    rules.MaxFeatures,
    rules.MinFeatures,
    rules.AtMostKOf,
    rules.AtLeastKOf,
    rules.Implies,
    rules.NotTogether,
    rules.Sign,
    rules.Include,
    rules.Exclude,
    rules.PointsBetween,
    rules.LinearConstraint,
)

#: The readable risk-score constraints (what a study file may name; ``Exclusive`` is
#: ``NotTogether`` under another name): those on the points and those on the risk.
CONSTRAINT_TYPES: tuple[type, ...] = (
    *POINTS_CONSTRAINT_TYPES,
    rules.PredictedRisk,
    GroupCalibration,
    OperatingPoint,
)

#: What the size and the points range may be (see :mod:`riskexplore.core.params`).
POINTS_SETTING_CONSTRAINTS = {
    "max_size": [Interval(int, 1, None)],
    "coef_min": [Interval(int, None, None)],
    "coef_max": [Interval(int, None, None)],
}

#: What each setting may be (the scale's settings are the problem's own).
SETTING_CONSTRAINTS = {
    **POINTS_SETTING_CONSTRAINTS,
    **{k: PARAMETERS[k] for k in ("scale", "multiplier_min", "multiplier_max")},
}


def from_incumbent(
    incumbent: Mapping[str, Any], certificate: Certificate, stats: dict, template=None
) -> RiskScore:
    """A risk score of a solver incumbent ``{"intercept": b, "points": {name: p}}`` (with
    ``"multiplier"`` for the learned scale).

    ``template`` (an earlier model of the same problem) supplies feature names and ranges.

    Parameters
    ----------
    incumbent : mapping
        The incumbent of a solve event.
    certificate : Certificate
        The certificate to attach (bounds at that moment).
    stats : dict
        Statistics to attach.
    template : RiskScore, optional
        An earlier model of the same problem.

    Returns
    -------
    RiskScore
        The model.
    """
    points = {str(k): int(v) for k, v in (incumbent.get("points") or {}).items()}
    names = list(getattr(template, "feature_names", None) or points)
    if any(n not in names for n in points):
        names = list(points)
    info = getattr(template, "feature_info", None)
    info = {n: info[n] for n in names if n in info} if info else None
    if info is not None and len(info) != len(names):
        info = None
    multiplier = float(incumbent.get("multiplier", 1.0))
    return RiskScore(
        names,
        points,
        int(incumbent.get("intercept", 0)),
        certificate,
        stats,
        info,
        multiplier=multiplier,
    )


def describe_incumbent(incumbent: Mapping[str, Any]) -> str:
    """``"intercept -2; age +1, bmi -1"`` (and ``"; m 3.107"`` for a learned scale).

    Parameters
    ----------
    incumbent : mapping
        The incumbent of a solve event.

    Returns
    -------
    str
        The description.
    """
    points = incumbent.get("points") or {}
    terms = ", ".join(f"{name} {int(p):+d}" for name, p in points.items()) or "no features"
    text = f"intercept {int(incumbent.get('intercept', 0))}; {terms}"
    if "multiplier" in incumbent:
        text += f"; m {format_multiplier(float(incumbent['multiplier']))}"
    return text


def card_table(model: RiskScore) -> tuple[list[str], list[list[str]]]:
    """``(["feature", "points"], [names, points])`` with the intercept first (and the
    multiplier last when the scale is learned).

    Parameters
    ----------
    model : RiskScore
        The model.

    Returns
    -------
    tuple
        The header and the columns.
    """
    points = model.points
    names = ["(intercept)", *points]
    sign = "+" if model.intercept >= 0 else ""
    values = [sign + format_intercept(model.intercept), *(f"{int(p):+d}" for p in points.values())]
    if model.scale == "learned":
        names.append("(multiplier m: risk = σ(score / m))")
        values.append(format_multiplier(model.multiplier))
    return ["feature", "points"], [names, values]


def compare_table(a_model: RiskScore, b_model: RiskScore, names: tuple[str, str]) -> pd.DataFrame:
    """The points of two risk scores (features with points in either), intercept first.

    Parameters
    ----------
    a_model, b_model : RiskScore
        The models.
    names : (str, str)
        Their labels (the points columns).

    Returns
    -------
    DataFrame
        ``feature``, the points of each model and ``changed``.
    """
    a, b = names
    pa, pb = a_model.all_points, b_model.all_points
    features = [f for f in pa if pa[f] or pb.get(f, 0)]
    features += [f for f in pb if f not in pa and pb[f]]
    rows = [{"feature": "(intercept)", a: a_model.intercept, b: b_model.intercept}]
    rows += [{"feature": f, a: pa.get(f, 0), b: pb.get(f, 0)} for f in features]
    frame = pd.DataFrame(rows, columns=["feature", a, b])
    frame["changed"] = frame[a] != frame[b]
    return frame


def check_settings(settings: Mapping[str, Any]) -> None:
    """Raise :class:`InputError` unless the settings can be fitted.

    The points range must contain 0 and another value; the multiplier's range must
    have ``0 < multiplier_min < multiplier_max``.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings (``max_size``, ``coef_min``, ``coef_max``, ``scale``,
        ``multiplier_min``, ``multiplier_max``).
    """
    check_points_settings(settings, SETTING_CONSTRAINTS)
    multiplier_range("learned", settings["multiplier_min"], settings["multiplier_max"])


def check_points_settings(
    settings: Mapping[str, Any],
    constraints: Mapping[str, list],
    range_name: str = "coefficient range",
) -> None:
    """Raise :class:`InputError` unless the settings meet ``constraints`` and the points
    range contains 0 and another value.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings (``coef_min``, ``coef_max`` and the keys of ``constraints``).
    constraints : mapping
        What each setting may be (see :func:`riskexplore.core.params.validate`).
    range_name : str
        The points range in the message.
    """
    validate(constraints, {k: settings[k] for k in constraints})
    lo, hi = settings["coef_min"], settings["coef_max"]
    if not lo <= 0 <= hi or lo == hi:
        raise InputError(f"the {range_name} [{lo}, {hi}] must contain 0 and another value")


def points_arguments(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``max_size``, ``coef_min`` and ``coef_max`` of the Explorer's settings, as integers.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings.

    Returns
    -------
    dict
        The fit arguments.
    """
    return {k: int(settings[k]) for k in ("max_size", "coef_min", "coef_max")}


def raw_arguments(binarizer: Binarizer | None, linear: Sequence[str]) -> dict[str, Any]:
    """``binarize`` (and ``linear`` with a binarizer): the raw-table fit arguments.

    Parameters
    ----------
    binarizer : Binarizer or None
        The fitted binarizer of the raw table; None: the columns as they are, whatever the
        fit's default.
    linear : sequence of str
        Columns kept as numbers beside the binarizer's items.

    Returns
    -------
    dict
        The fit arguments.
    """
    if binarizer is None:
        return {"binarize": None}
    return {"binarize": binarizer, "linear": [str(c) for c in linear]}


def fit_arguments(
    settings: Mapping[str, Any],
    *,
    categorical: Sequence[str] = (),
    groups=None,
    binarizer: Binarizer | None = None,
    linear: Sequence[str] = (),
) -> dict[str, Any]:
    """The arguments of :func:`fit_risk_score` for the Explorer's settings.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings.
    categorical, groups
        Not used by risk scores (categorical columns are the binarizer's).
    binarizer : Binarizer, optional
        The fitted binarizer of the raw table (see :func:`binarizer_for`); None: the
        columns are the features, as they are.
    linear : sequence of str
        Columns kept as numbers (points per unit) beside the binarizer's items.

    Returns
    -------
    dict
        Keyword arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score` (the
        scale and the multiplier's bounds only with the learned scale; ``binarize``, and
        ``linear`` with a binarizer, so at most one item of each column is used).
    """
    out = points_arguments(settings)
    if settings["scale"] == "learned":
        out["scale"] = "learned"
        out["multiplier_min"] = float(settings["multiplier_min"])
        out["multiplier_max"] = float(settings["multiplier_max"])
    return out | raw_arguments(binarizer, linear)


def binarizer_for(
    settings: Mapping[str, Any],
    *,
    thresholds: Mapping[str, Sequence[float]] | None = None,
    categorical: Sequence[str] = (),
) -> Binarizer:
    """The (unfitted) binarizer of ``binarize="auto"`` with the user's cut points.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings (not used: risk scores always binarize a raw table).
    thresholds : mapping column -> cut points, optional
        Cut points replacing a column's own (``{"age": [65, 75]}``: ``age ≥ 65``,
        ``age ≥ 75``).
    categorical : sequence of str
        Columns to treat as categories (one item per value).

    Returns
    -------
    Binarizer
        With :data:`~riskexplore.risk_score.raw_table.BINARIZE_OPTIONS`.
    """
    return Binarizer(
        thresholds={c: list(v) for c, v in thresholds.items()} if thresholds else None,
        categorical=[str(c) for c in categorical] or "auto",
        **BINARIZE_OPTIONS,
    )


def excluded_features(constraint) -> tuple[str, ...] | None:
    """The features a rule naming a variable keeps out of the score:
    ``AtMostKOf(features, 0)`` keeps out all of them; None for any other rule.

    Parameters
    ----------
    constraint : object
        A rule.

    Returns
    -------
    tuple of str or None
        The features.
    """
    if isinstance(constraint, AtMostKOf) and constraint.k == 0:
        return tuple(constraint.features)
    return None


def exclude_features(features: Sequence[str]) -> AtMostKOf:
    """One rule keeping every feature of ``features`` out of the score (a rule naming a
    variable: "do not use age" keeps out every item of age).

    Parameters
    ----------
    features : sequence of str
        The features (items of a column, say).

    Returns
    -------
    AtMostKOf
        ``AtMostKOf(features, 0)``.
    """
    return AtMostKOf(tuple(str(f) for f in features), 0)


def check_data(X, y, settings: Mapping[str, Any]) -> None:
    """Numeric features without missing values.

    Parameters
    ----------
    X : DataFrame
        Features (a raw table's items and linear columns, when it is binarized).
    y : Series
        Outcome.
    settings : mapping
        The Explorer's settings.

    Raises
    ------
    InputError
        For a non-numeric column, missing values or values too large for the solvers.
    """
    X_array, _y, _w, names = check_training_data(X, y)
    check_magnitude(X_array, names, MAX_FEATURE_MAGNITUDE, "a risk score")


def feature_constraints(model: RiskScore, feature: str, force_in: bool) -> list:
    """``[Include(feature)]`` or ``[Exclude(feature)]``.

    Parameters
    ----------
    model : RiskScore
        The best model (not used: a feature is one column).
    feature : str
        The feature.
    force_in : bool
        Force it into the model, or leave it out.

    Returns
    -------
    list
        The constraint.
    """
    return [Include(feature) if force_in else Exclude(feature)]


def describe_model(model: RiskScore) -> dict[str, Any]:
    """``intercept`` and ``coefficients`` (the non-zero points by feature).

    Parameters
    ----------
    model : RiskScore
        The model.

    Returns
    -------
    dict
        The fields.
    """
    return {"intercept": model.intercept, "coefficients": dict(model.points)}


def warm_up() -> None:
    """Compile (or load from numba's cache) the search of both scales on a tiny problem
    (the support kernel is the learned scale's)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(40, 3)), columns=["a", "b", "c"])
    y = (X["a"] + rng.random(40) > 0.8).astype(int)
    fit_risk_score(X, y, max_size=2, time_limit=30)
    fit_risk_score(X, y, max_size=2, time_limit=30, scale="learned")


#: Fit arguments that let solves on the same data share work: loss cuts depend only on
#: the data, so one pool serves every solve on it.
SHARED = {"cut_pool": CutPool}


def near_optimal_scores(X, y, **settings: Any):
    """:func:`~riskexplore.risk_score.near_optimal.near_optimal_models` with the fit's
    raw-table settings (``binarize``, ``linear``, ...): the set of the table's items, each
    model keeping the binarizer.

    Parameters
    ----------
    X, y
        Training data (a raw table with ``binarize``).
    **settings
        Arguments of ``near_optimal_models`` and the raw-table settings of
        :func:`~riskexplore.risk_score.fit.fit_risk_score`.

    Returns
    -------
    NearOptimalScores
        The set.
    """
    X, settings, binarizer = split_raw(X, settings, y)
    found = near_optimal_models(X, y, **settings)
    for record in found.models:
        record.model.binarizer = binarizer
    return found


def training_problem(X, y, settings: Mapping[str, Any], constraints: Sequence):
    """The problem the near-optimal search solves (for hand edits of a model read from a
    file), raw-table settings included.

    Parameters
    ----------
    X, y
        Training data.
    settings : mapping
        Fit arguments.
    constraints : sequence
        The rules.

    Returns
    -------
    RiskScoreProblem
        The problem.
    """
    X, rest, _binarizer = split_raw(X, {**settings, "constraints": list(constraints)}, y)
    return build_problem(X, y, **rest)


ALTERNATIVES = AlternativesSpec(
    near_optimal=near_optimal_scores,
    tolerance=0.01,
    tolerance_unit="relative",
    features_of=lambda model: tuple(model.points),
    all_features=lambda model: tuple(model.feature_names),
    feature_constraints=feature_constraints,
    shared=lambda: {name: make() for name, make in SHARED.items()},
    edit_kind="points",
    edit=edits.edit,
    describe_model=describe_model,
    unsupported=fixed_scale_only,
    training_problem=training_problem,
)


#: The Explorer's step 2 (a raw table's items, cut points and linear columns); survival
#: scores read a raw table the same way.
RAW_TABLE = RawTableSpec(
    binarizer=binarizer_for, linear=True, exclude=exclude_features, excluded=excluded_features
)


VALIDATION = ValidationSpec(
    card_score=lambda model, X: model.total_points(X),
    score_noun="total score",
    risk_of=lambda model, X: model.predict_risk(X),
    no_risk="",
    recalibrate=recalibrate_risk_score,
    logit_of=lambda model, X: model.decision_function(X),
)


FAMILY = ModelFamily(
    name="risk_score",
    label="Risk score",
    model_type=RiskScore,
    constraint_types=CONSTRAINT_TYPES,
    fit=fit_risk_score,
    size_parameter="max_size",
    size_noun="features",
    incumbent_key="points",
    from_incumbent=from_incumbent,
    describe_incumbent=describe_incumbent,
    card_table=card_table,
    compare_table=compare_table,
    settings=SETTINGS,
    check_settings=check_settings,
    fit_arguments=fit_arguments,
    check_data=check_data,
    comparable=("max_size", "coef_min", "coef_max", "scale", "multiplier_min", "multiplier_max"),
    path_session=RiskScorePathSession,
    path_metric="loss",
    describe_path_row=describe_path_row,
    path_plot=PathPlot(
        traces=(
            ("training loss", "loss", 1, ("loss_lower", "loss_upper")),
            ("train AUC", "train_auc", 2, None),
            ("test AUC", "test_auc", 2, None),
            ("train CAL", "train_cal", 3, None),
            ("test CAL", "test_cal", 3, None),
        ),
        titles=("Training loss with certified interval", "AUC", "CAL"),
        objective_label="loss",
        middle_percent=False,
    ),
    aliases=("riskslim", "risk"),
    alternatives=ALTERNATIVES,
    noun="score",
    shared=SHARED,
    audit=AuditSpec(
        metrics=("calibration", "auc", "fnr", "fpr", "ppv"), calibration_rule=GroupCalibration
    ),
    scale_price=ScalePriceSpec(of_run=price_of_run, result_type=ScalePrice),
    warm_up=warm_up,
    plugins=PlugIns(
        explorer_builder="riskexplore.widgets.builders.risk_score:EXPLORER_BUILDER",
        explorer_settings="riskexplore.widgets.explorer.risk_score_settings:RiskScoreSettings",
        command=BUILTIN_COMMANDS["risk_score"],
    ),
    raw_table=RAW_TABLE,
    validation=VALIDATION,
)
