"""Every survival score within a relative tolerance of the certified optimum.

The risk scores' enumeration (:func:`~riskexplore.risk_score.near_optimal.solve_near_optimal`)
runs unchanged on the Cox datafit: it certifies the optimum ``V*`` with LCPA, then records
every integer model whose objective (mean Cox loss plus ``c0`` per item) is at most
``(1 + tolerance) V*``, with a proof that none is missing (``complete``). Each record's
``model`` is a :class:`~riskexplore.risk_score.survival.model.SurvivalScore` with its own
Breslow baseline and a certificate against the optimum's lower bound, so its ``distance``
is certified and it can be edited by hand (``with_points``).
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from riskexplore.core.registry import every_setting_supported
from riskexplore.risk_score.family import ALTERNATIVES as RISK_SCORE_ALTERNATIVES
from riskexplore.risk_score.near_optimal import (
    NearOptimalScores,
    PointsModels,
    near_optimal_models,
)
from riskexplore.risk_score.survival.edits import edit, survival_model_at
from riskexplore.risk_score.survival.fit import build_survival_problem, survival_score_from_result
from riskexplore.risk_score.survival.model import check_horizons

__all__ = ["ALTERNATIVES", "near_optimal_survival_models", "training_problem"]


def near_optimal_survival_models(X, y, *, horizon=None, **arguments: Any) -> NearOptimalScores:
    """Every survival score within ``tolerance`` of the optimum, from data (the registry's
    near-optimal search of survival scores): the risk scores'
    :func:`~riskexplore.risk_score.near_optimal.near_optimal_models` on the survival
    problem, each record's ``model`` a survival score.

    Parameters
    ----------
    X : DataFrame or array
        Training rows (a raw table is binarized, as for ``fit_survival_score``).
    y : structured array
        ``[("event", bool), ("time", float)]``.
    horizon : float or sequence of float, optional
        The models' horizons (their risk tables and ``predict_risk``).
    **arguments
        As for ``near_optimal_models`` (``tolerance``, ``max_models``, ``time_limit``,
        ``stop``, ``constraints`` on the points, ``cut_pool``, ``settings``), and the
        settings of :func:`~riskexplore.risk_score.survival.fit.build_survival_problem`
        (``max_size``, ``coef_min``, ``coef_max``, ``c0``, ``binarize``, ...).

    Returns
    -------
    NearOptimalScores
        The set, best first, each record's ``model`` a survival score.

    Raises
    ------
    InputError
        For unusable data or settings.
    InfeasibleError
        If no survival score obeys the settings and constraints.
    """
    horizons = check_horizons(horizon) or None
    models = PointsModels(
        build=build_survival_problem,
        from_result=partial(survival_score_from_result, horizon=horizons),
        model_at=survival_model_at,
        refused=lambda problem_settings: None,  # the survival fit says what it refuses
    )
    return near_optimal_models(X, y, models=models, **arguments)


def training_problem(X, y, settings, constraints):
    """The problem the near-optimal search solves (for hand edits of a model read from a
    file), raw-table settings included.

    Parameters
    ----------
    X, y
        Training rows and their survival outcome.
    settings : mapping
        Fit arguments (``horizon`` is the models' and plays no part).
    constraints : sequence
        The rules.

    Returns
    -------
    SurvivalProblem
        The problem.
    """
    rest = {k: v for k, v in settings.items() if k != "horizon"}
    return build_survival_problem(X, y, constraints=list(constraints), **rest)


#: Near-optimal sets, hand edits and feature prices of survival scores: risk scores' (a
#: relative tolerance on the objective, points per item, Include / Exclude to force one)
#: with the survival search, edits and fields.
ALTERNATIVES = dataclasses.replace(
    RISK_SCORE_ALTERNATIVES,
    near_optimal=near_optimal_survival_models,
    edit=edit,
    describe_model=lambda model: {"points": dict(model.points)},
    unsupported=every_setting_supported,  # the survival fit says what it refuses
    training_problem=training_problem,
)
