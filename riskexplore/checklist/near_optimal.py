"""Every checklist within a tolerance of the optimum, with a certificate that none is missing.

:func:`near_optimal_checklists` first finds and certifies the optimum with the exact
search, then runs the same search in *collect* mode: its threshold is the optimal weighted
errors plus the tolerance, every feasible checklist below it is recorded, and only
subtrees whose bound exceeds it are pruned. Because the bounds are valid (see
:mod:`riskexplore.checklist.search`), a search that runs to the end has seen every
checklist within the tolerance: the set is *complete*. When ``max_models`` is reached the
threshold drops to the worst model kept, so the models returned are still the best ones,
but the set is then marked incomplete (more models lie within the tolerance).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from riskexplore.checklist import search_kernel as kernel
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search import ExactSearch, build_search, solve_checklist_exact
from riskexplore.core.limits import Clock, Limits
from riskexplore.errors import InfeasibleError, InputError

__all__ = ["NearOptimalChecklist", "NearOptimalChecklists", "near_optimal_checklists"]


@dataclass(frozen=True)
class NearOptimalChecklist:
    """One checklist of a near-optimal set: its items, threshold and training mistakes."""

    items: tuple[str, ...]
    M: int
    errors: float  # weighted mistakes FN + W- FP (the objective without tie-breaks)
    fp: float
    fn: float
    objective: float  # with the tie-breaking penalties, as everywhere

    @property
    def N(self) -> int:
        return len(self.items)

    def to_dict(self) -> dict:
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
class NearOptimalChecklists:
    """The checklists within ``tolerance`` weighted errors of the optimum, best first.

    ``complete`` is True when the search proved that no other checklist lies within the
    tolerance; otherwise ``reason`` says what cut it short (``"max_models"``,
    ``"time_limit"``, ``"stopped"``, or ``"optimum_not_certified"``).
    """

    models: list[NearOptimalChecklist]
    optimum: float
    tolerance: float
    complete: bool
    reason: str | None = None
    time: float = 0.0
    nodes: int = 0
    item_groups: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.models)

    def feature_counts(self) -> dict[str, int]:
        """How many models use each feature (an item's group, e.g. ``age`` for
        ``age ≥ 60``), most used first."""
        counts = Counter(g for m in self.models for g in sorted(self._features(m)))
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def by_features(self) -> dict[tuple[str, ...], list[NearOptimalChecklist]]:
        """The models grouped by the set of features they use, largest groups first."""
        groups: dict[tuple[str, ...], list[NearOptimalChecklist]] = {}
        for m in self.models:
            groups.setdefault(tuple(sorted(self._features(m))), []).append(m)
        return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def _features(self, model: NearOptimalChecklist) -> set[str]:
        return {self.item_groups.get(i, i) for i in model.items}

    def to_dict(self) -> dict:
        return {
            "complete": self.complete,
            "reason": self.reason,
            "optimum": self.optimum,
            "tolerance": self.tolerance,
            "models": [m.to_dict() for m in self.models],
        }


def _tolerance(value) -> float:
    try:
        tol = float(value)
    except (TypeError, ValueError):
        raise InputError(f"tolerance must be a number of errors >= 0, got {value!r}") from None
    if not (tol >= 0 and math.isfinite(tol)):
        raise InputError(f"tolerance must be a number of errors >= 0, got {value!r}")
    return tol


def near_optimal_checklists(
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
    InfeasibleError
        If no checklist satisfies the problem.
    """
    tolerance = _tolerance(tolerance)
    if (
        isinstance(max_models, bool)
        or not isinstance(max_models, (int, np.integer))
        or (max_models < 1)
    ):
        raise InputError(f"max_models must be a whole number >= 1, got {max_models!r}")
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
