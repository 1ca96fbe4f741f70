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

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from riskexplore.core.limits import DEFAULT_GAP_TOLERANCE, StopRequest, checked_limits
from riskexplore.core.registry import AlternativesSpec
from riskexplore.core.result import SolveResult
from riskexplore.risk_score.family import feature_constraints
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.near_optimal import NearOptimalScores, solve_near_optimal, with_models
from riskexplore.risk_score.survival.edits import edit, survival_model_at
from riskexplore.risk_score.survival.fit import build_survival_problem, survival_score_from_result
from riskexplore.risk_score.survival.model import SurvivalScore, check_horizons

__all__ = ["ALTERNATIVES", "near_optimal_survival_models", "training_problem"]


def near_optimal_survival_models(
    X,
    y,
    *,
    tolerance: float = 0.01,
    max_models: int = 100,
    time_limit: float = math.inf,
    stop: StopRequest = None,
    constraints: Iterable = (),
    cut_pool: CutPool | None = None,
    settings: LCPASettings | None = None,
    horizon=None,
    **problem_settings: Any,
) -> NearOptimalScores:
    """Every survival score within ``tolerance`` of the optimum, from data (the registry's
    near-optimal search of survival scores).

    Parameters
    ----------
    X : DataFrame or array
        Training rows (a raw table is binarized, as for ``fit_survival_score``).
    y : structured array
        ``[("event", bool), ("time", float)]``.
    tolerance : float
        Relative distance to the optimum (0.01: objectives within 1%).
    max_models : int
        Most models returned (the best ones; the set is then incomplete).
    time_limit : float
        Seconds for the whole search (both runs).
    stop : threading.Event or callable, optional
        Ends the search early (the set is then incomplete).
    constraints : iterable
        Constraints on the points every model obeys.
    cut_pool : CutPool, optional
        Loss cuts shared with other solves on the same data.
    settings : LCPASettings, optional
        Algorithm settings.
    horizon : float or sequence of float, optional
        The models' horizons (their risk tables and ``predict_risk``).
    **problem_settings
        Settings of :func:`~riskexplore.risk_score.survival.fit.build_survival_problem`
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
    limits = checked_limits(time_limit, None, DEFAULT_GAP_TOLERANCE, stop)
    problem = build_survival_problem(X, y, constraints=constraints, **problem_settings)
    found = solve_near_optimal(
        problem,
        tolerance=tolerance,
        max_models=max_models,
        limits=limits,
        settings=settings,
        cut_pool=cut_pool,
    )
    template: SurvivalScore | None = None

    def model_of(lam: np.ndarray, objective: float, status: str) -> SurvivalScore:
        nonlocal template
        if template is None:  # the settings' statistics, once
            result = SolveResult(status, lam, objective, found.lower_bound)
            template = survival_score_from_result(problem, result, horizons)
        return survival_model_at(
            template, problem, lam, status=status, lower_bound=found.lower_bound
        )

    return with_models(found, model_of)


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


#: Near-optimal sets, hand edits and feature prices of survival scores (as risk scores':
#: a relative tolerance on the objective, points per item, Include / Exclude to force one).
ALTERNATIVES = AlternativesSpec(
    near_optimal=near_optimal_survival_models,
    tolerance=0.01,
    tolerance_unit="relative",
    features_of=lambda model: tuple(model.points),
    all_features=lambda model: tuple(model.feature_names),
    feature_constraints=feature_constraints,
    shared=lambda: {"cut_pool": CutPool()},
    edit_kind="points",
    edit=edit,
    describe_model=lambda model: {"points": dict(model.points)},
    training_problem=training_problem,
)
