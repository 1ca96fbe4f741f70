"""The arrays of an exact checklist search, built from a :class:`ChecklistProblem`.

:func:`build_search` turns the problem into what the compiled loop
(:mod:`riskexplore.checklist.search.kernel`) works on: the search groups and the order of
the items, the training rows laid out in 64-bit words of equal coefficients, the rows'
reach (in how many later groups they have a checked item), the objective and mistake-row
coefficients (as exact integers when the weights allow), and the item rows with what the
later groups can still add to them. :func:`frontier_depth` picks the depth of the
best-first frontier. The method and its certificate are described in
:mod:`riskexplore.checklist.search`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from riskexplore.checklist.problem import ChecklistProblem, grid_of, violation_slack
from riskexplore.checklist.rows import ALL
from riskexplore.checklist.search.cells import (
    CELL_ENTRY_BUDGET,
    Cells,
    build_cells,
    later_signatures,
    row_order,
)

__all__ = ["FRONTIER_SIZE", "Batch", "SearchData", "build_search", "frontier_depth"]

#: Largest integer held exactly by a float64.
_EXACT_LIMIT = 2.0**53
#: Tolerance of item-row checks (as :meth:`ChecklistProblem.violations`).
_ROW_TOL = 1e-7


@dataclass
class SearchData:
    """Arrays of one search (see :mod:`~riskexplore.checklist.search.kernel`)."""

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
    cells: Cells | None = None  # the equivalent-row cells (module cells)

    def kernel_arrays(self) -> tuple:
        """The problem's arrays in the order the compiled loop takes them."""
        return (
            self.X, self.group_of, self.group_start, self.reach, self.free_words, self.objc,
            self.objneg, self.base, self.c_n, self.c_m, self.min_items, self.max_items,
            self.min_m, self.max_m, self.errc, self.errneg, self.errpos, self.errconst,
            self.errlo, self.errhi, self.A, self.a_m, self.a_n, self.a_lo, self.a_hi,
            self.add_min, self.add_max,
        )  # fmt: skip

    def positions_of(self, mask: np.ndarray) -> np.ndarray:
        """The positions of a checklist's items, increasing (its path in the search)."""
        return np.flatnonzero(np.asarray(mask, bool)[self.items])

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
        if row.M == 0 and row.N == 0 and items and min(coefs) > 0 and row.lower <= 0:
            if row.upper < min(coefs):  # none of them ("at most 0 of"): all excluded
                excluded.update(items)
                continue
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


def _search_groups(problem, set_groups, excluded: set[int], general, how: str) -> list[list[int]]:
    """The search groups in search order: the "at most one of" sets without their excluded
    items, then every other item alone (groups with a forced item first)."""
    forced = _forced_items(problem, general)
    in_set = {j for g in set_groups for j in g}
    groups = [[j for j in g if j not in excluded] for g in set_groups]
    groups += [[j] for j in range(problem.n_items) if j not in in_set and j not in excluded]
    groups = [g for g in groups if g]
    return _group_order(problem, groups, forced, how)


def _group_layout(groups: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions, group_of, group_start)``: the item of each position, the group of
    each position, and the first position of each group then the number of positions."""
    positions = np.array([j for g in groups for j in g], dtype=np.int64)
    group_of = np.array([k for k, g in enumerate(groups) for _ in g], dtype=np.int64)
    group_start = np.zeros(len(groups) + 1, dtype=np.int64)
    group_start[1:] = np.cumsum([len(g) for g in groups])
    return positions, group_of, group_start


def _mistake_coefficients(error_rows, positive, member, weight, labels):
    """Coefficients of the mistake rows over the search rows predicted positive
    (rows x search rows), and their constants (the false negatives of predicting none)."""
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
    return err, err_const


@dataclass
class _Keys:
    """The objective in the search's units: row coefficients, constant, size costs."""

    obj: np.ndarray  # loss coefficient of a row predicted positive
    gain: np.ndarray  # most a row not yet positive can lower the loss (<= 0)
    base: float
    c_n: float
    c_m: float
    unit: float = 1.0  # objective = key * unit
    exact: bool = False
    loss_unit: float = 1.0
    scale: float = 1.0


def _keys(problem: ChecklistProblem, positive, weight, with_objective: bool) -> _Keys:
    """The objective's coefficients, as exact integer keys when the loss coefficients
    share a grid (see ``SearchData.key``)."""
    fp_w = problem.fp_weight if with_objective else 0.0
    fn_w = 1.0 if with_objective else 0.0
    obj = np.where(positive, -fn_w * weight, fp_w * weight)
    c_n, c_m = (problem.eps_n, problem.eps_m) if with_objective else (0.0, 0.0)
    keys = _Keys(obj, np.minimum(obj, 0.0), float(fn_w * weight[positive].sum()), c_n, c_m)
    if not with_objective:
        keys.exact = True  # every key is 0
    elif problem.lexicographic_exact:
        _exact_keys(problem, keys)
    return keys


def _exact_keys(problem: ChecklistProblem, keys: _Keys) -> None:
    """Integer keys ``S * loss / q + c_n N + c_m M`` when the grid allows (in place)."""
    q, d, obj = problem.error_unit, problem.n_items, keys.obj
    coefs = np.abs(obj[obj != 0])
    q_rows = grid_of(coefs) if coefs.size else q
    ratio = q / q_rows if q_rows else math.nan
    if q_rows is None or abs(ratio - round(ratio)) >= 1e-9:
        return
    ratio = round(ratio)
    S = 2.0 * (d + 1) ** 2
    scaled = np.round(obj / q_rows)
    keys.gain = S * np.round(keys.gain / q_rows)
    biggest = S * (float(np.abs(scaled).sum()) + keys.base / q_rows) + ratio * (d + 1) ** 2
    if biggest < _EXACT_LIMIT:
        keys.exact = True
        keys.obj = S * scaled
        keys.base = S * round(keys.base / q_rows)
        keys.c_n, keys.c_m = float(ratio * (d + 1)), float(ratio)
        keys.unit = problem.eps_m / ratio
        keys.loss_unit, keys.scale = q_rows, S


class _Words:
    """The search rows laid out in 64-bit words, each word holding rows of one
    coefficient class (in the order ``order``)."""

    def __init__(self, cls: np.ndarray, order: np.ndarray) -> None:
        n_rows = len(cls)
        self.word_of = np.empty(n_rows, dtype=np.int64)
        self.bit_of = np.empty(n_rows, dtype=np.int64)
        n_words = 0
        previous, bit = -1, 64
        for i in order:
            if cls[i] != previous or bit == 64:
                n_words += 1
                bit = 0
                previous = cls[i]
            self.word_of[i], self.bit_of[i] = n_words - 1, bit
            bit += 1
        self.n_words = max(n_words, 1)
        self.shifts = np.left_shift(np.uint64(1), self.bit_of.astype(np.uint64))
        self.first_row = np.zeros(self.n_words, dtype=np.int64)
        self.first_row[self.word_of[order[::-1]]] = order[::-1]  # any row of each word

    def of(self, rows_mask: np.ndarray) -> np.ndarray:
        """The words of a set of rows (a boolean mask over the rows)."""
        out = np.zeros(self.n_words, dtype=np.uint64)
        np.bitwise_or.at(out, self.word_of[rows_mask], self.shifts[rows_mask])
        return out


def _reach_count(checked: np.ndarray, group_start: np.ndarray) -> np.ndarray:
    """``reach_count[i, g]``: in how many of the groups ``g, g+1, ...`` row ``i`` has a
    checked item."""
    n_groups = len(group_start) - 1
    has = np.zeros((checked.shape[0], n_groups + 1), dtype=np.int64)
    for k in range(n_groups):
        cols = np.arange(group_start[k], group_start[k + 1])
        has[:, k] = checked[:, cols].any(axis=1)
    return np.cumsum(has[:, ::-1], axis=1)[:, ::-1]


def _reach(reach_count: np.ndarray, words: _Words, valid: np.ndarray, n_planes: int):
    """``reach[g, b]``: the words of the rows with a checked item in at least ``b`` of the
    groups ``g, g+1, ...``."""
    n_groups = reach_count.shape[1] - 1
    reach = np.zeros((n_groups + 1, n_planes + 1, words.n_words), dtype=np.uint64)
    for g in range(n_groups + 1):
        reach[g, 0] = valid
        for b in range(1, n_planes + 1):
            reach[g, b] = words.of(reach_count[:, g] >= b)
    return reach


def _item_rows(problem: ChecklistProblem, general, positions, group_start) -> dict:
    """The item rows over positions (``A, a_m, a_n, a_lo, a_hi``), with the least and most
    the groups from each one on can add (``add_min``, ``add_max``)."""
    n_gen, n_groups = len(general), len(group_start) - 1
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
    return {"A": A, "a_m": a_m, "a_n": a_n, "a_lo": a_lo, "a_hi": a_hi,
            "add_min": add_min, "add_max": add_max}  # fmt: skip


def _error_bounds(error_rows) -> dict:
    """Bounds of the mistake rows, widened by the tolerance of the violation checks."""
    slack_lo = np.array([violation_slack(r.lower) for r in error_rows])
    slack_hi = np.array([violation_slack(r.upper) for r in error_rows])
    return {
        "errlo": np.array([r.lower for r in error_rows], dtype=float) - slack_lo,
        "errhi": np.array([r.upper for r in error_rows], dtype=float) + slack_hi,
    }


def build_search(
    problem: ChecklistProblem,
    *,
    active: set[str] | None = None,
    with_objective: bool = True,
    group_order: str = "given",
    cells_budget: int = CELL_ENTRY_BUDGET,
) -> SearchData:
    """The arrays of an exact search over ``problem``.

    Parameters
    ----------
    problem : ChecklistProblem
    active : set of str, optional
        Only these size bounds and constraints (by name) are enforced (the culprit search
        relaxes the others); all of them when ``None``.
    with_objective : bool
        ``False`` makes every checklist cost 0, so the search stops at the first feasible
        one (feasibility checks).
    group_order : str
        Order of the search groups (see ``ExactSearchSettings.group_order``).
    cells_budget : int
        Most entries of the equivalent-row cells (0 turns that bound off).

    Returns
    -------
    SearchData
    """

    def on(name: str) -> bool:
        return active is None or name in active

    rows = [r for r in problem.rows if on(r.name)]
    error_rows = [r for r in problem.error_rows if on(r.name)]
    sizes, excluded, set_groups, general = _classify_rows(problem, rows, _size_bounds(problem, on))
    groups = _search_groups(problem, set_groups, excluded, general, group_order)
    positions, group_of, group_start = _group_layout(groups)
    n_groups = len(groups)
    n_lo, n_hi, m_lo, m_hi = sizes
    n_hi = min(n_hi, n_groups)
    m_hi = min(m_hi, n_hi)

    # rows of the search: distinct (pattern, label, signature); words of equal coefficients
    pattern, positive, member, weight, labels = _search_rows(problem, error_rows)
    err, err_const = _mistake_coefficients(error_rows, positive, member, weight, labels)
    keys = _keys(problem, positive, weight, with_objective)
    classes = np.column_stack([keys.obj, keys.gain, err.T])
    _, cls = np.unique(classes, axis=0, return_inverse=True)
    cls = np.asarray(cls).ravel()
    checked = problem.patterns[pattern][:, positions].astype(bool)  # rows x positions
    signatures = later_signatures(checked, group_start)
    order = row_order(cls, signatures)
    words = _Words(cls, order)
    valid = words.of(np.ones(len(weight), bool))
    X = np.zeros((len(positions), words.n_words), dtype=np.uint64)
    for p in range(len(positions)):
        X[p] = words.of(checked[:, p])
    first_row = words.first_row
    if len(weight):
        objc, errc, gainc = keys.obj[first_row], err[:, first_row], keys.gain[first_row]
    else:
        objc, errc = np.zeros(words.n_words), np.zeros((len(error_rows), words.n_words))
        gainc = np.zeros(words.n_words)
    errc = errc.reshape(len(error_rows), words.n_words)
    reach_count = _reach_count(checked, group_start)
    reach = _reach(reach_count, words, valid, max(m_hi, 1))
    free_words = np.flatnonzero((gainc < 0) | (errc != 0).any(axis=0)).astype(np.int64)

    use_cells = with_objective and cells_budget > 0 and len(weight) > 0
    cells = (
        build_cells(
            signatures,
            positive,
            np.abs(keys.obj),
            reach_count,
            words.word_of,
            words.bit_of,
            order,
            cells_budget,
        )
        if use_cells
        else Cells.none(n_groups)
    )
    return SearchData(
        items=positions,
        X=X,
        group_of=group_of,
        group_start=group_start,
        valid=valid,
        reach=reach,
        free_words=free_words,
        objc=np.ascontiguousarray(objc, dtype=float),
        objneg=np.ascontiguousarray(gainc, dtype=float),
        base=float(keys.base),
        c_n=float(keys.c_n),
        c_m=float(keys.c_m),
        unit=float(keys.unit),
        exact=keys.exact,
        min_items=int(n_lo),
        max_items=int(n_hi),
        min_m=int(m_lo),
        max_m=int(m_hi),
        errc=np.ascontiguousarray(errc, dtype=float),
        errneg=np.minimum(errc, 0.0),
        errpos=np.maximum(errc, 0.0),
        errconst=err_const,
        **_error_bounds(error_rows),
        **_item_rows(problem, general, positions, group_start),
        empty=bool(n_lo > n_hi or m_lo > m_hi or n_groups == 0),
        n_rows=len(weight),
        loss_unit=keys.loss_unit,
        scale=keys.scale,
        cells=cells,
    )


#: Most frontier nodes: the frontier is the deepest level with at most this many subsets.
FRONTIER_SIZE = 250_000


@dataclass
class Batch:
    """Frontier nodes (positions, size, bound, alive thresholds), least bound first."""

    paths: np.ndarray
    lengths: np.ndarray
    bounds: np.ndarray
    alive: np.ndarray

    def __len__(self) -> int:
        return len(self.bounds)


def frontier_depth(data: SearchData, limit: int = FRONTIER_SIZE) -> tuple[int, int]:
    """The depth of the best-first frontier of a search.

    Parameters
    ----------
    data : SearchData
    limit : int
        Most frontier nodes: the frontier is the deepest level (at most two levels above
        the leaves) whose subsets number at most this.

    Returns
    -------
    depth, capacity : int
        The number of items of the frontier nodes and how many subsets of that size
        exist (one item per search group); a depth beyond the largest size (and
        capacity 0) when the search is too shallow to need a frontier.
    """
    sizes = np.diff(data.group_start).astype(float)
    count = np.zeros(data.max_items + 1)  # subsets of each size: elementary symmetric sums
    count[0] = 1.0
    for size in sizes:
        count[1:] = count[1:] + count[:-1] * size
    best = (data.max_items + 1, 0)
    for depth in range(1, data.max_items - 1):
        if count[depth] <= limit:
            best = (depth, int(count[depth]))
    return best
