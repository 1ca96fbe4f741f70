"""Feasibility pre-check: is there any integer risk score obeying every bound and row?

Run before a search starts, so that contradictory requirements fail fast with a message
naming the constraints that conflict, instead of a long search that finds nothing.

The check solves a small MIP with HiGHS over the integer points ``lambda`` and two binary
variables per feature that encode ``alpha_j = 1[lambda_j != 0]`` exactly::

    alpha_j = s+_j + s-_j,            s+_j + s-_j <= 1
    lambda_j >= s+_j + lo_j * s-_j    (s+_j = 1  =>  lambda_j >= 1)
    lambda_j <= hi_j * s+_j - s-_j    (s-_j = 1  =>  lambda_j <= -1)

so that ``s+ = s- = 0`` forces ``lambda_j = 0``, ``s+_j = 1`` gives ``1 <= lambda_j <= hi_j``
and ``s-_j = 1`` gives ``lo_j <= lambda_j <= -1``. ``s+_j`` is fixed to 0 when ``hi_j < 1``
and ``s-_j`` when ``lo_j > -1``, which covers every sign case (including features that
cannot be zero because ``lo_j >= 1`` or ``hi_j <= -1``). ``alpha`` is substituted out:
a row's coefficient on ``alpha_j`` goes on both ``s+_j`` and ``s-_j``.

When the MIP is infeasible, the culprit search of :mod:`riskexplore.core.culprits` (a
deletion filter over the constraints: rows grouped by name, plus the model size bounds)
finds an irreducible conflicting set to report. :class:`FeasibilityModel` is also the
master problem of plain CPA (:mod:`riskexplore.risk_score.lcpa.cpa`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np

from riskexplore.core import culprits
from riskexplore.core.highs import add_dense_rows, new_highs
from riskexplore.errors import InfeasibleError

__all__ = [
    "ConstraintGroup",
    "FeasibilityModel",
    "check_feasible",
    "conflicting_constraints",
    "find_feasible",
]

#: Finite stand-in for unbounded coefficient bounds (bounds are small integers in practice).
_BIG = 1e6
#: Time limit (s) for one feasibility MIP; these MIPs are tiny.
_TIME_LIMIT = 20.0


@dataclass
class ConstraintGroup:
    """Rows that stand or fall together: one user constraint, or one size bound.

    Attributes
    ----------
    name : str
        The constraint's description.
    A : ndarray of shape (k, 2d+1)
        Its rows over ``[lambda_0, lambda_1..d, alpha_1..d]``.
    lower, upper : ndarray of shape (k,)
        Row bounds.
    """

    name: str
    A: np.ndarray  # (k, 2d+1) over [lambda_0, lambda_1..d, alpha_1..d]
    lower: np.ndarray
    upper: np.ndarray


class FeasibilityModel:
    """The feasibility MIP of a problem, solvable with any subset of its groups.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Attributes
    ----------
    lo, hi : ndarray of shape (d+1,)
        Bounds of ``[lambda_0, lambda_1..d]``, clipped to a finite range.
    groups : list of ConstraintGroup
        The size bounds that restrict anything, then one group per constraint name.
    """

    def __init__(self, problem) -> None:
        self.d = d = problem.n_features
        lo, hi = problem.lam_bounds()
        self.lo = np.clip(np.asarray(lo, dtype=float), -_BIG, _BIG)
        self.hi = np.clip(np.asarray(hi, dtype=float), -_BIG, _BIG)
        groups: dict[str, list[int]] = {}
        rm = problem.row_matrix
        for i, name in enumerate(rm.names):
            groups.setdefault(name, []).append(i)
        self.groups: list[ConstraintGroup] = []
        size_row = np.zeros((1, 2 * d + 1))
        size_row[0, d + 1 :] = 1.0
        if problem.min_size > 0:
            self.groups.append(
                ConstraintGroup(
                    f"Model size at least {problem.min_size}",
                    size_row,
                    np.array([float(problem.min_size)]),
                    np.array([math.inf]),
                )
            )
        if problem.max_size < d:
            self.groups.append(
                ConstraintGroup(
                    f"Model size at most {problem.max_size}",
                    size_row,
                    np.array([-math.inf]),
                    np.array([float(problem.max_size)]),
                )
            )
        for name, idx in groups.items():
            self.groups.append(ConstraintGroup(name, rm.A[idx], rm.lower[idx], rm.upper[idx]))

    # columns: [lambda_0..lambda_d (d+1), s+_1..d, s-_1..d]
    def solve(
        self, active: list[int], lo: np.ndarray | None = None, hi: np.ndarray | None = None
    ) -> tuple[str, np.ndarray | None]:
        """Solve with the groups ``active``; return ``(status, lambda or None)``.

        ``status`` is ``"feasible"``, ``"infeasible"`` or ``"unknown"``.
        """
        d = self.d
        lo = self.lo if lo is None else lo
        hi = self.hi if hi is None else hi
        n = 3 * d + 1
        col_lo = np.concatenate([lo, np.zeros(2 * d)])
        col_hi = np.concatenate([hi, (hi[1:] >= 1).astype(float), (lo[1:] <= -1).astype(float)])

        rows_A, rows_lo, rows_hi = [], [], []
        j = np.arange(d)
        lam, sp, sm = 1 + j, d + 1 + j, 2 * d + 1 + j
        # s+ + s- <= 1
        link = np.zeros((3 * d, n))
        link[j, sp] = 1.0
        link[j, sm] = 1.0
        # lambda - s+ - lo*s- >= 0
        link[d + j, lam] = 1.0
        link[d + j, sp] = -1.0
        link[d + j, sm] = -lo[1:]
        # lambda - hi*s+ + s- <= 0
        link[2 * d + j, lam] = 1.0
        link[2 * d + j, sp] = -hi[1:]
        link[2 * d + j, sm] = 1.0
        rows_A.append(link)
        rows_lo.append(np.concatenate([np.full(d, -np.inf), np.zeros(d), np.full(d, -np.inf)]))
        rows_hi.append(np.concatenate([np.ones(d), np.full(d, np.inf), np.zeros(d)]))
        for g in active:
            group = self.groups[g]
            block = np.zeros((group.A.shape[0], n))
            block[:, : d + 1] = group.A[:, : d + 1]
            block[:, d + 1 : 2 * d + 1] = group.A[:, d + 1 :]
            block[:, 2 * d + 1 :] = group.A[:, d + 1 :]
            rows_A.append(block)
            rows_lo.append(group.lower)
            rows_hi.append(group.upper)
        A = np.vstack(rows_A)
        row_lo = np.concatenate(rows_lo).astype(float)
        row_hi = np.concatenate(rows_hi).astype(float)

        h = new_highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("time_limit", _TIME_LIMIT)
        h.addVars(n, col_lo, col_hi)
        h.changeColsIntegrality(
            n, np.arange(n, dtype=np.int32), np.full(n, highspy.HighsVarType.kInteger)
        )
        add_dense_rows(h, A, row_lo, row_hi)
        h.run()
        status = h.getModelStatus()
        S = highspy.HighsModelStatus
        if status == S.kOptimal:
            x = np.asarray(h.getSolution().col_value)
            return "feasible", np.rint(x[: d + 1]).astype(float) + 0.0
        if status in (S.kInfeasible, S.kUnboundedOrInfeasible):
            return "infeasible", None
        return "unknown", None


def find_feasible(problem) -> np.ndarray | None:
    """A feasible integer model ``lambda`` (length d+1), or ``None`` if there is none.

    Feasible for the bounds, sizes and rows; the operating-point rules (``problem.rules``)
    are not checked (a model may break them; ``None`` is then still a proof that no model
    meets everything).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    ndarray of shape (d+1,) or None
        The model (as floats), or ``None`` (infeasible, or undecided in time).
    """
    model = FeasibilityModel(problem)
    status, lam = model.solve(list(range(len(model.groups))))
    return lam if status == "feasible" else None


def _intercept_only(problem) -> np.ndarray | None:
    """The model with no points and the integer intercept nearest 0 in its bounds, if it
    satisfies the problem (then no MIP is needed to show that a model exists)."""
    lo, hi = problem.lam_bounds()
    lam = np.zeros(problem.n_features + 1)
    lam[0] = min(max(0.0, math.ceil(lo[0])), math.floor(hi[0]))
    return None if problem.violations(lam, rules=False) else lam


def check_feasible(problem) -> np.ndarray | None:
    """Raise :class:`~riskexplore.errors.InfeasibleError` when no integer model satisfies
    the problem.

    Checks the coefficient bounds (``problem.lam_bounds()``), the model size bounds
    (``problem.min_size``, ``problem.max_size``), ``alpha_j = 1[lambda_j != 0]`` and all
    rows of ``problem.row_matrix``; each operating-point rule (``problem.rules``) is
    checked alone against the coefficient bounds (a rule no model of the bounds can meet
    raises; rules are otherwise left to the search, so the model returned may break
    them). The error message names an irreducible set of
    conflicting constraints (also in ``error.culprits``) and says whether the
    coefficient bounds take part (``error.bounds_involved``).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    ndarray of shape (d+1,) or None
        A feasible integer model ``[lambda_0, lambda_1..d]`` (as floats), useful as a
        starting point; ``None`` when HiGHS cannot decide within its time limit.

    Raises
    ------
    InfeasibleError
        When no model satisfies the problem.
    """
    for rule in problem.rules:
        rule.check_box(*problem.lam_bounds())
    start = _intercept_only(problem)
    if start is not None:  # most problems: no MIP needed
        return start
    model = FeasibilityModel(problem)

    def without_bounds(keep: list[int]) -> bool:
        # relax the coefficient bounds (not the intercept's) and re-solve the conflict
        width = max(1000.0, 10.0 * float(np.max(np.abs(np.concatenate([model.lo, model.hi])))))
        wide_lo = np.full(model.d + 1, -width)
        wide_hi = np.full(model.d + 1, width)
        wide_lo[0], wide_hi[0] = -_BIG, _BIG
        return model.solve(keep, wide_lo, wide_hi)[0] == "feasible"

    return culprits.check_feasible(
        range(len(model.groups)),
        model.solve,
        label=lambda g: model.groups[g].name,
        model="risk score",
        empty="no risk score satisfies the coefficient bounds",
        bounds=("the coefficient bounds", without_bounds),
    )


def conflicting_constraints(problem) -> tuple[list[str], bool] | None:
    """The culprits :func:`check_feasible` would name, without raising.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    tuple or None
        ``(names, bounds_involved)`` of an irreducible conflicting set, or ``None`` when
        the problem is feasible (or undecided in time).
    """
    try:
        check_feasible(problem)
    except InfeasibleError as err:
        return err.culprits, err.bounds_involved
    return None
