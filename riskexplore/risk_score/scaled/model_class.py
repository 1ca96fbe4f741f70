"""Risk scores with a learned score-to-risk multiplier: risk = sigma((lambda_0 + x.lambda) / m).

The points ``lambda`` and the intercept ``lambda_0`` are the same small integers as in the
risk scores of Ustun & Rudin [1]_ (Section 2, where ``m = 1``); the multiplier ``m`` is a
real number in a range ``[multiplier_min, multiplier_max]``. The card a person reads is
unchanged (points and a score-to-risk table); only the table's risks come from
``sigma(score / m)``.

With ``t = 1 / m`` and ``w = t * lambda`` the mean logistic loss ``l(w)`` is the usual convex
loss, so the solvers work in ``(w, t)``. Constraints keep their meaning:

* rows on points and indicators (``lower <= a.lambda + b.alpha <= upper``) are about the
  points themselves, whatever ``m``;
* rows that bound a predicted risk (``LinearRow.logit_bounds``, made by
  :class:`~riskexplore.risk_score.constraints.PredictedRisk`) read ``a.lambda / m`` in the
  logit bounds, i.e. ``a.w`` in those bounds (linear in ``w``, free of ``t``).

:class:`ScaledClass` holds this definition: feasibility, objective and the best multiplier
of given points, the data-derived bounds of the solver, and :class:`FixedScaleView`, the
problem at a fixed ``m`` (optionally on a few features) that the ``m = 1`` heuristics
(:func:`~riskexplore.risk_score.lcpa.heuristics.polish`, ``sequential_rounding``) run on.

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from riskexplore.core.distinct_rows import distinct_rows
from riskexplore.errors import InputError
from riskexplore.risk_score.lcpa.bounds import ObjectiveBounds, feature_score_range
from riskexplore.risk_score.loss import LogisticLoss, _expit
from riskexplore.risk_score.problem import MULTIPLIER_MAX, MULTIPLIER_MIN, RiskScoreProblem
from riskexplore.risk_score.rows import RowMatrix

__all__ = ["DEFAULT_MULTIPLIER_RANGE", "FixedScaleView", "ScaledClass", "scaled_risk"]

#: Default range of the multiplier ``m``.
DEFAULT_MULTIPLIER_RANGE = (MULTIPLIER_MIN, MULTIPLIER_MAX)
_TOL = 1e-7


def scaled_risk(X, coefficients, multiplier: float) -> np.ndarray:
    """Predicted risks ``sigma((lambda_0 + X @ lambda) / m)``.

    Parameters
    ----------
    X : array (n, d)
        Feature values.
    coefficients : array (d+1,)
        ``[intercept, points...]``.
    multiplier : float
        The score-to-risk multiplier ``m`` (1 gives the risks of Ustun & Rudin (2019),
        Section 2).

    Returns
    -------
    numpy.ndarray (n,)
    """
    lam = np.asarray(coefficients, dtype=float)
    scores = lam[0] + np.asarray(X, dtype=float) @ lam[1:]
    return _expit(scores / float(multiplier))


def _check_range(multiplier_range) -> tuple[float, float]:
    try:
        lo, hi = multiplier_range
    except (TypeError, ValueError):
        raise InputError(
            f"multiplier_range must be a pair (min, max), got {multiplier_range!r}"
        ) from None
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise InputError(f"multiplier bounds must be numbers, got {multiplier_range!r}")
    lo, hi = float(lo), float(hi)
    if not (0 < lo <= hi < math.inf):
        raise InputError(f"multiplier range [{lo:g}, {hi:g}] must satisfy 0 < min <= max < inf")
    return lo, hi


class ScaledClass:
    """A risk-score problem in the class with a learned multiplier ``m``.

    Parameters
    ----------
    problem : RiskScoreProblem
        Data, coefficient bounds, model size bounds, penalties and constraints.
    multiplier_range : (float, float)
        ``[multiplier_min, multiplier_max]``, with ``0 < min <= max < inf``.

    Attributes
    ----------
    t_lo, t_hi : float
        Range of ``t = 1 / m``.
    risk_rows : int array
        Rows of ``problem.row_matrix`` that bound a predicted risk.
    logit_lower, logit_upper : arrays
        Their bounds on ``a.lambda / m``.
    """

    def __init__(
        self, problem: RiskScoreProblem, multiplier_range=DEFAULT_MULTIPLIER_RANGE
    ) -> None:
        self.problem = problem
        self.multiplier_min, self.multiplier_max = _check_range(multiplier_range)
        self.t_lo, self.t_hi = 1.0 / self.multiplier_max, 1.0 / self.multiplier_min
        marks = [row.logit_bounds for row in problem.rows]
        self.risk_rows = np.array([i for i, b in enumerate(marks) if b is not None], dtype=int)
        self.logit_lower = np.array([marks[i][0] for i in self.risk_rows], dtype=float)
        self.logit_upper = np.array([marks[i][1] for i in self.risk_rows], dtype=float)
        self._structural: _Rowless | None = None
        self._merged: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._merged_size = 0
        rm = problem.row_matrix
        d = problem.n_features
        if self.risk_rows.size and np.any(rm.A[self.risk_rows, d + 1 :] != 0):
            raise InputError("a predicted-risk row may not involve feature indicators")

    @property
    def d(self) -> int:
        """The number of features."""
        return self.problem.n_features

    # --- feasibility and objective -------------------------------------------------------
    def t_interval(self, lam: np.ndarray) -> tuple[float, float] | None:
        """The range of ``t = 1/m`` in which ``lam`` meets every predicted-risk row.

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.

        Returns
        -------
        (float, float) or None
            The interval within ``[t_lo, t_hi]``; None when it is empty.
        """
        a, b = self.t_lo, self.t_hi
        if self.risk_rows.size == 0:
            return a, b
        score = self.problem.row_matrix.A[self.risk_rows, : self.d + 1] @ np.asarray(lam, float)
        for s, lo, hi in zip(score, self.logit_lower, self.logit_upper, strict=True):
            if s > 0:
                a, b = max(a, lo / s), min(b, hi / s)
            elif s < 0:
                a, b = max(a, hi / s), min(b, lo / s)
            elif not lo <= 0.0 <= hi:
                return None
        return (a, b) if a <= b * (1 + 1e-12) else None

    def violations(self, lam: np.ndarray, multiplier: float, tol: float = _TOL) -> list[str]:
        """Names of every bound and constraint that the model ``(lam, m)`` breaks.

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.
        multiplier : float
            The multiplier ``m``.
        tol : float
            Tolerance on the rows.

        Returns
        -------
        list of str
            Empty when the model belongs to the class.
        """
        p = self.problem
        lam = np.asarray(lam, dtype=float)
        out = self.structural_view().violations(lam, tol)
        if self.risk_rows.size:
            logit = p.row_matrix.A[self.risk_rows, : self.d + 1] @ lam / multiplier
            bad = (logit < self.logit_lower - tol) | (logit > self.logit_upper + tol)
            out += [p.row_matrix.names[i] for i in self.risk_rows[bad]]
        m_lo, m_hi = self.multiplier_min, self.multiplier_max
        if not m_lo * (1 - 1e-12) <= multiplier <= m_hi * (1 + 1e-12):
            out.append(f"multiplier {multiplier:g} outside [{m_lo:g}, {m_hi:g}]")
        return out

    def loss(self, lam: np.ndarray, multiplier: float) -> float:
        """Mean logistic loss of the model ``(lam, m)``.

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.
        multiplier : float
            The multiplier ``m``.

        Returns
        -------
        float
            The loss of the risks ``sigma(score / m)``.
        """
        return self.problem.loss.value(np.asarray(lam, dtype=float) / multiplier)

    def penalty(self, lam: np.ndarray) -> float:
        """The size penalty ``sum_j c0_j 1[lam_j != 0]``.

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.

        Returns
        -------
        float
            The penalty.
        """
        return float(self.problem.c0 @ (np.asarray(lam)[1:] != 0))

    def objective(self, lam: np.ndarray, multiplier: float) -> float:
        """Mean logistic loss plus the size penalty.

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.
        multiplier : float
            The multiplier ``m``.

        Returns
        -------
        float
            The objective.
        """
        return self.loss(lam, multiplier) + self.penalty(lam)

    def best_t(self, lam: np.ndarray) -> tuple[float, float]:
        """The best ``t = 1/m`` for the points ``lam`` and its objective.

        The loss is convex in ``t``; a safeguarded Newton method finds its minimum over
        the feasible interval (:meth:`t_interval`).

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.

        Returns
        -------
        t : float
            The best ``1 / m`` (``nan`` when no multiplier in the range meets the
            predicted-risk rows).
        objective : float
            Its objective (``inf`` then).
        """
        lam = np.asarray(lam, dtype=float)
        interval = self.t_interval(lam)
        if interval is None:
            return math.nan, math.inf
        scores, weights = _distinct_scores(self.problem.loss, lam)
        t = _minimize_t(scores, weights, *interval)
        loss = float(weights @ np.logaddexp(0.0, -t * scores))
        return t, loss + self.penalty(lam)

    # --- views ---------------------------------------------------------------------------
    def structural_view(self) -> _Rowless | RiskScoreProblem:
        """The problem without its predicted-risk rows (a relaxation for every ``m``).

        Returns
        -------
        RiskScoreProblem or view
            Offers ``violations``, bounds, sizes and the other rows.
        """
        if not self.risk_rows.size:
            return self.problem
        if self._structural is None:
            self._structural = _Rowless(self)
        return self._structural

    def merged_rows(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The loss's rows on ``[intercept, features]``, merged where equal, with weights.

        Cached per support (the heuristics view one support at many multipliers).

        Parameters
        ----------
        features : int array
            Sorted feature indices (0-based).

        Returns
        -------
        (ndarray, ndarray)
            Distinct rows ``Z[:, [0, features + 1]]`` and their summed weights.
        """
        key = tuple(int(j) for j in features)
        found = self._merged.get(key)
        if found is None:
            loss = self.problem.loss
            Z = loss.Z[:, np.concatenate([[0], np.asarray(features, dtype=int) + 1])]
            Z, inverse = distinct_rows(Z)
            w = np.bincount(inverse, weights=loss.weights, minlength=len(Z))
            found = (Z, w)
            self._merged[key] = found
            self._merged_size += Z.size
            while self._merged_size > _MERGED_CACHE and len(self._merged) > 1:
                oldest = self._merged.pop(next(iter(self._merged)))
                self._merged_size -= oldest[0].size
        return found

    def fixed_scale(self, t: float, support=None) -> FixedScaleView:
        """The problem at ``t = 1/m`` fixed, optionally on the features ``support`` only.

        Parameters
        ----------
        t : float
            ``1 / m``.
        support : sequence of int, optional
            Features (0-based) the view keeps.

        Returns
        -------
        FixedScaleView
            The view.
        """
        return FixedScaleView(self, t, support)

    # --- bounds of the search ------------------------------------------------------------
    def intercept_bounds(self) -> tuple[float, float]:
        """Valid bounds on an optimal intercept, for every multiplier in the range.

        For fixed points and ``m`` the loss is convex in the intercept ``b`` and
        decreases from ``b`` to ``b - 1`` when every score ``(b - 1 + s_i) / m`` exceeds
        ``logit(pi)``; so an optimal ``b`` obeys ``b <= m logit(pi) + 1 - min_i s_i``,
        at most ``max_m m logit(pi) + 1 - min_i s_i`` (symmetrically from below).

        Returns
        -------
        (float, float)
            Bounds on the intercept, within the coefficient set's.
        """
        p = self.problem
        lo, hi = p.lam_bounds()
        if p.intercept_in_rows():
            return float(lo[0]), float(hi[0])
        w = p.sample_weight
        pi = float(w[p.y > 0].sum() / w.sum())
        if not 0.0 < pi < 1.0:
            return float(lo[0]), float(hi[0])
        s_min, s_max = feature_score_range(p, distinct_rows(p.X)[0])
        logit = math.log(pi / (1.0 - pi))
        ends = (self.multiplier_min * logit, self.multiplier_max * logit)
        upper = math.floor(max(ends) + 1.0 - s_min.min() + 1e-9)
        lower = math.ceil(min(ends) - 1.0 - s_max.max() - 1e-9)
        new_hi = min(hi[0], max(upper, lo[0]))
        new_lo = max(lo[0], min(lower, hi[0]))
        return float(new_lo), float(new_hi)

    def objective_bounds(self, intercept: tuple[float, float]) -> ObjectiveBounds:
        """Proposition 4 of Ustun & Rudin (2019) for this class: the margins scale with ``t``.

        Proposition 4 of [1]_ (Section 4.3) bounds the loss over a bounded coefficient set
        by giving each example its best and its worst margin; here a margin of the points
        is multiplied by ``t = 1 / m``, so each bound takes the more extreme of the margins
        at the two ends of the range of ``t``.

        Parameters
        ----------
        intercept : (float, float)
            Bounds on the intercept.

        Returns
        -------
        ObjectiveBounds
            Bounds on the loss and the objective of every model of the class.

        References
        ----------
        .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
           Learning Research 20(150):1-75, 2019.
        """
        p = self.problem
        Z = p.loss.Z
        y = Z[:, 0]
        s_min, s_max = feature_score_range(p, Z[:, 1:] * y[:, None])
        lo0, hi0 = intercept
        worst = np.where(y > 0, lo0 + s_min, -(hi0 + s_max))
        best = np.where(y > 0, hi0 + s_max, -(lo0 + s_min))
        best = np.maximum(best * self.t_lo, best * self.t_hi)
        worst = np.minimum(worst * self.t_lo, worst * self.t_hi)
        w = p.loss.weights
        L_min = float(w @ np.logaddexp(0.0, -best))
        L_max = float(w @ np.logaddexp(0.0, -worst))
        c0 = np.sort(p.c0)
        b = ObjectiveBounds(c0, 0.0, math.inf, L_min, L_max, p.min_size, p.max_size)
        b.chain()
        return b

    def as_dict(self, lam: np.ndarray, multiplier: float) -> dict:
        """``{"intercept", "points", "multiplier"}`` of a model.

        Parameters
        ----------
        lam : array (d+1,)
            The points ``[intercept, points...]``.
        multiplier : float
            The multiplier ``m``.

        Returns
        -------
        dict
            The model (non-zero points by feature name).
        """
        out = self.problem.as_dict(lam)
        out["multiplier"] = float(multiplier)
        return out


#: Entries of merged rows :meth:`ScaledClass.merged_rows` keeps (about 16 MB), oldest
#: dropped first.
_MERGED_CACHE = 2_000_000


def _distinct_scores(loss: LogisticLoss, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Margins ``z_i . lam`` merged when equal (integer data give few), with weights."""
    s = loss.scores(lam)
    values, inverse = np.unique(s, return_inverse=True)
    return values, np.bincount(inverse.ravel(), weights=loss.weights, minlength=len(values))


def _slope(scores: np.ndarray, weights: np.ndarray, t: float) -> tuple[float, float]:
    """First and second derivative in ``t`` of ``sum_i w_i log(1 + exp(-t s_i))``."""
    q = _expit(-t * scores)  # sigma(-t s)
    g = -float(weights @ (scores * q))
    h = float(weights @ (scores * scores * q * (1.0 - q)))
    return g, h


def _minimize_t(scores: np.ndarray, weights: np.ndarray, a: float, b: float) -> float:
    """Minimise the convex ``sum_i w_i log(1 + exp(-t s_i))`` over ``t in [a, b]``."""
    if b <= a:
        return a
    ga, _ = _slope(scores, weights, a)
    if ga >= 0:
        return a
    gb, _ = _slope(scores, weights, b)
    if gb <= 0:
        return b
    lo, hi = a, b
    t = 0.5 * (a + b)
    for _ in range(200):
        g, h = _slope(scores, weights, t)
        if abs(g) <= 1e-15:
            return t
        if g < 0:
            lo = t
        else:
            hi = t
        if hi - lo <= 1e-14 * hi:
            return 0.5 * (lo + hi)
        step = t - g / h if h > 0 else math.nan
        t = step if lo <= step <= hi else 0.5 * (lo + hi)
    return t


class _Rowless:
    """The problem's bounds, sizes and rows other than the predicted-risk ones."""

    def __init__(self, sclass: ScaledClass) -> None:
        p = sclass.problem
        keep = np.setdiff1d(np.arange(p.row_matrix.n_rows), sclass.risk_rows)
        rm = p.row_matrix
        self.row_matrix = RowMatrix(
            rm.A[keep], rm.lower[keep], rm.upper[keep], tuple(rm.names[i] for i in keep)
        )
        self.feature_names = p.feature_names
        self.n_features = p.n_features
        self.min_size, self.max_size = p.min_size, p.max_size
        self.lam_bounds = p.lam_bounds
        self.point = p.point

    rules: tuple = ()  # operating-point rules are fixed-scale only
    violations = RiskScoreProblem.violations


class FixedScaleView:
    """The problem at a fixed ``t = 1/m``, on all features or on a support only.

    It offers what :func:`~riskexplore.risk_score.lcpa.heuristics.polish`,
    :func:`~riskexplore.risk_score.lcpa.heuristics.sequential_rounding` and
    :class:`~riskexplore.risk_score.lcpa.heuristics.MoveChecker` use: ``loss`` (rows ``t z_i``,
    merged when the support makes them equal), ``c0``, bounds, sizes and rows, where the
    predicted-risk rows become ``a.lambda`` in ``logit bounds / t``. Models of the view
    are vectors ``[intercept, points on the support]``; :meth:`embed` and
    :meth:`restrict` convert to and from full models.

    Parameters
    ----------
    sclass : ScaledClass
    t : float
        ``1 / m``.
    support : sequence of int, optional
        Feature indices (0-based) the view keeps; the others are held at zero.
    """

    def __init__(self, sclass: ScaledClass, t: float, support=None) -> None:
        p = sclass.problem
        d = p.n_features
        feats = np.arange(d) if support is None else np.unique(np.asarray(support, dtype=int))
        self.features = feats
        self.cols = np.concatenate([[0], feats + 1]).astype(int)
        self.t = float(t)
        if support is None:
            Z, w = p.loss.Z, p.loss.weights
        else:
            Z, w = sclass.merged_rows(feats)
        self.loss = LogisticLoss(Z * self.t, w)
        self.c0 = p.c0[feats]
        self.feature_names = [p.feature_names[j] for j in feats]
        self.min_size, self.max_size = p.min_size, p.max_size
        lo, hi = p.lam_bounds()
        self._bounds = (lo[self.cols], hi[self.cols])
        rm = p.row_matrix
        lower, upper = rm.lower.copy(), rm.upper.copy()
        lower[sclass.risk_rows] = sclass.logit_lower / self.t
        upper[sclass.risk_rows] = sclass.logit_upper / self.t
        A = rm.A[:, np.concatenate([self.cols, d + 1 + feats])]
        self.row_matrix = RowMatrix(A, lower, upper, rm.names)
        self.d_full = d

    @property
    def n_features(self) -> int:
        """The number of features the view keeps."""
        return len(self.features)

    def lam_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of ``[intercept, points on the support]``.

        Returns
        -------
        (ndarray, ndarray)
            Lower and upper bounds.
        """
        return self._bounds

    def point(self, lam: np.ndarray) -> np.ndarray:
        """The solver vector ``[lam, alpha]`` of a model of the view.

        Parameters
        ----------
        lam : array
            ``[intercept, points on the support]``.

        Returns
        -------
        numpy.ndarray
            ``lam`` followed by its indicators.
        """
        return np.concatenate([lam, (np.asarray(lam)[1:] != 0).astype(float)])

    rules: tuple = ()  # operating-point rules are fixed-scale only
    violations = RiskScoreProblem.violations

    def embed(self, lam: np.ndarray) -> np.ndarray:
        """The full model ``[intercept, points...]`` of a model of the view.

        Parameters
        ----------
        lam : array
            ``[intercept, points on the support]``.

        Returns
        -------
        int array (d+1,)
            Zero off the support.
        """
        full = np.zeros(self.d_full + 1, dtype=np.int64)
        full[self.cols] = np.rint(lam).astype(np.int64)
        return full

    def restrict(self, lam: np.ndarray) -> np.ndarray:
        """The view's part of a full model (the points off the support are dropped).

        Parameters
        ----------
        lam : array (d+1,)
            A full model.

        Returns
        -------
        numpy.ndarray
            ``[intercept, points on the support]``.
        """
        return np.asarray(lam)[self.cols]
