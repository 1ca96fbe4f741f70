"""Brute force for risk scores on raw tables, written apart from the solvers.

The items are recomputed from the raw table and the binarizer's ``(column, op, value)``
(not read from the fit), every integer model of a small box is enumerated (supports of at
most ``max_size`` items, each item's allowed points, a rule on supports such as "at most
one item per column"), and the objective ``loss + c0 * size`` is evaluated on the raw rows:

* the fixed scale, risk ``sigma(b + score)``: every integer intercept ``b`` of the box;
* the learned scale, risk ``sigma((b + score) / m)``: every integer ``b`` and, for each
  model, the exact least loss over ``t = 1 / m`` in ``[1 / m_max, 1 / m_min]`` (the loss
  is convex in ``t``: bisection on the sign of its derivative, all models at once, to
  machine precision, with both ends of the interval as candidates).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

#: Bisection steps on ``t``: the interval shrinks below 1e-15 of its width.
_STEPS = 55
#: Bisection steps on every model before the models that cannot be best are dropped.
_FIRST_STEPS = 12


def item_matrix(items, X: pd.DataFrame) -> np.ndarray:
    """The 0/1 matrix of binarizer items ``(name, column, op, value)`` on raw rows: a
    missing value sets every item of its column to 0 but its ``"missing"`` item to 1."""
    out = np.zeros((len(X), len(items)))
    for j, item in enumerate(items):
        col = X[item.column]
        present = col.notna().to_numpy()
        if item.op == "missing":
            out[:, j] = ~present
            continue
        if item.op in (">=", ">", "<=", "<"):
            x = pd.to_numeric(col).to_numpy(dtype=float, na_value=np.nan)
            with np.errstate(invalid="ignore"):
                hit = {
                    ">=": x >= item.value,
                    ">": x > item.value,
                    "<=": x <= item.value,
                    "<": x < item.value,
                }[item.op]
        else:
            equal = col.isin([item.value]).to_numpy()
            hit = equal if item.op == "==" else ~equal
        out[:, j] = hit & present
    return out


def enumerate_points(
    d: int,
    max_size: int,
    values: Sequence[Sequence[int]],
    support_ok: Callable[[tuple[int, ...]], bool] = lambda support: True,
) -> np.ndarray:
    """Every points vector with at most ``max_size`` non-zero items, item ``j`` taking a
    non-zero value of ``values[j]``, on supports that ``support_ok`` accepts; ``(K, d)``."""
    rows = []
    for size in range(max_size + 1):
        for support in itertools.combinations(range(d), size):
            if not support_ok(support):
                continue
            choices = [[v for v in values[j] if v] for j in support]
            for points in itertools.product(*choices):
                lam = np.zeros(d)
                lam[list(support)] = points
                rows.append(lam)
    return np.array(rows)


def _merged(Z: np.ndarray, y: np.ndarray, weight=None):
    """Distinct rows ``(items, y)``, their signs and their share of the row weights (the
    shares sum to one)."""
    rows, inverse = np.unique(np.column_stack([Z, y]), axis=0, return_inverse=True)
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=float)
    total = np.bincount(inverse.ravel(), weights=w, minlength=len(rows))
    return rows[:, :-1], np.where(rows[:, -1] > 0, 1.0, -1.0), total / total.sum()


def _loss(margins: np.ndarray, w: np.ndarray, t) -> np.ndarray:
    return np.logaddexp(0.0, -np.asarray(t)[:, None] * margins) @ w


def _bisect(margins: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray, steps: int):
    """``steps`` bisections of the brackets ``[a, b]`` of the least loss over ``t`` (the
    loss is convex in ``t``: the sign of its derivative says which half holds it)."""
    for _ in range(steps):
        t = (a + b) / 2
        # d/dt of the loss: -sum_i w_i margin_i sigma(-t margin_i)
        slope = -(margins * np.exp(-np.logaddexp(0.0, t[:, None] * margins))) @ w
        rising = slope > 0
        a, b = np.where(rising, a, t), np.where(rising, t, b)
    return a, b


def _least_objective(
    margins: np.ndarray, w: np.ndarray, penalty: np.ndarray, lo: float, hi: float, best: float
) -> np.ndarray:
    """``penalty + min_t sum_i w_i log(1 + exp(-t * margin_i))`` over ``t in [lo, hi]``
    per row of ``margins``, exactly for the rows that may beat ``best`` and the least
    objective of the others (``inf`` for the rest: after a few bisections, the tangent
    at the bracket's middle bounds a row's least loss from below, and a row whose bound
    is above an objective already reached cannot be best)."""
    k = margins.shape[0]
    a, b = _bisect(margins, w, np.full(k, lo), np.full(k, hi), _FIRST_STEPS)
    t = (a + b) / 2
    reached = _loss(margins, w, t) + penalty
    slope = -(margins * np.exp(-np.logaddexp(0.0, t[:, None] * margins))) @ w
    below = reached + np.minimum(slope * (a - t), slope * (b - t))
    keep = np.flatnonzero(below <= min(best, float(reached.min())) + 1e-12)
    out = np.full(k, np.inf)
    m = margins[keep]
    a, b = _bisect(m, w, a[keep], b[keep], _STEPS - _FIRST_STEPS)
    ends = np.minimum(_loss(m, w, np.full(len(a), lo)), _loss(m, w, np.full(len(a), hi)))
    out[keep] = np.minimum(ends, _loss(m, w, (a + b) / 2)) + penalty[keep]
    return out


def optimum(
    Z: np.ndarray,
    y: np.ndarray,
    points: np.ndarray,
    intercepts: range,
    c0: float,
    multiplier_range: tuple[float, float] | None = None,
    weight=None,
) -> tuple[float, np.ndarray]:
    """The least objective over ``points`` (rows) and ``intercepts``, with the fixed
    scale (``multiplier_range`` None) or the learned one; and ``[b, points...]`` of it.

    Parameters
    ----------
    Z : array (n, d)
        The items of the raw rows.
    y : array (n,)
        The outcome, 1 for positive rows.
    points : array (K, d)
        The candidate points vectors.
    intercepts : range
        The integer intercepts of the box.
    c0 : float
        The penalty per item used.
    multiplier_range : (float, float), optional
        ``[m_min, m_max]`` of the learned scale.
    weight : array (n,), optional
        The weight of each row (sample and class weights).
    """
    rows, sign, w = _merged(Z, y, weight)
    scores = points @ rows.T
    penalty = c0 * np.count_nonzero(points, axis=1)
    best, argbest = np.inf, None
    for b in intercepts:
        margins = sign * (b + scores)
        if multiplier_range is None:
            values = _loss(margins, w, np.ones(len(points))) + penalty
        else:
            m_lo, m_hi = multiplier_range
            values = _least_objective(margins, w, penalty, 1.0 / m_hi, 1.0 / m_lo, best)
        k = int(np.argmin(values))
        if values[k] < best:
            best, argbest = float(values[k]), np.concatenate([[b], points[k]])
    return best, argbest


def objective_of(
    Z: np.ndarray, y: np.ndarray, lam: np.ndarray, c0: float, multiplier: float = 1.0, weight=None
) -> float:
    """``loss + c0 * size`` of one model ``[b, points...]`` at the multiplier ``m``."""
    rows, sign, w = _merged(Z, y, weight)
    margins = sign * (lam[0] + rows @ lam[1:])
    loss = float(np.logaddexp(0.0, -margins / multiplier) @ w)
    return loss + c0 * int(np.count_nonzero(lam[1:]))
