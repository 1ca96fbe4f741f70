"""One-call fitting of certifiably optimal risk scores."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from riskexplore.core.events import Listener, SolveEvent, iterate_solve
from riskexplore.core.limits import (
    DEFAULT_GAP_TOLERANCE,
    StopRequest,
    checked_limits,
)
from riskexplore.core.parallel import check_client, resolve_n_jobs
from riskexplore.errors import InputError
from riskexplore.risk_score.lcpa.search import LCPASettings, solve_lcpa
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.problem import (
    C0,
    COEF_MAX,
    COEF_MIN,
    INTERCEPT_MAX,
    INTERCEPT_MIN,
    MULTIPLIER_MAX,
    MULTIPLIER_MIN,
    RiskScoreProblem,
)
from riskexplore.risk_score.raw_settings import raw_features
from riskexplore.risk_score.raw_table import raw_hint
from riskexplore.risk_score.scaled.model_class import ScaledClass
from riskexplore.risk_score.scaled.search import (
    SCREEN_MAX_SUPPORTS,
    ScaledLCPASettings,
    solve_scaled_lcpa,
)
from riskexplore.risk_score.support.lattice import lattice_fits
from riskexplore.risk_score.support.screen import SupportData, count_supports

__all__ = [
    "build_problem",
    "fixed_scale_engine",
    "fit_risk_score",
    "iter_fit_risk_score",
    "points_feasible",
    "solve_problem",
]

#: Rows read by a screen of every root support on grouped rows (supports times rows) up to
#: which real-valued features go to the screen engine: about ten minutes on one core.
_GROUPED_SCREEN_WORK = 1e11


def build_problem(
    X,
    y,
    *,
    max_size: int | None = None,
    coef_min: int = COEF_MIN,
    coef_max: int = COEF_MAX,
    intercept_min: int = INTERCEPT_MIN,
    intercept_max: int = INTERCEPT_MAX,
    c0: float = C0,
    constraints: Iterable = (),
    scale: str = "fixed",
    multiplier_min: float = MULTIPLIER_MIN,
    multiplier_max: float = MULTIPLIER_MAX,
    binarize="auto",
    thresholds: Mapping[str, Any] | None = None,
    linear: Iterable[str] = (),
    one_per_variable: bool = True,
    bands=None,
    **problem_kwargs: Any,
) -> RiskScoreProblem:
    """The :class:`RiskScoreProblem` that :func:`fit_risk_score` solves.

    A raw table is binarized first (``binarize``, as for :func:`fit_risk_score`); the
    problem then keeps the fitted binarizer as ``problem.binarizer`` (None otherwise), and
    the models of its solves keep it too (and the record of its ``bands``, as
    ``problem.bands`` and ``model.stats["bands"]``).

    Parameters
    ----------
    X, y, max_size, coef_min, coef_max, intercept_min, intercept_max, c0, constraints
        As for :func:`fit_risk_score`.
    scale, multiplier_min, multiplier_max
        As for :func:`fit_risk_score`.
    binarize, thresholds, linear, one_per_variable, bands
        As for :func:`fit_risk_score`.
    **problem_kwargs
        Further :class:`~riskexplore.risk_score.problem.RiskScoreProblem` arguments.

    Returns
    -------
    RiskScoreProblem
        The problem.
    """
    constraints = () if constraints is None else constraints
    features, binarizer, constraints, band_record = raw_features(
        X, y, binarize, thresholds, linear, one_per_variable, bands, constraints, problem_kwargs
    )
    try:
        problem = RiskScoreProblem(
            features,
            y,
            max_size=max_size,
            coef_min=coef_min,
            coef_max=coef_max,
            intercept_min=intercept_min,
            intercept_max=intercept_max,
            c0=c0,
            constraints=constraints,
            scale=scale,
            multiplier_min=multiplier_min,
            multiplier_max=multiplier_max,
            **problem_kwargs,
        )
    except InputError as exc:  # features used as given: say how binarizing would help
        hint = None if binarizer is not None else raw_hint(X)
        if hint is None:
            raise
        raise InputError(f"{exc}; {hint}") from exc
    problem.binarizer, problem.bands = binarizer, band_record
    return problem


def solve_problem(
    problem: RiskScoreProblem,
    *,
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    callbacks: Sequence[Listener] = (),
    warm_start: RiskScore | np.ndarray | Sequence[int] | None = None,
    settings=None,
    cut_pool=None,
    n_jobs: int | None = None,
    client=None,
) -> RiskScore:
    """Solve a built problem with LCPA and wrap the result as a :class:`RiskScore`.

    The learned scale is solved by :func:`~riskexplore.risk_score.scaled.search.solve_scaled_lcpa`
    (over ``problem.multiplier_range``). The fixed scale (``m = 1``, one point of the
    learned class) is solved by the same engine with the multiplier fixed to 1 when the
    support screen can take the root (at most ``SCREEN_MAX_SUPPORTS`` supports, 2 million,
    on features with few values or with no row on the points; see
    :func:`fixed_scale_engine`) or
    ``settings`` is a :class:`ScaledLCPASettings`, and by
    :func:`~riskexplore.risk_score.lcpa.search.solve_lcpa` otherwise or when ``settings`` is a
    plain :class:`LCPASettings`. Both certify their bounds the same way and find a model
    of the same objective.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem (see :func:`build_problem`).
    time_limit, node_limit, gap_tolerance, stop, callbacks, warm_start, settings, cut_pool
        As for :func:`fit_risk_score`.
    n_jobs, client
        As for :func:`fit_risk_score`.

    Returns
    -------
    RiskScore
        The model, its certificate and statistics.
    """
    limits = checked_limits(time_limit, node_limit, gap_tolerance, stop)
    engine = "learned" if problem.scale == "learned" else fixed_scale_engine(problem, settings)
    arguments: dict[str, Any] = {
        "limits": limits,
        "settings": engine_settings(engine, settings, n_jobs, client),
        "listeners": tuple(callbacks or ()),
        "warm_start": _warm_start_vector(warm_start, problem),
        "cut_pool": cut_pool,
    }
    if engine == "learned":
        result = solve_scaled_lcpa(problem, problem.multiplier_range, **arguments)
    elif engine == "screen":
        result = solve_scaled_lcpa(problem, (1.0, 1.0), **arguments)
    else:
        result = solve_lcpa(problem, **arguments)
    return RiskScore.from_result(problem, result)


def engine_settings(engine: str, settings, n_jobs: int | None, client):
    """The engine's settings with ``n_jobs`` and ``client`` applied (validated).

    Parameters
    ----------
    engine : {"learned", "screen", "lcpa"}
        The engine that solves the problem (see :func:`fixed_scale_engine`).
    settings : LCPASettings, ScaledLCPASettings or None
        Settings given by the user.
    n_jobs : int or None
        Workers of the search; None keeps those of ``settings`` (every core by default).
    client : dask.distributed.Client or None
        A Dask cluster for the support screen; None keeps that of ``settings``.

    Returns
    -------
    LCPASettings or ScaledLCPASettings
        ``settings`` (or the engine's defaults) with the workers applied.

    Raises
    ------
    InputError
        For a bad ``n_jobs``, a ``client`` that is not a Dask client, or settings of
        another type.
    """
    check_client(client)
    if n_jobs is not None:
        resolve_n_jobs(n_jobs)
    if settings is None:
        settings = LCPASettings() if engine == "lcpa" else ScaledLCPASettings()
    elif not isinstance(settings, LCPASettings):
        raise InputError(
            f"settings must be LCPASettings or ScaledLCPASettings, got {type(settings).__name__}"
        )
    changes: dict[str, Any] = {}
    if n_jobs is not None:
        changes["n_jobs"] = n_jobs
    if client is not None:
        changes["client"] = client
    return dataclasses.replace(settings, **changes) if changes else settings


def fixed_scale_engine(problem: RiskScoreProblem, settings=None) -> str:
    """Which engine solves a fixed-scale problem: ``"screen"`` or ``"lcpa"``.

    Parameters
    ----------
    problem : RiskScoreProblem
        A problem with the fixed scale.
    settings : LCPASettings or ScaledLCPASettings, optional
        A :class:`ScaledLCPASettings` asks for the support screen (with its
        ``support_screen`` switch), a plain :class:`LCPASettings` for LCPA.

    Returns
    -------
    str
        ``"screen"`` (the learned-scale engine with ``m = 1``: the support screen at
        the nodes small enough to screen) when ``settings`` asks for it or, without
        settings, when the kernel merges the rows on every support (few values per
        feature, as binary features have), or groups them by bins (real-valued features;
        no row on the points, and at most ``1e11`` rows read by a screen of the root), or
        when the root has at most
        ``SCREEN_MAX_SUPPORTS`` supports (two million), no row involves the points
        (then the lattice search of :mod:`riskexplore.risk_score.support.lattice` solves
        each support without LPs) and the screen reads at most
        ``LCPASettings().fixing_max_work`` rows; else ``"lcpa"``. With operating-point
        rules (``problem.rules``), which turn the lattice search off, only merged rows
        pick the screen.
    """
    if isinstance(settings, ScaledLCPASettings):
        return "screen"
    if isinstance(settings, LCPASettings):
        return "lcpa"
    d = problem.n_features
    if d == 0 or problem.loss.support_kernel is None:  # no kernel screens this loss
        return "lcpa"
    # the screen pays where the kernel merges rows (binary or few-valued features), also
    # when the root has too many supports to screen at once: its LP nodes then split the
    # root until their supports can be screened (adult's 111 items, 1.3e8 supports:
    # certified in 72-93 s on 2 cores, where LCPA kept a 4.7% gap after 300 s)
    data = SupportData(problem.loss, split_pairs=False)
    if data.merges_all(problem.max_size):
        return "screen"
    if problem.rules:  # the choices below count on the lattice search, off with a rule
        return "lcpa"
    lo, hi = problem.lam_bounds()
    free = int(np.count_nonzero((np.asarray(lo[1:]) < 0) | (np.asarray(hi[1:]) > 0)))
    count = count_supports(0, free, problem.min_size, problem.max_size)
    # real-valued features: the screen bounds a support on its rows grouped by bins, one
    # pass over the rows (a spambase-shaped set, 4.6 M supports of 4,601 rows: certified
    # in 125 s on 2 cores, where LCPA kept a 16.0% gap after 300 s)
    grouped_work = float(count) * problem.loss.n_rows
    lattice = lattice_fits(problem)
    if lattice and data.groups_all(problem.max_size) and grouped_work <= _GROUPED_SCREEN_WORK:
        return "screen"
    if count > SCREEN_MAX_SUPPORTS:
        return "lcpa"
    # on features with many values the screen's bound at m = 1 leaves many supports,
    # which the lattice search (no row on the points) solves faster than LCPA's LP nodes
    work = 20.0 * count * problem.loss.n_rows
    if lattice and work <= LCPASettings().fixing_max_work:
        return "screen"
    return "lcpa"


def points_feasible(problem: RiskScoreProblem, points) -> bool:
    """Whether integer points are a model of the problem's class (a valid warm start).

    With the fixed scale the points must meet every bound and constraint; with the
    learned scale they must meet the operating-point rules, and some multiplier in
    ``problem.multiplier_range`` must make them meet the predicted-risk constraints too.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.
    points : array-like (d+1,)
        ``[intercept, points...]``.

    Returns
    -------
    bool
        Whether the solve would accept ``points`` as a warm start.
    """
    lam = np.asarray(points, dtype=float)
    if lam.shape != (problem.n_features + 1,):
        return False
    if problem.scale == "fixed":
        return problem.is_feasible(lam)
    sclass = ScaledClass(problem, problem.multiplier_range)
    return (
        not sclass.structural_view().violations(lam)
        and problem.meets_rules(lam)
        and sclass.t_interval(lam) is not None
    )


def fit_risk_score(
    X,
    y,
    *,
    max_size: int | None = None,
    coef_min: int = COEF_MIN,
    coef_max: int = COEF_MAX,
    intercept_min: int = INTERCEPT_MIN,
    intercept_max: int = INTERCEPT_MAX,
    c0: float = C0,
    constraints: Iterable = (),
    scale: str = "fixed",
    multiplier_min: float = MULTIPLIER_MIN,
    multiplier_max: float = MULTIPLIER_MAX,
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    callbacks: Sequence[Listener] = (),
    warm_start: RiskScore | np.ndarray | Sequence[int] | None = None,
    settings=None,
    cut_pool=None,
    n_jobs: int | None = None,
    client=None,
    binarize="auto",
    thresholds: Mapping[str, Any] | None = None,
    linear: Iterable[str] = (),
    one_per_variable: bool = True,
    bands=None,
    **problem_kwargs: Any,
) -> RiskScore:
    """Fit a certifiably optimal risk score (RiskSLIM) with the lattice cutting plane algorithm.

    Solves ``min l(lam) + c0 * ||lam||_0`` over integer points ``lam`` within the bounds,
    the model size limit and the constraints, and returns the best model found together
    with its optimality certificate. With ``scale="learned"`` the risk of a score is
    ``sigma(score / m)`` and the multiplier ``m`` is learned with the points (the class
    FasterRisk searches); the certificate then bounds the best model of that class.

    Parameters
    ----------
    X : DataFrame or array of shape (n, d)
        A raw table (numbers, strings, categories, missing values), made into 0/1 items by
        ``binarize="auto"``; a table of 0/1 features, used as given; or, with
        ``binarize=False`` or as an array, numeric features used as given (points per
        unit).
    y : array-like of shape (n,)
        Binary outcome; the larger value is the positive class.
    max_size : int, optional
        Largest number of features with non-zero points (default: no limit).
    coef_min, coef_max : int
        Bounds on the points of every feature (default -5..5).
    intercept_min, intercept_max : int
        Bounds on the intercept (default -100..100).
    c0 : float
        Penalty per feature used; the loss a feature must save to enter the model.
    constraints : iterable
        Operational constraints (see :mod:`riskexplore.risk_score.constraints`),
        :class:`~riskexplore.risk_score.rows.LinearRow` objects or Pyomo models.
    scale : {"fixed", "learned"}
        How points become a risk: ``"fixed"``, risk = ``sigma(intercept + score)`` (the
        paper's class), or ``"learned"``, risk = ``sigma((intercept + score) / m)`` with
        ``m`` learned in ``[multiplier_min, multiplier_max]`` (fits risks better; the
        points and the intercept stay integers). A predicted-risk constraint bounds the
        model's own risk, so ``(intercept + score) / m``.
    multiplier_min, multiplier_max : float
        Bounds on ``m`` for the learned scale (default 0.25 and 10; ``0 < min < max``).
    time_limit : float
        Wall-clock seconds before returning the best model found (default: none).
    node_limit : int, optional
        Branch-and-bound nodes before returning the best model found.
    gap_tolerance : float
        Stop once the optimality gap ``(upper - lower) / upper`` is at most this.
    stop : threading.Event or callable, optional
        Set (or return True) to end the solve early; the best model is returned.
    callbacks : sequence of callables
        Called with every :class:`~riskexplore.core.events.SolveEvent`.
    warm_start : RiskScore or integer vector ``[intercept, points_1..d]``, optional
        A feasible model to start from (with the learned scale, its points at their
        best multiplier).
    settings : LCPASettings or ScaledLCPASettings, optional
        Algorithm settings of :func:`riskexplore.risk_score.lcpa.search.solve_lcpa` or
        :func:`riskexplore.risk_score.scaled.search.solve_scaled_lcpa`; with the fixed
        scale their type also picks the engine (see :func:`fixed_scale_engine`).
    cut_pool : CutPool, optional
        Share loss cuts and models with other solves on the same data (see
        :class:`riskexplore.risk_score.lcpa.cut_pool.CutPool`); re-solves start much warmer.
    n_jobs : int, optional
        Threads of the search (default: every core; ``-1`` likewise, ``-2`` all but one):
        they search subtrees at once, sharing the incumbent and the loss cuts, and fit
        ranges of supports of the support screen. The model and its certificate are
        those of one thread (between models of exactly equal objective, either may be
        returned).
    client : dask.distributed.Client, optional
        Fit the support screen's ranges of supports on this Dask cluster (the rows are
        sent to every worker once); the tree search stays in this process's threads.
    binarize : "auto", False or Binarizer
        ``"auto"`` (default): a DataFrame becomes 0/1 items (``"age ≥ 75"``, ``"sex = F"``,
        ``"creatinine missing"``) by a :class:`~riskexplore.data.binarize.Binarizer` with
        the risk-score options of
        :data:`~riskexplore.risk_score.raw_table.BINARIZE_OPTIONS` (quantile cut points
        moved to round numbers nearby, one item per category, one item for a two-valued
        column, a missing-value item per column with missing values; columns that are an
        identifier, constant or all missing are skipped with a
        :class:`~riskexplore.errors.DataWarning`), unless every column already holds only
        0 and 1 without missing values: such a table is used as given (no binarizer). An
        array is never binarized (it has no column names), nor a DataFrame whose column
        names are not all text (``pd.DataFrame(array)``). ``False`` (or None): the
        features are used as given, each real-valued one as points per unit. A
        Binarizer is used as given (fitted on ``X`` unless already fitted). A binarized
        model keeps its binarizer
        (``model.binarizer``) and predicts on raw rows (missing values and categories not
        seen at fit included: every item of the column is 0, and ``"col missing"`` is 1
        for a missing value when the column had missing values at fit).
    thresholds : mapping column -> cut points, optional
        With ``binarize="auto"``: user cut points replacing the quantiles of a column,
        e.g. ``{"age": [65, 75]}`` (items ``age ≥ 65``, ``age ≥ 75``; never moved).
    linear : iterable of str
        With a binarized table: columns kept as numbers (points per unit).
    one_per_variable : bool
        With a binarized table: use at most one item of each source column
        (:class:`~riskexplore.risk_score.constraints.AtMostKOf`, honoured by every
        engine, so the certificate covers the choice of thresholds).
    bands : list of str or mapping, optional
        With ``binarize``: columns whose thresholds are monotone bands ("age 65–74: 1
        point, age ≥ 75: 2 points"): their threshold items may be used together, with
        points of one sign, e.g. ``["age"]``, ``{"age": "increasing"}`` or
        ``{"age": {"direction": "auto", "max_bands": 2}}`` (see
        :mod:`riskexplore.risk_score.bands`).
    **problem_kwargs
        Further arguments of :class:`~riskexplore.risk_score.problem.RiskScoreProblem`
        (``sample_weight``, ``positive_weight``, ``min_size``, ``bounds``, ``signs``,
        ``c0_by_feature``, ``feature_names``, ...).

    Returns
    -------
    RiskScore
        The model, its certificate (``model.certificate``), its multiplier
        (``model.multiplier``; 1.0 for the fixed scale) and solve statistics
        (``model.stats``; ``stats["loss"]`` is the loss of the model's own risks).

    Raises
    ------
    InputError
        If the data or settings cannot be used.
    ConstraintError
        If a constraint is malformed or names an unknown feature.
    InfeasibleError
        If no model satisfies the bounds and constraints.

    Examples
    --------
    >>> from riskexplore import fit_risk_score, load_dataset
    >>> data = load_dataset("breastcancer")
    >>> model = fit_risk_score(data.X, data.y, max_size=3, time_limit=20)
    >>> print(model.to_text())  # doctest: +SKIP
    """
    problem = build_problem(
        X,
        y,
        max_size=max_size,
        coef_min=coef_min,
        coef_max=coef_max,
        intercept_min=intercept_min,
        intercept_max=intercept_max,
        c0=c0,
        constraints=constraints,
        scale=scale,
        multiplier_min=multiplier_min,
        multiplier_max=multiplier_max,
        binarize=binarize,
        thresholds=thresholds,
        linear=linear,
        one_per_variable=one_per_variable,
        bands=bands,
        **problem_kwargs,
    )
    return solve_problem(
        problem,
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


def iter_fit_risk_score(
    X,
    y,
    *,
    callbacks: Sequence[Listener] = (),
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    warm_start: RiskScore | np.ndarray | Sequence[int] | None = None,
    settings=None,
    cut_pool=None,
    n_jobs: int | None = None,
    client=None,
    binarize="auto",
    thresholds: Mapping[str, Any] | None = None,
    linear: Iterable[str] = (),
    one_per_variable: bool = True,
    bands=None,
    **problem_args: Any,
) -> Generator[SolveEvent, None, RiskScore]:
    """Fit like :func:`fit_risk_score`, yielding progress events as the solve runs.

    The solve runs in a background thread. The problem is built (and the inputs
    validated) before this function returns, so bad input raises here. The generator
    yields :class:`~riskexplore.core.events.SolveEvent` objects and *returns* the
    fitted :class:`RiskScore` (the ``value`` of ``StopIteration``; use
    ``model = yield from iter_fit_risk_score(...)`` or see the example).

    Parameters
    ----------
    X, y, callbacks, time_limit, node_limit, gap_tolerance, stop, warm_start, settings, cut_pool
        As in :func:`fit_risk_score`.
    n_jobs, client, binarize, thresholds, linear, one_per_variable, bands
        As in :func:`fit_risk_score`.
    **problem_args
        The problem arguments of :func:`fit_risk_score` (``max_size``, ``coef_min``,
        ``constraints``, ``scale``, ``multiplier_min``, ``sample_weight``, ...).

    Returns
    -------
    generator of SolveEvent, returning RiskScore

    Examples
    --------
    >>> events = iter_fit_risk_score(X, y, max_size=3, time_limit=10)  # doctest: +SKIP
    >>> while True:  # doctest: +SKIP
    ...     try:
    ...         event = next(events)
    ...     except StopIteration as done:
    ...         model = done.value
    ...         break
    """
    problem = build_problem(
        X,
        y,
        binarize=binarize,
        thresholds=thresholds,
        linear=linear,
        one_per_variable=one_per_variable,
        bands=bands,
        **problem_args,
    )
    engine_settings("lcpa", settings, n_jobs, client)  # bad workers raise here, not in the thread
    return iterate_solve(
        solve_problem,
        problem,
        callbacks,
        time_limit=time_limit,
        node_limit=node_limit,
        gap_tolerance=gap_tolerance,
        stop=stop,
        warm_start=warm_start,
        settings=settings,
        cut_pool=cut_pool,
        n_jobs=n_jobs,
        client=client,
    )


def _warm_start_vector(warm_start, problem: RiskScoreProblem) -> np.ndarray | None:
    """``[intercept, points_1..d]`` of a warm start given as a RiskScore or a vector."""
    if warm_start is None:
        return None
    names = list(problem.feature_names)
    if isinstance(warm_start, RiskScore):
        unknown = [n for n in warm_start.points if n not in names]
        if unknown:
            raise InputError(f"warm start uses features not in the data: {', '.join(unknown)}")
        pts = warm_start.all_points
        return np.array([warm_start.intercept, *(pts.get(n, 0) for n in names)], dtype=np.int64)
    vec = np.asarray(warm_start, dtype=float).ravel()
    if vec.shape != (len(names) + 1,):
        raise InputError(
            f"warm start must have {len(names) + 1} entries [intercept, points...], "
            f"got {vec.shape[0]}"
        )
    if not np.all(np.isfinite(vec)) or np.any(vec != np.round(vec)):
        raise InputError("warm start must be a vector of integers")
    return vec.astype(np.int64)
