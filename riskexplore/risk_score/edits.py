"""Hand edits of a risk score, each with its certified distance to the best score.

:func:`with_points` (``RiskScore.with_points``) changes the points of some features and
returns a new model (a value): its card, loss and objective are recomputed on the
training data, and its certificate keeps the *lower bound of the original solve*. That
bound holds for every model of the original settings, so ``objective - lower bound`` is a
proven bound on how much worse than the best score the edit is (a
:class:`~riskexplore.core.distance.Distance`). An edit that breaks a bound or constraint of
the original search says which (``distance.breaks``): the bound then compares it with the
best model that obeys them.

The training data come from the problem the fit keeps on the model (never serialised); a
model read from JSON needs ``X`` and ``y`` again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from riskexplore.core.certificate import Certificate
from riskexplore.core.constraints import close_matches_hint
from riskexplore.core.distance import Distance, attached_problem
from riskexplore.core.params import Interval, validate
from riskexplore.errors import InputError
from riskexplore.risk_score.coefficients import CoefficientSet
from riskexplore.risk_score.problem import (
    C0,
    COEF_MAX,
    COEF_MIN,
    INTERCEPT_MAX,
    INTERCEPT_MIN,
    RiskScoreProblem,
    fixed_scale_only,
)
from riskexplore.risk_score.raw_table import item_frame, reads_raw

__all__ = [
    "best_intercept",
    "certified_edit",
    "edit",
    "model_at",
    "problem_of",
    "saved_space",
    "set_points",
    "unsaved_constraints",
    "whole",
    "with_points",
]

#: Statistics of a solve that do not describe an edited model.
_SOLVE_STATS = ("nodes", "cuts", "time", "solver")


def problem_of(model, X=None, y=None) -> tuple[RiskScoreProblem, list[str]]:
    """The training problem of ``model``: the one its fit kept, or one rebuilt from
    ``X, y`` and the settings saved with the model.

    Parameters
    ----------
    model : RiskScore
        The model.
    X, y : optional
        The training data (needed for a model read from JSON).

    Returns
    -------
    tuple
        ``(problem, notes)``: notes say what a rebuilt problem cannot check.

    Raises
    ------
    InputError
        Without training data, or with only one of ``X`` and ``y``.
    """
    problem = attached_problem(model, X, y, noun="risk score", call="with_points")
    if problem is not None:
        return problem, []
    X, cset = saved_space(model, X)
    stats = model.stats
    problem = RiskScoreProblem(
        X,
        y,
        feature_names=list(model.feature_names),
        coefficient_set=cset,
        min_size=int(stats.get("min_size", 0)),
        max_size=stats.get("max_size"),
    )
    return problem, unsaved_constraints(stats)


def saved_space(model, X, intercept: tuple[int, int] | None = None):
    """The training features of ``model`` in ``X`` and the bounds and penalties saved with
    it (a model read from JSON keeps no problem).

    Parameters
    ----------
    model : RiskScore or SurvivalScore
        The model (``feature_names``, ``stats``, ``binarizer``).
    X : DataFrame or array
        The training data (a raw table when the model has a binarizer).
    intercept : (int, int), optional
        The intercept's bounds; by default those saved in the statistics.

    Returns
    -------
    tuple
        ``(X, coefficient_set)``: the model's columns in its order.

    Raises
    ------
    InputError
        When ``X`` lacks a column of the model.
    """
    stats = model.stats
    names = list(model.feature_names)
    bounds = stats.get("coef_bounds") or {}
    lower = np.array([int(bounds.get(n, (stats.get("coef_min", COEF_MIN), 0))[0]) for n in names])
    upper = np.array([int(bounds.get(n, (0, stats.get("coef_max", COEF_MAX)))[1]) for n in names])
    c0 = stats.get("c0", C0)
    if isinstance(c0, (list, tuple)):
        c0 = dict(zip(names, c0, strict=True))
    c0 = np.array([float(c0[n]) if isinstance(c0, Mapping) else float(c0) for n in names])
    if intercept is None:
        intercept = (
            int(stats.get("intercept_min", INTERCEPT_MIN)),
            int(stats.get("intercept_max", INTERCEPT_MAX)),
        )
    cset = CoefficientSet(names, lower.astype(np.int64), upper.astype(np.int64), c0, *intercept)
    if reads_raw(getattr(model, "binarizer", None), X):  # a raw table: the model's items
        X = item_frame(model.binarizer, X)
    if hasattr(X, "columns"):  # the model's columns, in its order
        columns = {str(c): c for c in X.columns}
        missing = [n for n in names if n not in columns]
        if missing:
            raise InputError(f"X lacks the model's feature column(s): {', '.join(missing)}")
        X = X[[columns[n] for n in names]]
    return X, cset


def unsaved_constraints(stats) -> list[str]:
    """Notes of a problem rebuilt from a model's statistics: its constraint rows are not
    saved, so an edit is not checked against them.

    Parameters
    ----------
    stats : mapping
        The model's statistics (``n_constraints``).

    Returns
    -------
    list of str
        The note, or none.
    """
    notes = []
    if int(stats.get("n_constraints", 0)):
        notes.append(
            f"the {int(stats['n_constraints'])} constraint row(s) of the original search are "
            "not saved with the model, so they are not checked"
        )
    return notes


def best_intercept(problem: RiskScoreProblem, lam: np.ndarray) -> int:
    """The integer intercept with the least loss for the points of ``lam`` (within the
    intercept bounds; among those that meet the constraints on the intercept, if any).

    Parameters
    ----------
    problem : RiskScoreProblem
        The training problem.
    lam : ndarray
        ``[intercept, points...]``; the intercept is ignored.

    Returns
    -------
    int
        The intercept.
    """
    lo, hi = problem.lam_bounds()
    a, b = int(lo[0]), int(hi[0])
    loss = problem.loss
    base = loss.Z[:, 1:] @ np.asarray(lam[1:], dtype=float)
    sign = loss.Z[:, 0]

    def value(c: int) -> float:
        return float(loss.weights @ np.logaddexp(0.0, -(sign * c + base)))

    # the loss is convex in the intercept: bisect on the sign of its forward difference
    left, right = a, b
    while left < right:
        mid = (left + right) // 2
        if value(mid + 1) < value(mid):
            left = mid + 1
        else:
            right = mid
    best = left
    if not problem.intercept_in_rows():
        return best
    # constraints on the intercept: the feasible intercept of least loss (by convexity,
    # walking outwards from the minimum visits intercepts in order of loss)
    lower, upper = best - 1, best + 1
    candidate = best
    while True:
        trial = lam.copy()
        trial[0] = candidate
        if not problem.violations(trial):
            return int(candidate)
        options = [c for c in (lower, upper) if a <= c <= b]
        if not options:
            return best
        candidate = min(options, key=value)
        if candidate == lower:
            lower -= 1
        else:
            upper += 1


def certified_edit(
    template,
    problem,
    lam: np.ndarray,
    *,
    status: str,
    lower_bound: float,
    notes: tuple[str, ...] = (),
) -> tuple[dict[str, Any], Certificate]:
    """The statistics and certificate of the integer model ``lam`` of ``problem``: its
    loss, objective and :class:`Distance` to the best model (any datafit: a risk score's
    logistic loss, a survival score's Cox loss).

    Parameters
    ----------
    template : model
        A model of the same problem (its settings statistics are kept).
    problem : RiskScoreProblem
        The training problem (a :class:`~riskexplore.risk_score.datafit.Datafit` as
        ``problem.loss``).
    lam : ndarray
        ``[intercept, points...]`` (may lie outside the problem's bounds).
    status, lower_bound, notes
        As for :func:`model_at`.

    Returns
    -------
    tuple
        ``(stats, certificate)``.
    """
    lam = np.asarray(lam, dtype=np.int64)
    loss = float(problem.loss.value(lam.astype(float), integral=False))  # exact off-bounds
    objective = loss + float(problem.c0 @ (lam[1:] != 0))
    breaks = tuple(problem.violations(lam))
    distance = Distance(objective, float(lower_bound), "objective", breaks, tuple(notes))
    stats: dict[str, Any] = {k: v for k, v in template.stats.items() if k not in _SOLVE_STATS}
    stats.update(
        objective=objective,
        loss=loss,
        size=int(np.count_nonzero(lam[1:])),
        distance=distance.to_dict(),
    )
    return stats, Certificate.from_bounds(status, objective, lower_bound)


def model_at(
    template,
    problem: RiskScoreProblem,
    lam: np.ndarray,
    *,
    status: str,
    lower_bound: float,
    notes: tuple[str, ...] = (),
):
    """A model of ``type(template)`` at the integer vector ``lam``, with statistics and
    certificate recomputed on ``problem`` and its :class:`Distance` to the best model.

    Parameters
    ----------
    template : RiskScore
        A model of the same problem (its settings statistics and feature ranges are kept).
    problem : RiskScoreProblem
        The training problem.
    lam : ndarray
        ``[intercept, points...]`` (may lie outside the problem's bounds).
    status : str
        The certificate's status (``"alternative"``, ``"edited"``, ...).
    lower_bound : float
        The proven lower bound on the best model of the problem.
    notes : tuple of str
        Remarks for the distance.

    Returns
    -------
    RiskScore
        The model (its ``_problem`` is ``problem``).
    """
    lam = np.asarray(lam, dtype=np.int64)
    stats, certificate = certified_edit(
        template, problem, lam, status=status, lower_bound=lower_bound, notes=notes
    )
    X = np.asarray(problem.X, dtype=float)
    scores = X @ lam[1:].astype(float)
    observed = (scores.min(), scores.max()) if len(scores) else None
    model = type(template)(
        feature_names=list(problem.feature_names),
        points=lam[1:].tolist(),
        intercept=int(lam[0]),
        certificate=certificate,
        stats=stats,
        feature_info=template.feature_info,
        observed_score_range=observed,
        binarizer=getattr(template, "binarizer", None),
    )
    model._problem = problem
    return model


def with_points(model, points: Mapping[str, Any], *, intercept=None, X=None, y=None):
    """``model`` with new points for some features (see ``RiskScore.with_points``).

    Parameters
    ----------
    model : RiskScore
        The model edited.
    points : mapping feature -> int
        New points (0 leaves the feature out); other features keep theirs.
    intercept : int, optional
        The intercept; by default the one with the least loss for the new points.
    X, y : optional
        The training data, for a model read from JSON.

    Returns
    -------
    RiskScore
        The edited model, its certificate (status ``"edited"``) and ``distance``.

    Raises
    ------
    InputError
        For an unknown feature, points that are not whole numbers, no training data, or
        a model with the learned scale (its certificate is not the fixed scale's).
    """
    refused = fixed_scale_only({}, model)
    if refused is not None:
        raise InputError(f"with_points: {refused}")
    problem, notes = problem_of(model, X, y)
    names = list(problem.feature_names)
    lam = np.array([model.intercept, *(model.all_points.get(n, 0) for n in names)], np.int64)
    set_points(lam, names, points)
    if intercept is None:
        lam[0] = best_intercept(problem, lam)
    else:
        lam[0] = whole(intercept, "intercept")
    lower_bound = -math.inf if model.certificate is None else float(model.certificate.lower_bound)
    return model_at(model, problem, lam, status="edited", lower_bound=lower_bound, notes=notes)


def set_points(lam: np.ndarray, names: list[str], points: Mapping[str, Any]) -> None:
    """Write the new ``points`` of a hand edit into ``lam = [intercept, points...]``.

    Parameters
    ----------
    lam : ndarray of int
        The model, changed in place.
    names : list of str
        The features of ``lam[1:]``.
    points : mapping feature -> int
        The new points.

    Raises
    ------
    InputError
        For a mapping of something else, an unknown feature (with close matches) or
        points that are not whole numbers.
    """
    if not isinstance(points, Mapping):
        raise InputError(f"points must map feature names to points, got {type(points).__name__}")
    index = {n: j for j, n in enumerate(names)}
    for name, value in points.items():
        if str(name) not in index:
            hint = close_matches_hint(str(name), names)
            raise InputError(f"unknown feature {name!r}{hint}")
        lam[index[str(name)] + 1] = whole(value, f"points of {name}")


def edit(model, change: Mapping[str, Any]):
    """The registry's hand edit: ``change`` is ``{"points": {...}, "intercept": ...}``.

    Parameters
    ----------
    model : RiskScore
        The model.
    change : mapping
        ``points`` (feature -> points) and optionally ``intercept``.

    Returns
    -------
    RiskScore
        The edited model.
    """
    unknown = set(change) - {"points", "intercept"}
    if unknown:
        raise InputError(f"a risk score edit changes points and intercept, not {sorted(unknown)}")
    return with_points(model, change.get("points") or {}, intercept=change.get("intercept"))


def whole(value, what: str) -> int:
    """``value`` as an int, or an :class:`InputError` naming ``what`` (a whole number).

    Parameters
    ----------
    value : object
        The value given.
    what : str
        What it is, in the message (``"points of age"``).

    Returns
    -------
    int
        The value.
    """
    validate({what: [Interval(int, None, None)]}, {what: value})
    return int(value)
