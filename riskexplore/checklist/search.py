"""Certifiably optimal checklists by an exact depth-first search over item subsets.

This is the default checklist engine (the HiGHS MIP of
:mod:`riskexplore.checklist.mip` stays for cross-checks). It minimises the same
objective as the MIP, ``FN + W- FP``, then fewer items, then a smaller threshold ``M``
(see :mod:`riskexplore.checklist.problem`), over every checklist that meets the
size bounds and constraints, and proves it.

The search
----------
* **One item per group, by construction.** Rows ``sum_{j in G} use_j <= 1`` (what
  :class:`OneItemPerGroup` and ``AtMostKItems(..., k=1)`` compile to) with disjoint ``G``
  become *search groups*; every other item is a group of its own. Items are ordered by
  group and a node grows only with items of later groups, so each subset that takes at
  most one item per group is visited exactly once.
* **Every node is a candidate.** The rows' checked counts are kept as bit-planes (a
  thermometer code: plane ``v`` = rows with at least ``v`` checked items), so adding an
  item is a few word operations per 64 rows, and the weighted mistakes of *every*
  threshold ``M`` follow from popcounts of plane ``M``.
* **Bounds.** Below a node with ``k`` items, at most ``r`` more of them, in groups after
  the node's last one: a negative with at least ``M`` checked items stays a false
  positive (counts only grow); a positive whose count plus ``min(r, later groups in
  which it has a checked item)`` is below ``M`` stays a false negative; a descendant has
  at least ``max(k + 1, M, min_items)`` items. A threshold ``M`` is pruned below the node
  when this bound reaches the incumbent, or when a constraint cannot hold for any
  completion (mistake rows: rows already predicted positive are fixed, rows that can no
  longer reach ``M`` are fixed negative, the rest are free; item rows: the later groups'
  largest and smallest contributions). Both bounds only tighten going down, so a pruned
  ``M`` stays pruned in the whole subtree. Constraints that give no usable bound are still
  checked exactly at every candidate, so results stay exact; only pruning is weaker.
* **Order.** A node's children are all evaluated (which also tries their checklists), then
  visited in increasing order of bound, so the least open bound rises as subtrees close.
* **Exact comparisons.** When the weighted class counts have a common grid ``q`` (unit or
  integer weights; rational weights), objective values are integers in float64: ``key =
  S * loss / q + c_n N + c_m M`` with ``S = 2 (d + 1)^2``, i.e. exactly the objective
  divided by ``eps_M``. Ties (errors, items, ``M``) are decided exactly. Otherwise the
  search compares floats with a relative slack of ``1e-12`` and reports its lower bound
  with that margin.

Certificate
-----------
At any moment every checklist not yet ruled out lies below a node whose children have
not all been expanded; each such node stores a lower bound on its whole subtree. The
lower bound reported is the least stored bound of the open nodes, capped by the
incumbent, so it is valid at every event and rises as the search goes. When no open node
is left the incumbent is optimal (or, without one, the problem is infeasible).

The compiled loop is in :mod:`riskexplore.checklist.search_kernel`; it returns to
Python every few thousand nodes, so progress events flow and a stop request or the time
limit is honoured within a fraction of a second.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from riskexplore.checklist import search_kernel as kernel
from riskexplore.checklist.feasibility import check_feasible_with
from riskexplore.checklist.problem import (
    ChecklistProblem,
    ChecklistSolution,
    grid_of,
    violation_slack,
)
from riskexplore.checklist.rows import ALL
from riskexplore.core.events import EventEmitter, SolveEvent, Trace, relative_gap
from riskexplore.core.limits import Clock, Limits
from riskexplore.core.result import SolveResult, final_status

__all__ = [
    "ExactSearch",
    "ExactSearchSettings",
    "OpenNode",
    "check_feasible_exact",
    "solve_checklist_exact",
    "warm_up",
]

#: Largest integer held exactly by a float64.
_EXACT_LIMIT = 2.0**53
#: Relative slack of comparisons when the weights have no common grid.
_FLOAT_SLACK = 1e-12
#: Tolerance of item-row checks (as :meth:`ChecklistProblem.violations`).
_ROW_TOL = 1e-7
#: Checklists the compiled loop may collect before returning them (collect mode).
_FOUND_ROOM = 1 << 16
#: Time limit (s) of one feasibility search in :func:`check_feasible_exact`.
_FEASIBILITY_TIME_LIMIT = 20.0


@dataclass
class ExactSearchSettings:
    """Settings of :func:`solve_checklist_exact`.

    Attributes
    ----------
    progress_interval : float
        Smallest time (s) between two progress events (incumbent events are never held).
    slice_seconds : float
        Target time (s) of one run of the compiled loop between two returns to Python;
        stop requests and the time limit are checked at each return.
    group_order : {"given", "strong_first", "weak_first", "large_first", "small_first"}
        Order of the search groups (groups holding an item that a constraint requires
        always come first): as the items come in the data (default: it explored the
        fewest nodes on the benchmarks), by the best single item, or by group size.
    """

    progress_interval: float = 0.1
    slice_seconds: float = 0.05
    group_order: str = "given"


# --------------------------------------------------------------------- the search data
@dataclass
class _SearchData:
    """Arrays of one search (see :mod:`~riskexplore.checklist.search_kernel`)."""

    items: np.ndarray  # item index (in the problem) of each position
    X: np.ndarray  # uint64 (positions, words)
    group_of: np.ndarray  # search group of each position
    group_start: np.ndarray  # first position of each group, then the number of positions
    valid: np.ndarray  # uint64 (words,): bits that are rows
    reach: np.ndarray  # uint64 (groups + 1, planes + 1, words)
    free_words: np.ndarray  # words whose free rows move a bound
    objc: np.ndarray  # loss coefficient of a row predicted positive
    objneg: np.ndarray  # most a not-yet-positive row can lower the loss (<= 0)
    base: float
    c_n: float
    c_m: float
    unit: float  # objective = key * unit
    exact: bool
    min_items: int
    max_items: int
    min_m: int
    max_m: int
    errc: np.ndarray
    errneg: np.ndarray
    errpos: np.ndarray
    errconst: np.ndarray
    errlo: np.ndarray
    errhi: np.ndarray
    A: np.ndarray
    a_m: np.ndarray
    a_n: np.ndarray
    a_lo: np.ndarray
    a_hi: np.ndarray
    add_min: np.ndarray
    add_max: np.ndarray
    empty: bool  # no checklist can meet the size bounds
    n_rows: int  # distinct (pattern, label, group signature) rows
    loss_unit: float = 1.0  # exact keys: loss = (key part) * loss_unit / scale
    scale: float = 1.0

    def key(self, problem: ChecklistProblem, mask: np.ndarray, M: int) -> float:
        """The search key of a checklist (its objective in the search's units)."""
        N = int(mask.sum())
        if self.exact:
            loss_units = round(problem.loss(mask, M) / self.loss_unit)
            return self.scale * loss_units + self.c_n * N + self.c_m * M
        return problem.loss(mask, M) + self.c_n * N + self.c_m * M


def _size_bounds(problem: ChecklistProblem, on) -> tuple[int, int, int, int]:
    names = problem.size_names()
    d = problem.n_items
    n_lo = problem.min_items if on(names["min_items"]) else 1
    n_hi = problem.max_items if on(names["max_items"]) else d
    m_lo, m_hi = (problem.min_m, problem.max_m) if on(names["m_range"]) else (1, d)
    return n_lo, n_hi, m_lo, min(m_hi, n_hi)


def _whole_bounds(row, coef: float) -> tuple[float, float]:
    lo, hi = row.lower / coef, row.upper / coef
    if coef < 0:
        lo, hi = hi, lo
    lo_i = math.ceil(lo - 1e-9) if math.isfinite(lo) else -math.inf
    hi_i = math.floor(hi + 1e-9) if math.isfinite(hi) else math.inf
    return lo_i, hi_i


def _classify_rows(problem: ChecklistProblem, rows, sizes):
    """Split model-form rows into size bounds, excluded items, search groups and the rest.

    Returns ``(sizes, excluded, groups, general)``: tightened ``(n_lo, n_hi, m_lo, m_hi)``,
    the set of items no checklist may use, disjoint "at most one of" item sets, and the
    rows the search checks at nodes.
    """
    n_lo, n_hi, m_lo, m_hi = sizes
    index = {n: j for j, n in enumerate(problem.item_names)}
    excluded: set[int] = set()
    grouped: set[int] = set()
    groups: list[list[int]] = []
    general = []
    for row in rows:
        items = {index[n]: c for n, c in row.items.items() if c != 0}
        if not items and (row.M == 0) != (row.N == 0):  # a bound on N or on M alone
            lo, hi = _whole_bounds(row, row.N or row.M)
            if row.N:
                n_lo, n_hi = max(n_lo, lo), min(n_hi, hi)
            else:
                m_lo, m_hi = max(m_lo, lo), min(m_hi, hi)
            continue
        if row.M == 0 and row.N == 0 and len(items) == 1:
            ((j, c),) = items.items()
            zero_ok = row.lower <= 0 <= row.upper
            if zero_ok and not row.lower <= c <= row.upper:
                excluded.add(j)
                continue
        coefs = list(items.values())
        if (
            row.M == 0
            and row.N == 0
            and len(items) >= 2
            and all(c == coefs[0] for c in coefs)
            and coefs[0] > 0
            and row.upper < 2 * coefs[0]
            and row.lower <= 0 <= row.upper
            and not grouped.intersection(items)
        ):
            groups.append(sorted(items))
            grouped.update(items)
            continue
        general.append(row)
    sizes = (int(max(n_lo, 1)), int(n_hi), int(max(m_lo, 1)), int(min(m_hi, n_hi)))
    return sizes, excluded, groups, general


def _search_rows(problem: ChecklistProblem, error_rows):
    """Distinct (pattern, label, group signature) rows with summed weights.

    The signature says which groups of the mistake rows a row belongs to, so that rows
    merged into one share every coefficient.
    """
    labels = sorted({k for r in error_rows for k in (*r.fn, *r.fp) if k != ALL})
    n = problem.X.shape[0]
    member = np.zeros((n, len(labels)), dtype=np.uint8)
    for k, label in enumerate(labels):
        member[:, k] = problem.group_rows(label)
    keys = np.column_stack([problem.pattern_of_row, problem.y, member]).astype(np.int64)
    keep = problem.weights > 0
    uniq, inverse = np.unique(keys[keep], axis=0, return_inverse=True)
    weights = np.bincount(np.asarray(inverse).ravel(), weights=problem.weights[keep])
    return uniq[:, 0], uniq[:, 1].astype(bool), uniq[:, 2:].astype(bool), weights, labels


def _free_gain(pattern: np.ndarray, positive: np.ndarray, obj: np.ndarray) -> np.ndarray:
    """What a positive row not yet predicted positive may still gain: its weight, less
    what its pattern's negatives would cost when the pattern is predicted positive.

    Rows of one pattern always get the same prediction, so a pattern with positives
    ``P`` and weighted negatives ``W- N`` costs at least ``min(P, W- N)`` however its
    count ends. The reduction is spread over the pattern's positive rows in whole
    weights, so that exact keys stay integers.
    """
    gain = np.where(positive, obj, 0.0)  # -weight of the positives
    costs = np.zeros(int(pattern.max()) + 1 if len(pattern) else 0)
    np.add.at(costs, pattern[~positive], obj[~positive])
    totals = np.zeros_like(costs)
    np.add.at(totals, pattern[positive], -obj[positive])
    unavoidable = np.minimum(costs, totals)
    for i in np.flatnonzero(positive):
        u = pattern[i]
        if unavoidable[u] > 0:
            cut = min(-gain[i], unavoidable[u])
            gain[i] += cut
            unavoidable[u] -= cut
    return gain


def _group_order(problem, groups: list[list[int]], forced: set[int], how: str) -> list[list[int]]:
    if how == "given":
        return sorted(groups, key=lambda g: (not forced.intersection(g), g[0]))
    if how == "large_first":
        return sorted(groups, key=lambda g: (not forced.intersection(g), -len(g), g[0]))
    if how == "small_first":
        return sorted(groups, key=lambda g: (not forced.intersection(g), len(g), g[0]))
    if how not in ("strong_first", "weak_first"):
        raise ValueError(
            "group_order must be 'given', 'strong_first', 'weak_first', 'large_first' or "
            f"'small_first', got {how!r}"
        )
    sign = -1.0 if how == "strong_first" else 1.0
    # strength of an item: how much better than predicting nothing positive it does alone
    # with M = 1 (positives it catches minus weighted negatives it flags)
    Xp = problem.patterns.astype(float)
    gain = Xp.T @ problem.w_pos - problem.fp_weight * (Xp.T @ problem.w_neg)

    def strength(g: list[int]) -> float:
        return float(max(gain[j] for j in g))

    return sorted(groups, key=lambda g: (not forced.intersection(g), sign * strength(g), g[0]))


def _forced_items(problem, rows) -> set[int]:
    """Items that a row with a positive lower bound needs (placed first in the order)."""
    index = {n: j for j, n in enumerate(problem.item_names)}
    out: set[int] = set()
    for row in rows:
        if row.lower > 0 and row.M == 0 and row.N == 0:
            out.update(index[n] for n, c in row.items.items() if c > 0)
    return out


def build_search(
    problem: ChecklistProblem,
    *,
    active: set[str] | None = None,
    with_objective: bool = True,
    group_order: str = "given",
) -> _SearchData:
    """The arrays of a search over ``problem`` (with only the ``active`` size bounds and
    constraints, when given; ``with_objective=False`` looks for any feasible checklist)."""

    def on(name: str) -> bool:
        return active is None or name in active

    rows = [r for r in problem.rows if on(r.name)]
    error_rows = [r for r in problem.error_rows if on(r.name)]
    sizes, excluded, set_groups, general = _classify_rows(problem, rows, _size_bounds(problem, on))
    d = problem.n_items
    forced = _forced_items(problem, general)
    in_set = {j for g in set_groups for j in g}
    groups = [[j for j in g if j not in excluded] for g in set_groups]
    groups += [[j] for j in range(d) if j not in in_set and j not in excluded]
    groups = [g for g in groups if g]
    groups = _group_order(problem, groups, forced, group_order)
    positions = np.array([j for g in groups for j in g], dtype=np.int64)
    group_of = np.array([k for k, g in enumerate(groups) for _ in g], dtype=np.int64)
    group_start = np.zeros(len(groups) + 1, dtype=np.int64)
    group_start[1:] = np.cumsum([len(g) for g in groups])
    n_groups = len(groups)

    n_lo, n_hi, m_lo, m_hi = sizes
    n_hi = min(n_hi, n_groups)
    m_hi = min(m_hi, n_hi)
    empty = n_lo > n_hi or m_lo > m_hi or n_groups == 0
    n_planes = max(m_hi, 1)

    # rows of the search: distinct (pattern, label, signature); words of equal coefficients
    pattern, positive, member, weight, labels = _search_rows(problem, error_rows)
    fp_w = problem.fp_weight if with_objective else 0.0
    fn_w = 1.0 if with_objective else 0.0
    obj = np.where(positive, -fn_w * weight, fp_w * weight)
    gain = _free_gain(pattern, positive, obj)
    base = float(fn_w * weight[positive].sum())
    n_err = len(error_rows)
    err = np.zeros((n_err, len(weight)))
    err_const = np.zeros(n_err)
    for e, row in enumerate(error_rows):
        for label, c in row.fn.items():
            inside = np.ones(len(weight), bool) if label == ALL else member[:, labels.index(label)]
            sel = inside & positive
            err[e, sel] -= c * weight[sel]
            err_const[e] += c * float(weight[sel].sum())
        for label, c in row.fp.items():
            inside = np.ones(len(weight), bool) if label == ALL else member[:, labels.index(label)]
            sel = inside & ~positive
            err[e, sel] += c * weight[sel]

    # exact integer keys when the loss coefficients share a grid
    q = problem.error_unit
    exact = False
    loss_unit = 1.0
    scale = 1.0
    c_n, c_m = (problem.eps_n, problem.eps_m) if with_objective else (0.0, 0.0)
    unit = 1.0
    if with_objective and problem.lexicographic_exact:
        coefs = np.abs(obj[obj != 0])
        q_rows = grid_of(coefs) if coefs.size else q
        ratio = q / q_rows if q_rows else math.nan
        if q_rows is not None and abs(ratio - round(ratio)) < 1e-9:
            ratio = round(ratio)
            S = 2.0 * (d + 1) ** 2
            scaled = np.round(obj / q_rows)
            gain = S * np.round(gain / q_rows)
            biggest = S * (float(np.abs(scaled).sum()) + base / q_rows) + ratio * (d + 1) ** 2
            if biggest < _EXACT_LIMIT:
                exact = True
                obj = S * scaled
                base = S * round(base / q_rows)
                c_n, c_m = float(ratio * (d + 1)), float(ratio)
                unit = problem.eps_m / ratio
                loss_unit, scale = q_rows, S
    elif not with_objective:
        exact = True  # every key is 0

    # lay the rows out in words: each word holds rows of one coefficient class
    classes = np.column_stack([obj, gain, err.T])
    _, cls = np.unique(classes, axis=0, return_inverse=True)
    cls = np.asarray(cls).ravel()
    order = np.argsort(cls, kind="stable")
    word_of = np.empty(len(weight), dtype=np.int64)
    bit_of = np.empty(len(weight), dtype=np.int64)
    n_words = 0
    previous, bit = -1, 64
    for i in order:
        if cls[i] != previous or bit == 64:
            n_words += 1
            bit = 0
            previous = cls[i]
        word_of[i], bit_of[i] = n_words - 1, bit
        bit += 1
    n_words = max(n_words, 1)
    one = np.uint64(1)
    shifts = np.left_shift(one, bit_of.astype(np.uint64))

    def words_of(rows_mask: np.ndarray) -> np.ndarray:
        out = np.zeros(n_words, dtype=np.uint64)
        np.bitwise_or.at(out, word_of[rows_mask], shifts[rows_mask])
        return out

    valid = words_of(np.ones(len(weight), bool))
    X = np.zeros((len(positions), n_words), dtype=np.uint64)
    checked = problem.patterns[pattern][:, positions].astype(bool)  # rows x positions
    for p in range(len(positions)):
        X[p] = words_of(checked[:, p])
    first_row = np.zeros(n_words, dtype=np.int64)
    first_row[word_of[order[::-1]]] = order[::-1]  # any row of each word
    objc = obj[first_row] if len(weight) else np.zeros(n_words)
    errc = (err[:, first_row] if len(weight) else np.zeros((n_err, n_words))).reshape(
        n_err, n_words
    )
    # reach[g, b]: rows with a checked item in at least b of the groups g, g+1, ...
    has = np.zeros((len(weight), n_groups + 1), dtype=np.int64)
    for k in range(n_groups):
        cols = np.arange(group_start[k], group_start[k + 1])
        has[:, k] = checked[:, cols].any(axis=1)
    reach_count = np.cumsum(has[:, ::-1], axis=1)[:, ::-1]
    reach = np.zeros((n_groups + 1, n_planes + 1, n_words), dtype=np.uint64)
    for g in range(n_groups + 1):
        reach[g, 0] = valid
        for b in range(1, n_planes + 1):
            reach[g, b] = words_of(reach_count[:, g] >= b)
    gainc = gain[first_row] if len(weight) else np.zeros(n_words)
    free_words = np.flatnonzero((gainc < 0) | (errc != 0).any(axis=0)).astype(np.int64)

    # item rows over positions, with the least and most the later groups can add
    n_gen = len(general)
    index = {n: j for j, n in enumerate(problem.item_names)}
    pos_of = {int(j): p for p, j in enumerate(positions)}
    A = np.zeros((n_gen, len(positions)))
    a_m = np.zeros(n_gen)
    a_n = np.zeros(n_gen)
    a_lo = np.zeros(n_gen)
    a_hi = np.zeros(n_gen)
    for r, row in enumerate(general):
        for name, c in row.items.items():
            p = pos_of.get(index[name])
            if p is not None:
                A[r, p] += c
        a_m[r], a_n[r] = row.M, row.N
        a_lo[r] = row.lower - _ROW_TOL
        a_hi[r] = row.upper + _ROW_TOL
    add_min = np.zeros((n_groups + 1, n_gen))
    add_max = np.zeros((n_groups + 1, n_gen))
    for k in range(n_groups - 1, -1, -1):
        block = A[:, group_start[k] : group_start[k + 1]]
        add_min[k] = add_min[k + 1] + np.minimum(block.min(axis=1, initial=0.0), 0.0)
        add_max[k] = add_max[k + 1] + np.maximum(block.max(axis=1, initial=0.0), 0.0)

    slack_lo = np.array([violation_slack(r.lower) for r in error_rows])
    slack_hi = np.array([violation_slack(r.upper) for r in error_rows])
    data = _SearchData(
        items=positions,
        X=X,
        group_of=group_of,
        group_start=group_start,
        valid=valid,
        reach=reach,
        free_words=free_words,
        objc=np.ascontiguousarray(objc, dtype=float),
        objneg=np.ascontiguousarray(gainc, dtype=float),
        base=float(base),
        c_n=float(c_n),
        c_m=float(c_m),
        unit=float(unit),
        exact=exact,
        min_items=int(n_lo),
        max_items=int(n_hi),
        min_m=int(m_lo),
        max_m=int(m_hi),
        errc=np.ascontiguousarray(errc, dtype=float),
        errneg=np.minimum(errc, 0.0),
        errpos=np.maximum(errc, 0.0),
        errconst=err_const,
        errlo=np.array([r.lower for r in error_rows], dtype=float) - slack_lo,
        errhi=np.array([r.upper for r in error_rows], dtype=float) + slack_hi,
        A=A,
        a_m=a_m,
        a_n=a_n,
        a_lo=a_lo,
        a_hi=a_hi,
        add_min=add_min,
        add_max=add_max,
        empty=bool(empty),
        n_rows=len(weight),
        loss_unit=loss_unit,
        scale=scale,
    )
    return data


#: Most frontier nodes: the frontier is the deepest level with at most this many subsets.
FRONTIER_SIZE = 250_000


def frontier_depth(data: _SearchData, limit: int = FRONTIER_SIZE) -> tuple[int, int]:
    """``(depth, capacity)``: the number of items of the frontier nodes and how many
    subsets of that size exist (one item per search group); depth beyond the largest
    size (and capacity 0) when the search is too shallow to need a frontier."""
    sizes = np.diff(data.group_start).astype(float)
    count = np.zeros(data.max_items + 1)  # subsets of each size: elementary symmetric sums
    count[0] = 1.0
    for size in sizes:
        count[1:] = count[1:] + count[:-1] * size
    best = (data.max_items + 1, 0)
    for depth in range(2, data.max_items - 1):
        if count[depth] <= limit:
            best = (depth, int(count[depth]))
    return best


# ---------------------------------------------------------------------------- solving
def solve_checklist_exact(
    problem: ChecklistProblem,
    *,
    limits: Limits | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    warm_starts: Iterable[tuple[Sequence[str], int]] = (),
    settings: ExactSearchSettings | None = None,
) -> SolveResult:
    """Find and certify the best checklist of ``problem`` by exact search.

    Parameters
    ----------
    problem : ChecklistProblem
    limits : Limits, optional
        Time and node limits, gap tolerance and a stop request (honoured within a
        fraction of a second). A stopped or timed-out search returns its best checklist
        and a valid lower bound.
    listeners : sequence of callables
        Each receives every :class:`SolveEvent`: an ``"incumbent"`` event whenever the
        best checklist improves, throttled ``"progress"`` events, and a ``"final"`` one.
    warm_starts : iterable of ``(items, M)``
        Checklists to start from; infeasible ones are skipped.
    settings : ExactSearchSettings, optional

    Returns
    -------
    SolveResult
        As :func:`~riskexplore.checklist.mip.solve_checklist` returns; ``nodes``
        counts the subsets evaluated.
    """
    return ExactSearch(problem, limits, listeners, warm_starts, settings).run()


@dataclass(frozen=True)
class OpenNode:
    """A node whose subtree is not closed yet: its items, the items its descendants may
    add (at most one per search group), its lower bound on every descendant (objective
    units, before capping by the incumbent) and the thresholds still alive below it."""

    items: tuple[str, ...]
    later_items: tuple[str, ...]
    lower_bound: float
    alive: tuple[int, ...]


class ExactSearch:
    """One exact search: the compiled loop's arrays, the incumbent and the events.

    :func:`solve_checklist_exact` is ``ExactSearch(...).run()``. Tests and tools may
    instead call :meth:`start`, then :meth:`step` repeatedly and look at
    :meth:`open_nodes` between steps.
    """

    def __init__(
        self,
        problem: ChecklistProblem,
        limits: Limits | None = None,
        listeners: Sequence[Callable[[SolveEvent], None]] = (),
        warm_starts: Iterable[tuple[Sequence[str], int]] = (),
        settings: ExactSearchSettings | None = None,
        *,
        data: _SearchData | None = None,
        collect_below: float | None = None,
    ) -> None:
        self.problem = problem
        self.collect_below = collect_below
        self.limits = limits or Limits()
        self.settings = settings or ExactSearchSettings()
        self.trace = Trace()
        self.emitter = EventEmitter([self.trace, *listeners])
        self.warm_starts = list(warm_starts)
        t0 = time.perf_counter()
        self.data = data or build_search(problem, group_order=self.settings.group_order)
        self.build_time = time.perf_counter() - t0
        self.best: tuple[np.ndarray, int] | None = None
        self.found: list[tuple[tuple[int, ...], int]] = []  # (item indices, M) collected
        self.ub = math.inf
        self.lb = 0.0  # every objective term is non-negative
        self.last_emit = -math.inf
        self.n_incumbents = 0

    # --- state ---------------------------------------------------------------------------
    def _allocate(self) -> None:
        s = self.data
        levels = s.max_items + 1
        width = max(len(s.items), 1)
        planes = s.reach.shape[1]
        n_words = len(s.valid)
        self.T = np.zeros((levels, width, planes, n_words), dtype=np.uint64)
        self.T[:, :, 0, :] = s.valid  # plane 0: every row has at least 0 checked items
        self.rowsum = np.zeros((levels, width, s.A.shape[0]))
        self.alive = np.zeros((levels, width, s.max_m + 1), dtype=np.uint8)
        self.bound = np.full((levels, width), np.inf)
        self.item_of = np.full((levels, width), -1, dtype=np.int64)
        self.order = np.zeros((levels, width), dtype=np.int64)
        self.n_children = np.zeros(levels, dtype=np.int64)
        self.cursor = np.zeros(levels, dtype=np.int64)
        self.best_path = np.full(levels, -1, dtype=np.int64)
        self.incumbent = np.array([math.inf])
        self.counters = np.zeros(kernel.N_COUNTERS, dtype=np.int64)
        self.depth, capacity = frontier_depth(s)
        self.f_path = np.zeros((capacity, max(self.depth, 1)), dtype=np.int64)
        self.f_bound = np.full(capacity, np.inf)
        self.f_alive = np.zeros((capacity, s.max_m + 1), dtype=np.uint8)
        room = _FOUND_ROOM if self.collect_below is not None else 1
        self.found_path = np.zeros((room, levels), dtype=np.int64)
        self.found_size = np.zeros((room, 2), dtype=np.int64)
        self.found_key = np.zeros(room)
        if self.collect_below is not None:
            self.counters[kernel.COLLECT] = 1
            self.incumbent[0] = self.collect_below
        # the root: the empty checklist, every threshold alive
        self.alive[0, 0, s.min_m : s.max_m + 1] = 1
        self.bound[0, 0] = -math.inf
        self.n_children[0] = 1

    def _run_slice(self, budget: int) -> float:
        s = self.data
        return kernel.search(
            s.X, s.group_of, s.group_start, s.max_items, s.reach, s.free_words,
            s.objc, s.objneg, s.base, s.c_n, s.c_m, s.min_items, s.min_m, s.max_m,
            s.errc, s.errneg, s.errpos, s.errconst, s.errlo, s.errhi,
            s.A, s.a_m, s.a_n, s.a_lo, s.a_hi, s.add_min, s.add_max,
            self.T, self.rowsum, self.alive, self.bound, self.item_of, self.order,
            self.n_children, self.cursor, self.best_path, self.incumbent, self.counters,
            int(budget), 0.0 if s.exact else _FLOAT_SLACK,
            self.depth, self.f_path, self.f_bound, self.f_alive,
            self.found_path, self.found_size, self.found_key,
        )  # fmt: skip

    def _frontier_bound(self) -> float:
        """Least bound of the frontier nodes not searched yet."""
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        if c[kernel.PHASE] == kernel.BUILD:
            return float(self.f_bound[:n].min()) if n else math.inf
        nxt = int(c[kernel.NEXT_FRONTIER])
        return float(self.f_bound[nxt]) if nxt < n else math.inf  # sorted

    def _descend(self) -> None:
        """Sort the frontier by bound and start searching below it."""
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        ranked = np.argsort(self.f_bound[:n], kind="stable")
        self.f_bound[:n] = self.f_bound[ranked]
        self.f_path[:n] = self.f_path[ranked]
        self.f_alive[:n] = self.f_alive[ranked]
        c[kernel.PHASE] = kernel.DESCEND
        c[kernel.DONE] = 0
        c[kernel.NEXT_FRONTIER] = 0
        c[kernel.LEVEL] = self.depth
        self.n_children[self.depth] = 0
        self.cursor[self.depth] = 0

    # --- incumbents --------------------------------------------------------------------
    def _offer(self, mask: np.ndarray, M: int) -> bool:
        p = self.problem
        if p.violations(mask, M):
            return False
        key = self.data.key(p, mask, M)
        if key >= self.incumbent[0]:
            return False
        self.incumbent[0] = key
        self._take(mask, M)
        return True

    def _take(self, mask: np.ndarray, M: int) -> None:
        self.best = (mask.copy(), int(M))
        self.ub = self.problem.objective(mask, M)
        self.n_incumbents += 1
        self._emit("incumbent", incumbent=self.problem.as_dict(mask, M))

    def _from_kernel(self) -> None:
        """Take the compiled loop's new incumbent, checked exactly in Python."""
        c = self.counters
        if not c[kernel.IMPROVED]:
            return
        c[kernel.IMPROVED] = 0
        mask = np.zeros(self.problem.n_items, dtype=bool)
        mask[self.data.items[self.best_path[: c[kernel.BEST_LEN]]]] = True
        M = int(c[kernel.BEST_M])
        bad = self.problem.violations(mask, M)
        if bad:  # pragma: no cover - the loop checks the same rows
            raise RuntimeError(f"exact search produced an infeasible checklist ({bad})")
        self._take(mask, M)

    def _lower(self, open_bound: float) -> float:
        """A valid lower bound in objective units from the least open key."""
        s = self.data
        if open_bound >= self.incumbent[0]:
            return self.ub if self.best is not None else math.inf
        value = open_bound * s.unit
        if not s.exact:
            value -= _FLOAT_SLACK * abs(value)
        return min(max(self.lb, value), self.ub)

    # --- events --------------------------------------------------------------------------
    def _emit(self, kind: str, *, incumbent=None, phase: str = "search") -> None:
        if not self.emitter.active:
            return
        now = self.clock.elapsed()
        self.last_emit = now
        self.emitter.emit(
            SolveEvent(
                time=now,
                phase=phase,
                upper_bound=self.ub,
                lower_bound=self.lb if self.best is None else min(self.lb, self.ub),
                gap=relative_gap(self.ub, self.lb),
                nodes=int(self.counters[kernel.NODES]),
                cuts=0,
                incumbent=incumbent,
                kind=kind,
            )
        )

    # --- driver --------------------------------------------------------------------------
    def start(self) -> None:
        """Set up the root and take the feasible warm starts."""
        self.clock = Clock(self.limits)
        self._allocate()
        self.n_ok = sum(self._offer(self.problem.mask(list(i)), int(m)) for i, m in self._starts())
        self._emit("progress", phase="initialization")

    def step(self, budget: int) -> bool:
        """Run about ``budget`` more nodes; returns whether the search is complete."""
        if self.data.empty:
            return True
        open_bound = self._run_slice(budget)
        self._from_kernel()
        self._drain()
        c = self.counters
        if c[kernel.DONE] and c[kernel.PHASE] == kernel.BUILD and c[kernel.N_FRONTIER]:
            self._descend()
        open_bound = min(open_bound, self._frontier_bound())
        done = bool(c[kernel.DONE])
        self.lb = self.ub if done and self.best is not None else self._lower(open_bound)
        return done

    def _drain(self) -> None:
        """Move the checklists collected below the threshold to :attr:`found`."""
        c = self.counters
        n = int(c[kernel.N_FOUND])
        if not n:
            return
        names = self.data.items
        for f in range(n):
            size, M = (int(v) for v in self.found_size[f])
            items = tuple(sorted(int(j) for j in names[self.found_path[f, :size]]))
            self.found.append((items, M))
        c[kernel.N_FOUND] = 0

    def lower_threshold(self, key: float) -> None:
        """Collect only checklists with a key below ``key`` from now on."""
        self.incumbent[0] = min(self.incumbent[0], key)

    @property
    def incumbent_objective(self) -> float:
        """Objective of the best checklist found (``inf`` before one)."""
        return self.ub

    @property
    def lower_bound(self) -> float:
        """The current proven lower bound on the optimum."""
        return self.lb

    def open_nodes(self) -> list[OpenNode]:
        """The nodes not expanded yet (their subtrees hold every checklist not yet
        tried), with their bounds; for tests of bound soundness."""
        s, out = self.data, []
        names = self.problem.item_names
        depth = int(self.counters[kernel.LEVEL])
        path: list[int] = []
        for lvl in range(depth + 1):
            for k in range(int(self.cursor[lvl]), int(self.n_children[lvl])):
                slot = self.order[lvl, k]
                pos = int(self.item_of[lvl, slot])
                items = [*path, pos] if pos >= 0 else []
                first = 0 if pos < 0 else int(s.group_start[s.group_of[pos] + 1])
                out.append(
                    OpenNode(
                        items=tuple(names[s.items[p]] for p in items),
                        later_items=tuple(names[j] for j in s.items[first:]),
                        lower_bound=float(self.bound[lvl, slot]) * s.unit,
                        alive=tuple(int(m) for m in np.flatnonzero(self.alive[lvl, slot])),
                    )
                )
            if lvl < depth:  # the node being expanded at this level
                slot = self.order[lvl, self.cursor[lvl] - 1]
                if self.item_of[lvl, slot] >= 0:
                    path.append(int(self.item_of[lvl, slot]))
        c = self.counters
        n = int(c[kernel.N_FRONTIER])
        start = int(c[kernel.NEXT_FRONTIER]) if c[kernel.PHASE] == kernel.DESCEND else 0
        for f in range(start, n):
            pos = int(self.f_path[f, self.depth - 1])
            first = int(s.group_start[s.group_of[pos] + 1])
            out.append(
                OpenNode(
                    items=tuple(names[s.items[p]] for p in self.f_path[f, : self.depth]),
                    later_items=tuple(names[j] for j in s.items[first:]),
                    lower_bound=float(self.f_bound[f]) * s.unit,
                    alive=tuple(int(m) for m in np.flatnonzero(self.f_alive[f])),
                )
            )
        return out

    def run(self) -> SolveResult:
        """Search until complete or a limit ends it; the result carries a valid bound."""
        self.start()
        complete, stop_reason = self._loop() if not self.data.empty else (True, None)
        return self._finish(complete, stop_reason, self.n_ok)

    def _starts(self):
        names = set(self.problem.item_names)
        for items, M in self.warm_starts:
            items = list(items) if not isinstance(items, str) else [items]
            if all(isinstance(i, str) and i in names for i in items):
                yield items, M

    def _loop(self) -> tuple[bool, str | None]:
        budget = 2_000
        node_limit = self.limits.node_limit
        while True:
            reason = self.clock.limit_reached(int(self.counters[kernel.NODES]))
            if reason is not None:
                return False, reason
            if self.best is not None and self.lb >= self.ub:
                return True, None
            if relative_gap(self.ub, self.lb) <= self.limits.gap_tolerance:
                return False, "gap"
            step = budget
            if node_limit is not None:
                step = max(1, min(step, node_limit - int(self.counters[kernel.NODES])))
            t0 = time.perf_counter()
            done = self.step(step)
            spent = time.perf_counter() - t0
            if done:
                return True, None
            if self.clock.elapsed() - self.last_emit >= self.settings.progress_interval:
                self._emit("progress")
            # aim each slice at slice_seconds (compilation makes the first one long)
            target = self.settings.slice_seconds
            rate = step / max(spent, 1e-4)
            budget = int(min(max(rate * target, 200), 4 * budget + 1000))

    def _finish(self, complete: bool, stop_reason: str | None, n_ok: int) -> SolveResult:
        p, s = self.problem, self.data
        if stop_reason == "gap":
            stop_reason = None
        infeasible = complete and self.best is None
        lb = self.ub if complete and self.best is not None else self.lb
        gap = relative_gap(self.ub, lb)
        status = final_status(
            self.best is not None, complete, gap, self.limits.gap_tolerance, stop_reason
        )
        stats = {
            "method": "exact",
            "build_time": self.build_time,
            "n_patterns": int(p.patterns.shape[0]),
            "n_search_rows": s.n_rows,
            "n_words": len(s.valid),
            "n_groups": len(s.group_start) - 1,
            "n_positions": len(s.items),
            "exact_keys": s.exact,
            "eps_n": p.eps_n,
            "eps_m": p.eps_m,
            "error_unit": p.error_unit,
            "lexicographic_exact": p.lexicographic_exact,
            "warm_starts_given": len(self.warm_starts),
            "warm_starts_feasible": n_ok,
            "incumbents": self.n_incumbents,
            "notes": list(p.notes),
        }
        items = M = None
        if self.best is not None:
            mask, M = self.best
            items = p.items_of(mask)
            err = p.errors(mask, M)
            stats.update(
                train_fp=err["fp"],
                train_fn=err["fn"],
                train_errors=err["fp"] + err["fn"],
                train_error_rate=err["error"],
                loss=err["loss"],
                N=len(items),
            )
        nodes = int(self.counters[kernel.NODES]) if hasattr(self, "counters") else 0
        result = SolveResult(
            status="infeasible" if infeasible else status,
            solution=None if items is None else ChecklistSolution(items, M),
            upper_bound=self.ub,
            lower_bound=lb,
            nodes=nodes,
            time=self.clock.elapsed(),
            trace=self.trace,
            stats=stats,
        )
        self.lb = lb
        self._emit(
            "final",
            phase="done",
            incumbent=None if self.best is None else p.as_dict(*self.best),
        )
        return result


# ------------------------------------------------------------------------ feasibility
def _feasible(problem, active, time_limit: float) -> tuple[str, tuple[list[str], int] | None]:
    data = build_search(problem, active=set(active), with_objective=False)
    search = ExactSearch(problem, Limits(time_limit=time_limit), data=data)
    search.problem = _Relaxed(problem, set(active))
    result = search.run()
    if result.solution is not None:
        return "feasible", tuple(result.solution)
    if result.status == "infeasible":
        return "infeasible", None
    return "unknown", None


class _Relaxed:
    """A view of a problem whose violations count only the active size bounds and rows."""

    def __init__(self, problem: ChecklistProblem, active: set[str]) -> None:
        self._problem = problem
        self._active = active

    def __getattr__(self, name):
        return getattr(self._problem, name)

    def violations(self, items, M: int, tol: float = 1e-7) -> list[str]:
        return [v for v in self._problem.violations(items, M, tol) if v in self._active]

    def objective(self, items, M: int) -> float:
        return 0.0


def check_feasible_exact(problem: ChecklistProblem, time_limit: float = _FEASIBILITY_TIME_LIMIT):
    """Raise :class:`InfeasibleError` naming an irreducible set of conflicting constraints
    when no checklist satisfies ``problem``; otherwise return a feasible ``(items, M)``
    (``None`` when a search cannot decide within ``time_limit`` seconds)."""
    return check_feasible_with(problem, lambda active: _feasible(problem, active, time_limit))


def warm_up() -> None:
    """Compile (or load from numba's cache) the search loop on a tiny problem."""
    X = np.array([[1, 0], [0, 1], [1, 1]])
    solve_checklist_exact(ChecklistProblem(X, [1, 0, 1]))
