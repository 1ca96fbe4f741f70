"""Heuristics for risk scores with a learned multiplier.

* :func:`improve` alternates discrete coordinate descent on the points at a fixed
  multiplier (:func:`~riskexplore.risk_score.lcpa.heuristics.polish` on a
  :class:`~riskexplore.risk_score.scaled.model_class.FixedScaleView`) with the best multiplier for
  the points (a one-dimensional convex minimisation), until neither improves.
* :func:`round_ray` scales a continuous solution by several multipliers, rounds each
  scaled point coordinate by coordinate
  (:func:`~riskexplore.risk_score.lcpa.heuristics.sequential_rounding` at that multiplier) and
  improves the result (the "star ray" idea of FasterRisk, followed by polishing).

Every model returned meets every bound and constraint of the class.
"""

from __future__ import annotations

import math

import numpy as np

from riskexplore.risk_score.lcpa.heuristics import polish, sequential_rounding
from riskexplore.risk_score.scaled.model_class import ScaledClass

__all__ = ["improve", "ray_multipliers", "round_ray"]


def improve(
    sclass: ScaledClass,
    lam: np.ndarray,
    t: float,
    *,
    support=None,
    should_stop=None,
    max_rounds: int = 20,
) -> tuple[np.ndarray, float, float]:
    """Alternate polishing the points at fixed ``t`` and choosing the best ``t``.

    Parameters
    ----------
    sclass : ScaledClass
        The class (problem and multiplier range).
    lam : int array (d+1,)
        A feasible model at ``t``.
    t : float
        ``1 / m``.
    support : sequence of int, optional
        Features the points may use (others stay zero; faster on merged rows).
    should_stop : callable, optional
        Polled between rounds (and inside polishing); true ends the search early.
    max_rounds : int
        Most alternations of polishing and choosing ``t``.

    Returns
    -------
    lam : int array (d+1,)
        The best points found (``lam`` itself when nothing improves it).
    t : float
        Their ``1 / m``.
    objective : float
        Their objective (loss plus penalties) at ``t``.
    """
    lam = np.asarray(lam, dtype=np.int64)
    objective = sclass.objective(lam, 1.0 / t)
    for _ in range(max_rounds):
        if should_stop is not None and should_stop():
            break
        view = sclass.fixed_scale(t, support)
        small, _ = polish(view, view.restrict(lam), should_stop=should_stop)
        new = view.embed(small)
        new_t, new_objective = sclass.best_t(new)
        if not new_objective < objective - 1e-12:
            break
        lam, t, objective = new, new_t, new_objective
    return lam, t, objective


def ray_multipliers(sclass: ScaledClass, theta: np.ndarray, support, count: int) -> np.ndarray:
    """Multipliers ``m`` that scale ``theta = [w_0, w_S]`` into the coefficient box.

    From the smallest ``m`` that gives the largest point a value of one, up to the largest
    that keeps every scaled coefficient in its bounds (both within the class's range).

    Parameters
    ----------
    sclass : ScaledClass
        The class (coefficient bounds and multiplier range).
    theta : array (``|S| + 1``,)
        A continuous solution ``[w_0, w_S]`` on the support.
    support : sequence of int
        Its features (0-based).
    count : int
        How many multipliers to return (evenly spaced; fewer when they coincide).

    Returns
    -------
    numpy.ndarray
        Distinct multipliers in increasing order (at least one).
    """
    lo, hi = sclass.problem.lam_bounds()
    cols = np.concatenate([[0], np.asarray(support, dtype=int) + 1])
    theta = np.asarray(theta, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        caps = np.where(theta > 0, hi[cols] / theta, np.where(theta < 0, lo[cols] / theta, np.inf))
    top = min(float(np.min(caps)) if caps.size else math.inf, sclass.multiplier_max)
    largest = float(np.max(np.abs(theta[1:]))) if theta.size > 1 else 0.0
    bottom = max(sclass.multiplier_min, 0.5 / largest if largest > 0 else sclass.multiplier_min)
    if not top > 0:
        return np.array([sclass.multiplier_min])
    bottom = min(bottom, top)
    return np.unique(np.linspace(bottom, top, max(count, 1)))


def round_ray(
    sclass: ScaledClass,
    theta: np.ndarray,
    support,
    *,
    count: int = 12,
    should_stop=None,
) -> tuple[np.ndarray | None, float, float]:
    """The best model found by scaling, rounding and improving a continuous solution.

    Parameters
    ----------
    sclass : ScaledClass
        The class (problem and multiplier range).
    theta : array
        ``[w_0, w_S]``: a continuous solution on the support (e.g. a logistic regression).
    support : sequence of int
        Its features (0-based).
    count : int
        Multipliers tried (see :func:`ray_multipliers`).
    should_stop : callable, optional
        Polled between multipliers; true ends the search early.

    Returns
    -------
    lam : int array (d+1,) or None
        The best model found; ``None`` when no scaled point rounds to a feasible model.
    t : float
        Its ``1 / m`` (``nan`` without a model).
    objective : float
        Its objective (``inf`` without a model).
    """
    support = np.asarray(support, dtype=int)
    best: tuple[np.ndarray | None, float, float] = (None, math.nan, math.inf)
    for m in ray_multipliers(sclass, theta, support, count):
        if should_stop is not None and should_stop():
            break
        view = sclass.fixed_scale(1.0 / m, support)
        small = sequential_rounding(view, m * np.asarray(theta, float), should_stop=should_stop)
        if small is None:
            continue
        lam = view.embed(small)
        t, objective = sclass.best_t(lam)
        if not math.isfinite(objective):
            continue
        if objective < best[2]:
            best = (lam, t, objective)
    if best[0] is None:
        return best
    return improve(sclass, best[0], best[1], support=support, should_stop=should_stop)
