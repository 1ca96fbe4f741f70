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

from riskexplore.errors import InputError
from riskexplore.risk_score.edits import edited, model_at, problem_of
from riskexplore.risk_score.survival.baseline import breslow_baseline
from riskexplore.risk_score.survival.problem import SurvivalProblem

__all__ = ["edit", "survival_model_at", "with_points"]


def survival_model_at(template, problem: SurvivalProblem, lam: np.ndarray, **certificate):
    """A survival score at the integer vector ``lam = [0, points...]``: its Cox loss,
    objective, Breslow baseline and :class:`~riskexplore.core.distance.Distance` to the best
    model recomputed on ``problem`` (the risk scores'
    :func:`~riskexplore.risk_score.edits.model_at` building a survival score).

    Parameters
    ----------
    template : SurvivalScore
        A model of the same problem (its settings, horizons and binarizer are kept).
    problem : SurvivalProblem
        The training problem.
    lam : ndarray
        ``[0, points...]`` (may lie outside the problem's bounds).
    **certificate
        ``status``, ``lower_bound`` and ``notes``, as for ``model_at``.

    Returns
    -------
    SurvivalScore
        The model (its ``_problem`` is ``problem``).
    """
    return model_at(template, problem, lam, build=_survival_score_at, **certificate)


def _survival_score_at(template, problem, lam, stats, certificate, scores):
    """The survival score of :func:`survival_model_at`: Breslow's baseline refitted."""
    baseline = breslow_baseline(scores, problem.time, problem.event, problem.sample_weight)
    observed = (math.floor(scores.min()), math.ceil(scores.max())) if len(scores) else None
    return type(template)(
        list(problem.feature_names),
        lam[1:].tolist(),
        baseline,
        template.horizons or None,
        certificate,
        stats,
        observed,
        template.binarizer,
    )


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
    problem, notes = problem_of(
        model, X, y, problem_class=SurvivalProblem, noun="survival score", intercept=(0, 0)
    )
    return edited(model, problem, notes, points, build=_survival_score_at)


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
