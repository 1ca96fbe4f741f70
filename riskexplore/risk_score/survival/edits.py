"""Hand edits of a survival score, each with its certified distance to the best score.

As for risk scores (:mod:`riskexplore.risk_score.edits`): :func:`with_points`
(``SurvivalScore.with_points``) changes the points of some items and returns a new model
whose Cox loss, objective and Breslow baseline are recomputed on the training rows, and
whose certificate keeps the *lower bound of the original solve*. That bound holds for every
model of the original settings, so ``objective - lower bound`` bounds how much worse than
the best score the edit is (``model.distance``); an edit that breaks a bound or constraint
of the original search names it (``distance.breaks``). :func:`survival_model_at` is the
same construction for the models of a near-optimal set.

The training rows come from the problem the fit keeps on the model (never serialised); a
model read from JSON needs ``X`` and ``y`` (the structured survival outcome) again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from riskexplore.core.distance import attached_problem
from riskexplore.errors import InputError
from riskexplore.risk_score.edits import (
    certified_edit,
    saved_space,
    set_points,
    unsaved_constraints,
)
from riskexplore.risk_score.survival.baseline import breslow_baseline
from riskexplore.risk_score.survival.problem import SurvivalProblem

__all__ = ["edit", "survival_model_at", "survival_problem_of", "with_points"]


def survival_problem_of(model, X=None, y=None) -> tuple[SurvivalProblem, list[str]]:
    """The training problem of ``model``: the one its fit kept, or one rebuilt from
    ``X, y`` and the settings saved with the model.

    Parameters
    ----------
    model : SurvivalScore
        The model.
    X, y : optional
        The training rows and their survival outcome (needed for a model read from JSON).

    Returns
    -------
    tuple
        ``(problem, notes)``: notes say what a rebuilt problem cannot check.

    Raises
    ------
    InputError
        Without training data, or with only one of ``X`` and ``y``.
    """
    problem = attached_problem(model, X, y, noun="survival score", call="with_points")
    if problem is not None:
        return problem, []
    X, cset = saved_space(model, X, intercept=(0, 0))
    stats = model.stats
    problem = SurvivalProblem(
        X,
        y,
        feature_names=list(model.feature_names),
        coefficient_set=cset,
        min_size=int(stats.get("min_size", 0)),
        max_size=stats.get("max_size"),
    )
    return problem, unsaved_constraints(stats)


def survival_model_at(
    template,
    problem: SurvivalProblem,
    lam: np.ndarray,
    *,
    status: str,
    lower_bound: float,
    notes: tuple[str, ...] = (),
):
    """A survival score at the integer vector ``lam = [0, points...]``: its Cox loss,
    objective, Breslow baseline and :class:`~riskexplore.core.distance.Distance` to the best
    model recomputed on ``problem``.

    Parameters
    ----------
    template : SurvivalScore
        A model of the same problem (its settings, horizons and binarizer are kept).
    problem : SurvivalProblem
        The training problem.
    lam : ndarray
        ``[0, points...]`` (may lie outside the problem's bounds).
    status : str
        The certificate's status (``"alternative"``, ``"edited"``, ...).
    lower_bound : float
        The proven lower bound on the best model of the problem.
    notes : tuple of str
        Remarks for the distance.

    Returns
    -------
    SurvivalScore
        The model (its ``_problem`` is ``problem``).
    """
    lam = np.asarray(lam, dtype=np.int64)
    stats, certificate = certified_edit(
        template, problem, lam, status=status, lower_bound=lower_bound, notes=notes
    )
    scores = np.asarray(problem.X, dtype=float) @ lam[1:].astype(float)
    baseline = breslow_baseline(scores, problem.time, problem.event, problem.sample_weight)
    observed = (math.floor(scores.min()), math.ceil(scores.max())) if len(scores) else None
    model = type(template)(
        list(problem.feature_names),
        lam[1:].tolist(),
        baseline,
        template.horizons or None,
        certificate,
        stats,
        observed,
        template.binarizer,
    )
    model._problem = problem
    return model


def with_points(model, points: Mapping[str, Any], *, X=None, y=None):
    """``model`` with new points for some items (see ``SurvivalScore.with_points``).

    Parameters
    ----------
    model : SurvivalScore
        The model edited.
    points : mapping item -> int
        New points (0 leaves the item out); other items keep theirs.
    X, y : optional
        The training rows and their survival outcome, for a model read from JSON.

    Returns
    -------
    SurvivalScore
        The edited model, its certificate (status ``"edited"``) and ``distance``.

    Raises
    ------
    InputError
        For an unknown item, points that are not whole numbers, or no training data.
    """
    problem, notes = survival_problem_of(model, X, y)
    names = list(problem.feature_names)
    lam = np.array([0, *(model._points.get(n, 0) for n in names)], dtype=np.int64)
    set_points(lam, names, points)
    lower_bound = -math.inf if model.certificate is None else float(model.certificate.lower_bound)
    return survival_model_at(
        model, problem, lam, status="edited", lower_bound=lower_bound, notes=tuple(notes)
    )


def edit(model, change: Mapping[str, Any]):
    """The registry's hand edit: ``change`` is ``{"points": {...}}`` (no intercept: the
    baseline hazard is refitted).

    Parameters
    ----------
    model : SurvivalScore
        The model.
    change : mapping
        ``points`` (item -> points).

    Returns
    -------
    SurvivalScore
        The edited model.
    """
    unknown = set(change) - {"points"}
    if unknown:
        raise InputError(
            f"a survival score edit changes points only (it has no intercept), not "
            f"{sorted(unknown)}"
        )
    return with_points(model, change.get("points") or {})
