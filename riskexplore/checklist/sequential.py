"""Sequential training of predictive checklists (Zhang et al. 2021, Section 4.2, Appendix B).

:func:`sequential_training` (Algorithm 1) solves a sequence of small instances over growing
model sizes ``N`` and thresholds ``M``, warm-starting each from the pool of all checklists
found so far, and rules certified parts of the feasible region out of the later instances.
The FNR error path (Algorithm 3) is in :mod:`riskexplore.checklist.error_path`.

How instances are "ruled out" (and why the certificate is valid)
----------------------------------------------------------------
Zhang et al. [1]_ add, after instance ``I(n, m) = {N <= n, M <= m}`` is certified optimal, a
constraint that removes ``I(n, m)`` from the later, larger instances. Solving the
instances in order ``(N, M) = (1, 1), (2, 1), (2, 2), (3, 1), ...`` and removing every
certified one leaves, for each new instance, exactly the *cell* of checklists with
``N`` and ``M`` in the new ranges. :func:`sequential_training` therefore solves one cell
at a time (the size bounds of the cell are the sub-problem's ``min_items``, ``max_items``,
``min_m``, ``max_m``). The cells partition the problem's feasible region, so::

    optimum = min over cells of the cell optimum,  and
    lower bound = min over cells of a lower bound of the cell

is a valid certificate whatever happened in each cell (cells never attempted, e.g.
after a stop request, count with the trivial bound 0; every objective term is >= 0).

A cell only matters if it holds a checklist better than the incumbent ``U`` (the best
checklist of the pool when the cell is solved). Each cell solve therefore carries the
extra mistake row ``FN + W- FP <= cap``, where ``cap`` is at least the loss of every
checklist of the cell whose objective is below ``U`` (``objective = loss + eps_N N +
eps_M M``, so ``loss < U - eps_N n_lo - eps_M m_lo``; with exact lexicographic weights the
loss is a multiple of ``q`` and the cap is the largest such multiple below that, plus
``q/2``). If the capped cell is infeasible, every checklist of the cell has objective
``>= U >=`` the final objective, so ``U`` is a valid lower bound for the cell; otherwise
the cell's lower bound is ``min(bound of the capped solve, U)``. No other information
flows from one solve to the next, so the certificate is exactly as valid as each
individual cell solve's certificate (either engine).

Cells left uncertified by the first pass (time share exhausted) are re-solved in later
passes, lowest lower bound first, with the remaining time and the better incumbent.

References
----------
.. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal Predictive
   Checklists", Advances in Neural Information Processing Systems 34 (NeurIPS 2021), 2021.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from riskexplore.checklist.engines import check_method, solve_with
from riskexplore.checklist.heuristics import (
    item_group_ids,
    size_bounds,
    submodular_checklists,
    unit_weighting_checklists,
)
from riskexplore.checklist.problem import ChecklistSolution
from riskexplore.checklist.rows import ALL, ErrorRow
from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.limits import Clock, Limits
from riskexplore.core.result import BoundsMixin

__all__ = ["PathResult", "PathStep", "SequentialTraining", "emit_event", "sequential_training"]

#: Name of the incumbent cap row added to cell solves.
CAP_ROW = "Improve on the incumbent (sequential training)"

#: Default number of items up to which every ``N`` gets its own cells.
_ALL_SIZES_UP_TO = 12


# --------------------------------------------------------------------------- results


@dataclass
class PathStep:
    """One sub-solve of :func:`sequential_training`: the cell ``n_min <= N <= n_max``,
    ``m_min <= M <= m_max``, what was found there and the cell's lower bound."""

    n_min: int
    n_max: int
    m_min: int
    m_max: int
    status: str
    pass_no: int
    cap: float
    lower_bound: float
    items: list[str] | None = None
    M: int | None = None
    objective: float = math.inf
    incumbent: float = math.inf
    nodes: int = 0
    time: float = 0.0
    solver_status: str = ""


@dataclass
class PathResult(BoundsMixin):
    """Outcome of :func:`sequential_training`.

    ``items``/``M`` are the best checklist over all cells, ``upper_bound`` its objective
    and ``lower_bound`` the minimum of the cells' lower bounds (a proven lower bound on
    the optimum of the whole problem). ``cells`` maps each cell ``(n_min, n_max, m_min,
    m_max)`` to its current lower bound; ``best_per_cell`` to the best known checklist in
    it. ``steps`` lists the sub-solves in order; ``pool`` every checklist found.
    """

    status: str
    items: list[str] | None
    M: int | None
    upper_bound: float
    lower_bound: float
    time: float
    nodes: int
    steps: list[PathStep]
    cells: dict[tuple[int, int, int, int], float]
    best_per_cell: dict[tuple[int, int, int, int], tuple[list[str], int, float]]
    pool: list[tuple[list[str], int]]
    problem: object = field(repr=False, default=None)
    trace: Trace = field(default_factory=Trace, repr=False)

    @property
    def has_model(self) -> bool:
        """Whether a checklist was found."""
        return self.items is not None

    @property
    def solution(self) -> ChecklistSolution | None:
        """The best checklist as ``(items, M)``, as :attr:`SolveResult.solution`."""
        return None if self.items is None else ChecklistSolution(self.items, self.M)

    def to_frame(self):
        """One row per sub-solve: the cell, its best checklist (``N, M, items``, training
        ``error, fnr, fpr``), the objective of that checklist (``upper_bound``), the
        cell's proven ``lower_bound``, their ``gap``, ``status``, ``time`` and ``nodes``."""
        rows = []
        for k, s in enumerate(self.steps):
            cell = (s.n_min, s.n_max, s.m_min, s.m_max)
            if s.items is not None:
                best = (s.items, s.M, s.objective)
            else:
                best = self.best_per_cell.get(cell)
            rows.append(
                {
                    "step": k,
                    "pass": s.pass_no,
                    "n_min": s.n_min,
                    "n_max": s.n_max,
                    "m_min": s.m_min,
                    "m_max": s.m_max,
                    **_checklist_columns(self.problem, best),
                    "lower_bound": s.lower_bound,
                    "gap": relative_gap(best[2], s.lower_bound) if best else math.inf,
                    "incumbent": s.incumbent,
                    "status": s.status,
                    "time": s.time,
                    "nodes": s.nodes,
                }
            )
        return pd.DataFrame(rows)


def _checklist_columns(problem, best) -> dict:
    if best is None or problem is None:
        return {
            "N": None,
            "M": None,
            "items": None,
            "train_error": math.nan,
            "fnr": math.nan,
            "fpr": math.nan,
            "upper_bound": math.inf,
        }
    items, m, value = best
    e = problem.errors(items, m)
    return {
        "N": len(items),
        "M": int(m),
        "items": "; ".join(items),
        "train_error": e["error"],
        "fnr": e["fnr"],
        "fpr": e["fpr"],
        "upper_bound": value,
    }


# --------------------------------------------------------------------------- helpers


def restrict(problem, *, n_min: int, n_max: int, m_min: int, m_max: int, extra_rows=()):
    """A shallow copy of ``problem`` with other size bounds and extra mistake rows.

    Objectives stay comparable: the tie-breaking penalties depend only on the items and
    the weights.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    n_min, n_max, m_min, m_max : int
        The new bounds on ``N`` and ``M``.
    extra_rows : iterable of ErrorRow
        Rows added to the problem's mistake rows.

    Returns
    -------
    ChecklistProblem
        The restricted problem (data shared with ``problem``).
    """
    sub = copy.copy(problem)
    sub.min_items, sub.max_items = int(n_min), int(n_max)
    sub.min_m, sub.max_m = int(m_min), int(m_max)
    if extra_rows:
        sub.error_rows = [*problem.error_rows, *extra_rows]
    return sub


def _cells(problem, n_values, m_values) -> list[tuple[int, int, int, int]]:
    n_lo, n_hi, m_lo, m_hi = size_bounds(problem)
    if n_values is None:
        if n_hi <= _ALL_SIZES_UP_TO:
            n_values = range(1, n_hi + 1)
        else:
            n_values = [*range(1, 9), n_hi]
    limits = sorted({int(v) for v in n_values if n_lo <= v < n_hi} | {n_hi})
    out = []
    prev = n_lo - 1
    for v in limits:
        a, b = prev + 1, v
        prev = v
        if a > b:
            continue
        top = min(b, m_hi)
        if m_values is None:
            m_limits = list(range(m_lo, top + 1))
        else:
            m_limits = sorted({min(int(m), top) for m in m_values if int(m) >= m_lo} | {top})
        mprev = m_lo - 1
        for mv in m_limits:
            c, e = mprev + 1, mv
            mprev = mv
            if c <= e and c <= b:
                out.append((a, b, c, e))
    return out


def _in_cell(n: int, m: int, cell) -> bool:
    return cell[0] <= n <= cell[1] and cell[2] <= m <= cell[3]


def _cap(problem, cell, incumbent: float) -> float:
    """Largest loss of a checklist in ``cell`` whose objective is below ``incumbent``."""
    room = incumbent - problem.eps_n * cell[0] - problem.eps_m * cell[2]
    if problem.lexicographic_exact:
        q = problem.error_unit
        k = math.ceil(room / q - 1e-9) - 1  # largest multiple of q strictly below room
        return k * q + 0.5 * q
    return room


class _Pool:
    """Every checklist found, keyed by (items, M), with its objective on the problem."""

    def __init__(self, problem) -> None:
        self.problem = problem
        self.entries: dict[tuple[tuple[str, ...], int], float] = {}

    def add(self, items, M) -> float | None:
        items = tuple(sorted(items))
        key = (items, int(M))
        if key in self.entries:
            return self.entries[key]
        if self.problem.violations(list(items), int(M)):
            return None
        value = float(self.problem.objective(list(items), int(M)))
        self.entries[key] = value
        return value

    def best(self, cell=None) -> tuple[list[str], int, float] | None:
        found = None
        for (items, m), v in self.entries.items():
            if cell is not None and not _in_cell(len(items), m, cell):
                continue
            if found is None or (v, len(items), m) < (found[2], len(found[0]), found[1]):
                found = (list(items), m, v)
        return found

    def ranked(self) -> list[tuple[list[str], int]]:
        keys = sorted(self.entries, key=lambda k: (self.entries[k], len(k[0]), k[1], k[0]))
        return [(list(items), m) for items, m in keys]


def _losses(problem, counts: np.ndarray, M: int) -> np.ndarray:
    """Loss ``FN + W- FP`` for each column of pattern check counts (patterns x k)."""
    pred = counts >= M
    return problem.w_pos @ (~pred) + problem.fp_weight * (problem.w_neg @ pred)


def _adapt_starts(problem, pool: _Pool, cell, groups, limit: int = 8):
    """Warm starts for a cell from the pool: the best pool checklists moved into it
    (threshold clipped into the cell; items added greedily, one per free group, or the
    least useful items dropped). Candidates are ranked by loss only; the solver checks
    them exactly."""
    n_min, n_max, m_min, m_max = cell
    names = list(problem.item_names)
    index = {n: j for j, n in enumerate(names)}
    P = problem.patterns.astype(np.int32)
    out = []
    for items, m in pool.ranked()[:limit]:
        chosen = [index[i] for i in items]
        counts = P[:, chosen].sum(axis=1)
        while len(chosen) > n_max:  # drop the item whose removal hurts least
            mm = max(min(max(m, m_min), m_max, len(chosen) - 1), 1)
            trial = counts[:, None] - P[:, chosen]
            k = int(np.argmin(_losses(problem, trial, mm)))
            counts = trial[:, k]
            chosen.pop(k)
        while len(chosen) < n_min:  # add the item that helps most
            free = np.ones(len(names), dtype=bool)
            free[chosen] = False
            if groups is not None:
                free &= ~np.isin(groups, groups[chosen])
            cand = np.flatnonzero(free)
            if cand.size == 0:
                break
            mm = min(max(m, m_min), m_max, len(chosen) + 1)
            trial = counts[:, None] + P[:, cand]
            k = int(np.argmin(_losses(problem, trial, mm)))
            counts = trial[:, k]
            chosen.append(int(cand[k]))
        mm = min(max(m, m_min), m_max, len(chosen))
        if chosen and _in_cell(len(chosen), mm, cell):
            out.append(([names[j] for j in chosen], mm))
    return out


def emit_event(
    emitter: EventEmitter,
    clock: Clock,
    ub: float,
    lb: float,
    nodes: int,
    *,
    incumbent: dict | None = None,
    phase: str = "search",
    kind: str = "progress",
) -> None:
    """Emit a path's progress event (bounds ``ub`` and ``min(lb, ub)``), if anyone listens.

    Parameters
    ----------
    emitter : EventEmitter
        The path's listeners.
    clock : Clock
        The path's clock (the event's time).
    ub, lb : float
        The path's upper and lower bounds so far.
    nodes : int
        Nodes of all solves so far.
    incumbent : dict, optional
        The best checklist when it changed (``problem.as_dict(items, M)``).
    phase, kind : str
        As in :class:`~riskexplore.core.events.SolveEvent`.
    """
    if emitter.active:
        emitter.emit(
            SolveEvent(
                time=clock.elapsed(),
                phase=phase,
                upper_bound=ub,
                lower_bound=min(lb, ub),
                gap=relative_gap(ub, min(lb, ub)),
                nodes=nodes,
                cuts=0,
                incumbent=incumbent,
                kind=kind,
            )
        )


# ------------------------------------------------------------- sequential training


class SequentialTraining:
    """The state of one run of Algorithm 1: the pool, the cells' bounds and the incumbent.

    :func:`sequential_training` is ``SequentialTraining(...).run()``; the parameters are
    those of :func:`sequential_training`.

    Attributes
    ----------
    cells : list of tuple
        The cells ``(n_min, n_max, m_min, m_max)`` in the order of the instances of
        Zhang et al. (2021).
    cell_lb : dict
        Each cell's lower bound so far (0 before its first solve).
    certified : set of tuple
        The cells whose bound needs no further solve.
    best : tuple or None
        The best checklist of the pool ``(items, M, objective)``; ``ub`` its objective.
    steps : list of PathStep
        The sub-solves so far.
    """

    def __init__(
        self,
        problem,
        *,
        limits: Limits | None = None,
        listeners: Sequence[Callable[[SolveEvent], None]] = (),
        n_values: Sequence[int] | None = None,
        m_values: Sequence[int] | None = None,
        warm_starts: Sequence[tuple[Sequence[str], int]] = (),
        use_heuristics: bool = True,
        settings=None,
        min_share: float = 1.0,
        method: str = "exact",
    ) -> None:
        check_method(method)
        self.problem = problem
        self.limits = limits or Limits()
        self.settings = settings
        self.min_share = min_share
        self.method = method
        self.clock = Clock(self.limits)
        self.trace = Trace()
        self.emitter = EventEmitter([self.trace, *listeners])
        self.pool = _Pool(problem)
        self.groups = item_group_ids(problem)
        self._seed_pool(warm_starts, use_heuristics)
        self.cells = _cells(problem, n_values, m_values)
        self.cell_lb: dict[tuple[int, int, int, int], float] = {c: 0.0 for c in self.cells}
        self.certified: set[tuple[int, int, int, int]] = set()
        self.steps: list[PathStep] = []
        self.nodes = 0
        self.best = self.pool.best()
        self.ub = self.best[2] if self.best else math.inf
        self.stop_reason: str | None = None

    def _seed_pool(self, warm_starts, use_heuristics: bool) -> None:
        for items, m in warm_starts:
            self.pool.add(list(items), int(m))
        if use_heuristics:
            for heuristic in (submodular_checklists, unit_weighting_checklists):
                try:
                    for items, m in heuristic(self.problem)[:200]:
                        self.pool.add(items, m)
                except (ArithmeticError, ValueError, RuntimeError):  # pragma: no cover
                    pass

    # --- bounds and events -----------------------------------------------------------
    def global_lb(self) -> float:
        """The least lower bound of the cells, capped by the incumbent."""
        lb = min(self.cell_lb.values()) if self.cell_lb else math.inf
        if self.best is not None:
            lb = min(lb, self.ub)
            if self.problem.lexicographic_exact and self.ub - lb < 0.5 * self.problem.eps_m:
                lb = self.ub
        return lb

    def _emit(self, **kwargs) -> None:
        emit_event(self.emitter, self.clock, self.ub, self.global_lb(), self.nodes, **kwargs)

    def _incumbent_dict(self) -> dict:
        return self.problem.as_dict(self.best[0], self.best[1])

    def halted(self) -> bool:
        """Whether a limit, a stop request or the gap tolerance ends the run (remembered)."""
        reason = self.clock.limit_reached(self.nodes)
        if (
            reason is None
            and self.best is not None
            and relative_gap(self.ub, self.global_lb()) <= self.limits.gap_tolerance
        ):
            reason = "gap"
        if reason is not None:
            self.stop_reason = reason
        return self.stop_reason is not None

    # --- one cell --------------------------------------------------------------------
    def _cell_problem(self, cell, cap: float):
        """The problem restricted to ``cell``, with the incumbent cap row when finite."""
        extra = []
        if math.isfinite(cap):
            fp = {ALL: self.problem.fp_weight}
            extra.append(ErrorRow(CAP_ROW, fn={ALL: 1.0}, fp=fp, upper=cap))
        n_min, n_max, m_min, m_max = cell
        return restrict(
            self.problem, n_min=n_min, n_max=n_max, m_min=m_min, m_max=m_max, extra_rows=extra
        )

    def _cell_limits(self, share: float) -> Limits:
        node_left = None
        if self.limits.node_limit is not None:
            node_left = max(self.limits.node_limit - self.nodes, 1)
        return Limits(
            time_limit=max(min(share, self.clock.remaining()), 1e-3),
            node_limit=node_left,
            gap_tolerance=self.limits.gap_tolerance,
            stop=self.limits.stop,
        )

    def _take_solution(self, r) -> tuple[list[str], int, float] | None:
        """The cell solve's checklist, added to the pool, when it is feasible."""
        if r.solution is None:
            return None
        items, M = r.solution
        value = self.pool.add(items, M)
        return None if value is None else (sorted(items), int(M), value)

    def _update_best(self) -> None:
        new_best = self.pool.best()
        if new_best is not None and (self.best is None or new_best[2] < self.ub):
            self.best, self.ub = new_best, new_best[2]
            self._emit(incumbent=self._incumbent_dict(), kind="incumbent")

    def _cell_done(self, cell, solver_status: str) -> bool:
        lb = self.cell_lb[cell]
        return (
            solver_status in ("optimal", "infeasible")
            or lb >= self.ub - 1e-12
            or (self.problem.lexicographic_exact and self.ub - lb < 0.5 * self.problem.eps_m)
        )

    def _cell_status(self, cell, solver_status: str, done: bool) -> str:
        if solver_status == "optimal":
            return "optimal"  # best of the cell found (it beat the incumbent)
        if done and math.isfinite(self.cell_lb[cell]):
            return "ruled_out"  # nothing in the cell beats the incumbent
        if done:
            return "infeasible"  # the cell holds no feasible checklist
        return solver_status

    def solve_cell(self, cell, share: float, pass_no: int) -> None:
        """Solve one cell with the incumbent cap; update its bound, the pool and the best.

        Parameters
        ----------
        cell : tuple
            ``(n_min, n_max, m_min, m_max)``.
        share : float
            Time (s) the solve may take (capped by the time left).
        pass_no : int
            The pass over the cells (1 for the first).
        """
        problem = self.problem
        cap = _cap(problem, cell, self.ub) if self.best is not None else math.inf
        sub = self._cell_problem(cell, cap)
        starts = _adapt_starts(problem, self.pool, cell, self.groups)
        for items, m in starts:
            self.pool.add(items, m)
        t0 = time.perf_counter()
        before = self.ub
        r = solve_with(
            sub,
            self.method,
            limits=self._cell_limits(share),
            warm_starts=starts,
            settings=self.settings,
        )
        self.nodes += int(r.nodes)
        found = self._take_solution(r)
        # lower bound of the cell (see the module docstring): an infeasible capped cell
        # holds no checklist that beats the incumbent (or none at all without one)
        lb = before if r.status == "infeasible" else min(r.lower_bound, before)
        if self.best is None and r.status == "infeasible":
            lb = math.inf
        self.cell_lb[cell] = max(self.cell_lb[cell], lb)
        self._update_best()
        done = self._cell_done(cell, r.status)
        if done:
            self.certified.add(cell)
        self.steps.append(
            PathStep(
                n_min=cell[0],
                n_max=cell[1],
                m_min=cell[2],
                m_max=cell[3],
                status=self._cell_status(cell, r.status, done),
                pass_no=pass_no,
                cap=cap,
                lower_bound=self.cell_lb[cell],
                items=found[0] if found else None,
                M=found[1] if found else None,
                objective=found[2] if found else math.inf,
                incumbent=self.ub,
                nodes=int(r.nodes),
                time=time.perf_counter() - t0,
                solver_status=r.status,
            )
        )
        self._emit()

    # --- the passes ------------------------------------------------------------------
    def _pass(self, todo: list, pass_no: int) -> None:
        """One pass over the cells ``todo``, each with an equal share of the time left."""
        for k, cell in enumerate(todo):
            if self.halted():
                break
            if cell in self.certified:
                continue
            if pass_no > 1 and self.cell_lb[cell] >= self.ub:
                self.certified.add(cell)
                continue
            left = [c for c in todo[k:] if c not in self.certified]
            share = self.clock.remaining() / max(len(left), 1)
            if math.isfinite(share):
                share = max(share, self.min_share)
            self.solve_cell(cell, share, pass_no)

    def run(self) -> PathResult:
        """Solve the cells pass after pass until all are certified or a limit ends it.

        Returns
        -------
        PathResult
        """
        best = self.best
        self._emit(
            phase="initialization",
            incumbent=self._incumbent_dict() if best else None,
            kind="incumbent" if best else "progress",
        )
        pass_no = 1
        todo = list(self.cells)
        while todo and not self.halted():
            self._pass(todo, pass_no)
            todo = sorted(
                (c for c in self.cells if c not in self.certified), key=lambda c: self.cell_lb[c]
            )
            pass_no += 1
            if not math.isfinite(self.limits.time_limit) and todo and self.stop_reason is None:
                # without a time limit every solve ran to completion; nothing left to do
                break
        result = self._result()
        emit_event(
            self.emitter,
            self.clock,
            self.ub,
            result.lower_bound,
            self.nodes,
            phase="done",
            kind="final",
        )
        return result

    def _status(self, lb: float) -> str:
        stop_reason = None if self.stop_reason == "gap" else self.stop_reason
        all_certified = len(self.certified) == len(self.cells)
        if self.best is None:
            return "infeasible" if all_certified else (stop_reason or "time_limit")
        if all_certified or relative_gap(self.ub, lb) <= self.limits.gap_tolerance:
            return "optimal"
        return stop_reason or "time_limit"

    def _result(self) -> PathResult:
        lb, best, pool = self.global_lb(), self.best, self.pool
        return PathResult(
            status=self._status(lb),
            items=best[0] if best else None,
            M=best[1] if best else None,
            upper_bound=self.ub,
            lower_bound=lb if best is None else min(lb, self.ub),
            time=self.clock.elapsed(),
            nodes=self.nodes,
            steps=self.steps,
            cells=dict(self.cell_lb),
            best_per_cell={c: b for c in self.cells if (b := pool.best(c)) is not None},
            pool=pool.ranked(),
            problem=self.problem,
            trace=self.trace,
        )


def sequential_training(
    problem,
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    n_values: Sequence[int] | None = None,
    m_values: Sequence[int] | None = None,
    warm_starts: Sequence[tuple[Sequence[str], int]] = (),
    use_heuristics: bool = True,
    settings=None,
    min_share: float = 1.0,
    method: str = "exact",
) -> PathResult:
    """Algorithm 1: sequential training over ``N`` and ``M`` with a valid certificate.

    Cells ``(N range, M range)`` are solved in the order of the instances of Zhang et al.
    (2021), Algorithm 1 (``N = 1, 2, ...``; within each ``N``, ``M = 1, 2, ...``); see the
    module docstring for why solving only the cells (with an incumbent cap) is their "rule
    out certified instances" and why the combined certificate is valid.

    Parameters
    ----------
    problem : ChecklistProblem
    limits : Limits
        Overall time/node limits, gap tolerance and stop request. Each cell gets an equal
        share of the remaining time (at least ``min_share`` seconds) in the first pass;
        later passes re-solve uncertified cells, lowest lower bound first.
    listeners : callables
        Receive one ``"search"`` event after every sub-solve (global incumbent, global
        lower bound, cumulative nodes), ``"incumbent"`` events, and a final ``"done"``.
    n_values : sequence of int, optional
        Limits ``N_max`` of the instances; cells are ``N`` in ``(previous, this]``. Default:
        every size up to the problem's bound (``1..8`` then the bound when that is
        above 12). The problem's bound is always appended.
    m_values : sequence of int, optional
        Limits ``M_max`` within each ``N`` range (default every ``M``).
    warm_starts : sequence of (items, M)
        Extra checklists for the pool.
    use_heuristics : bool
        Seed the pool with :func:`submodular_checklists` and
        :func:`unit_weighting_checklists`.
    settings : optional
        Engine settings, passed to every sub-solve.
    min_share : float
        Least time (s) a cell gets in the first pass.
    method : {"exact", "mip"}
        Engine of the cell solves (see :mod:`riskexplore.checklist.engines`).

    Returns
    -------
    PathResult
        The best checklist over all cells, the combined certificate, and every cell's
        bound and best checklist.
    """
    return SequentialTraining(
        problem,
        limits=limits,
        listeners=listeners,
        n_values=n_values,
        m_values=m_values,
        warm_starts=warm_starts,
        use_heuristics=use_heuristics,
        settings=settings,
        min_share=min_share,
        method=method,
    ).run()
