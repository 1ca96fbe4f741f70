"""Every risk score within a relative tolerance of the optimum, with a completeness proof.

:func:`near_optimal_risk_scores` runs LCPA twice. The first run finds and certifies the
optimum ``V*``. The second enumerates: its pruning threshold is fixed at
``tau = (1 + tolerance) V*`` (a region is dropped only when its LP bound exceeds
``tau``), and a node whose LP is exact at its integer optimum ``lam`` records ``lam`` and
goes on with its region minus ``lam``, split into disjoint boxes (coordinate ``k`` below
or above ``lam_k`` with the earlier coordinates fixed at ``lam``). Every model with
objective at most ``tau`` lies in a region that is never dropped, and regions only end
empty, dropped, or emptied point by point, so a search that finishes has recorded all of
them: the set is *complete*. Loss cuts are valid for every model, so the second run
starts from the first run's cuts (a shared :class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool`).

A model here is the integer vector ``[intercept, points...]``; its objective is the
mean logistic loss plus ``C0`` times its size, as everywhere.

:func:`near_optimal_models` does the same from data and the settings of
:func:`~riskexplore.risk_score.fit.fit_risk_score`, and gives each model of the set as a
:class:`~riskexplore.risk_score.model.RiskScore` (``record.model``) whose certificate
carries the optimum's lower bound, so its ``distance`` to the best score is certified and
it can be edited by hand (``with_points``). The public entry point, with each model's
metrics, is :func:`riskexplore.near_optimal_risk_scores`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from riskexplore.core.limits import (
    DEFAULT_GAP_TOLERANCE,
    Clock,
    Limits,
    StopRequest,
    checked_limits,
)
from riskexplore.core.near_optimal import NearOptimalModels, checked_max_models, checked_tolerance
from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.edits import model_at
from riskexplore.risk_score.fit import build_problem
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.lcpa.nodes import Node, split_around
from riskexplore.risk_score.lcpa.search import _LCPA, LCPASettings, solve_lcpa
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.problem import FIXED_SCALE_ONLY, RiskScoreProblem, fixed_scale_only

__all__ = [
    "NearOptimalScore",
    "NearOptimalScores",
    "near_optimal_models",
    "solve_near_optimal",
    "with_models",
]


@dataclass(frozen=True)
class NearOptimalScore:
    """One model of a near-optimal set.

    Attributes
    ----------
    intercept : int
        The intercept.
    coefficients : dict
        The non-zero points by feature name.
    objective, loss : float
        Its objective (loss plus size penalty) and training loss.
    lam : tuple of int
        ``(intercept, points...)`` over every feature.
    model : RiskScore or None
        The model as a fitted risk score (set by :func:`near_optimal_models`).
    """

    intercept: int
    coefficients: dict[str, int]
    objective: float
    loss: float
    lam: tuple[int, ...]
    model: Any = field(default=None, compare=False, repr=False)

    @property
    def size(self) -> int:
        """The number of features with non-zero points."""
        return len(self.coefficients)

    def to_dict(self) -> dict:
        """``objective``, ``loss``, ``intercept`` and ``coefficients`` (non-zero points).

        Returns
        -------
        dict
            The model's fields.
        """
        return {
            "objective": self.objective,
            "loss": self.loss,
            "intercept": self.intercept,
            "coefficients": dict(self.coefficients),
        }


@dataclass
class NearOptimalScores(NearOptimalModels[NearOptimalScore]):
    """The risk scores with objective at most ``(1 + tolerance) * optimum``, best first
    (a :class:`~riskexplore.core.near_optimal.NearOptimalModels` of risk scores).

    Attributes
    ----------
    models : list of NearOptimalScore
        Best first (then fewer features).
    optimum : float
        The best objective found (the optimum when the first solve is certified).
    tolerance : float
        The relative tolerance.
    complete : bool
        True when the search proved that no other model lies within the tolerance.
    reason : str or None
        What cut the set short: ``"max_models"``, ``"time_limit"``, ``"stopped"``,
        ``"node_limit"``, ``"optimum_not_certified"`` or ``"numerical"`` (an LP could
        not be solved exactly in some region).
    time : float
        Seconds of both runs.
    nodes : int
        Branch-and-bound nodes of both runs.
    lower_bound : float
        The proven lower bound on the optimum (of the first run).
    status : str
        The first run's status (``"optimal"`` when the optimum is certified).
    feature_names : list of str
        Every feature of the problem.
    """

    feature_names: list[str] = field(default_factory=list)

    def features_of(self, model: NearOptimalScore) -> Iterable[str]:
        """The features with non-zero points in ``model``.

        Parameters
        ----------
        model : NearOptimalScore
            One of ``models``.

        Returns
        -------
        iterable of str
            Its features.
        """
        return model.coefficients


class _Enumerate(_LCPA):
    """LCPA with a fixed threshold that records every model below it."""

    parallel_nodes = False  # one thread: the models are recorded in the search's order

    def __init__(self, problem, limits, settings, threshold, cut_pool, warm_start, max_models):
        super().__init__(problem, limits, settings, (), warm_start, cut_pool)
        self.found: dict[tuple[int, ...], float] = {}
        self.max_models = max_models
        self.truncated = False
        self.ub = threshold  # prunes regions whose bound exceeds the threshold

    def _consider(self, lam, *, polish_it: bool, only_nonzero: bool = False):
        loss, grad = self.problem.loss.value_and_grad(lam.astype(float), integral=True)
        self._add_cut(loss, grad, lam)
        objective = loss + float(self.problem.c0 @ (lam[1:] != 0))
        if objective <= self.ub and not self.problem.violations(lam):
            self.found[tuple(int(v) for v in lam)] = objective
            if len(self.found) > self.max_models:
                self._keep_best()
        return objective

    def _keep_best(self) -> None:
        """Keep the best ``max_models`` and search only below the worst of them."""
        ranked = sorted(self.found.items(), key=lambda kv: (kv[1], _size(kv[0]), kv[0]))
        self.found = dict(ranked[: self.max_models])
        self.truncated = True
        worst = ranked[self.max_models - 1][1]
        self.ub = min(self.ub, worst + 1e-12 * max(1.0, abs(worst)))

    def _update_bounds(self) -> None:
        # chained bounds hold for every model with objective <= V_max: keep V_max at the
        # threshold (the parent would lower it to the incumbent)
        if not self.settings.chained_updates or not hasattr(self, "bounds"):
            return
        b = self.bounds
        b.V_max = min(b.V_max, self.ub)
        if b.chain():
            self._push_bounds_to_lp()

    def _solved(self, node: Node, lam: np.ndarray) -> list[Node]:
        """Record ``lam`` and split the rest of the node's region into boxes."""
        if self._consider(lam, polish_it=False) > self.ub:
            return []  # (the threshold dropped below it) nothing here is wanted
        return split_around(node, lam, self.d)


def solve_near_optimal(
    problem: RiskScoreProblem,
    *,
    tolerance: float = 0.01,
    max_models: int = 100,
    limits: Limits | None = None,
    settings: LCPASettings | None = None,
    cut_pool: CutPool | None = None,
) -> NearOptimalScores:
    """Every risk score with objective at most ``(1 + tolerance)`` times the optimum.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem (data, bounds, size limits, constraints).
    tolerance : float
        Relative distance to the optimum (0.01: within 1%).
    max_models : int
        Most models returned (the best ones; the set is then marked incomplete when more
        lie within the tolerance).
    limits : Limits, optional
        Time limit and stop request for both runs.
    settings : LCPASettings, optional
        Algorithm settings of both runs.
    cut_pool : CutPool, optional
        Cuts from earlier solves on the same data (shared with both runs).

    Returns
    -------
    NearOptimalScores
        Sorted by objective, then size.

    Raises
    ------
    InputError
        For a negative tolerance, ``max_models`` below 1, or a problem with the learned
        scale.
    InfeasibleError
        If no model satisfies the problem's constraints.
    """
    if problem.scale != "fixed":
        raise InputError(FIXED_SCALE_ONLY)
    tolerance = checked_tolerance(tolerance, "a relative number")
    checked_max_models(max_models)
    limits = limits or Limits()
    clock = Clock(limits)
    pool = cut_pool if cut_pool is not None else CutPool()
    best = solve_lcpa(problem, limits=limits, settings=settings, cut_pool=pool)
    if best.solution is None:
        raise InfeasibleError(f"no model satisfies the constraints ({best.status})")
    optimum = float(best.upper_bound)
    certified = best.status == "optimal"
    threshold = optimum * (1 + tolerance)
    threshold += 1e-12 * max(1.0, abs(threshold))  # models exactly at the threshold count
    remaining = Limits(
        time_limit=max(limits.time_limit - clock.elapsed(), 1e-3),
        node_limit=limits.node_limit,
        gap_tolerance=0.0,
        stop=limits.stop,
    )
    search = _Enumerate(
        problem, remaining, settings or LCPASettings(), threshold, pool, best.solution,
        max_models,
    )  # fmt: skip
    search.run()
    reason = None if search.stop_reason == "gap" else search.stop_reason  # "gap": all seen
    models = sorted(
        (_model(problem, lam, obj) for lam, obj in search.found.items()),
        key=lambda m: (m.objective, m.size, m.lam),
    )[:max_models]
    numerical = search.floor < search.ub  # a region given up below the threshold
    complete = reason is None and certified and not search.truncated and not numerical
    if not complete and reason is None:
        if search.truncated:
            reason = "max_models"
        elif not certified:
            reason = "optimum_not_certified"
        else:
            reason = "numerical"
    return NearOptimalScores(
        models=models,
        optimum=optimum,
        tolerance=tolerance,
        complete=complete,
        reason=reason,
        time=clock.elapsed(),
        nodes=int(best.nodes) + int(search.nodes),
        feature_names=list(problem.feature_names),
        lower_bound=float(best.lower_bound),
        status=str(best.status),
    )


def _size(lam: tuple[int, ...]) -> int:
    return sum(1 for v in lam[1:] if v != 0)


def _model(problem: RiskScoreProblem, lam: tuple[int, ...], objective: float):
    vec = np.asarray(lam, dtype=float)
    names = problem.feature_names
    return NearOptimalScore(
        intercept=int(lam[0]),
        coefficients={names[j]: int(v) for j, v in enumerate(lam[1:]) if v != 0},
        objective=float(objective),
        loss=float(problem.loss.value(vec, integral=True)),
        lam=tuple(lam),
    )


def near_optimal_models(
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
    **problem_settings: Any,
) -> NearOptimalScores:
    """Every risk score within ``tolerance`` of the optimum, from data: each record's
    ``model`` is a :class:`~riskexplore.risk_score.model.RiskScore` with its certified
    distance to the best score (the registry's near-optimal search of risk scores).

    Parameters
    ----------
    X, y
        Training data, as for :func:`~riskexplore.risk_score.fit.fit_risk_score`.
    tolerance : float
        Relative distance to the optimum (0.01: objectives within 1%).
    max_models : int
        Most models returned (the best ones; the set is then incomplete).
    time_limit : float
        Seconds for the whole search (both runs).
    stop : threading.Event or callable, optional
        Ends the search early (the set is then incomplete).
    constraints : iterable
        Constraints every model obeys (as for ``fit_risk_score``).
    cut_pool : CutPool, optional
        Loss cuts shared with other solves on the same data.
    settings : LCPASettings, optional
        Algorithm settings.
    **problem_settings
        Settings of :func:`~riskexplore.risk_score.fit.build_problem` (``max_size``,
        ``coef_min``, ``coef_max``, ``c0``, ``intercept_min``, ...).

    Returns
    -------
    NearOptimalScores
        The set, best first, with each record's ``model`` set.

    Raises
    ------
    InputError
        For unusable data or settings (the learned scale among them).
    InfeasibleError
        If no risk score obeys the settings and constraints.
    """
    refused = fixed_scale_only(problem_settings)
    if refused is not None:
        raise InputError(refused)
    limits = checked_limits(time_limit, None, DEFAULT_GAP_TOLERANCE, stop)
    problem = build_problem(X, y, constraints=constraints, **problem_settings)
    found = solve_near_optimal(
        problem,
        tolerance=tolerance,
        max_models=max_models,
        limits=limits,
        settings=settings,
        cut_pool=cut_pool,
    )
    template = None

    def model_of(lam: np.ndarray, objective: float, status: str) -> RiskScore:
        nonlocal template
        if template is None:  # the settings' statistics, once
            result = SolveResult(status, lam, objective, found.lower_bound)
            template = RiskScore.from_result(problem, result)
        return model_at(template, problem, lam, status=status, lower_bound=found.lower_bound)

    return with_models(found, model_of)


def with_models(found: NearOptimalScores, model_of) -> NearOptimalScores:
    """``found`` with each record's ``model`` set: the best one with the search's status,
    the others ``"alternative"``, each certified against the optimum's lower bound.

    Parameters
    ----------
    found : NearOptimalScores
        The set of :func:`solve_near_optimal`.
    model_of : callable
        ``(lam, objective, status) -> model``: the family's model at the integer vector
        ``lam`` (a :class:`RiskScore`, a survival score), with its certified distance.

    Returns
    -------
    NearOptimalScores
        ``found``, its records replaced.
    """
    records = []
    for rank, record in enumerate(found.models):
        lam = np.asarray(record.lam, dtype=np.int64)
        status = found.status if rank == 0 else "alternative"
        records.append(dataclasses.replace(record, model=model_of(lam, record.objective, status)))
    found.models = records
    return found
