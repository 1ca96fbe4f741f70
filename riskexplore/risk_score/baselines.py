"""Baseline risk scores of Ustun & Rudin (2019), Section 5.1: penalized LR, then rounding.

The six baselines of Ustun & Rudin [1]_ ("Traditional Approaches" and "Pooled Approaches"
in Section 5.1, compared with RiskSLIM in Section 5.2 and Table 3). Every baseline
post-processes models from a pool of penalized logistic regression (PLR) fits and returns
a :class:`~riskexplore.risk_score.model.RiskScore` under the same coefficient bounds,
intercept bounds and model-size limit as RiskSLIM, so every metric and view that works on
a RiskSLIM model works on a baseline too.

The pool (:func:`~riskexplore.risk_score.plr.plr_pool`)
    Elastic-net logistic regression over a grid of mixing parameters and penalties,
    fitted by :mod:`riskexplore.risk_score.plr` (the pool of [1]_, Section 5.1, has
    11 x 100 models; the default is 11 x 20).

Traditional methods (``plr_rd``, ``plr_rsrd``, ``plr_unit``)
    Take *one* PLR model -- among the pool models that obey the size limit -- and
    convert it. Ustun & Rudin [1]_ (Section 5.1) pick the model with the best 5-fold CV
    AUC (``choose="cv_auc"``); the default here is ``choose="loss"``, the lowest training
    logistic loss (much cheaper); any callable ``choose(coefs, X, y) -> index`` works.

    * RD: clip every coefficient to its bounds and round to the nearest integer ([1]_,
      Section 5.1, writes the ceiling bracket but describes rounding to the nearest
      integer).
    * RsRD: scale ``[intercept, w]`` by ``5 / max_j |w_j|`` (in general: the largest
      factor that keeps every coefficient within its bounds), then round.
    * UNIT: points ``sign(w_j)``; [1]_ does not say how the intercept is set, and
      the PLR intercept is on another scale, so by default it is the best integer
      intercept for the unit-weighted score (``intercept="round"`` rounds the PLR one).

    Rounding only removes features, so these models obey the size limit; if they break
    another constraint row the violations are listed in ``stats["violations"]``.

Pooled methods (``pooled_rd``, ``pooled_rd_star``, ``pooled_seqrd_star``)
    Post-process *every* pool model (whatever its size), drop the results that break
    the size limit or any other constraint ([1]_, Section 5.1, selects among feasible
    models; nothing is truncated), and return the feasible one with the lowest training objective
    (loss + ``c0`` per feature).

    * PooledRD: rounding as RD.
    * PooledRD*: rounding, then DCD polishing over the intercept and the non-zero
      points only (zeros stay fixed so the model cannot grow).
    * PooledSeqRD*: SequentialRounding ([1]_, Section 4.2, Algorithm 4) of the clipped
      real coefficients, then the same polishing.

Baseline models carry a :class:`~riskexplore.core.certificate.Certificate` with
status ``"heuristic"``, ``upper_bound`` = the model's objective and ``lower_bound`` =
``-inf``: no optimality certificate (``gap`` is ``inf``, ``is_optimal`` is False).
``stats["method"]`` names the method and ``stats["solver"]`` holds the pool details.

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Unpack

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.fit import build_problem
from riskexplore.risk_score.lcpa.heuristics import (
    MoveChecker,
    polish,
    sequential_rounding,
    ternary_search,
)
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.plr import (
    DEFAULT_ALPHAS,
    DEFAULT_N_GAMMAS,
    PAPER_N_GAMMAS,
    PLRPool,
    fit_pool,
    plr_pool,
    refit_params,
)
from riskexplore.risk_score.problem import RiskScoreProblem, RiskScoreSettings

__all__ = [
    "BASELINES",
    "DEFAULT_ALPHAS",
    "DEFAULT_N_GAMMAS",
    "HEURISTIC_STATUS",
    "PAPER_NAMES",
    "PAPER_N_GAMMAS",
    "PLRPool",
    "fit_baseline",
    "plr_pool",
    "plr_rd",
    "plr_rsrd",
    "plr_unit",
    "pooled_rd",
    "pooled_rd_star",
    "pooled_seqrd_star",
]

#: Certificate status of heuristic (uncertified) models.
HEURISTIC_STATUS = "heuristic"

#: Names as printed in Table 3 of Ustun & Rudin (2019).
PAPER_NAMES = {
    "plr_rd": "PLR→RD",
    "plr_rsrd": "PLR→RsRD",
    "plr_unit": "PLR→UNIT",
    "pooled_rd": "PooledRD",
    "pooled_rd_star": "PooledRD*",
    "pooled_seqrd_star": "PooledSeqRD*",
}

Chooser = Callable[[list[np.ndarray], np.ndarray, np.ndarray], int]
#: A rounding rule of the traditional methods: ``convert(problem, coef) -> lam``.
Converter = Callable[[RiskScoreProblem, np.ndarray], np.ndarray]
#: A rounding rule of the pooled methods: ``convert(problem, coef, checker) -> lam or None``.
PoolConverter = Callable[[RiskScoreProblem, np.ndarray, MoveChecker], np.ndarray | None]


# --- rounding rules ----------------------------------------------------------------------
def _round(problem: RiskScoreProblem, coef: np.ndarray) -> np.ndarray:
    lo, hi = problem.lam_bounds()
    return np.rint(np.clip(coef, lo, hi)).astype(np.int64)


def _rescaled_round(problem: RiskScoreProblem, coef: np.ndarray) -> np.ndarray:
    lo, hi = problem.lam_bounds()
    w = coef[1:]
    ratios = [hi[j + 1] / v if v > 0 else lo[j + 1] / v for j, v in enumerate(w) if v != 0]
    ratios = [r for r in ratios if r > 0]
    scale = min(ratios) if ratios else 1.0
    return np.rint(np.clip(scale * coef, lo, hi)).astype(np.int64)


def _best_intercept(problem: RiskScoreProblem, lam: np.ndarray) -> int:
    """The integer intercept within bounds that minimises the loss, other points fixed."""
    lo, hi = problem.lam_bounds()
    Z = problem.loss.Z
    s = Z[:, 1:] @ lam[1:].astype(float)
    values = np.arange(int(lo[0]), int(hi[0]) + 1, dtype=float)

    def objectives(vals: np.ndarray) -> np.ndarray:
        return problem.loss.batch_from_scores(s[:, None] + Z[:, [0]] * vals[None, :])

    # the loss is convex in the intercept: a ternary search needs no (rows x values) matrix
    return int(ternary_search(objectives, values)[0])


def _unit(problem: RiskScoreProblem, coef: np.ndarray, intercept: str = "best") -> np.ndarray:
    lo, hi = problem.lam_bounds()
    lam = np.clip(np.sign(coef), lo, hi)
    if intercept == "best":
        lam[0] = _best_intercept(problem, lam)
    elif intercept == "round":
        lam[0] = np.rint(np.clip(coef[0], lo[0], hi[0]))
    else:
        raise InputError(f'intercept must be "best" or "round", got {intercept!r}')
    return lam.astype(np.int64)


# --- choosing one PLR model ----------------------------------------------------------------
def _choose_index(
    problem: RiskScoreProblem,
    pool: PLRPool,
    candidates: list[int],
    choose,
    *,
    cv_splits: int,
    seed: int,
    max_iter: int,
    tol: float,
) -> int:
    coefs = [pool[i] for i in candidates]
    if callable(choose):
        k = int(choose(coefs, problem.X, problem.y))
        if not 0 <= k < len(coefs):
            raise InputError(f"choose returned {k}; expected an index below {len(coefs)}")
        return candidates[k]
    if choose == "loss":
        losses = [problem.loss.value(c) for c in coefs]
        return candidates[int(np.argmin(losses))]
    if choose == "cv_auc":
        return candidates[_cv_auc_choice(problem, pool, candidates, cv_splits, seed, max_iter, tol)]
    raise InputError(f'choose must be "loss", "cv_auc" or a callable, got {choose!r}')


def _cv_auc_choice(problem, pool, candidates, n_splits, seed, max_iter, tol) -> int:
    """Index (into ``candidates``) of the parameters with the best mean K-fold test AUC."""
    if not pool.params:
        raise InputError('choose="cv_auc" needs a pool with (alpha, gamma) parameters')
    X, y, w = problem.X, problem.y, problem.sample_weight
    params = [pool.params[i] for i in candidates]
    auc = np.zeros(len(candidates))
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for train, test in folds.split(X, y):
        fitted = refit_params(X[train], y[train], w[train], params, max_iter, tol)
        for k, coef in enumerate(fitted):
            score = coef[0] + X[test] @ coef[1:]
            auc[k] += roc_auc_score(y[test], score, sample_weight=w[test]) / n_splits
    # ties (e.g. constant models): prefer the lower training loss
    best = np.flatnonzero(auc >= auc.max() - 1e-12)
    losses = [problem.loss.value(pool[candidates[k]]) for k in best]
    return int(best[int(np.argmin(losses))])


# --- building the model --------------------------------------------------------------------
def _model(
    problem: RiskScoreProblem, lam: np.ndarray, method: str, elapsed: float, details: dict
) -> RiskScore:
    lam = np.asarray(lam, dtype=np.int64)
    objective = problem.objective(lam)
    violations = problem.violations(lam)
    result = SolveResult(
        status=HEURISTIC_STATUS,
        solution=lam,
        upper_bound=float(objective),
        lower_bound=-math.inf,
        time=float(elapsed),
        stats={"method": method, **details},
    )
    model = RiskScore.from_result(problem, result)
    model.stats["method"] = method
    if violations:
        model.stats["violations"] = list(violations)
    return model


def _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol) -> PLRPool:
    """The given pool (checked against the problem), or a new one fitted on its data."""
    if pool is None:
        return fit_pool(problem, alphas, gammas, n_gammas, max_iter, tol)
    if not isinstance(pool, PLRPool):
        pool = PLRPool(pool, [(math.nan, math.nan)] * len(pool), problem.feature_names)
    if pool.feature_names and list(pool.feature_names) != list(problem.feature_names):
        raise InputError(
            "the pool was fitted on other features than the problem's; fit it with "
            "plr_pool on the same X and the same binarize"
        )
    d = problem.n_features
    if any(c.shape != (d + 1,) for c in pool):
        raise InputError(f"pool models must have {d + 1} entries [intercept, w_1..w_d]")
    return pool


def _build_problem(X, y, settings) -> RiskScoreProblem:
    """The baseline's problem; the baselines round to the fixed scale only."""
    problem = build_problem(X, y, **settings)
    problem.require_fixed_scale("the baselines")
    return problem


def _traditional(
    method: str,
    convert: Converter,
    problem: RiskScoreProblem,
    pool: PLRPool,
    *,
    start: float,
    choose,
    cv_splits: int,
    seed: int,
    max_iter: int,
    tol: float,
) -> RiskScore:
    sizes = pool.sizes()
    candidates = [i for i in range(len(pool)) if problem.min_size <= sizes[i] <= problem.max_size]
    if not candidates:
        raise InfeasibleError(
            f"no PLR model in the pool has between {problem.min_size} and "
            f"{problem.max_size} non-zero coefficients"
        )
    i = _choose_index(
        problem,
        pool,
        candidates,
        choose,
        cv_splits=cv_splits,
        seed=seed,
        max_iter=max_iter,
        tol=tol,
    )
    lam = convert(problem, pool[i])
    alpha, gamma = pool.params[i]
    details = {
        "pool_size": len(pool),
        "n_candidates": len(candidates),
        "choose": choose if isinstance(choose, str) else getattr(choose, "__name__", "callable"),
        "alpha": alpha,
        "gamma": gamma,
        "plr_size": int(sizes[i]),
        "plr_loss": float(problem.loss.value(pool[i])),
        "plr_coefficients": [float(v) for v in pool[i]],
    }
    return _model(problem, lam, method, time.perf_counter() - start, details)


def _pooled(
    method: str, convert: PoolConverter, problem: RiskScoreProblem, pool: PLRPool, start: float
) -> RiskScore:
    checker = MoveChecker(problem)
    best: tuple[float, int, np.ndarray] | None = None
    seen: dict[bytes, float] = {}
    n_feasible = 0
    for i, coef in enumerate(pool):
        lam = convert(problem, coef, checker)
        if lam is None or problem.violations(lam):
            continue
        n_feasible += 1
        key = lam.tobytes()
        if key not in seen:
            seen[key] = problem.objective(lam)
        if best is None or seen[key] < best[0] - 1e-12:
            best = (seen[key], i, lam)
    if best is None:
        raise InfeasibleError(
            f"{PAPER_NAMES.get(method, method)}: no model in the pool of {len(pool)} is "
            "feasible after rounding"
        )
    _, i, lam = best
    alpha, gamma = pool.params[i]
    details = {
        "pool_size": len(pool),
        "n_feasible": n_feasible,
        "n_distinct": len(seen),
        "alpha": alpha,
        "gamma": gamma,
        "plr_size": int(np.count_nonzero(pool[i][1:])),
    }
    return _model(problem, lam, method, time.perf_counter() - start, details)


def _rd(problem, coef, checker):
    return _round(problem, coef)


def _rd_polished(problem, coef, checker):
    lam = _round(problem, coef)
    if problem.violations(lam):
        return None
    return polish(problem, lam, only_nonzero=True, checker=checker)[0]


def _seqrd_polished(problem, coef, checker):
    lo, hi = problem.lam_bounds()
    lam = sequential_rounding(problem, np.clip(coef, lo, hi))
    if lam is None:
        return None
    return polish(problem, lam, only_nonzero=True, checker=checker)[0]


# --- the six baselines -----------------------------------------------------------------------
def plr_rd(
    X,
    y,
    *,
    pool: PLRPool | Sequence[np.ndarray] | None = None,
    choose: str | Chooser = "loss",
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    cv_splits: int = 5,
    seed: int = 0,
    max_iter: int = 2000,
    tol: float = 1e-4,
    **settings: Unpack[RiskScoreSettings],
) -> RiskScore:
    """PLR→RD: round the coefficients of one PLR model to the nearest integers.

    Parameters
    ----------
    X : DataFrame or array of shape (n, d)
        Features.
    y : array-like of shape (n,)
        Binary outcome.
    pool : PLRPool or list of ``[intercept, w]`` vectors, optional
        A pool fitted on the same ``X, y`` (shared between baselines); by default one is
        fitted with ``alphas``, ``gammas`` and ``n_gammas`` (see
        :func:`~riskexplore.risk_score.plr.plr_pool`).
    choose : {"loss", "cv_auc"} or callable
        How the single PLR model is picked among pool models obeying the size limit:
        lowest training loss (default), best mean ``cv_splits``-fold CV AUC (as in
        Ustun & Rudin [1]_, Section 5.1; refits the pool on each fold), or
        ``choose(coefs, X, y) -> index``.
    alphas : sequence of float
        Elastic-net mixing parameters of the pool.
    gammas : sequence of float, optional
        Penalty strengths of the pool (default: a glmnet-style path per alpha).
    n_gammas : int
        Length of the automatic path.
    cv_splits : int
        Folds of ``choose="cv_auc"``.
    seed : int
        Seed of the folds.
    max_iter, tol : int, float
        Iterations and tolerance of the PLR solver.
    **settings
        The problem, as for :func:`~riskexplore.risk_score.fit.fit_risk_score`: the
        arguments of :class:`~riskexplore.risk_score.problem.RiskScoreProblem`
        (``max_size``, ``coef_min``, ``coef_max``, ``intercept_min``, ``intercept_max``,
        ``c0``, ``constraints``, ``sample_weight``, ...; default: no size limit, points
        -5..5, intercept -100..100, ``c0 = 1e-6``). ``c0`` ranks the pooled methods'
        candidates.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019.
    """
    start = time.perf_counter()
    problem = _build_problem(X, y, settings)
    return _traditional(
        "plr_rd",
        _round,
        problem,
        _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol),
        start=start,
        choose=choose,
        cv_splits=cv_splits,
        seed=seed,
        max_iter=max_iter,
        tol=tol,
    )


def plr_rsrd(
    X,
    y,
    *,
    pool: PLRPool | Sequence[np.ndarray] | None = None,
    choose: str | Chooser = "loss",
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    cv_splits: int = 5,
    seed: int = 0,
    max_iter: int = 2000,
    tol: float = 1e-4,
    **settings: Unpack[RiskScoreSettings],
) -> RiskScore:
    """PLR→RsRD: rescale one PLR model so its largest point is ±5, then round.

    Parameters
    ----------
    X, y, pool
        As in :func:`plr_rd`.
    choose, alphas, gammas, n_gammas, cv_splits, seed, max_iter, tol, **settings
        As in :func:`plr_rd`.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.
    """
    start = time.perf_counter()
    problem = _build_problem(X, y, settings)
    return _traditional(
        "plr_rsrd",
        _rescaled_round,
        problem,
        _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol),
        start=start,
        choose=choose,
        cv_splits=cv_splits,
        seed=seed,
        max_iter=max_iter,
        tol=tol,
    )


def plr_unit(
    X,
    y,
    *,
    intercept: str = "best",
    pool: PLRPool | Sequence[np.ndarray] | None = None,
    choose: str | Chooser = "loss",
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    cv_splits: int = 5,
    seed: int = 0,
    max_iter: int = 2000,
    tol: float = 1e-4,
    **settings: Unpack[RiskScoreSettings],
) -> RiskScore:
    """PLR→UNIT: points ``sign(w_j)`` of one PLR model (unit weighting).

    Parameters
    ----------
    intercept : {"best", "round"}
        ``"best"`` (default): the loss-minimising integer intercept for the unit-weighted
        score; ``"round"``: the PLR intercept, rounded.
    X, y, pool
        As in :func:`plr_rd`.
    choose, alphas, gammas, n_gammas, cv_splits, seed, max_iter, tol, **settings
        As in :func:`plr_rd`.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.
    """
    start = time.perf_counter()
    problem = _build_problem(X, y, settings)
    return _traditional(
        "plr_unit",
        functools.partial(_unit, intercept=intercept),
        problem,
        _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol),
        start=start,
        choose=choose,
        cv_splits=cv_splits,
        seed=seed,
        max_iter=max_iter,
        tol=tol,
    )


def pooled_rd(
    X,
    y,
    *,
    pool: PLRPool | Sequence[np.ndarray] | None = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    max_iter: int = 2000,
    tol: float = 1e-4,
    **settings: Unpack[RiskScoreSettings],
) -> RiskScore:
    """PooledRD: round every pool model; the best feasible one.

    Parameters
    ----------
    X, y, pool
        As in :func:`plr_rd`.
    alphas, gammas, n_gammas, max_iter, tol, **settings
        As in :func:`plr_rd`.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.
    """
    start = time.perf_counter()
    problem = _build_problem(X, y, settings)
    return _pooled(
        "pooled_rd",
        _rd,
        problem,
        _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol),
        start,
    )


def pooled_rd_star(
    X,
    y,
    *,
    pool: PLRPool | Sequence[np.ndarray] | None = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    max_iter: int = 2000,
    tol: float = 1e-4,
    **settings: Unpack[RiskScoreSettings],
) -> RiskScore:
    """PooledRD*: round every pool model, polish with DCD (zeros fixed); the best.

    Parameters
    ----------
    X, y, pool
        As in :func:`plr_rd`.
    alphas, gammas, n_gammas, max_iter, tol, **settings
        As in :func:`plr_rd`.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.
    """
    start = time.perf_counter()
    problem = _build_problem(X, y, settings)
    return _pooled(
        "pooled_rd_star",
        _rd_polished,
        problem,
        _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol),
        start,
    )


def pooled_seqrd_star(
    X,
    y,
    *,
    pool: PLRPool | Sequence[np.ndarray] | None = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    max_iter: int = 2000,
    tol: float = 1e-4,
    **settings: Unpack[RiskScoreSettings],
) -> RiskScore:
    """PooledSeqRD*: SequentialRounding of every pool model, DCD polishing; the best.

    Parameters
    ----------
    X, y, pool
        As in :func:`plr_rd`.
    alphas, gammas, n_gammas, max_iter, tol, **settings
        As in :func:`plr_rd`.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.
    """
    start = time.perf_counter()
    problem = _build_problem(X, y, settings)
    return _pooled(
        "pooled_seqrd_star",
        _seqrd_polished,
        problem,
        _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol),
        start,
    )


#: Method name -> function ``f(X, y, **settings) -> RiskScore``.
BASELINES: dict[str, Callable[..., RiskScore]] = {
    "plr_rd": plr_rd,
    "plr_rsrd": plr_rsrd,
    "plr_unit": plr_unit,
    "pooled_rd": pooled_rd,
    "pooled_rd_star": pooled_rd_star,
    "pooled_seqrd_star": pooled_seqrd_star,
}


def fit_baseline(name: str, X, y, **settings: Any) -> RiskScore:
    """Fit the baseline called ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`BASELINES` or a name of :data:`PAPER_NAMES` (``"PooledRD*"``).
    X, y
        Features and binary outcome.
    **settings
        Arguments of the baseline function.

    Returns
    -------
    RiskScore
        The baseline model.

    Raises
    ------
    InputError
        For an unknown name.
    """
    key = {v: k for k, v in PAPER_NAMES.items()}.get(name, name)
    if key not in BASELINES:
        raise InputError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
    return BASELINES[key](X, y, **settings)
