"""Survival scores as a model family: what the layers above need to know about them.

The third family (issue 36). Its outcome is a time to event (``outcome="survival"``): ``y``
is scikit-survival's structured array ``[("event", bool), ("time", float)]``, so every
``(X, y)`` signature and row indexing of the layers above stays. It offers the fit
(``fit_survival_score``), live incumbents, the card, comparisons, the cut pool shared between
solves, a warm-up, the command ``riskexplore survival`` (``fit --time T --event E``), the
Explorer's settings (time column, horizon, size, points range), near-optimal sets and hand
edits (:mod:`~riskexplore.risk_score.survival.near_optimal`, ``ALTERNATIVES``), size paths
(:mod:`~riskexplore.risk_score.survival.size_path`) and, through ``riskexplore.audit``
(routed on the outcome), the subgroup audit; the Explorer's forest plot compares the
groups on O/E and Harrell's C (no rule limits a survival finding yet). Validation
(``validate``, ``recalibrate``, the report) reads :data:`VALIDATION`: the total points, the
risk by a horizon, the Breslow refit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.certificate import Certificate
from riskexplore.core.registry import (
    BUILTIN_COMMANDS,
    AuditSpec,
    ModelFamily,
    PathPlot,
    PlugIns,
    ValidationSpec,
)
from riskexplore.data.binarize import Binarizer
from riskexplore.data.survival import check_survival_outcome, time_unit_of
from riskexplore.errors import InputError
from riskexplore.risk_score.family import (
    POINTS_CONSTRAINT_TYPES,
    POINTS_SETTING_CONSTRAINTS,
    RAW_TABLE,
    check_points_settings,
    points_arguments,
    raw_arguments,
)
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.problem import COEF_MAX, COEF_MIN
from riskexplore.risk_score.survival.fit import fit_survival_score
from riskexplore.risk_score.survival.model import SurvivalScore, check_horizons
from riskexplore.risk_score.survival.near_optimal import ALTERNATIVES
from riskexplore.risk_score.survival.recalibration import recalibrate_survival_score
from riskexplore.risk_score.survival.size_path import SurvivalPathSession, describe_path_row

__all__ = ["FAMILY"]

#: The Explorer's survival settings and their defaults: the time column (the event column
#: is the Explorer's outcome), the horizon of the risk (None: the median follow-up), the
#: size and the points range.
SETTINGS: dict[str, Any] = {
    "time_column": None,
    "horizon": None,
    "max_size": 5,
    "coef_min": COEF_MIN,
    "coef_max": COEF_MAX,
}

#: The key of a survival score's incumbents in solve events (see ``SurvivalProblem.as_dict``).
INCUMBENT_KEY = "hazard_points"


def from_incumbent(
    incumbent: Mapping[str, Any], certificate: Certificate, stats: dict, template=None
) -> SurvivalScore:
    """A survival score of a solver incumbent ``{"hazard_points": {name: p}}``.

    It has points but no baseline hazard (the solve has not ended), so it shows a card but
    predicts no risk; ``template`` (an earlier model of the same problem) supplies the
    item names and horizons.

    Parameters
    ----------
    incumbent : mapping
        The incumbent of a solve event.
    certificate : Certificate
        The certificate to attach (bounds at that moment).
    stats : dict
        Statistics to attach.
    template : SurvivalScore, optional
        An earlier model of the same problem.

    Returns
    -------
    SurvivalScore
        The model.
    """
    points = {str(k): int(v) for k, v in (incumbent.get(INCUMBENT_KEY) or {}).items()}
    names = list(getattr(template, "feature_names", None) or points)
    names += [n for n in points if n not in names]
    horizons = getattr(template, "horizons", None) or None
    return SurvivalScore(names, points, None, horizons, certificate, stats)


def describe_incumbent(incumbent: Mapping[str, Any]) -> str:
    """``"age ≥ 75 +1, chf +1"`` (``"no items"`` for none).

    Parameters
    ----------
    incumbent : mapping
        The incumbent of a solve event.

    Returns
    -------
    str
        The description.
    """
    points = incumbent.get(INCUMBENT_KEY) or {}
    return ", ".join(f"{name} {int(p):+d}" for name, p in points.items()) or "no items"


def card_table(model: SurvivalScore) -> tuple[list[str], list[list[str]]]:
    """``(["item", "points"], [names, points])`` (no intercept: the baseline hazard is
    folded into the risk of each score).

    Parameters
    ----------
    model : SurvivalScore
        The model.

    Returns
    -------
    tuple
        The header and the columns.
    """
    points = model.points
    return ["item", "points"], [list(points), [f"{int(p):+d}" for p in points.values()]]


def compare_table(
    a_model: SurvivalScore, b_model: SurvivalScore, names: tuple[str, str]
) -> pd.DataFrame:
    """The points of two survival scores (items with points in either).

    Parameters
    ----------
    a_model, b_model : SurvivalScore
        The models.
    names : (str, str)
        Their labels (the points columns).

    Returns
    -------
    DataFrame
        ``item``, the points of each model and ``changed``.
    """
    a, b = names
    pa, pb = a_model.points, b_model.points
    items = [*pa, *(n for n in pb if n not in pa)]
    frame = pd.DataFrame(
        {"item": items, a: [pa.get(n, 0) for n in items], b: [pb.get(n, 0) for n in items]}
    )
    frame["changed"] = frame[a] != frame[b]
    return frame


def check_settings(settings: Mapping[str, Any]) -> None:
    """Raise :class:`InputError` unless the Explorer's survival settings can be fitted.

    Parameters
    ----------
    settings : mapping
        ``time_column`` (a column name, or None before it is chosen), ``horizon`` (a time
        ``> 0`` in the time column's unit, or None for the median follow-up), ``max_size``,
        ``coef_min`` and ``coef_max`` (the points range must contain 0 and another value).
    """
    check_points_settings(settings, POINTS_SETTING_CONSTRAINTS, "points range")
    column = settings["time_column"]
    if column is not None and (not isinstance(column, str) or not column):
        raise InputError(f"time_column must be a column name, got {column!r}")
    if settings["horizon"] is not None:
        check_horizons(settings["horizon"])


def fit_arguments(
    settings: Mapping[str, Any],
    *,
    categorical=(),
    groups=None,
    binarizer: Binarizer | None = None,
    linear: Sequence[str] = (),
) -> dict:
    """The arguments of :func:`fit_survival_score` for the Explorer's settings.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings (see :func:`check_settings`; ``horizon`` already resolved
        by the Explorer when it was left to its default).
    categorical, groups
        Unused (categorical columns are the binarizer's; no group rules).
    binarizer : Binarizer, optional
        The fitted binarizer of the Explorer's raw table (its step 2); None: the columns
        are the features, as they are.
    linear : sequence of str
        Columns kept as numbers (points per unit) beside the binarizer's items.

    Returns
    -------
    dict
        ``max_size``, ``coef_min``, ``coef_max``, ``horizon``, ``time_unit`` (the one the
        time column's name gives, else "time units"), ``binarize`` (and ``linear`` with a
        binarizer).
    """
    out = points_arguments(settings)
    horizon = settings["horizon"]
    out["horizon"] = None if horizon is None else float(horizon)
    out["time_unit"] = time_unit_of(settings["time_column"]) or "time units"
    return out | raw_arguments(binarizer, linear)


def check_data(X, y, settings: Mapping[str, Any]) -> None:
    """Raise :class:`InputError` unless ``y`` is a survival outcome with one row per row of X.

    Parameters
    ----------
    X : DataFrame or array
        The features.
    y : structured array
        ``[("event", bool), ("time", float)]`` (or any outcome
        :func:`~riskexplore.data.survival.check_survival_outcome` takes in one argument).
    settings : mapping
        Unused.
    """
    time, _ = check_survival_outcome(y)
    if len(time) != len(X):
        raise InputError(f"X has {len(X)} rows but y has {len(time)}; give one outcome per row")


def fit(X, y, **kwargs: Any) -> SurvivalScore:
    """``fit_survival_score(X, y, ...)`` with ``y`` the structured survival outcome.

    Parameters
    ----------
    X : DataFrame or array
        The features (a raw table is binarized).
    y : structured array
        ``[("event", bool), ("time", float)]``.
    **kwargs
        The arguments of :func:`~riskexplore.risk_score.survival.fit.fit_survival_score`.

    Returns
    -------
    SurvivalScore
        The model.
    """
    return fit_survival_score(X, y, None, **kwargs)


def warm_up() -> None:
    """Compile (or load from numba's cache) the Cox loss and bounds on a tiny problem."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(20, 2)).astype(float)
    fit_survival_score(X, rng.random(20), rng.random(20) < 0.7, max_size=1, n_jobs=1)


def validation_horizon(model: SurvivalScore, horizon=None) -> float:
    """The horizon of a validation: ``horizon`` checked, else the model's first.

    Parameters
    ----------
    model : SurvivalScore
        The model.
    horizon : float, optional
        One time ``> 0``.

    Returns
    -------
    float
        The horizon.

    Raises
    ------
    InputError
        For several horizons or a bad one, or none when the model has none.
    """
    if horizon is None:
        if not model.horizons:
            raise InputError("give a horizon (the model was fitted without one), e.g. horizon=365")
        return model.horizons[0]
    if np.ndim(horizon) != 0:
        raise InputError(f"validate at one horizon at a time, got {horizon!r}")
    return check_horizons(horizon)[0]


#: How survival scores are validated: total points, the risk by a horizon, Breslow refitted.
VALIDATION = ValidationSpec(
    card_score=lambda model, X: model.total_points(X),
    score_noun="total score",
    risk_of=lambda model, X, horizon: model.predict_risk(X, horizon),
    no_risk="",
    recalibrate=recalibrate_survival_score,
    horizon_of=validation_horizon,
)


FAMILY = ModelFamily(
    name="survival_score",
    label="Survival score",
    model_type=SurvivalScore,
    constraint_types=POINTS_CONSTRAINT_TYPES,
    fit=fit,
    size_parameter="max_size",
    size_noun="items",
    incumbent_key=INCUMBENT_KEY,
    from_incumbent=from_incumbent,
    describe_incumbent=describe_incumbent,
    card_table=card_table,
    compare_table=compare_table,
    settings=SETTINGS,
    check_settings=check_settings,
    fit_arguments=fit_arguments,
    check_data=check_data,
    comparable=("max_size", "coef_min", "coef_max", "horizon"),
    path_session=SurvivalPathSession,
    path_metric="cox_loss",
    describe_path_row=describe_path_row,
    path_plot=PathPlot(
        traces=(
            ("training loss", "cox_loss", 1, ("loss_lower", "loss_upper")),
            ("train C-index", "train_c_index", 2, None),
            ("test C-index", "test_c_index", 2, None),
        ),
        titles=("Training Cox loss with certified interval", "C-index (Harrell's C)", ""),
        objective_label="loss",
        middle_percent=False,
    ),
    aliases=("survival", "cox"),
    noun="score",
    alternatives=ALTERNATIVES,
    shared={"cut_pool": CutPool},
    audit=AuditSpec(metrics=("observed_expected", "c_index")),
    warm_up=warm_up,
    plugins=PlugIns(
        explorer_builder="riskexplore.widgets.builders.survival:EXPLORER_BUILDER",
        explorer_settings="riskexplore.widgets.explorer.survival_settings:SurvivalSettings",
        command=BUILTIN_COMMANDS["survival_score"],
    ),
    outcome="survival",
    validation=VALIDATION,
    # the Explorer's step 2 as for risk scores: the same items, cut points and linear columns
    raw_table=RAW_TABLE,
)
