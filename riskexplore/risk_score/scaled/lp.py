"""The surrogate LP of LCPA for risk scores with a learned multiplier ``m`` (``t = 1/m``).

Columns: ``w_0..w_d`` (``w = t * lambda``), ``alpha_1..alpha_d``, ``t``, the loss estimate
``L``, and ``v_j = t * alpha_j`` for the features of rows that mix points and indicators.
Loss cuts ``L >= l(w_k) + <grad_k, w - w_k>`` are the usual ones: the loss is convex in
``w``, so every cut is valid for every ``t``.

Rows:

* the box of a node, ``lo_j t <= w_j <= hi_j t``: a node's integer bounds on ``lambda_j`` are
  the ``t``-coefficients of these two rows, so moving between nodes changes coefficients
  (and the ``w`` and ``alpha`` column bounds), never the row set;
* ``alpha_j = 0 => w_j = 0``, as the convex hull of the two cases over ``t in [t_lo, t_hi]``:
  ``w_j <= hi_j t_hi alpha_j`` and ``w_j <= hi_j (t - t_lo (1 - alpha_j))`` (and the same with
  ``lo_j``), where ``lo_j, hi_j`` are the coefficient bounds;
* the model-size row and the problem's rows: rows on indicators as they are, rows on
  points ``a.lambda + b.alpha in [lower, upper]`` multiplied by ``t`` (``a.w + b.v`` between
  ``lower t`` and ``upper t``, with ``v`` tied to ``t alpha`` by McCormick rows, exact at
  integer ``alpha``), and predicted-risk rows as ``a.w`` in their logit bounds.

A point with integer ``lambda = w / t`` and ``alpha`` is a model ``(lambda, m = 1/t)``, and the
LP is exact there once a cut at ``lambda t*`` (its best ``t``) is in: along the ray
``t lambda`` that cut is flat at the ray's minimum.
"""

from __future__ import annotations

import math

import highspy
import numpy as np

from riskexplore.risk_score.lcpa.lp import SurrogateLP, add_columns, lp_highs, root_bounds
from riskexplore.risk_score.scaled.model_class import ScaledClass

_INF = highspy.kHighsInf


def _finite(x: float) -> float:
    return x if math.isfinite(x) else math.copysign(_INF, x)


class ScaledLP(SurrogateLP):
    """The LP of :class:`~riskexplore.risk_score.scaled.search` on HiGHS.

    ``solve()`` returns ``x = [w, alpha, t]`` (``n_struct = 2d + 2`` entries); node bounds
    are given over ``[lambda, alpha]`` as in :class:`SurrogateLP`.

    Parameters
    ----------
    sclass : ScaledClass
        The class (problem and multiplier range).
    max_cuts : int
        Cut rows kept; idle cuts are dropped beyond this.
    """

    def __init__(self, sclass: ScaledClass, max_cuts: int = 120) -> None:
        problem = sclass.problem
        self.sclass = sclass
        self.problem = problem
        self.d = d = problem.n_features
        self.n_struct = 2 * d + 2
        self.t_col = 2 * d + 1
        self.L_col = 2 * d + 2
        self.max_cuts = max_cuts
        self.highs = h = lp_highs()
        self.root_lower, self.root_upper = root_bounds(problem)
        self._mixed = self._mixed_features()
        self.v_col = {j: self.L_col + 1 + k for k, j in enumerate(self._mixed)}
        t_lo, t_hi = sclass.t_lo, sclass.t_hi
        n_v = len(self.v_col)
        costs = np.concatenate([np.zeros(d + 1), problem.c0, [0.0, 1.0], np.zeros(n_v)])
        w_lo, w_hi = self._w_range(self.root_lower[: d + 1], self.root_upper[: d + 1])
        lower = np.concatenate([w_lo, self.root_lower[d + 1 :], [t_lo, 0.0], np.zeros(n_v)])
        upper = np.concatenate([w_hi, self.root_upper[d + 1 :], [t_hi, _INF], np.full(n_v, t_hi)])
        add_columns(h, costs, lower, upper)
        self.row_ids: list[int] = []
        self._next_id = 0
        self._add_fixed_rows(*problem.lam_bounds())
        self.n_fixed = len(self.row_ids)
        self.cut_idle = np.zeros(0, dtype=np.int64)
        self.all_indices = np.arange(2 * d + 1, dtype=np.int32)

    # --- building ----------------------------------------------------------------------
    def _mixed_features(self) -> list[int]:
        """Features whose indicator appears in a row that also has points."""
        A, d = self.problem.row_matrix.A, self.d
        mixed = np.any(A[:, : d + 1] != 0, axis=1) & np.any(A[:, d + 1 :] != 0, axis=1)
        return sorted({int(j) + 1 for j in np.flatnonzero(np.any(A[mixed, d + 1 :] != 0, axis=0))})

    def _w_range(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Range of ``t * lambda_j`` over ``lambda_j in [lo, hi]`` and ``t`` in its range."""
        t_lo, t_hi = self.sclass.t_lo, self.sclass.t_hi
        return np.minimum(lo * t_lo, lo * t_hi), np.maximum(hi * t_lo, hi * t_hi)

    def _add_fixed_rows(self, lam_lo: np.ndarray, lam_hi: np.ndarray) -> None:
        rows, lo, hi = [], [], []
        self._add_box_rows(rows, lo, hi, lam_lo, lam_hi)
        self._add_indicator_rows(rows, lo, hi, lam_lo, lam_hi)
        self.size_row = len(rows)
        rows.append({self.d + j: 1.0 for j in range(1, self.d + 1)})
        lo.append(float(self.problem.min_size))
        hi.append(float(self.problem.max_size))
        self._add_user_rows(rows, lo, hi)
        self._add_mccormick_rows(rows, lo, hi)
        self._add_rows(rows, lo, hi)

    def _add_box_rows(self, rows, lo, hi, lam_lo, lam_hi) -> None:
        t = self.t_col
        self.box_rows = np.zeros((2, self.d + 1), dtype=np.int32)
        self.box_coef = np.vstack([lam_lo, lam_hi]).astype(float)
        for j in range(self.d + 1):
            self.box_rows[0, j] = len(rows)  # w_j - lo_j t >= 0
            rows.append({j: 1.0, t: -lam_lo[j]} if lam_lo[j] else {j: 1.0})
            lo.append(0.0)
            hi.append(_INF)
            self.box_rows[1, j] = len(rows)  # w_j - hi_j t <= 0
            rows.append({j: 1.0, t: -lam_hi[j]} if lam_hi[j] else {j: 1.0})
            lo.append(-_INF)
            hi.append(0.0)

    def _add_indicator_rows(self, rows, lo, hi, lam_lo, lam_hi) -> None:
        d, t = self.d, self.t_col
        t_lo, t_hi = self.sclass.t_lo, self.sclass.t_hi
        for j in range(1, d + 1):
            a = d + j
            for bound, sign in ((lam_hi[j], 1.0), (lam_lo[j], -1.0)):
                if sign * bound <= 0:
                    continue
                # sign * w_j <= sign * bound * t_hi * alpha_j
                rows.append({j: sign, a: -sign * bound * t_hi})
                lo.append(-_INF)
                hi.append(0.0)
                # sign * w_j <= sign * bound * (t - t_lo (1 - alpha_j))
                rows.append({j: sign, t: -sign * bound, a: -sign * bound * t_lo})
                lo.append(-_INF)
                hi.append(-sign * bound * t_lo)

    def _add_user_rows(self, rows, lo, hi) -> None:
        sc, d = self.sclass, self.d
        rm = self.problem.row_matrix
        risk = {int(i): k for k, i in enumerate(sc.risk_rows)}
        for i in range(rm.n_rows):
            a_lam, a_alpha = rm.A[i, : d + 1], rm.A[i, d + 1 :]
            if i in risk:
                k = risk[i]
                rows.append(_row(a_lam, 0))
                lo.append(_finite(sc.logit_lower[k]))
                hi.append(_finite(sc.logit_upper[k]))
            elif not a_lam.any():
                rows.append(_row(a_alpha, d + 1))
                lo.append(_finite(rm.lower[i]))
                hi.append(_finite(rm.upper[i]))
            else:
                self._add_scaled_row(rows, lo, hi, a_lam, a_alpha, rm.lower[i], rm.upper[i])

    def _add_scaled_row(self, rows, lo, hi, a_lam, a_alpha, lower, upper) -> None:
        """``lower <= a.lambda + b.alpha <= upper`` times ``t``: ``a.w + b.v - bound t``."""
        base = _row(a_lam, 0)
        for j in np.flatnonzero(a_alpha):
            base[self.v_col[int(j) + 1]] = float(a_alpha[j])
        for bound, is_lower in ((lower, True), (upper, False)):
            if not math.isfinite(bound):
                continue
            row = dict(base)
            if bound:
                row[self.t_col] = -float(bound)
            rows.append(row)
            if is_lower and lower == upper:
                lo.append(0.0)
                hi.append(0.0)
                return
            lo.append(0.0 if is_lower else -_INF)
            hi.append(_INF if is_lower else 0.0)

    def _add_mccormick_rows(self, rows, lo, hi) -> None:
        """``v_j = t alpha_j`` at integer ``alpha_j`` (McCormick envelope of the product)."""
        t, t_lo, t_hi = self.t_col, self.sclass.t_lo, self.sclass.t_hi
        for j, v in self.v_col.items():
            a = self.d + j
            for row, low, high in (
                ({v: 1.0, a: -t_lo}, 0.0, _INF),  # v >= t_lo alpha
                ({v: 1.0, a: -t_hi}, -_INF, 0.0),  # v <= t_hi alpha
                ({v: 1.0, t: -1.0, a: -t_lo}, -_INF, -t_lo),  # v <= t - t_lo (1 - alpha)
                ({v: 1.0, t: -1.0, a: -t_hi}, -t_hi, _INF),  # v >= t - t_hi (1 - alpha)
            ):
                rows.append(row)
                lo.append(low)
                hi.append(high)

    # --- nodes -------------------------------------------------------------------------
    def set_node_bounds(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """Set a node's integer bounds on ``[lambda, alpha]``: the ``t``-coefficients of
        the box rows, and the ``w`` and ``alpha`` column bounds.

        Parameters
        ----------
        lower, upper : arrays (2d+1,)
            The node's bounds on ``[lambda, alpha]``.
        """
        d = self.d
        new = np.vstack([lower[: d + 1], upper[: d + 1]])
        for side, j in zip(*np.nonzero(new != self.box_coef), strict=True):
            self.highs.changeCoeff(int(self.box_rows[side, j]), self.t_col, -float(new[side, j]))
        self.box_coef = new
        w_lo, w_hi = self._w_range(new[0], new[1])
        self.highs.changeColsBounds(
            2 * d + 1,
            self.all_indices,
            np.concatenate([w_lo, lower[d + 1 :]]),
            np.concatenate([w_hi, upper[d + 1 :]]),
        )


def _row(coef: np.ndarray, offset: int) -> dict[int, float]:
    return {int(k) + offset: float(coef[k]) for k in np.flatnonzero(coef)}
