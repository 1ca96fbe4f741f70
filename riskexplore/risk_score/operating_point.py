"""Operating-point rules of a risk score: "at total score >= s, sensitivity >= 90%".

A decision curve picks a threshold on the score card's total; the clinician then needs
the score to catch enough patients there (sensitivity), or to alarm few healthy ones
(specificity, false-positive rate). :class:`OperatingPoint` asks for this as a certified
constraint, as the checklists' FNR/FPR limits do.

The *total score* of a row is the sum of its points, without the intercept (what the
card shows); a row is flagged when its total is at least ``at_score``. Rates are
weighted by the problem's sample weights (their class weight cancels within a class).

The rule is not linear in the points (it counts rows), so it compiles to no row: the
problem carries it as a combinatorial rule (:class:`ScoreRule`, ``problem.rules``) that
LCPA certifies in three places (see :mod:`riskexplore.risk_score.lcpa.search`):

* every model that may become an incumbent is checked (``problem.violations``), and the
  heuristics' moves keep it (:meth:`ScoreRule.allowed_moves`);
* a node whose box of points cannot let enough positive rows reach ``at_score``
  (each positive row's largest total in the box is ``sum_j max(l_j x_ij, u_j x_ij)``),
  or enough negative rows stay below it, holds no model that meets the rule and is
  dropped (:meth:`ScoreRule.possible`);
* a node whose LP is exact at an integer model that breaks the rule is not solved: its
  region minus that model is searched on (:func:`~riskexplore.risk_score.lcpa.nodes.split_around`).

The LP bound ignores the rule and stays a valid lower bound, so the certificate keeps its
meaning. The learned scale's search (:mod:`riskexplore.risk_score.scaled.search`, also the
support screen of the fixed scale at ``m = 1``) certifies the rule the same way: the total
score is the points' sum whatever the multiplier, so a node's box and a model are checked
as above (its lattice search, which solves a support without LPs, is off with a rule).
Plain CPA refuses rules.

Examples
--------
>>> OperatingPoint(at_score=3, min_sensitivity=0.9).describe()
'At a total score of 3 or more: sensitivity at least 90%'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from riskexplore.core.constraints import real_number, whole_number
from riskexplore.errors import ConstraintError, InfeasibleError
from riskexplore.risk_score.constraints import RiskScoreConstraint
from riskexplore.risk_score.loss import mostly_zero

__all__ = ["OperatingPoint", "ScoreRule"]

#: Slack on "total >= at_score" for real-valued features (floating point sums).
_SCORE_TOL = 1e-9
#: Relative slack on the weight a rate needs (the rate's own floating point noise).
_RATE_TOL = 1e-12


def _percent(p: float) -> str:
    return f"{100 * p:.4g}%"


@dataclass(frozen=True)
class OperatingPoint(RiskScoreConstraint):
    """At total score ``>= at_score``, bound the sensitivity, specificity or false-positive
    rate on the training rows.

    Parameters
    ----------
    at_score : int
        The threshold on the card's total (sum of points, no intercept).
    min_sensitivity : float in (0, 1], optional
        Least share of positive rows with total ``>= at_score``.
    min_specificity : float in (0, 1], optional
        Least share of negative rows with total ``< at_score``.
    max_false_positive_rate : float in [0, 1), optional
        Largest share of negative rows with total ``>= at_score`` (the same as
        ``min_specificity = 1 - max_false_positive_rate``).

    Notes
    -----
    ``to_rows`` gives no linear row: given the problem being built it registers a
    :class:`ScoreRule` (the rule over the problem's data) in ``problem.rules``.
    """

    at_score: int
    min_sensitivity: float | None = None
    min_specificity: float | None = None
    max_false_positive_rate: float | None = None

    def __post_init__(self) -> None:
        score = whole_number(self.at_score, "OperatingPoint: at_score", minimum=-(2**62))
        object.__setattr__(self, "at_score", score)
        limits = ("min_sensitivity", "min_specificity", "max_false_positive_rate")
        if all(getattr(self, attr) is None for attr in limits):
            raise ConstraintError(
                "OperatingPoint: give min_sensitivity, min_specificity or "
                "max_false_positive_rate (e.g. OperatingPoint(at_score=3, min_sensitivity=0.9))"
            )
        for attr in limits:
            value = getattr(self, attr)
            if value is None:
                continue
            p = real_number(value, f"OperatingPoint: {attr}")
            ok = 0.0 <= p < 1.0 if attr == "max_false_positive_rate" else 0.0 < p <= 1.0
            if not ok:
                span = "in [0, 1)" if attr == "max_false_positive_rate" else "in (0, 1]"
                raise ConstraintError(
                    f"OperatingPoint: {attr} is a share of rows {span} (0.9 for 90%), got {p:g}"
                )
            object.__setattr__(self, attr, p)

    @property
    def specificity_needed(self) -> float | None:
        """The least specificity the rule asks for (from either limit), or None."""
        wants = [self.min_specificity]
        if self.max_false_positive_rate is not None:
            wants.append(1.0 - self.max_false_positive_rate)
        wants = [p for p in wants if p is not None]
        return max(wants) if wants else None

    def describe(self) -> str:
        parts = []
        if self.min_sensitivity is not None:
            parts.append(f"sensitivity at least {_percent(self.min_sensitivity)}")
        if self.min_specificity is not None:
            parts.append(f"specificity at least {_percent(self.min_specificity)}")
        if self.max_false_positive_rate is not None:
            parts.append(f"false-positive rate at most {_percent(self.max_false_positive_rate)}")
        return f"At a total score of {self.at_score} or more: {', '.join(parts)}"

    def to_rows(self, feature_names, problem: Any = None) -> list:
        """No linear row; registers the rule on ``problem`` (when given).

        Parameters
        ----------
        feature_names : sequence of str
            The problem's features (unused: the rule is on every feature).
        problem : RiskScoreProblem, optional
            The problem being built; its ``rules`` gets a :class:`ScoreRule`.

        Returns
        -------
        list
            Empty.
        """
        if problem is not None:
            problem.rules.append(ScoreRule(self, problem.X, problem.y, problem.sample_weight))
        return []


def _product_form(A: np.ndarray):
    return csr_matrix(A) if mostly_zero(A) else A


class _Side:
    """The distinct rows of one class with their summed weights, split by sign, and the
    weight of rows the rule needs on its side of the threshold (``share`` of the class)."""

    def __init__(self, X: np.ndarray, w: np.ndarray, share: float) -> None:
        rows, inverse = np.unique(X, axis=0, return_inverse=True)
        self.X = np.ascontiguousarray(rows)
        self.w = np.bincount(inverse.ravel(), weights=w, minlength=len(rows))
        self.total_weight = float(w.sum())
        self.need = share * self.total_weight * (1.0 - _RATE_TOL)
        # the box's extreme totals are two products per node: in CSR form on one-hot items
        self.plus = _product_form(np.maximum(self.X, 0.0))
        self.minus = _product_form(np.minimum(self.X, 0.0)) if (self.X < 0).any() else None

    def extreme(self, toward: np.ndarray, away: np.ndarray) -> np.ndarray:
        """Each row's total at the box corner ``toward`` on positive values, ``away`` on
        negative ones (largest total: ``(upper, lower)``; least: ``(lower, upper)``)."""
        out = self.plus @ toward
        if self.minus is not None:
            out += self.minus @ away
        return out


class ScoreRule:
    """An :class:`OperatingPoint` over a problem's rows: checks models and boxes.

    Parameters
    ----------
    constraint : OperatingPoint
        The rule.
    X : ndarray (n, d)
        The features.
    y : ndarray (n,)
        The outcome in {-1, +1}.
    sample_weight : ndarray (n,)
        The rows' weights.

    Raises
    ------
    ConstraintError
        When a limit is asked of a class that has no row (or no weight).
    """

    def __init__(self, constraint: OperatingPoint, X, y, sample_weight) -> None:
        self.constraint = constraint
        self.name = constraint.describe()
        self.threshold = constraint.at_score - _SCORE_TOL * max(1.0, abs(constraint.at_score))
        X, w, pos = np.asarray(X, dtype=float), np.asarray(sample_weight, float), np.asarray(y) > 0
        self.pos = self._side(constraint.min_sensitivity, X[pos], w[pos], "positive")
        self.neg = self._side(constraint.specificity_needed, X[~pos], w[~pos], "negative")

    def _side(self, share: float | None, X, w, label: str):
        """The rows of a class and the weight the rule needs of them (or None)."""
        if share is None:
            return None
        side = _Side(X, w, share)
        if side.total_weight <= 0:  # (the problem's data checks refuse this first)
            raise ConstraintError(
                f"{self.name}: the data has no {label} rows, so this rate is undefined; "
                "drop the limit or check the outcome column"
            )
        return side

    # --- models ------------------------------------------------------------------------
    def meets(self, lam: np.ndarray) -> bool:
        """Whether the model ``[intercept, points...]`` meets the rule.

        Parameters
        ----------
        lam : ndarray
            The model.

        Returns
        -------
        bool
            True when every limited rate is met.
        """
        return self._ok(self.totals(lam))

    def totals(self, lam: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The totals of the distinct positive and negative rows (the state of moves).

        Parameters
        ----------
        lam : ndarray
            ``[intercept, points...]``.

        Returns
        -------
        (ndarray or None, ndarray or None)
            Positive rows' totals, negative rows' totals (None for an unlimited class).
        """
        points = np.asarray(lam, dtype=float)[1:]
        return tuple(None if s is None else s.X @ points for s in (self.pos, self.neg))

    def _reached(self, side: _Side, totals: np.ndarray) -> np.ndarray:
        return side.w @ (totals >= self.threshold)

    def _ok(self, totals) -> bool:
        columns = tuple(None if t is None else t[:, None] for t in totals)
        return bool(self._ok_columns(columns).all())

    def _ok_columns(self, totals) -> np.ndarray:
        """Which columns of total matrices (rows x candidates) meet the rule."""
        ok = np.ones(1, dtype=bool)
        pos_t, neg_t = totals
        if self.pos is not None:
            ok = ok & (self._reached(self.pos, pos_t) >= self.pos.need)
        if self.neg is not None:
            below = self.neg.total_weight - self._reached(self.neg, neg_t)
            ok = ok & (below >= self.neg.need)
        return ok

    # --- moves of the heuristics ---------------------------------------------------------
    def allowed_moves(self, totals, j: int, deltas: np.ndarray) -> np.ndarray:
        """Which changes ``deltas`` of feature ``j``'s points (column ``j`` of ``lam``, 1..d)
        keep the rule, from the totals of :meth:`totals`.

        Parameters
        ----------
        totals : tuple
            The current totals (:meth:`totals`).
        j : int
            The column of ``lam`` moved (0 is the intercept: no total changes).
        deltas : ndarray
            Candidate changes.

        Returns
        -------
        ndarray of bool
            One per delta.
        """
        if j == 0:
            return np.full(len(deltas), self._ok(totals))
        moved = tuple(
            None if s is None else t[:, None] + s.X[:, [j - 1]] * deltas[None, :]
            for s, t in zip((self.pos, self.neg), totals, strict=True)
        )
        return np.broadcast_to(self._ok_columns(moved), deltas.shape).copy()

    def moved(self, totals, j: int, delta: float):
        """The totals after feature ``j``'s points change by ``delta``.

        Parameters
        ----------
        totals : tuple
            The totals (:meth:`totals`).
        j : int
            The column of ``lam`` moved.
        delta : float
            The change.

        Returns
        -------
        tuple
            The new totals.
        """
        if j == 0:
            return totals
        return tuple(
            None if s is None else t + s.X[:, j - 1] * delta
            for s, t in zip((self.pos, self.neg), totals, strict=True)
        )

    # --- boxes of the search --------------------------------------------------------------
    def possible(self, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Whether some model in the box of points may meet the rule (False: none can).

        Parameters
        ----------
        lower, upper : ndarray
            Bounds of ``[intercept, points..., ...]`` (further columns ignored).

        Returns
        -------
        bool
            False when too few positive rows can reach ``at_score`` at their largest
            total in the box, or too few negative rows stay below it at their least.
        """
        d = self.dimension
        lo, hi = lower[1 : d + 1], upper[1 : d + 1]
        if self.pos is not None:
            if self._reached(self.pos, self.pos.extreme(hi, lo)) < self.pos.need:
                return False
        if self.neg is not None:
            below = self.neg.total_weight - self._reached(self.neg, self.neg.extreme(lo, hi))
            if below < self.neg.need:
                return False
        return True

    @property
    def dimension(self) -> int:
        """The number of features."""
        side = self.pos if self.pos is not None else self.neg
        return side.X.shape[1]

    def check_box(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """Raise :class:`InfeasibleError` when no model of the box can meet the rule.

        Parameters
        ----------
        lower, upper : ndarray
            The problem's bounds of ``[intercept, points...]``.

        Raises
        ------
        InfeasibleError
            Naming the rule and what the bounds allow at best.
        """
        if self.possible(lower, upper):
            return
        d = self.dimension
        lo, hi = np.asarray(lower)[1 : d + 1], np.asarray(upper)[1 : d + 1]
        best = []
        if self.pos is not None:
            share = self._reached(self.pos, self.pos.extreme(hi, lo)) / self.pos.total_weight
            best.append(f"at most {_percent(share)} of positive rows can reach it")
        if self.neg is not None:
            reach = self._reached(self.neg, self.neg.extreme(lo, hi)) / self.neg.total_weight
            best.append(f"at most {_percent(1.0 - reach)} of negative rows can stay below it")
        err = InfeasibleError(
            f"no risk score meets {self.name!r}: within the bounds on the points "
            f"{' and '.join(best)}; lower the threshold or the rate, or widen the bounds"
        )
        err.culprits, err.bounds_involved = [self.name], True
        raise err
