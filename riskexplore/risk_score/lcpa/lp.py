"""The surrogate LP of LCPA (RiskSLIM-LP, Ustun & Rudin 2019, Definition 2) on HiGHS.

LCPA is the lattice cutting plane algorithm of Ustun & Rudin [1]_ (Algorithm 2, Section
3.2); at each node of its branch-and-bound search it solves RiskSLIM-LP (Definition 2).

Columns: ``lambda_0..lambda_d``, ``alpha_1..alpha_d`` and the loss estimate ``L``.
Rows: the l0-indicator rows, the model-size row, the user's rows and a bounded pool of
loss cuts ``L >= l(lam_t) + <grad_t, lam - lam_t>``. Branch-and-bound changes only
column bounds, so a node is a pair of bound vectors; HiGHS warm-starts dual simplex
from the previous basis, and a node's stored basis can be restored when the search
jumps across the tree.

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np

from riskexplore.core.highs import new_highs
from riskexplore.risk_score.problem import RiskScoreProblem

_INF = highspy.kHighsInf
_OPTIMAL = highspy.HighsModelStatus.kOptimal
_INFEASIBLE = (
    highspy.HighsModelStatus.kInfeasible,
    highspy.HighsModelStatus.kUnboundedOrInfeasible,
)


@dataclass
class LPSolution:
    status: str  # "optimal", "infeasible" or "error"
    objective: float
    x: np.ndarray | None  # structural columns [lambda, alpha] (2d+1)
    loss_estimate: float  # value of the L column


@dataclass
class BasisSnapshot:
    basis: highspy.HighsBasis
    row_ids: np.ndarray


def lp_highs() -> highspy.Highs:
    """A silent HiGHS instance set up for the node LPs (tight tolerances, no presolve)."""
    h = new_highs()
    h.silent()
    for option, value in (
        ("primal_feasibility_tolerance", 1e-9),
        ("dual_feasibility_tolerance", 1e-9),
        ("presolve", "off"),
    ):
        h.setOptionValue(option, value)
    return h


def root_bounds(problem: RiskScoreProblem) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``[lambda, alpha]`` at the root of the search.

    Parameters
    ----------
    problem : RiskScoreProblem

    Returns
    -------
    lower, upper : ndarray of shape (2 d + 1,)
        The coefficient box, and ``alpha_j`` fixed to 1 when ``lambda_j`` cannot be zero
        and to 0 when it must be.
    """
    lam_lo, lam_hi = problem.lam_bounds()
    alpha_lo = np.where((lam_lo[1:] > 0) | (lam_hi[1:] < 0), 1.0, 0.0)
    alpha_hi = np.where((lam_lo[1:] == 0) & (lam_hi[1:] == 0), 0.0, 1.0)
    return np.concatenate([lam_lo, alpha_lo]), np.concatenate([lam_hi, alpha_hi])


def add_columns(h: highspy.Highs, costs: np.ndarray, lower: np.ndarray, upper: np.ndarray):
    """Append columns (with no row entries yet) to an LP.

    Parameters
    ----------
    h : highspy.Highs
        The LP.
    costs, lower, upper : array-like of shape (n,)
        Objective coefficients and bounds of the new columns.
    """
    n = len(costs)
    h.addCols(
        n,
        np.asarray(costs, float),
        np.asarray(lower, float),
        np.asarray(upper, float),
        0,
        np.zeros(n, np.int32),
        np.array([], np.int32),
        np.array([], float),
    )


class SurrogateLP:
    """A HiGHS LP with a bounded pool of loss cuts."""

    #: The least value of the loss column (the datafit's floor; the learned scale's LP,
    #: on the logistic loss only, keeps 0).
    loss_floor = 0.0

    def __init__(self, problem: RiskScoreProblem, max_cuts: int = 120) -> None:
        self.problem = problem
        self.d = d = problem.n_features
        self.n_struct = 2 * d + 1
        self.L_col = self.n_struct
        self.max_cuts = max_cuts
        self.highs = h = lp_highs()
        lam_lo, lam_hi = problem.lam_bounds()
        self.root_lower, self.root_upper = root_bounds(problem)
        costs = np.concatenate([np.zeros(d + 1), problem.c0, [1.0]])
        # the loss column's floor comes from the datafit: 0 for the logistic loss, possibly
        # below 0 for a weighted Cox loss (a term ``log w_i`` with a weight below 1)
        self.loss_floor = float(problem.loss.loss_floor())
        lower = np.concatenate([self.root_lower, [self.loss_floor]])
        upper = np.concatenate([self.root_upper, [_INF]])
        add_columns(h, costs, lower, upper)
        self.row_ids: list[int] = []  # stable id of every LP row, in LP order
        self._next_id = 0
        self._add_fixed_rows(lam_lo, lam_hi)
        self.n_fixed = len(self.row_ids)
        # cut bookkeeping, aligned with rows n_fixed.. of the LP
        self.cut_idle = np.zeros(0, dtype=np.int64)
        self.all_indices = np.arange(self.n_struct, dtype=np.int32)

    # --- building ----------------------------------------------------------------------
    def _add_fixed_rows(self, lam_lo: np.ndarray, lam_hi: np.ndarray) -> None:
        d = self.d
        rows, lo, hi = [], [], []
        for j in range(1, d + 1):
            if lam_hi[j] > 0:  # lambda_j <= hi_j * alpha_j
                rows.append({j: 1.0, d + j: -lam_hi[j]})
                lo.append(-_INF)
                hi.append(0.0)
            if lam_lo[j] < 0:  # lambda_j >= lo_j * alpha_j
                rows.append({j: 1.0, d + j: -lam_lo[j]})
                lo.append(0.0)
                hi.append(_INF)
        self.size_row = len(rows)
        rows.append({d + j: 1.0 for j in range(1, d + 1)})
        lo.append(float(self.problem.min_size))
        hi.append(float(self.problem.max_size))
        rm = self.problem.row_matrix
        for i in range(rm.n_rows):
            nz = np.flatnonzero(rm.A[i])
            rows.append({int(k): float(rm.A[i, k]) for k in nz})
            lo.append(rm.lower[i] if math.isfinite(rm.lower[i]) else -_INF)
            hi.append(rm.upper[i] if math.isfinite(rm.upper[i]) else _INF)
        self._add_rows(rows, lo, hi)

    def _add_rows(self, rows: list[dict[int, float]], lo, hi) -> None:
        starts, index, value = [], [], []
        for row in rows:
            starts.append(len(index))
            index.extend(row.keys())
            value.extend(row.values())
        self.highs.addRows(
            len(rows),
            np.asarray(lo, float),
            np.asarray(hi, float),
            len(index),
            np.asarray(starts, np.int32),
            np.asarray(index, np.int32),
            np.asarray(value, float),
        )
        for _ in rows:
            self.row_ids.append(self._next_id)
            self._next_id += 1

    # --- cuts --------------------------------------------------------------------------
    @property
    def n_cuts(self) -> int:
        """The number of loss cuts in the LP."""
        return len(self.row_ids) - self.n_fixed

    def add_cut(self, loss: float, grad: np.ndarray, lam: np.ndarray) -> None:
        """Add ``L - <grad, lam'> >= loss - <grad, lam>``."""
        if self.n_cuts >= self.max_cuts:
            self.purge_cuts()
        nz = np.flatnonzero(grad)
        index = np.concatenate([nz, [self.L_col]]).astype(np.int32)
        value = np.concatenate([-grad[nz], [1.0]])
        rhs = loss - float(grad @ lam)
        self.highs.addRows(
            1, np.array([rhs]), np.array([_INF]), len(index), np.array([0], np.int32), index, value
        )
        self.row_ids.append(self._next_id)
        self._next_id += 1
        self.cut_idle = np.append(self.cut_idle, 0)

    def note_activity(self, row_dual: np.ndarray) -> None:
        """Count LP solves since each cut last carried a dual (was binding)."""
        active = np.abs(row_dual[self.n_fixed :]) > 1e-12
        self.cut_idle = np.where(active, 0, self.cut_idle + 1)

    def purge_cuts(self) -> None:
        """Drop the longest-idle third of the cuts (dropping cuts keeps bounds valid)."""
        n_drop = max(1, self.n_cuts // 3)
        order = np.argsort(-self.cut_idle, kind="stable")[:n_drop]
        drop = np.sort(order)
        self.highs.deleteRows(len(drop), (drop + self.n_fixed).astype(np.int32))
        keep = np.setdiff1d(np.arange(self.n_cuts), drop)
        self.cut_idle = self.cut_idle[keep]
        self.row_ids = self.row_ids[: self.n_fixed] + [self.row_ids[self.n_fixed + k] for k in keep]

    # --- bounds ------------------------------------------------------------------------
    def set_node_bounds(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """Set the column bounds of a node.

        Parameters
        ----------
        lower, upper : ndarray
            Bounds of ``[lam, alpha]``.
        """
        self.highs.changeColsBounds(self.n_struct, self.all_indices, lower, upper)

    def set_loss_bounds(self, lower: float, upper: float) -> None:
        """Bound the loss variable ``L``.

        Parameters
        ----------
        lower, upper : float
            The bounds.
        """
        self.highs.changeColBounds(
            self.L_col, max(self.loss_floor, lower), upper if math.isfinite(upper) else _INF
        )

    def set_size_bounds(self, lower: int, upper: int) -> None:
        """Bound the number of features used.

        Parameters
        ----------
        lower, upper : int
            The bounds.
        """
        self.highs.changeRowBounds(self.size_row, float(lower), float(upper))

    # --- bases -------------------------------------------------------------------------
    def snapshot(self) -> BasisSnapshot:
        """The current basis, to restore when a node's children are solved later."""
        return BasisSnapshot(self.highs.getBasis(), np.asarray(self.row_ids))

    def restore(self, snap: BasisSnapshot) -> None:
        """Restore a stored basis if the LP still has the same rows.

        After cuts were added or dropped the current basis is kept instead: HiGHS warm
        starts from it about as well, and rebuilding a mixed basis costs more than it saves
        (measured on mammo and breastcancer).
        """
        if len(snap.row_ids) == len(self.row_ids) and np.array_equal(snap.row_ids, self.row_ids):
            self.highs.setBasis(snap.basis)

    # --- solving -----------------------------------------------------------------------
    def solve(self) -> LPSolution:
        """Solve the LP from the current basis.

        Returns
        -------
        LPSolution
            The status, objective and point.
        """
        h = self.highs
        h.run()
        status = h.getModelStatus()
        if status == _OPTIMAL:
            sol = h.getSolution()
            col = np.asarray(sol.col_value)
            if self.cut_idle.size:
                self.note_activity(np.asarray(sol.row_dual))
            return LPSolution(
                "optimal",
                h.getInfo().objective_function_value,
                col[: self.n_struct],
                float(col[self.L_col]),
            )
        if status in _INFEASIBLE:
            return LPSolution("infeasible", math.inf, None, math.nan)
        # numerical trouble: solve again from scratch once
        h.clearSolver()
        h.run()
        if h.getModelStatus() == _OPTIMAL:
            return self.solve()
        return LPSolution("error", -math.inf, None, math.nan)
