"""Baseline risk scores of Section 5.1: penalized logistic regression, then rounding.

Every baseline post-processes models from a pool of penalized logistic regression (PLR)
fits and returns a :class:`~riskexplore.risk_score.model.RiskScore` under the same
coefficient bounds, intercept bounds and model-size limit as RiskSLIM, so every metric
and view that works on a RiskSLIM model works on a baseline too.

The pool (:func:`plr_pool`)
    Elastic-net logistic regression over a grid of
    mixing parameters ``alpha`` (``l1_ratio``; 0 = ridge, 1 = lasso) and penalty
    strengths ``gamma``, minimising glmnet's objective::

        (1/n) sum_i w_i log(1 + exp(-y_i <lam, x_i>)) + gamma (alpha |w|_1 + (1 - alpha)/2 |w|_2^2)

    (the intercept is not penalized). As in the paper, models are fitted on the raw
    features (the bundled datasets are binary) -- no standardisation, so the rounded
    coefficients are points of the features themselves. For each ``alpha`` the
    ``gamma`` path is chosen the way glmnet chooses it: ``n_gammas`` values spaced
    evenly on a log scale from ``gamma_max`` (the smallest penalty with all feature
    coefficients zero; for ``alpha = 0`` computed with ``alpha = 0.001``) down to
    ``1e-4 * gamma_max``. The paper's pool has 11 alphas x 100 gammas = 1,100 models;
    the default here is 11 x 20 = 220 (pass ``n_gammas=PAPER_N_GAMMAS`` for the
    paper's size). The default solver is a glmnet-style proximal Newton / coordinate
    descent on the distinct rows (merged, weights summed), warm-started along each
    path, so a pool takes seconds; ``solver="saga"`` uses scikit-learn's
    ``LogisticRegression(solver="saga", l1_ratio=alpha)`` instead (same objective, but
    minutes per pool: saga is slow at small penalties and with large row weights).

Traditional methods (``plr_rd``, ``plr_rsrd``, ``plr_unit``)
    Take *one* PLR model -- among the pool models that obey the size limit -- and
    convert it. The paper picks the model with the best 5-fold CV AUC
    (``choose="cv_auc"``); the default here is ``choose="loss"``, the lowest training
    logistic loss (much cheaper); any callable ``choose(coefs, X, y) -> index`` works.

    * RD: clip every coefficient to its bounds and round to the nearest integer (the
      paper writes the ceiling bracket but describes rounding to the nearest integer).
    * RsRD: scale ``[intercept, w]`` by ``5 / max_j |w_j|`` (in general: the largest
      factor that keeps every coefficient within its bounds), then round.
    * UNIT: points ``sign(w_j)``; the paper does not say how the intercept is set, and
      the PLR intercept is on another scale, so by default it is the best integer
      intercept for the unit-weighted score (``intercept="round"`` rounds the PLR one).

    Rounding only removes features, so these models obey the size limit; if they break
    another constraint row the violations are listed in ``stats["violations"]``.

Pooled methods (``pooled_rd``, ``pooled_rd_star``, ``pooled_seqrd_star``)
    Post-process *every* pool model (whatever its size), drop the results that break
    the size limit or any other constraint (the paper drops infeasible models; nothing
    is truncated), and return the feasible one with the lowest training objective
    (loss + ``c0`` per feature).

    * PooledRD: rounding as RD.
    * PooledRD*: rounding, then DCD polishing over the intercept and the non-zero
      points only (zeros stay fixed so the model cannot grow).
    * PooledSeqRD*: SequentialRounding (Algorithm 4) of the clipped real coefficients,
      then the same polishing.

Baseline models carry a :class:`~riskexplore.core.certificate.Certificate` with
status ``"heuristic"``, ``upper_bound`` = the model's objective and ``lower_bound`` =
``-inf``: no optimality certificate (``gap`` is ``inf``, ``is_optimal`` is False).
``stats["method"]`` names the method and ``stats["solver"]`` holds the pool details.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.heuristics import MoveChecker, polish, sequential_rounding
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.problem import RiskScoreProblem

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

#: Elastic-net mixing parameters of the paper's pool (0 = ridge, 1 = lasso).
DEFAULT_ALPHAS = tuple(round(0.1 * k, 1) for k in range(11))
#: Penalty strengths per alpha in the default pool (the paper uses 100).
DEFAULT_N_GAMMAS = 20
PAPER_N_GAMMAS = 100
#: Smallest gamma of a path, relative to gamma_max (glmnet's default when n > d).
GAMMA_RATIO = 1e-4
#: Coordinate-descent sweeps per Newton step of the PLR solver (Newton steps continue
#: from where the sweeps stopped, so this only trades inner for outer iterations).
_INNER_SWEEPS = 200
#: Certificate status of heuristic (uncertified) models.
HEURISTIC_STATUS = "heuristic"

#: Names as printed in the paper's Table 3.
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


class PLRPool(list):
    """A list of real-valued coefficient vectors ``[intercept, w_1..w_d]``.

    ``params[i]`` is the ``(alpha, gamma)`` of model ``i`` and ``feature_names`` the
    columns it was fitted on; ``fit_time`` is the seconds the pool took.
    """

    def __init__(self, coefs=(), params=(), feature_names=(), fit_time: float = 0.0):
        super().__init__(np.asarray(c, dtype=float) for c in coefs)
        self.params = [(float(a), float(g)) for a, g in params]
        self.feature_names = list(feature_names)
        self.fit_time = float(fit_time)
        if len(self.params) != len(self):
            raise InputError("PLRPool needs one (alpha, gamma) per model")

    def sizes(self) -> np.ndarray:
        """Number of non-zero feature coefficients of each model."""
        return np.array([int(np.count_nonzero(c[1:])) for c in self], dtype=int)


# --- the PLR pool ------------------------------------------------------------------------
def plr_pool(
    X,
    y,
    *,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    gammas: Sequence[float] | None = None,
    n_gammas: int = DEFAULT_N_GAMMAS,
    max_size: int | None = None,
    sample_weight=None,
    max_iter: int = 2000,
    tol: float = 1e-4,
    solver: str = "cd",
) -> PLRPool:
    """Fit the pool of elastic-net logistic regression models (see the module docstring).

    Parameters
    ----------
    X, y : features and binary outcome (as for :func:`riskexplore.fit_risk_score`).
    alphas : sequence of float in [0, 1]
        Elastic-net mixing parameters (scikit-learn's ``l1_ratio``).
    gammas : sequence of float, optional
        Penalty strengths used for every alpha; default: a glmnet-style path of
        ``n_gammas`` values per alpha.
    n_gammas : int
        Length of the automatic path (the paper: 100; default 20).
    max_size : int, optional
        Keep only models with at most this many non-zero feature coefficients.
    sample_weight : array-like, optional
    solver : "cd" or "saga"
        Our proximal-Newton coordinate descent on merged rows (default; reaches the
        same objective as saga to ~1e-12 and is far faster), or scikit-learn's saga.

    Returns
    -------
    PLRPool
        A list of ``[intercept, w_1..w_d]`` float arrays, with ``params``.
    """
    problem = RiskScoreProblem(X, y, sample_weight=sample_weight)
    pool = _fit_pool(problem, alphas, gammas, n_gammas, max_iter, tol, solver)
    if max_size is not None:
        keep = np.flatnonzero(pool.sizes() <= int(max_size))
        pool = PLRPool(
            [pool[i] for i in keep],
            [pool.params[i] for i in keep],
            pool.feature_names,
            pool.fit_time,
        )
    return pool


def _rows(problem: RiskScoreProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Distinct rows ``(X, y in {-1, 1}, weights)`` of a problem and its total weight."""
    Z, w = problem.loss.Z, problem.loss.weights
    yy = Z[:, 0].copy()
    Xc = Z[:, 1:] * yy[:, None]
    n = float(len(problem.y))
    return Xc, yy, w * n, n


def _compress(X: np.ndarray, y: np.ndarray, w: np.ndarray):
    data = np.column_stack([X, y])
    uniq, inverse = np.unique(data, axis=0, return_inverse=True)
    wu = np.bincount(inverse.ravel(), weights=w, minlength=len(uniq))
    keep = wu > 0
    return uniq[keep, :-1], uniq[keep, -1], wu[keep]


def _gamma_path(X, y, w, alpha: float, n_gammas: int) -> np.ndarray:
    """glmnet's automatic path: ``gamma_max`` down to ``GAMMA_RATIO * gamma_max``."""
    y01 = (y > 0).astype(float)
    wn = w / w.sum()
    ybar = float(wn @ y01)
    grad = np.abs(X.T @ (wn * (y01 - ybar))) if X.shape[1] else np.zeros(1)
    gmax = float(grad.max()) / max(float(alpha), 1e-3)
    if not gmax > 0:
        gmax = 1.0
    if n_gammas <= 1:
        return np.array([gmax])
    return gmax * GAMMA_RATIO ** np.linspace(0.0, 1.0, int(n_gammas))


def _logistic(alpha: float, max_iter: int, tol: float):
    import sklearn
    from sklearn.linear_model import LogisticRegression

    kwargs: dict[str, Any] = dict(
        solver="saga", l1_ratio=float(alpha), warm_start=True, max_iter=max_iter, tol=tol
    )
    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    if (major, minor) < (1, 8):  # "penalty" is deprecated from 1.8 on
        kwargs["penalty"] = "elasticnet"
    return LogisticRegression(**kwargs)


def _fit_path(X, y, w, n, alpha, gammas, max_iter, tol, solver="cd") -> list[np.ndarray]:
    """Coefficients ``[intercept, w]`` for each gamma (fitted largest first, warm)."""
    if len(np.unique(y)) < 2:
        raise InputError("the PLR pool needs examples of both classes")
    if solver == "cd":
        return _cd_path(X, y, w, alpha, gammas, max_iter=max_iter, tol=tol)
    if solver != "saga":
        raise InputError(f'solver must be "cd" or "saga", got {solver!r}')
    from sklearn.exceptions import ConvergenceWarning

    d = X.shape[1]
    order = np.argsort(-np.asarray(gammas, dtype=float), kind="stable")
    out: list[np.ndarray | None] = [None] * len(gammas)
    model = _logistic(alpha, max_iter, tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for k in order:
            model.set_params(C=1.0 / (n * float(gammas[k])))
            model.fit(X, y, sample_weight=w)
            coef = np.zeros(d + 1)
            coef[0] = float(model.intercept_[0])
            coef[1:] = model.coef_.ravel()
            out[k] = coef
    return out  # type: ignore[return-value]


def _plr_objective(A, y01, v, theta, l1, l2) -> float:
    eta = A @ theta
    loss = float(v @ (np.logaddexp(0.0, eta) - y01 * eta))
    b = theta[1:]
    return loss + l1 * float(np.abs(b).sum()) + 0.5 * l2 * float(b @ b)


def _solve_on_support(H, g, theta, l1, l2) -> np.ndarray | None:
    """The exact minimiser of the quadratic model if it has the support and signs of
    ``theta`` (checked with the optimality conditions), else ``None``."""
    support = np.flatnonzero(theta)
    support = np.union1d([0], support)
    signs = np.sign(theta[support])
    signs[0] = 0.0
    ridge = np.full(len(support), l2)
    ridge[0] = 0.0
    M = H[np.ix_(support, support)] + np.diag(ridge)
    rhs = g[support] - l1 * signs
    sol = np.linalg.lstsq(M, rhs, rcond=None)[0]
    if np.any(np.sign(sol[1:]) != signs[1:]):
        return None
    out = np.zeros_like(theta)
    out[support] = sol
    grad = g - H @ out  # minus the gradient of the smooth part
    rest = np.setdiff1d(np.arange(len(theta)), support)
    if np.any(np.abs(grad[rest]) > l1 + 1e-10):
        return None
    if np.max(np.abs(M @ sol - rhs), initial=0.0) > 1e-9:  # singular and inconsistent
        return None
    return out


def _cd_path(X, y, w, alpha, gammas, *, max_iter=2000, tol=1e-4) -> list[np.ndarray]:
    """Elastic-net logistic regression path by proximal Newton + coordinate descent.

    The glmnet algorithm, on the (weighted, distinct) rows: each outer step replaces
    the loss by its second-order expansion at the current point and minimises that
    penalized weighted least-squares problem by cyclic coordinate descent on its Gram
    matrix (soft-thresholding each feature coefficient; the intercept is free). A
    backtracking step keeps the true objective decreasing. Exact zeros come out of
    the soft-thresholding, as with the lasso.
    """
    from threadpoolctl import threadpool_limits

    # the matrices are small: multi-threaded BLAS only adds overhead (a lot of it on a
    # busy machine)
    with threadpool_limits(1, user_api="blas"):
        return _cd_path_unthreaded(X, y, w, alpha, gammas, max_iter=max_iter, tol=tol)


def _cd_path_unthreaded(X, y, w, alpha, gammas, *, max_iter, tol) -> list[np.ndarray]:
    X = np.asarray(X, dtype=float)
    A = np.column_stack([np.ones(len(X)), X])
    y01 = (np.asarray(y) > 0).astype(float)
    v = np.asarray(w, dtype=float) / float(np.sum(w))
    d1 = A.shape[1]
    order = np.argsort(-np.asarray(gammas, dtype=float), kind="stable")
    out: list[np.ndarray | None] = [None] * len(gammas)
    theta = np.zeros(d1)
    ybar = float(v @ y01)
    theta[0] = math.log(max(ybar, 1e-12) / max(1.0 - ybar, 1e-12))
    outer_tol = min(tol, 1e-4) * 1e-4
    for k in order:
        gamma = float(gammas[k])
        l1, l2 = gamma * alpha, gamma * (1.0 - alpha)
        obj = _plr_objective(A, y01, v, theta, l1, l2)
        for _ in range(100):
            eta = A @ theta
            p = 1.0 / (1.0 + np.exp(-eta))
            q = np.maximum(p * (1.0 - p), 1e-5)
            H = A.T @ (A * (v * q)[:, None])
            g = H @ theta + A.T @ (v * (y01 - p))  # linear term of the expansion
            new = theta.copy()
            diag = np.diag(H).copy()
            Hnew = H @ new
            everything = list(range(d1))
            coords = everything
            for _sweep in range(_INNER_SWEEPS):
                change = 0.0
                for j in coords:
                    r = g[j] - Hnew[j] + diag[j] * new[j]
                    if j == 0:
                        value = r / diag[0]
                    else:
                        value = math.copysign(max(abs(r) - l1, 0.0), r) / (diag[j] + l2)
                    delta = value - new[j]
                    if delta:
                        change = max(change, diag[j] * delta * delta)
                        new[j] = value
                        Hnew += H[:, j] * delta
                if change < 1e-13:
                    if coords is everything:
                        break
                    coords = everything  # converged on the active set: check all
                elif coords is everything:  # sweep only the active set until it settles
                    coords = [0, *(j for j in range(1, d1) if new[j] != 0.0)]
                if _sweep % 2 == 0:
                    exact = _solve_on_support(H, g, new, l1, l2)
                    if exact is not None:
                        new = exact
                        break
            step, direction = 1.0, new - theta
            while True:
                candidate = theta + step * direction
                new_obj = _plr_objective(A, y01, v, candidate, l1, l2)
                if new_obj <= obj + 1e-15 or step < 1e-6:
                    break
                step *= 0.5
            if step < 1e-6 and new_obj > obj:
                break
            theta = candidate
            if step == 1.0:  # keep the exact zeros of the thresholded solution
                theta = new
            done = obj - new_obj <= outer_tol * max(1.0, abs(new_obj))
            obj = new_obj
            if done:
                break
        out[k] = theta.copy()
    return out  # type: ignore[return-value]


def _fit_pool(problem, alphas, gammas, n_gammas, max_iter, tol, solver="cd") -> PLRPool:
    start = time.perf_counter()
    if solver == "saga":  # saga is far slower on merged rows with large weights
        X, y, w = problem.X, problem.y.astype(float), problem.sample_weight
        n = float(len(y))
    else:
        X, y, w, n = _rows(problem)
    alphas = [float(a) for a in alphas]
    if not alphas or any(not 0.0 <= a <= 1.0 for a in alphas):
        raise InputError("alphas must be a non-empty sequence of numbers in [0, 1]")
    if gammas is not None and (len(gammas) == 0 or any(not g > 0 for g in gammas)):
        raise InputError("gammas must be a non-empty sequence of positive numbers")
    coefs, params = [], []
    for a in alphas:
        path = (
            np.asarray(gammas, dtype=float)
            if gammas is not None
            else _gamma_path(X, y, w, a, n_gammas)
        )
        coefs.extend(_fit_path(X, y, w, n, a, path, max_iter, tol, solver))
        params.extend((a, float(g)) for g in path)
    return PLRPool(coefs, params, problem.feature_names, time.perf_counter() - start)


def _refit_params(X, y, w, params, max_iter, tol, solver="cd") -> list[np.ndarray]:
    """Refit the pool's ``(alpha, gamma)`` models on other data (for CV selection)."""
    if solver != "saga":
        X, y, w = _compress(X, y, w)
    n = float(w.sum())
    out: list[np.ndarray | None] = [None] * len(params)
    by_alpha: dict[float, list[int]] = {}
    for i, (a, _) in enumerate(params):
        by_alpha.setdefault(a, []).append(i)
    for a, idx in by_alpha.items():
        fitted = _fit_path(X, y, w, n, a, [params[i][1] for i in idx], max_iter, tol, solver)
        for i, c in zip(idx, fitted, strict=True):
            out[i] = c
    return out  # type: ignore[return-value]


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
    S = s[:, None] + Z[:, [0]] * values[None, :]
    return int(values[int(np.argmin(problem.loss.batch_from_scores(S)))])


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
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    if not pool.params:
        raise InputError('choose="cv_auc" needs a pool with (alpha, gamma) parameters')
    X, y, w = problem.X, problem.y, problem.sample_weight
    params = [pool.params[i] for i in candidates]
    auc = np.zeros(len(candidates))
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for train, test in folds.split(X, y):
        fitted = _refit_params(X[train], y[train], w[train], params, max_iter, tol)
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


def _prepare(X, y, settings: dict[str, Any]) -> RiskScoreProblem:
    from riskexplore.risk_score.fit import build_problem

    return build_problem(X, y, **settings)


def _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol) -> PLRPool:
    if pool is None:
        return _fit_pool(problem, alphas, gammas, n_gammas, max_iter, tol)
    if not isinstance(pool, PLRPool):
        pool = PLRPool(pool, [(math.nan, math.nan)] * len(pool), problem.feature_names)
    d = problem.n_features
    if any(c.shape != (d + 1,) for c in pool):
        raise InputError(f"pool models must have {d + 1} entries [intercept, w_1..w_d]")
    return pool


def _traditional(
    method: str,
    convert: Converter,
    X,
    y,
    *,
    pool,
    alphas,
    gammas,
    n_gammas,
    choose,
    cv_splits,
    seed,
    max_iter,
    tol,
    settings,
) -> RiskScore:
    start = time.perf_counter()
    problem = _prepare(X, y, settings)
    pool = _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol)
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
    method: str,
    convert: PoolConverter,
    X,
    y,
    *,
    pool,
    alphas,
    gammas,
    n_gammas,
    max_iter,
    tol,
    settings,
) -> RiskScore:
    start = time.perf_counter()
    problem = _prepare(X, y, settings)
    pool = _get_pool(problem, pool, alphas, gammas, n_gammas, max_iter, tol)
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
_COMMON_DOC = """
    Parameters
    ----------
    X, y
        Features and binary outcome.
    max_size, coef_min, coef_max, intercept_min, intercept_max, c0, constraints
        The constraints of :func:`riskexplore.fit_risk_score` (default: no size limit,
        points -5..5, intercept -100..100, c0 = 1e-6).
    pool : PLRPool or list of ``[intercept, w]`` vectors, optional
        A pool fitted on the same ``X, y`` (shared between baselines); by default one is
        fitted with ``alphas``, ``gammas`` and ``n_gammas`` (see :func:`plr_pool`).
    **problem_kwargs
        Further :class:`~riskexplore.risk_score.problem.RiskScoreProblem` arguments.

    Returns
    -------
    RiskScore
        Certificate status ``"heuristic"``; ``stats["method"]`` is the method name.
"""

_CHOOSE_DOC = """    choose : "loss", "cv_auc" or callable
        How the single PLR model is picked among pool models obeying the size limit:
        lowest training loss (default), best mean ``cv_splits``-fold CV AUC (the
        paper; refits the pool on each fold), or ``choose(coefs, X, y) -> index``.
"""


def _settings(
    max_size: int | None,
    coef_min: int,
    coef_max: int,
    intercept_min: int,
    intercept_max: int,
    c0: float,
    constraints: Any,
    kw: dict[str, Any],
) -> dict[str, Any]:
    """The :func:`riskexplore.risk_score.fit.build_problem` arguments of a baseline call.

    Parameters
    ----------
    max_size, coef_min, coef_max, intercept_min, intercept_max, c0, constraints
        The constraints of the problem.
    kw : dict
        Further problem arguments.

    Returns
    -------
    dict
        Keyword arguments for :func:`riskexplore.risk_score.fit.build_problem`.
    """
    return dict(
        max_size=max_size,
        coef_min=coef_min,
        coef_max=coef_max,
        intercept_min=intercept_min,
        intercept_max=intercept_max,
        c0=c0,
        constraints=constraints,
        **kw,
    )


def _named(f: Callable[..., RiskScore], method: str, doc: str) -> Callable[..., RiskScore]:
    """Give a baseline made by a factory the public name ``method`` and docstring ``doc``.

    Parameters
    ----------
    f : callable
        The baseline function.
    method : str
        Its public name (a key of :data:`BASELINES`).
    doc : str
        Its docstring.

    Returns
    -------
    callable
        ``f``, renamed in place.
    """
    f.__name__ = f.__qualname__ = method
    f.__module__ = __name__
    f.__doc__ = doc
    return f


def _traditional_baseline(
    method: str, convert: Converter, summary: str
) -> Callable[..., RiskScore]:
    """Build a baseline that converts one PLR model chosen from the pool.

    Parameters
    ----------
    method : str
        The method name (``stats["method"]``).
    convert : callable
        ``convert(problem, coef) -> lam``: the rounding rule.
    summary : str
        First paragraph of the docstring.

    Returns
    -------
    callable
        ``f(X, y, **settings) -> RiskScore``.
    """

    def baseline(
        X,
        y,
        *,
        max_size: int | None = None,
        coef_min: int = -5,
        coef_max: int = 5,
        intercept_min: int = -100,
        intercept_max: int = 100,
        c0: float = 1e-6,
        constraints=(),
        pool=None,
        choose: str | Chooser = "loss",
        alphas: Sequence[float] = DEFAULT_ALPHAS,
        gammas: Sequence[float] | None = None,
        n_gammas: int = DEFAULT_N_GAMMAS,
        cv_splits: int = 5,
        seed: int = 0,
        max_iter: int = 2000,
        tol: float = 1e-4,
        **problem_kwargs,
    ) -> RiskScore:
        settings = _settings(
            max_size,
            coef_min,
            coef_max,
            intercept_min,
            intercept_max,
            c0,
            constraints,
            problem_kwargs,
        )
        return _traditional(
            method,
            convert,
            X,
            y,
            pool=pool,
            alphas=alphas,
            gammas=gammas,
            n_gammas=n_gammas,
            choose=choose,
            cv_splits=cv_splits,
            seed=seed,
            max_iter=max_iter,
            tol=tol,
            settings=settings,
        )

    return _named(baseline, method, summary + "\n" + _COMMON_DOC + _CHOOSE_DOC)


def _pooled_baseline(method: str, convert: PoolConverter, summary: str) -> Callable[..., RiskScore]:
    """Build a baseline that converts every pool model and keeps the best feasible one.

    Parameters
    ----------
    method : str
        The method name (``stats["method"]``).
    convert : callable
        ``convert(problem, coef, checker) -> lam or None``: the rounding rule.
    summary : str
        First paragraph of the docstring.

    Returns
    -------
    callable
        ``f(X, y, **settings) -> RiskScore``.
    """

    def baseline(
        X,
        y,
        *,
        max_size: int | None = None,
        coef_min: int = -5,
        coef_max: int = 5,
        intercept_min: int = -100,
        intercept_max: int = 100,
        c0: float = 1e-6,
        constraints=(),
        pool=None,
        alphas: Sequence[float] = DEFAULT_ALPHAS,
        gammas: Sequence[float] | None = None,
        n_gammas: int = DEFAULT_N_GAMMAS,
        max_iter: int = 2000,
        tol: float = 1e-4,
        **problem_kwargs,
    ) -> RiskScore:
        settings = _settings(
            max_size,
            coef_min,
            coef_max,
            intercept_min,
            intercept_max,
            c0,
            constraints,
            problem_kwargs,
        )
        return _pooled(
            method,
            convert,
            X,
            y,
            pool=pool,
            alphas=alphas,
            gammas=gammas,
            n_gammas=n_gammas,
            max_iter=max_iter,
            tol=tol,
            settings=settings,
        )

    return _named(baseline, method, summary + "\n" + _COMMON_DOC)


plr_rd = _traditional_baseline(
    "plr_rd", _round, "PLR→RD: round the coefficients of one PLR model to the nearest integers."
)
plr_rsrd = _traditional_baseline(
    "plr_rsrd",
    _rescaled_round,
    "PLR→RsRD: rescale one PLR model so its largest point is ±5, then round.",
)


def plr_unit(X, y, *, intercept: str = "best", **settings: Any) -> RiskScore:
    """PLR→UNIT: points ``sign(w_j)`` of one PLR model (unit weighting).

    ``intercept="best"`` (default) uses the loss-minimising integer intercept for the
    unit-weighted score; ``"round"`` rounds the PLR intercept. The other arguments are
    those of :func:`plr_rd`.
    """
    convert = functools.partial(_unit, intercept=intercept)
    return _traditional_baseline("plr_unit", convert, "")(X, y, **settings)


plr_unit.__doc__ = (plr_unit.__doc__ or "") + "\n" + _COMMON_DOC + _CHOOSE_DOC

pooled_rd = _pooled_baseline(
    "pooled_rd",
    lambda problem, coef, checker: _round(problem, coef),
    "PooledRD: round every pool model; the best feasible one.",
)
pooled_rd_star = _pooled_baseline(
    "pooled_rd_star",
    _rd_polished,
    "PooledRD*: round every pool model, polish with DCD (zeros fixed); the best.",
)
pooled_seqrd_star = _pooled_baseline(
    "pooled_seqrd_star",
    _seqrd_polished,
    "PooledSeqRD*: SequentialRounding of every pool model, DCD polishing; the best.",
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


def fit_baseline(name: str, X, y, **settings) -> RiskScore:
    """Fit the baseline called ``name`` (a key of :data:`BASELINES` or a paper name)."""
    key = {v: k for k, v in PAPER_NAMES.items()}.get(name, name)
    if key not in BASELINES:
        raise InputError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
    return BASELINES[key](X, y, **settings)
