"""One-call fitting of certifiably optimal survival scores (issue 36).

:func:`fit_survival_score` minimises the mean Breslow negative partial log-likelihood plus
``c0`` per item used over integer points (no intercept), with the risk scores' LCPA search
on the Cox datafit: the same bounds, constraints on the points, certificates, live events,
stop, threads and cut pool, and root fixing with the Cox support bound
(:mod:`riskexplore.risk_score.survival.support`). The support screen at the nodes, the
lattice and the beam search have no Cox kernel yet and step aside
(``CoxLoss.support_kernel`` is None). A raw table is binarized as for risk scores (one item
per variable).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from riskexplore.core.certificate import Certificate
from riskexplore.core.events import Listener, SolveEvent, iterate_solve
from riskexplore.core.limits import DEFAULT_GAP_TOLERANCE, StopRequest, checked_limits
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.fit import engine_settings
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.problem import C0, COEF_MAX, COEF_MIN
from riskexplore.risk_score.raw_settings import raw_features
from riskexplore.risk_score.scaled.search import ScaledLCPASettings
from riskexplore.risk_score.survival.baseline import breslow_baseline
from riskexplore.risk_score.survival.model import SurvivalScore, check_horizons
from riskexplore.risk_score.survival.problem import SurvivalProblem

__all__ = [
    "build_survival_problem",
    "fit_survival_score",
    "iter_fit_survival_score",
    "solve_survival_problem",
]


def build_survival_problem(
    X,
    time,
    event=None,
    *,
    scale: str = "fixed",
    binarize="auto",
    thresholds: Mapping[str, Any] | None = None,
    linear: Iterable[str] = (),
    one_per_variable: bool = True,
    constraints: Iterable = (),
    **problem_kwargs: Any,
) -> SurvivalProblem:
    """The :class:`SurvivalProblem` that :func:`fit_survival_score` solves.

    Parameters
    ----------
    X, time, event, scale, binarize, thresholds, linear, one_per_variable, constraints
        As for :func:`fit_survival_score`.
    **problem_kwargs
        Further :class:`SurvivalProblem` arguments.

    Returns
    -------
    SurvivalProblem
        The problem, with the raw table's binarizer as ``problem.binarizer`` (or None).
    """
    if scale != "fixed":
        raise InputError(
            f"scale={scale!r} is not offered for survival scores yet: one point multiplies "
            "the hazard by e (scale='fixed')"
        )
    if problem_kwargs.get("bands"):
        raise InputError("bands are not offered for survival scores yet; leave bands=None")
    problem_kwargs.pop("bands", None)
    constraints = () if constraints is None else constraints
    features, binarizer, constraints, _ = raw_features(
        X, None, binarize, thresholds, linear, one_per_variable, None, constraints, problem_kwargs
    )
    problem = SurvivalProblem(features, time, event, constraints=constraints, **problem_kwargs)
    problem.binarizer = binarizer
    return problem


def _warm_start(warm_start, problem: SurvivalProblem) -> np.ndarray | None:
    """``[0, points...]`` of a warm start given as a SurvivalScore or a vector of points."""
    if warm_start is None:
        return None
    names = problem.feature_names
    if isinstance(warm_start, SurvivalScore):
        unknown = [n for n in warm_start.points if n not in names]
        if unknown:
            raise InputError(f"warm start uses items not in the data: {', '.join(unknown)}")
        vec = np.array([0, *(warm_start.points.get(n, 0) for n in names)], dtype=float)
    else:
        vec = np.asarray(warm_start, dtype=float).ravel()
        if vec.shape == (len(names),):
            vec = np.r_[0.0, vec]
    if vec.shape != (len(names) + 1,) or not np.all(np.isfinite(vec)) or vec[0] != 0:
        raise InputError(f"a warm start is {len(names)} integer points, one per item")
    if np.any(vec != np.round(vec)):
        raise InputError("a warm start's points must be integers")
    return vec.astype(np.int64)


def _stats(problem: SurvivalProblem, result, lam: np.ndarray) -> dict[str, Any]:
    lower, upper = problem.coefficient_set.lower, problem.coefficient_set.upper
    c0 = np.asarray(problem.c0, dtype=float)
    stats: dict[str, Any] = {
        "objective": float(result.upper_bound),
        "loss": float(problem.loss_of(lam)),
        "nodes": int(result.nodes),
        "cuts": int(result.cuts),
        "time": float(result.time),
        "size": int(np.count_nonzero(lam[1:])),
        "n_samples": int(problem.X.shape[0]),
        "n_events": int(problem.event.sum()),
        "n_features": problem.n_features,
        "c0": float(c0[0]) if len(c0) and np.all(c0 == c0[0]) else c0.tolist(),
        "coef_min": int(np.min(lower)) if len(lower) else 0,
        "coef_max": int(np.max(upper)) if len(upper) else 0,
        "min_size": int(problem.min_size),
        "max_size": int(problem.max_size),
        "n_constraints": len(problem.rows),
        "engine": "lcpa",
    }
    if problem.time_unit:
        stats["time_unit"] = problem.time_unit
    if result.stats:
        stats["solver"] = dict(result.stats)
    return stats


def survival_score_from_result(problem: SurvivalProblem, result, horizon=None) -> SurvivalScore:
    """The :class:`SurvivalScore` of a solve: its points, Breslow baseline and certificate.

    Parameters
    ----------
    problem : SurvivalProblem
        The problem solved.
    result : SolveResult
        The solve.
    horizon : float or sequence of float, optional
        The model's horizons.

    Returns
    -------
    SurvivalScore
        The model.

    Raises
    ------
    InfeasibleError
        If the solve found no model.
    """
    if not result.has_model:
        raise InfeasibleError(
            f"no survival score satisfies the bounds and constraints (status {result.status})"
        )
    lam = np.rint(np.asarray(result.solution, dtype=float)).astype(np.int64)
    scores = problem.X @ lam[1:].astype(float)
    baseline = breslow_baseline(scores, problem.time, problem.event, problem.sample_weight)
    model = SurvivalScore(
        problem.feature_names,
        lam[1:].tolist(),
        baseline,
        horizon,
        Certificate.from_bounds(result.status, result.upper_bound, result.lower_bound),
        _stats(problem, result, lam),
        (math.floor(scores.min()), math.ceil(scores.max())),
        problem.binarizer,
    )
    model._problem = problem  # for hand edits (never serialised)
    return model


def solve_survival_problem(
    problem: SurvivalProblem,
    *,
    horizon=None,
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    callbacks: Sequence[Listener] = (),
    warm_start=None,
    settings=None,
    cut_pool=None,
    n_jobs: int | None = None,
    client=None,
) -> SurvivalScore:
    """Solve a built problem with LCPA and wrap the result as a :class:`SurvivalScore`.

    Parameters
    ----------
    problem : SurvivalProblem
        The problem (see :func:`build_survival_problem`).
    horizon, time_limit, node_limit, gap_tolerance, stop, callbacks, warm_start
        As for :func:`fit_survival_score`.
    settings, cut_pool, n_jobs, client
        As for :func:`fit_survival_score`.

    Returns
    -------
    SurvivalScore
        The model and its certificate.
    """
    if isinstance(settings, ScaledLCPASettings):
        raise InputError("survival scores are solved by LCPA: give LCPASettings, not Scaled ones")
    result = solve_lcpa(
        problem,
        limits=checked_limits(time_limit, node_limit, gap_tolerance, stop),
        settings=engine_settings("lcpa", settings, n_jobs, client),
        listeners=tuple(callbacks or ()),
        warm_start=_warm_start(warm_start, problem),
        cut_pool=cut_pool,
    )
    return survival_score_from_result(problem, result, horizon)


def fit_survival_score(
    X,
    time,
    event=None,
    *,
    max_size: int | None = None,
    coef_min: int = COEF_MIN,
    coef_max: int = COEF_MAX,
    c0: float = C0,
    constraints: Iterable = (),
    horizon=None,
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    callbacks: Sequence[Listener] = (),
    warm_start=None,
    settings=None,
    cut_pool=None,
    n_jobs: int | None = None,
    client=None,
    binarize="auto",
    thresholds: Mapping[str, Any] | None = None,
    linear: Iterable[str] = (),
    one_per_variable: bool = True,
    **problem_kwargs: Any,
) -> SurvivalScore:
    """Fit a certifiably optimal survival score: integer points for a time-to-event outcome.

    Minimises ``(1/n) sum_{events i} [log sum_{j: t_j >= t_i} exp(s_j) - s_i] + c0 * ||points||_0``
    (the mean Breslow negative partial log-likelihood of ``s = X @ points``) over integer
    points within the bounds, the size limit and the constraints, and returns the best
    model found with its certificate and Breslow's baseline hazard.

    Parameters
    ----------
    X : DataFrame or array of shape (n, d)
        A raw table (binarized by ``binarize="auto"``, one item per variable), a table of
        0/1 items, or numeric features used as given.
    time, event : array-like
        Follow-up times (finite, ``>= 0``) and event indicators (0/1); or, with
        ``event=None``, scikit-survival's structured array ``[("event", bool), ("time",
        float)]`` in ``time``.
    max_size : int, optional
        Most items with non-zero points.
    coef_min, coef_max : int
        Bounds on every item's points (default -5..5); one point multiplies the hazard by e.
    c0 : float
        Penalty per item used.
    constraints : iterable
        Constraints on the points (``MaxFeatures``, ``AtMostKOf``, ``Implies``,
        ``NotTogether``, ``PointsBetween``, ``LinearConstraint``, ...); constraints on a
        predicted risk and operating points are refused (not linear for survival).
    horizon : float or sequence of float, optional
        The time(s) at which :meth:`SurvivalScore.predict_risk` and the risk table read
        the risk of the event (in the unit of ``time``, e.g. 365 days).
    time_limit, node_limit, gap_tolerance, stop, callbacks, settings, cut_pool, n_jobs, client
        As for :func:`~riskexplore.risk_score.fit.fit_risk_score` (``settings`` an
        :class:`~riskexplore.risk_score.lcpa.settings.LCPASettings`).
    warm_start : SurvivalScore or integer points, optional
        A feasible model to start from.
    binarize, thresholds, linear, one_per_variable
        As for :func:`~riskexplore.risk_score.fit.fit_risk_score`.
    **problem_kwargs
        Further :class:`SurvivalProblem` arguments (``sample_weight``, ``min_size``,
        ``bounds``, ``signs``, ``c0_by_feature``, ``feature_names``, ``time_unit``: the
        unit of the times in words, which the card names); ``scale="learned"``
        and ``bands`` are refused (not offered for survival scores yet).

    Returns
    -------
    SurvivalScore
        The model, its certificate and solve statistics.

    Raises
    ------
    InputError
        For bad data (negative or missing times, events other than 0/1, lengths that
        differ, features with missing values) or settings not offered for survival.
    """
    horizons = check_horizons(horizon)  # a bad horizon raises before the solve
    problem = build_survival_problem(
        X,
        time,
        event,
        binarize=binarize,
        thresholds=thresholds,
        linear=linear,
        one_per_variable=one_per_variable,
        constraints=constraints,
        max_size=max_size,
        coef_min=coef_min,
        coef_max=coef_max,
        c0=c0,
        **problem_kwargs,
    )
    return solve_survival_problem(
        problem,
        horizon=horizons or None,
        time_limit=time_limit,
        node_limit=node_limit,
        gap_tolerance=gap_tolerance,
        stop=stop,
        callbacks=callbacks,
        warm_start=warm_start,
        settings=settings,
        cut_pool=cut_pool,
        n_jobs=n_jobs,
        client=client,
    )


def iter_fit_survival_score(
    X, time, event=None, *, callbacks: Sequence[Listener] = (), **kwargs: Any
) -> Generator[SolveEvent, None, SurvivalScore]:
    """Fit like :func:`fit_survival_score`, yielding progress events as the solve runs.

    The problem is built (and the inputs checked) before this returns; the solve runs in
    a background thread and the generator returns the :class:`SurvivalScore`.

    Parameters
    ----------
    X, time, event, callbacks
        As for :func:`fit_survival_score`.
    **kwargs
        The other arguments of :func:`fit_survival_score`.

    Returns
    -------
    generator of SolveEvent, returning SurvivalScore
    """
    solve_keys = (
        "time_limit", "node_limit", "gap_tolerance", "stop", "warm_start", "settings",
        "cut_pool", "n_jobs", "client",
    )  # fmt: skip
    solve_kw = {k: kwargs.pop(k) for k in solve_keys if k in kwargs}
    horizons = check_horizons(kwargs.pop("horizon", None))
    problem = build_survival_problem(X, time, event, **kwargs)
    engine_settings("lcpa", solve_kw.get("settings"), solve_kw.get("n_jobs"), None)
    return iterate_solve(
        solve_survival_problem, problem, callbacks, horizon=horizons or None, **solve_kw
    )
