"""The HiGHS integer program of a checklist problem: IP (2) of Zhang et al. (2021), Sec. 3.

Formulation
-----------
Training rows with the same item pattern ``x_u`` get the same prediction, so the IP
has one binary ``p_u`` (predicted positive) per *distinct* pattern, carrying the summed
weights ``w+_u`` (positives) and ``w-_u`` (negatives) of its rows. The mistake indicators
of Zhang et al. are ``z_u = 1 - p_u`` for the positives of ``u`` and ``z_u = p_u`` for
its negatives. Columns are ``[use_1..use_d, M, N, p_u ...]`` and::

    min   sum_u w+_u (1 - p_u) + W- sum_u w-_u p_u + eps_N N + eps_M M
    s.t.  N = sum_j use_j,   M <= N,   min_items <= N <= max_items,  min_m <= M <= max_m
          (A_u)  p_u = 1  =>  s_u >= M:      s_u - M - BA_u p_u >= -BA_u
          (B_u)  p_u = 0  =>  s_u <= M - 1:  s_u - M - BB_u p_u <= -1
          model-form rows and rows on weighted mistakes of groups (constraints)

with ``s_u = sum_j x_uj use_j``. The big-M constants are the tightest valid ones given
the size bounds: with ``p_u = 0``, (A_u) needs ``BA_u >= M - s_u``; since the items
outside the pattern number ``d - |x_u|``, ``s_u >= N - (d - |x_u|)`` and ``M <= N``, so
``BA_u = min(max_m, d - |x_u|)``. With ``p_u = 1``, (B_u) needs
``BB_u >= s_u - M + 1``, and ``s_u <= min(|x_u|, max_items)``, ``M >= min_m``, so
``BB_u = min(|x_u|, max_items) - min_m + 1``. Patterns that can never reach ``min_m``
checked items have ``p_u = 0`` fixed; a pattern with every item checked has ``p_u = 1``.

Only the direction a pattern's objective (or a mistake constraint) pushes toward needs
its row: a pattern with more positive than negative weight wants ``p_u = 1`` and needs
only (A_u) (``p_u = 0`` merely over-counts mistakes, which the minimisation avoids).
With rows on mistakes (e.g. FNR limits, group gaps) both directions are added wherever
some row could profit from a wrong ``p_u``, so the indicators are exact there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import highspy
import numpy as np

from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.core.highs import new_highs

__all__ = ["ChecklistIP", "ChecklistIPSettings", "SparseRows"]

#: Largest number of pattern pairs compared for monotonicity rows.
_MAX_PAIRS = 4_000_000


@dataclass
class ChecklistIPSettings:
    """Solver settings of :func:`solve_checklist`.

    Attributes
    ----------
    strengthen : bool
        Add valid inequalities ``p_u <= s_u`` and ``p_u >= p_v`` for patterns ``u``
        containing ``v`` (off by default: no measurable gain on the benchmarks tried).
    greedy_start : bool
        Start from a quick greedy checklist (forward selection), besides warm starts.
    exact_indicators : bool
        Add both big-M rows for every free pattern (exact predictions in the IP) even
        without mistake constraints.
    progress_interval : float
        Smallest time (s) between two progress events (incumbent events are never held).
    presolve : bool
        HiGHS presolve.
    threads : int, optional
        HiGHS ``threads`` option.
    random_seed : int
        HiGHS ``random_seed``.
    highs_options : dict
        Any other HiGHS options, set last.
    """

    exact_indicators: bool = False
    greedy_start: bool = True
    strengthen: bool = False
    progress_interval: float = 0.1
    presolve: bool = True
    threads: int | None = None
    random_seed: int = 0
    highs_options: dict = field(default_factory=dict)


# --- the IP ----------------------------------------------------------------------------
class ChecklistIP:
    """The HiGHS model of a checklist problem (optionally with some parts relaxed).

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    active : set of str, optional
        The parts kept (names of
        :func:`~riskexplore.checklist.feasibility.constraint_groups`); default: all.
    with_objective : bool
        Minimise the objective (else: any feasible checklist).
    exact : bool
        Both big-M rows for every free pattern (exact predictions).
    settings : ChecklistIPSettings, optional
        Formulation and HiGHS settings.

    Attributes
    ----------
    h : highspy.Highs
        The model, ready to run.
    free : ndarray
        The patterns whose prediction is a variable (the others are fixed).
    """

    def __init__(
        self,
        problem: ChecklistProblem,
        *,
        active: set[str] | None = None,
        with_objective: bool = True,
        exact: bool = False,
        settings: ChecklistIPSettings | None = None,
    ) -> None:
        self.highspy = highspy
        self.problem = problem
        self.active = active
        settings = settings or ChecklistIPSettings()
        self.d = d = problem.n_items
        self.rows = [r for r in problem.rows if self._on(r.name)]
        self.error_rows = [r for r in problem.error_rows if self._on(r.name)]
        self._size_bounds()
        self._fix_patterns()
        self.col_M, self.col_N = d, d + 1
        self.n_cols = d + 2 + len(self.free)
        c_u, offset = self._pattern_costs(with_objective)
        self._expand_mistake_rows()
        self._big_m_directions(c_u, exact or settings.exact_indicators)

        h = new_highs()
        h.setOptionValue("output_flag", False)
        self._add_columns(h, c_u if with_objective else None, offset)
        rows = SparseRows(highspy.kHighsInf)
        self._add_size_rows(rows)
        self._add_item_rows(rows)
        self._add_big_m_rows(rows)
        self.n_cuts = 0
        if settings.strengthen:
            self._add_valid_inequalities(rows)
        self._add_mistake_rows(rows)
        rows.flush(h)
        self.n_rows = rows.count
        free = self.free
        self.n_big_m = int(self.wants_one[free].sum() + self.wants_zero[free].sum())
        self._set_options(h, settings)
        self.h = h

    # --- what the model holds ------------------------------------------------------------
    def _on(self, name: str) -> bool:
        """Whether the part ``name`` is kept (not relaxed)."""
        return self.active is None or name in self.active

    def _size_bounds(self) -> None:
        """Bounds ``n_lo..n_hi`` on ``N`` and ``m_lo..m_hi`` on ``M`` (relaxed ones open)."""
        p, d = self.problem, self.d
        names = p.size_names()
        self.n_lo = p.min_items if self._on(names["min_items"]) else 1
        self.n_hi = p.max_items if self._on(names["max_items"]) else d
        self.m_lo, self.m_hi = (p.min_m, p.max_m) if self._on(names["m_range"]) else (1, d)

    def _fix_patterns(self) -> None:
        """Fixed predictions (``-1`` free, else 0 or 1) and the free patterns."""
        size = self.problem.pattern_size
        fixed = np.full(size.shape[0], -1, dtype=np.int8)
        fixed[np.minimum(size, self.n_hi) < self.m_lo] = 0
        fixed[size == self.d] = 1
        self.fixed, self.free = fixed, np.flatnonzero(fixed < 0)

    def _pattern_costs(self, with_objective: bool) -> tuple[np.ndarray, float]:
        """Objective coefficient of each ``p_u`` and the constant of the objective."""
        p = self.problem
        if not with_objective:
            return np.zeros(p.pattern_size.shape[0]), 0.0
        c_u = -p.w_pos + p.fp_weight * p.w_neg
        return c_u, float(p.w_pos.sum()) + float(c_u[self.fixed == 1].sum())

    def _expand_mistake_rows(self) -> None:
        """Mistake rows over ``p``: coefficients ``E`` (rows x patterns) and the bounds
        ``e_lo``, ``e_hi`` left once the constants and fixed patterns are moved over."""
        p, fixed = self.problem, self.fixed
        n_err = len(self.error_rows)
        E = np.zeros((n_err, p.pattern_size.shape[0]))
        e_lo = np.empty(n_err)
        e_hi = np.empty(n_err)
        for k, row in enumerate(self.error_rows):
            const = 0.0
            for label, c in row.fn.items():
                wp, _ = p.group_class_weights(label)
                E[k] -= c * wp
                const += c * float(wp.sum())
            for label, c in row.fp.items():
                _, wn = p.group_class_weights(label)
                E[k] += c * wn
            const += float(E[k][fixed == 1].sum())
            e_lo[k] = row.lower - const
            e_hi[k] = row.upper - const
        self.E, self.e_lo, self.e_hi = E, e_lo, e_hi

    def _big_m_directions(self, c_u: np.ndarray, both: bool) -> None:
        """Which patterns need the row forcing ``p_u = 1`` (``wants_one``) and which the
        row forcing ``p_u = 0`` (``wants_zero``): the objective's push, and any mistake
        row that could profit from a wrong ``p_u``; every pattern both when ``both``."""
        wants_one = c_u < 0
        wants_zero = c_u > 0
        if len(self.error_rows):
            E = self.E
            up = np.isfinite(self.e_hi)[:, None]
            lo = np.isfinite(self.e_lo)[:, None]
            wants_one |= (((E < 0) & up) | ((E > 0) & lo)).any(axis=0)
            wants_zero |= (((E > 0) & up) | ((E < 0) & lo)).any(axis=0)
        if both:
            wants_one[:] = True
            wants_zero[:] = True
        self.wants_one, self.wants_zero = wants_one, wants_zero

    # --- columns and rows ----------------------------------------------------------------
    def _add_columns(self, h, c_u: np.ndarray | None, offset: float) -> None:
        """Columns ``[use_1..use_d, M, N, p_u ...]``, all integer, with their costs
        (``c_u`` None: no objective)."""
        n_cols, p = self.n_cols, self.problem
        col_lo = np.zeros(n_cols)
        col_hi = np.ones(n_cols)
        col_lo[self.col_M], col_hi[self.col_M] = self.m_lo, self.m_hi
        col_lo[self.col_N], col_hi[self.col_N] = self.n_lo, self.n_hi
        cost = np.zeros(n_cols)
        if c_u is not None:
            cost[self.col_N] = p.eps_n
            cost[self.col_M] = p.eps_m
            cost[self.d + 2 :] = c_u[self.free]
        h.addVars(n_cols, col_lo, col_hi)
        h.changeColsCost(n_cols, np.arange(n_cols, dtype=np.int32), cost)
        h.changeColsIntegrality(
            n_cols,
            np.arange(n_cols, dtype=np.int32),
            np.full(n_cols, highspy.HighsVarType.kInteger),
        )
        if offset:
            h.changeObjectiveOffset(offset)

    def _add_size_rows(self, rows: SparseRows) -> None:
        """``N = sum_j use_j`` and ``M - N <= 0``."""
        d = self.d
        rows.add(np.arange(d + 2), np.concatenate([np.ones(d), [0.0, -1.0]]), 0.0, 0.0)
        rows.add(np.array([self.col_M, self.col_N]), np.array([1.0, -1.0]), -math.inf, 0.0)

    def _add_item_rows(self, rows: SparseRows) -> None:
        """The model-form rows (on items, ``M`` and ``N``)."""
        index = {n: j for j, n in enumerate(self.problem.item_names)}
        for row in self.rows:
            coefs: dict[int, float] = {}
            for name, c in row.items.items():
                coefs[index[name]] = coefs.get(index[name], 0.0) + c
            if row.M:
                coefs[self.col_M] = coefs.get(self.col_M, 0.0) + row.M
            if row.N:
                coefs[self.col_N] = coefs.get(self.col_N, 0.0) + row.N
            cols = np.array(sorted(coefs), dtype=np.int64)
            rows.add(cols, np.array([coefs[c] for c in cols]), row.lower, row.upper)

    def _add_big_m_rows(self, rows: SparseRows) -> None:
        """Rows (A_u) and (B_u) of the free patterns, in the needed directions."""
        d, size, patterns = self.d, self.problem.pattern_size, self.problem.patterns
        for k, u in enumerate(self.free):
            items = np.flatnonzero(patterns[u])
            cols = np.concatenate([items, [self.col_M, d + 2 + k]])
            if self.wants_one[u]:
                big = float(min(self.m_hi, d - size[u]))
                vals = np.concatenate([np.ones(len(items)), [-1.0, -big]])
                rows.add(cols, vals, -big, math.inf)
            if self.wants_zero[u]:
                big = float(min(size[u], self.n_hi) - self.m_lo + 1)
                vals = np.concatenate([np.ones(len(items)), [-1.0, -big]])
                rows.add(cols, vals, -math.inf, -1.0)

    def _add_valid_inequalities(self, rows: SparseRows) -> None:
        """``p_u <= s_u`` and ``p_u >= p_v`` for ``u`` containing ``v`` (they hold for the
        exact predictions, so the optimum is kept); counted in :attr:`n_cuts`."""
        d, free, patterns = self.d, self.free, self.problem.patterns
        # p_u <= s_u: a positive prediction needs at least one checked item (M >= 1)
        for k, u in enumerate(free):
            items = np.flatnonzero(patterns[u])
            rows.add(
                np.concatenate([items, [d + 2 + k]]),
                np.concatenate([np.ones(len(items)), [-1.0]]),
                0.0,
                math.inf,
            )
            self.n_cuts += 1
        # monotonicity: a pattern containing another is predicted positive whenever
        # the smaller one is (p_u >= p_v), for the pairs where it matters
        ones = np.flatnonzero(self.wants_one[free])
        zeros = np.flatnonzero(self.wants_zero[free])
        if len(ones) and len(zeros) and len(ones) * len(zeros) <= _MAX_PAIRS:
            P = patterns[free].astype(bool)
            small, big = P[ones], P[zeros]
            # contains[a, b]: pattern zeros[b] contains pattern ones[a]
            missing = small.astype(np.int32) @ (~big).astype(np.int32).T
            for a, b in zip(*np.nonzero(missing == 0), strict=True):
                v, u = ones[a], zeros[b]
                if u == v:
                    continue
                rows.add(np.array([d + 2 + u, d + 2 + v]), np.array([1.0, -1.0]), 0.0, math.inf)
                self.n_cuts += 1

    def _add_mistake_rows(self, rows: SparseRows) -> None:
        """The rows on weighted mistakes, over the free patterns."""
        for k in range(len(self.error_rows)):
            coef = self.E[k][self.free]
            nz = np.flatnonzero(coef)
            rows.add(self.d + 2 + nz, coef[nz], self.e_lo[k], self.e_hi[k])

    @staticmethod
    def _set_options(h, settings: ChecklistIPSettings) -> None:
        h.setOptionValue("presolve", "on" if settings.presolve else "off")
        h.setOptionValue("random_seed", int(settings.random_seed))
        if settings.threads is not None:
            h.setOptionValue("threads", int(settings.threads))

    def vector(self, mask: np.ndarray, M: int) -> np.ndarray:
        """The full column vector of a checklist (exact predictions)."""
        p = self.problem
        x = np.zeros(self.n_cols)
        x[: self.d] = mask.astype(float)
        x[self.col_M] = M
        x[self.col_N] = int(mask.sum())
        pred = p.pattern_predictions(mask, M)
        x[self.d + 2 :] = pred[self.free]
        return x

    def decode(self, x) -> tuple[np.ndarray, int]:
        """The checklist ``(item mask, M)`` of a column vector of the IP.

        Parameters
        ----------
        x : array-like
            Values of the IP's columns.

        Returns
        -------
        tuple
            The boolean item mask and the threshold.
        """
        x = np.asarray(x, dtype=float)
        return x[: self.d] > 0.5, int(round(float(x[self.col_M])))


class SparseRows:
    """Collects rows and adds them to HiGHS in one call.

    Parameters
    ----------
    inf : float
        HiGHS' infinity.
    """

    def __init__(self, inf: float) -> None:
        self.inf = inf
        self.starts: list[int] = []
        self.index: list[np.ndarray] = []
        self.value: list[np.ndarray] = []
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.nnz = 0
        self.count = 0

    def add(self, cols, vals, lower: float, upper: float) -> None:
        """Queue the row ``lower <= sum vals[k] x[cols[k]] <= upper``.

        Parameters
        ----------
        cols : array-like of int
            Column indices.
        vals : array-like of float
            Coefficients.
        lower, upper : float
            Row bounds (infinite for an open side).
        """
        self.starts.append(self.nnz)
        self.index.append(np.asarray(cols, dtype=np.int32))
        self.value.append(np.asarray(vals, dtype=float))
        self.nnz += len(cols)
        self.lower.append(-self.inf if lower == -math.inf else float(lower))
        self.upper.append(self.inf if upper == math.inf else float(upper))
        self.count += 1

    def flush(self, h) -> None:
        """Add every queued row to the HiGHS model ``h`` in one call.

        Parameters
        ----------
        h : highspy.Highs
            The model.
        """
        if not self.count:
            return
        h.addRows(
            self.count,
            np.array(self.lower),
            np.array(self.upper),
            self.nnz,
            np.array(self.starts, dtype=np.int32),
            np.concatenate(self.index).astype(np.int32),
            np.concatenate(self.value),
        )
