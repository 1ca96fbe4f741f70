"""Every checklist within a tolerance of the optimum, with a certificate that none is missing.

:func:`near_optimal_checklists` first finds and certifies the optimum with the exact
search, then runs the same search in *collect* mode: its threshold is the optimal weighted
errors plus the tolerance, every feasible checklist below it is recorded, and only
subtrees whose bound exceeds it are pruned. Because the bounds are valid (see
:mod:`riskexplore.checklist.search`), a search that runs to the end has seen every
checklist within the tolerance: the set is *complete*. When ``max_models`` is reached the
threshold drops to the worst model kept, so the models returned are still the best ones,
but the set is then marked incomplete (more models lie within the tolerance).

:func:`near_optimal_models` does the same from data and the settings of
:func:`~riskexplore.checklist.fit.fit_checklist`, and gives each checklist of the set as a
:class:`~riskexplore.checklist.model.Checklist` (``record.model``) whose certificate
carries the optimum's lower bound, so its ``distance`` to the best checklist (in weighted
mistakes) is certified and it can be edited by hand (``with_items``, ``with_threshold``).
The public entry point, with each checklist's metrics, is
:func:`riskexplore.near_optimal_checklists`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from riskexplore.checklist.edits import checklist_at
from riskexplore.checklist.fit import prepare_checklist
from riskexplore.checklist.model import Checklist
from riskexplore.checklist.problem import ChecklistProblem, ChecklistSolution
from riskexplore.checklist.search import ExactSearch, build_search, kernel, solve_checklist_exact
from riskexplore.core.limits import (
    DEFAULT_GAP_TOLERANCE,
    Clock,
    Limits,
    StopRequest,
    checked_limits,
)
from riskexplore.core.near_optimal import NearOptimalModels, checked_max_models, checked_tolerance
from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError

__all__ = [
    "NearOptimalChecklist",
    "NearOptimalChecklists",
    "near_optimal_models",
    "solve_near_optimal",
]


@dataclass(frozen=True)
class NearOptimalChecklist:
    """One checklist of a near-optimal set.

    Attributes
    ----------
    items : tuple of str
        Its items.
    M : int
        Its threshold.
    errors : float
        Weighted training mistakes ``FN + W- FP`` (the objective without tie-breaks).
    fp, fn : float
        Weighted false positives and false negatives.
    objective : float
        The objective, with the tie-breaking penalties, as everywhere.
    model : Checklist or None
        The checklist as a fitted model (set by :func:`near_optimal_models`).
    """

    items: tuple[str, ...]
    M: int
    errors: float
    fp: float
    fn: float
    objective: float
    model: Any = field(default=None, compare=False, repr=False)

    @property
    def N(self) -> int:
        """The number of items."""
        return len(self.items)

    def to_dict(self) -> dict:
        """``items``, ``M``, ``N``, ``train_errors``, ``fp``, ``fn`` and ``objective``.

        Returns
        -------
        dict
            The checklist's fields.
        """
        return {
            "items": list(self.items),
            "M": self.M,
            "N": self.N,
            "train_errors": self.errors,
            "fp": self.fp,
            "fn": self.fn,
            "objective": self.objective,
        }


@dataclass
class NearOptimalChecklists(NearOptimalModels[NearOptimalChecklist]):
    """The checklists within ``tolerance`` weighted errors of the optimum, best first (a
    :class:`~riskexplore.core.near_optimal.NearOptimalModels` of checklists).

    Attributes
    ----------
    models : list of NearOptimalChecklist
        Best first (then fewer items, smaller ``M``).
    optimum : float
        The least weighted mistakes found (the optimum when the first search is
        certified).
    tolerance : float
        The tolerance in weighted mistakes.
    complete : bool
        True when the search proved that no other checklist lies within the tolerance.
    reason : str or None
        What cut the set short: ``"max_models"``, ``"time_limit"``, ``"stopped"`` or
        ``"optimum_not_certified"``.
    time : float
        Seconds of both searches.
    nodes : int
        Search nodes of both searches.
    lower_bound : float
        The proven lower bound on the optimal objective (of the first search).
    status : str
        The first search's status (``"optimal"`` when the optimum is certified).
    item_groups : dict
        Item -> feature group.
    """

    item_groups: dict[str, str] = field(default_factory=dict)

    def features_of(self, model: NearOptimalChecklist) -> set[str]:
        """The features ``model`` uses: its items' groups (e.g. ``age`` for
        ``age ≥ 60``).

        Parameters
        ----------
        model : NearOptimalChecklist
            One of ``models``.

        Returns
        -------
        set of str
            Its feature groups.
        """
        return {self.item_groups.get(i, i) for i in model.items}


def solve_near_optimal(
    problem: ChecklistProblem,
    *,
    tolerance: float = 0.0,
    max_models: int = 100,
    limits: Limits | None = None,
) -> NearOptimalChecklists:
    """Every checklist whose weighted errors are within ``tolerance`` of the optimum.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem (items, size limits, constraints).
    tolerance : float
        Extra weighted errors allowed (0: every checklist tied with the optimum, of any
        size and threshold allowed).
    max_models : int
        Most models returned (the best ones; the set is then marked incomplete if more
        exist).
    limits : Limits, optional
        Time limit and stop request for both searches.

    Returns
    -------
    NearOptimalChecklists
        Sorted by weighted errors, then fewer items, then smaller ``M``, then item names.

    Raises
    ------
    InputError
        For a negative tolerance or ``max_models`` below 1.
    InfeasibleError
        If no checklist satisfies the problem.
    """
    tolerance = checked_tolerance(tolerance, "a number of errors")
    checked_max_models(max_models)
    limits = limits or Limits()
    clock = Clock(limits)
    best = solve_checklist_exact(problem, limits=limits)
    if best.solution is None:
        raise InfeasibleError(
            f"no checklist satisfies the size limits and constraints ({best.status})"
        )
    optimum = float(best.stats["loss"])
    certified = best.status == "optimal"
    data = dataclasses.replace(build_search(problem), c_n=0.0, c_m=0.0)
    threshold = _key_of(data, optimum + tolerance)
    remaining = Limits(time_limit=max(limits.time_limit - clock.elapsed(), 1e-3), stop=limits.stop)
    search = ExactSearch(problem, remaining, data=data, collect_below=threshold)
    search.start()
    kept: dict[tuple[tuple[int, ...], int], NearOptimalChecklist] = {}
    truncated = False
    reason = None
    budget = 20_000
    while True:
        reason = search.clock.limit_reached()
        if reason is not None:
            break
        done = search.step(budget)
        for idx, M in search.found:
            if (idx, M) not in kept:
                kept[(idx, M)] = _model(problem, idx, M)
        search.found.clear()
        if len(kept) > max_models:
            ranked = sorted(kept.values(), key=_rank)[:max_models]
            kept = {(_indices(problem, m), m.M): m for m in ranked}
            truncated = True
            search.lower_threshold(_key_of(data, ranked[-1].errors))
        if done:
            break
    models = sorted(kept.values(), key=_rank)[:max_models]
    complete = reason is None and not truncated and certified
    if reason is None:
        reason = "max_models" if truncated else (None if certified else "optimum_not_certified")
    return NearOptimalChecklists(
        models=models,
        optimum=optimum,
        tolerance=tolerance,
        complete=complete,
        reason=reason,
        time=clock.elapsed(),
        nodes=int(best.nodes) + int(search.counters[kernel.NODES]),
        item_groups=dict(problem.item_groups),
        lower_bound=float(best.lower_bound),
        status=str(best.status),
    )


def _key_of(data, errors: float) -> float:
    """The collect threshold for weighted errors at most ``errors`` (keys are below it)."""
    if data.exact:
        return data.scale * errors / data.loss_unit + 0.5  # keys are whole numbers
    return errors * (1 + 1e-12) + 1e-12


def _model(problem: ChecklistProblem, indices: tuple[int, ...], M: int) -> NearOptimalChecklist:
    mask = np.zeros(problem.n_items, dtype=bool)
    mask[list(indices)] = True
    if problem.violations(mask, M):  # pragma: no cover - the search checks the same rows
        raise RuntimeError("near-optimal search produced an infeasible checklist")
    e = problem.errors(mask, M)
    return NearOptimalChecklist(
        items=tuple(problem.items_of(mask)),
        M=int(M),
        errors=float(e["loss"]),
        fp=float(e["fp"]),
        fn=float(e["fn"]),
        objective=float(problem.objective(mask, M)),
    )


def _indices(problem: ChecklistProblem, model: NearOptimalChecklist) -> tuple[int, ...]:
    index = {n: j for j, n in enumerate(problem.item_names)}
    return tuple(sorted(index[i] for i in model.items))


def _rank(model: NearOptimalChecklist):
    return (model.errors, model.N, model.M, model.items)


def near_optimal_models(
    X,
    y,
    *,
    tolerance: float = 2.0,
    max_models: int = 100,
    time_limit: float = math.inf,
    stop: StopRequest = None,
    constraints: Iterable = (),
    **fit_settings: Any,
) -> NearOptimalChecklists:
    """Every checklist within ``tolerance`` weighted mistakes of the optimum, from data:
    each record's ``model`` is a :class:`~riskexplore.checklist.model.Checklist` with its
    certified distance to the best checklist (the registry's near-optimal search of
    checklists).

    Parameters
    ----------
    X, y
        Training data, as for :func:`~riskexplore.checklist.fit.fit_checklist`.
    tolerance : float
        Extra weighted mistakes allowed (every size and threshold allowed counts).
    max_models : int
        Most checklists returned (the best ones; the set is then incomplete).
    time_limit : float
        Seconds for the whole search (both searches).
    stop : threading.Event or callable, optional
        Ends the search early (the set is then incomplete).
    constraints : iterable
        Constraints every checklist obeys (as for ``fit_checklist``).
    **fit_settings
        Settings of :func:`~riskexplore.checklist.fit.prepare_checklist` (``binarize``,
        ``max_items``, ``min_m``, ``max_m``, ``fnr_max``, ``fpr_max``, ``fp_weight``,
        ``categorical``, ``groups``, ...).

    Returns
    -------
    NearOptimalChecklists
        The set, best first, with each record's ``model`` set.

    Raises
    ------
    InputError
        For unusable data or settings.
    InfeasibleError
        If no checklist obeys the settings and constraints.
    """
    limits = checked_limits(time_limit, None, DEFAULT_GAP_TOLERANCE, stop)
    prepared = prepare_checklist(X, y, constraints=constraints, **fit_settings)
    problem = prepared.problem
    found = solve_near_optimal(problem, tolerance=tolerance, max_models=max_models, limits=limits)
    template = None
    records = []
    for rank, record in enumerate(found.models):
        status = found.status if rank == 0 else "alternative"
        if template is None:  # binarizer, outcome and settings, once
            result = SolveResult(
                status,
                ChecklistSolution(list(record.items), record.M),
                record.objective,
                found.lower_bound,
            )
            template = Checklist.from_result(
                problem,
                result,
                binarizer=prepared.binarizer,
                outcome_name=prepared.outcome,
                settings=prepared.settings,
            )
        model = checklist_at(
            template,
            problem,
            _printed(problem, record.items),
            record.M,
            status=status,
            lower_bound=found.lower_bound,
        )
        records.append(dataclasses.replace(record, model=model))
    found.models = records
    return found


def _printed(problem: ChecklistProblem, items) -> list[str]:
    """The items in the problem's order (as a fitted checklist prints them)."""
    chosen = set(items)
    return [n for n in problem.item_names if n in chosen]
