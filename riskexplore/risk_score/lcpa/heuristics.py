"""Heuristics that turn LP points into good integer models (Ustun & Rudin 2019, Section 4).

* :func:`sequential_rounding` rounds one coordinate at a time, always the (coordinate,
  direction) pair that lowers the objective most (SequentialRounding: Ustun & Rudin
  [1]_, Section 4.2, Algorithm 4).
* :func:`polish` is discrete coordinate descent (DCD: [1]_, Section 4.1, Algorithm 3):
  move one coordinate to its best feasible integer value until no single move improves
  the objective, so the result is 1-opt.

Both respect the coefficient box, the model-size bounds, every constraint row and the
operating-point rules (:mod:`riskexplore.risk_score.operating_point`).

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import numpy as np

from riskexplore.risk_score.problem import RiskScoreProblem

_TOL = 1e-9
_ENUMERATE_UP_TO = 32  # coordinates with more values use convex (ternary) search


class MoveChecker:
    """Feasibility of single-coordinate moves, kept incremental for speed.

    Its state of a model (:meth:`activity`) is the rows' left-hand sides and each
    operating-point rule's totals of the rows (``problem.rules``), updated by :meth:`moved`.
    """

    def __init__(self, problem: RiskScoreProblem) -> None:
        self.problem = problem
        self.d = problem.n_features
        self.lo, self.hi = problem.lam_bounds()
        rm = problem.row_matrix
        self.A, self.rlo, self.rhi = rm.A, rm.lower, rm.upper
        self.has_rows = rm.n_rows > 0
        self.rules = tuple(problem.rules)

    def activity(self, lam: np.ndarray) -> tuple:
        """The state of the integer model ``lam``: the rows' left-hand sides and the rules'
        totals.

        Parameters
        ----------
        lam : ndarray
            The model ``[intercept, points...]``.

        Returns
        -------
        tuple
            ``(row values, rule totals)``.
        """
        rows = self.A @ self.problem.point(lam) if self.has_rows else np.zeros(0)
        return rows, tuple(rule.totals(lam) for rule in self.rules)

    def moved(self, activity: tuple, lam: np.ndarray, j: int, value: float) -> tuple:
        """The state after coordinate ``j`` of ``lam`` moves to ``value`` (``lam`` unchanged).

        Parameters
        ----------
        activity : tuple
            The state of ``lam`` (:meth:`activity`).
        lam : ndarray
            The model before the move.
        j : int
            The coordinate.
        value : float
            Its new value.

        Returns
        -------
        tuple
            The state of the moved model.
        """
        rows, totals = activity
        delta = value - lam[j]
        if self.has_rows:
            rows = rows + self.A[:, j] * delta
            if j > 0:
                rows += self.A[:, self.d + j] * (float(value != 0) - float(lam[j] != 0))
        totals = tuple(r.moved(t, j, delta) for r, t in zip(self.rules, totals, strict=True))
        return rows, totals

    def feasible_values(self, lam, j, values, activity, size) -> np.ndarray:
        """Mask of ``values`` that coordinate ``j`` may take, all else fixed."""
        ok = np.ones(len(values), dtype=bool)
        if j > 0:
            was = lam[j] != 0
            new_size = size - was + (values != 0)
            ok &= (new_size >= self.problem.min_size) & (new_size <= self.problem.max_size)
        rows, totals = activity
        if self.has_rows:
            change = self.A[:, [j]] * (values - lam[j])[None, :]
            if j > 0:
                change += self.A[:, [self.d + j]] * ((values != 0) - float(lam[j] != 0))[None, :]
            act = rows[:, None] + change
            ok &= np.all(
                (act >= self.rlo[:, None] - _TOL) & (act <= self.rhi[:, None] + _TOL), axis=0
            )
        for rule, state in zip(self.rules, totals, strict=True):
            if ok.any():
                ok[ok] &= rule.allowed_moves(state, j, values[ok] - lam[j])
        return ok


def polish(
    problem: RiskScoreProblem,
    lam: np.ndarray,
    *,
    only_nonzero: bool = False,
    max_moves: int = 1000,
    checker: MoveChecker | None = None,
    should_stop=None,
):
    """Discrete coordinate descent from a feasible integer model.

    Parameters
    ----------
    only_nonzero : bool
        Move only the intercept and features already in the model (the polishing of the
        pooled baselines of Ustun & Rudin [1]_, Section 5.1, which must not grow the
        model).
    should_stop : callable, optional
        Polled between moves; polishing ends early (with a feasible model) when it is true.

    Returns
    -------
    lam : int array, objective : float

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019.
    """
    checker = checker or MoveChecker(problem)
    loss, c0 = problem.loss, problem.c0
    lam = np.rint(np.asarray(lam, dtype=float))
    s = loss.scores(lam)
    activity = checker.activity(lam)
    objective = loss.from_scores(s, True) + float(c0 @ (lam[1:] != 0))
    coords = [0] + [j for j in range(1, problem.n_features + 1) if not only_nonzero or lam[j] != 0]
    for _ in range(max_moves):
        if should_stop is not None and should_stop():
            break
        best = (objective - 1e-12, None, None)
        for j in coords:
            value, obj = _best_value(problem, checker, lam, s, activity, j)
            if value is not None and obj < best[0]:
                best = (obj, j, value)
        obj, j, value = best
        if j is None:
            break
        s = s + loss.column(j) * (value - lam[j])
        activity = checker.moved(activity, lam, j, value)
        lam[j] = value
        objective = loss.from_scores(s, True) + float(c0 @ (lam[1:] != 0))
    return lam.astype(np.int64), objective


def _best_value(problem, checker, lam, s, activity, j):
    """Best feasible value of coordinate ``j`` (other than its current one)."""
    lo, hi = int(checker.lo[j]), int(checker.hi[j])
    size = int(np.count_nonzero(lam[1:]))
    values = np.arange(lo, hi + 1, dtype=float)
    values = values[values != lam[j]]
    if values.size == 0:
        return None, np.inf
    feasible = checker.feasible_values(lam, j, values, activity, size)
    values = values[feasible]
    if values.size == 0:
        return None, np.inf
    z = problem.loss.column(j)
    penalty_rest = float(problem.c0 @ (lam[1:] != 0)) - (
        problem.c0[j - 1] * (lam[j] != 0) if j > 0 else 0.0
    )
    c0j = problem.c0[j - 1] if j > 0 else 0.0

    def objectives(vals: np.ndarray) -> np.ndarray:
        S = s[:, None] + z[:, None] * (vals - lam[j])[None, :]
        return problem.loss.batch_from_scores(S) + penalty_rest + c0j * (vals != 0)

    if values.size <= _ENUMERATE_UP_TO:
        objs = objectives(values)
        k = int(np.argmin(objs))
        return values[k], float(objs[k])
    # the loss is convex along a coordinate; search each run of feasible values with a
    # constant inclusion indicator separately
    best_v, best_o = None, np.inf
    for run in _runs(values):
        v, o = ternary_search(objectives, run)
        if o < best_o:
            best_v, best_o = v, o
    return best_v, best_o


def _runs(values: np.ndarray) -> list[np.ndarray]:
    """Split sorted integers into runs that are contiguous and do not cross zero."""
    breaks = np.flatnonzero((np.diff(values) != 1) | (values[1:] == 0) | (values[:-1] == 0))
    return np.split(values, breaks + 1)


def ternary_search(objectives, run: np.ndarray):
    """The value of the sorted ``run`` with the least objective, for an objective convex
    along it.

    Parameters
    ----------
    objectives : callable
        ``objectives(values)``: one objective per value of an array.
    run : ndarray
        The values, sorted.

    Returns
    -------
    tuple
        ``(value, objective)``.
    """
    lo, hi = 0, len(run) - 1
    while hi - lo > 2:
        m1 = lo + (hi - lo) // 3
        m2 = hi - (hi - lo) // 3
        o1, o2 = objectives(run[[m1, m2]])
        if o1 <= o2:
            hi = m2
        else:
            lo = m1
    objs = objectives(run[lo : hi + 1])
    k = int(np.argmin(objs))
    return run[lo + k], float(objs[k])


def sequential_rounding(problem: RiskScoreProblem, lam_real: np.ndarray, should_stop=None):
    """Round a real-valued point coordinate by coordinate (Algorithm 4).

    Returns the rounded integer model, or ``None`` when it breaks a bound or constraint
    (or ``should_stop()`` became true on the way).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.
    lam_real : ndarray
        A real-valued point ``[intercept, points...]`` within the bounds.
    should_stop : callable, optional
        Polled between coordinates.
    """
    loss, c0 = problem.loss, problem.c0
    lam = np.asarray(lam_real, dtype=float).copy()
    near = np.abs(lam - np.rint(lam)) <= 1e-9
    lam[near] = np.rint(lam[near])
    todo = np.flatnonzero(~near)
    s = loss.scores(lam)
    c0_full = np.concatenate([[0.0], c0])
    while todo.size:
        if should_stop is not None and should_stop():
            return None
        up, down = np.ceil(lam[todo]) - lam[todo], np.floor(lam[todo]) - lam[todo]
        deltas = np.concatenate([up, down])
        cols = np.concatenate([todo, todo])
        S = s[:, None] + loss.column(cols) * deltas[None, :]
        new_vals = lam[cols] + deltas
        penalty = float(c0 @ (lam[1:] != 0)) + c0_full[cols] * (
            (new_vals != 0).astype(float) - (lam[cols] != 0)
        )
        objs = loss.batch_from_scores(S) + penalty
        k = int(np.argmin(objs))
        j = cols[k]
        s += loss.column(j) * deltas[k]
        lam[j] = np.rint(new_vals[k])
        todo = todo[todo != j]
    lam = np.rint(lam).astype(np.int64)
    if problem.violations(lam):
        return None
    return lam
