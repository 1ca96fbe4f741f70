"""The pool of penalized logistic regression (PLR) models the baselines start from.

Elastic-net logistic regression over a grid of mixing parameters ``alpha``
(``l1_ratio``; 0 = ridge, 1 = lasso) and penalty strengths ``gamma``, minimising
glmnet's objective::

    (1/n) sum_i w_i log(1 + exp(-y_i <lam, x_i>)) + gamma (alpha |w|_1 + (1 - alpha)/2 |w|_2^2)

(the intercept is not penalized). Models are fitted on the raw features -- no
standardisation, so rounded coefficients are points of the features themselves. For each
``alpha`` the ``gamma`` path is chosen the way glmnet chooses it: ``n_gammas`` values
spaced evenly on a log scale from ``gamma_max`` (the smallest penalty with all feature
coefficients zero; for ``alpha = 0`` computed with ``alpha = 0.001``) down to
``1e-4 * gamma_max``. The default solver is a glmnet-style proximal Newton / coordinate
descent on the distinct rows (merged, weights summed), warm-started along each path, so a
pool takes seconds; ``solver="saga"`` uses scikit-learn's
``LogisticRegression(solver="saga", l1_ratio=alpha)`` instead (same objective, but
minutes per pool).

The grid is that of the PLR models of Ustun & Rudin [1]_, Section 5.1: 11 values of
``alpha`` times 100 values of ``gamma`` per ``alpha`` (1,100 models); the default here is
20 values of ``gamma`` per ``alpha`` (``PAPER_N_GAMMAS`` gives 100).

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from riskexplore.errors import InputError
from riskexplore.risk_score.fit import build_problem
from riskexplore.risk_score.problem import RiskScoreProblem

__all__ = [
    "DEFAULT_ALPHAS",
    "DEFAULT_N_GAMMAS",
    "GAMMA_RATIO",
    "PAPER_N_GAMMAS",
    "PLRPool",
    "fit_pool",
    "plr_pool",
    "refit_params",
]

#: Elastic-net mixing parameters of the PLR pool of Ustun & Rudin (2019), Section 5.1
#: (0 = ridge, 1 = lasso).
DEFAULT_ALPHAS = tuple(round(0.1 * k, 1) for k in range(11))
#: Penalty strengths per alpha in the default pool.
DEFAULT_N_GAMMAS = 20
#: Penalty strengths per alpha in the PLR pool of Ustun & Rudin (2019), Section 5.1.
PAPER_N_GAMMAS = 100
#: Smallest gamma of a path, relative to gamma_max (glmnet's default when n > d).
GAMMA_RATIO = 1e-4
#: Coordinate-descent sweeps per Newton step of the PLR solver (Newton steps continue
#: from where the sweeps stopped, so this only trades inner for outer iterations).
_INNER_SWEEPS = 200


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
    binarize="auto",
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
        Length of the automatic path (default 20; Ustun & Rudin (2019), Section 5.1, use
        100: ``PAPER_N_GAMMAS``).
    max_size : int, optional
        Keep only models with at most this many non-zero feature coefficients.
    sample_weight : array-like, optional
    solver : "cd" or "saga"
        Our proximal-Newton coordinate descent on merged rows (default; reaches the
        same objective as saga to ~1e-12 and is far faster), or scikit-learn's saga.
    binarize : "auto", False or Binarizer
        As for :func:`~riskexplore.risk_score.fit.fit_risk_score`: a raw table's pool is
        fitted on its items, the features of the baselines' problem on the same table.

    Returns
    -------
    PLRPool
        A list of ``[intercept, w_1..w_d]`` float arrays, with ``params``.
    """
    problem = build_problem(X, y, sample_weight=sample_weight, binarize=binarize)
    pool = fit_pool(problem, alphas, gammas, n_gammas, max_iter, tol, solver)
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


def fit_pool(problem, alphas, gammas, n_gammas, max_iter, tol, solver="cd") -> PLRPool:
    """The pool of a problem: a path of penalties per mixing parameter (see :func:`plr_pool`).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem (its rows and weights).
    alphas : sequence of float
        Mixing parameters.
    gammas : sequence of float or None
        Penalties for every alpha (None: a path of ``n_gammas``).
    n_gammas : int
        Length of the automatic path.
    max_iter, tol : int, float
        Iterations and tolerance of the solver.
    solver : {"cd", "saga"}
        The solver.

    Returns
    -------
    PLRPool
        The pool.
    """
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


def refit_params(X, y, w, params, max_iter, tol, solver="cd") -> list[np.ndarray]:
    """Refit the pool's ``(alpha, gamma)`` models on other data (for CV selection).

    Parameters
    ----------
    X, y, w : ndarray
        Rows, outcome in {-1, +1} and weights.
    params : list of (float, float)
        The ``(alpha, gamma)`` of each model.
    max_iter, tol : int, float
        Iterations and tolerance of the solver.
    solver : {"cd", "saga"}
        The solver.

    Returns
    -------
    list of ndarray
        The coefficients ``[intercept, w]`` of each model.
    """
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
