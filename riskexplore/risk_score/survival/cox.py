"""The mean Breslow negative partial log-likelihood of scores ``s = X @ points``.

``L(s) = (1 / W) sum_{i: event} w_i [log sum_{j: t_j >= t_i} w_j exp(s_j) - s_i]``

with row weights ``w`` (frequency weights: a weight 2 is a duplicated row) and
``W = sum_i w_i`` (the number of rows with unit weights). Ties are Breslow's: the risk
set of an event holds every row with ``t_j >= t_i``, the tied rows (events and censored)
included, as scikit-survival's ``CoxPHOptimizer(ties="breslow")``. The loss is convex
in the scores and so in the points, and a constant added to every score leaves it
unchanged: there is no intercept.

Rows are sorted by time once (:class:`~riskexplore.risk_score.survival.risk_sets.RiskSets`);
a value is then one reverse log-sum-exp pass and a gradient one more forward pass, both
with a running maximum so that no exponential overflows whatever the scale of the scores.

:class:`CoxLoss` has the shape of the engine's datafit (``LogisticLoss``): a model is
``lam = [intercept, points...]``, and ``lam[0]`` is ignored (its column is zero, its
gradient 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from riskexplore.data.survival import check_survival_outcome, check_survival_weights
from riskexplore.errors import InputError
from riskexplore.risk_score.datafit import data_fingerprint
from riskexplore.risk_score.survival.bounds import cox_loss_bounds
from riskexplore.risk_score.survival.risk_sets import RiskSets, log_risk_sums
from riskexplore.risk_score.survival.support import cox_feature_floors

__all__ = ["CoxLoss", "cox_value", "cox_value_and_grad"]


@njit(cache=True)
def _value(s, w, ev_w, first, W):
    log_risk = log_risk_sums(s, w)
    total = 0.0
    for i in range(s.shape[0]):
        if ev_w[i] > 0.0:
            total += ev_w[i] * (log_risk[first[i]] - s[i])
    return total / W, log_risk


@njit(cache=True)
def _grad(s, w, ev_w, first, last, W, log_risk):
    """``dL/ds_k = (w_k exp(s_k) sum_{events i: t_i <= t_k} ev_w_i / S_i - ev_w_k) / W``."""
    n = s.shape[0]
    log_b = np.empty(n)  # log sum over events up to k of ev_w_i / S_i (running maximum)
    m = -np.inf
    acc = 0.0
    for i in range(n):
        if ev_w[i] > 0.0:
            a = np.log(ev_w[i]) - log_risk[first[i]]
            if a > m:
                acc = acc * np.exp(m - a) + 1.0
                m = a
            else:
                acc += np.exp(a - m)
        log_b[i] = m + np.log(acc) if acc > 0.0 else -np.inf
    g = np.empty(n)
    for k in range(n):
        # read at the end of k's tie group: tied events have k in their risk sets
        lb = log_b[last[k]]
        share = w[k] * np.exp(s[k] + lb) if lb > -np.inf and w[k] > 0.0 else 0.0
        g[k] = (share - ev_w[k]) / W
    return g


@njit(cache=True)
def _batch_values(S, w, ev_w, first, W):
    out = np.empty(S.shape[1])
    for c in range(S.shape[1]):
        out[c] = _value(np.ascontiguousarray(S[:, c]), w, ev_w, first, W)[0]
    return out


@njit(cache=True)
def _same_row_weights(pattern, w, first, last, n_patterns):
    """For each row: the weight of rows in its risk set with its own feature values."""
    n = pattern.shape[0]
    acc = np.zeros(n_patterns)
    out = np.zeros(n)
    k = n - 1
    while k >= 0:
        start = first[k]
        for j in range(k, start - 1, -1):
            acc[pattern[j]] += w[j]
        for j in range(start, k + 1):
            out[j] = acc[pattern[j]]
        k = start - 1
    return out


def cox_value(rows: RiskSets, s: np.ndarray) -> float:
    """The loss at scores ``s`` given in time order.

    Parameters
    ----------
    rows : RiskSets
        The sorted rows.
    s : ndarray
        Scores in time order.

    Returns
    -------
    float
        The mean Breslow negative partial log-likelihood.
    """
    s = np.ascontiguousarray(s, dtype=float)
    return float(_value(s, rows.weights, rows.event_weights, rows.first, rows.total_weight)[0])


def cox_value_and_grad(rows: RiskSets, s: np.ndarray) -> tuple[float, np.ndarray]:
    """The loss at scores ``s`` (time order) and its gradient in the scores.

    Parameters
    ----------
    rows : RiskSets
        The sorted rows.
    s : ndarray
        Scores in time order.

    Returns
    -------
    tuple
        ``(loss, gradient)``, the gradient in time order.
    """
    s = np.ascontiguousarray(s, dtype=float)
    args = (rows.weights, rows.event_weights, rows.first)
    value, log_risk = _value(s, *args, rows.total_weight)
    grad = _grad(s, *args, rows.last, rows.total_weight, log_risk)
    return float(value), grad


class CoxLoss:
    """The mean Breslow negative partial log-likelihood as the engine's datafit.

    Build it with :meth:`from_data`. A model is ``lam = [intercept, points...]`` as for
    ``LogisticLoss``; the intercept is ignored (``has_intercept`` is False), so its
    column is zero and its gradient 0. The margins (:meth:`scores`) are the rows'
    scores in time order.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Features, rows in time order.
    rows : RiskSets
        The sorted rows (times, weights, tie groups).
    """

    #: The Cox loss ignores a constant added to every score: no intercept.
    has_intercept = False
    #: No lookup table: integer models are evaluated like any other.
    integer_scores = False
    #: No compiled support kernel yet: the screen, lattice, beam and root fixing step aside.
    support_kernel = None

    def __init__(self, X: np.ndarray, rows: RiskSets) -> None:
        self.X = np.ascontiguousarray(X, dtype=float)
        self.rows = rows
        # [0, X]: the columns of lam (the intercept's is zero), read by the heuristics
        self._columns = np.column_stack([np.zeros(rows.n_rows), self.X])

    @classmethod
    def from_data(cls, X, time, event, weights=None) -> CoxLoss:
        """Check the data and sort its rows by time once.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Numeric features.
        time, event : array-like
            Follow-up times (finite, ``>= 0``) and event indicators (0/1); see
            :func:`~riskexplore.data.survival.check_survival_outcome` (``event=None``
            takes a structured array or pairs in ``time``).
        weights : array-like, optional
            Frequency weights (``>= 0``); the loss with weights equals the loss with each
            row repeated that many times.

        Returns
        -------
        CoxLoss
            The loss.

        Raises
        ------
        InputError
            For a bad outcome, bad weights, features of the wrong shape or not finite, or
            no event of positive weight.
        """
        time, event = check_survival_outcome(time, event)
        w = check_survival_weights(weights, len(time))
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] != len(time):
            raise InputError(
                f"X must be a 2-d array with one row per time ({len(time)}), got shape {X.shape}"
            )
        if not np.isfinite(X).all():
            raise InputError("X has missing or infinite values; fill or drop them first")
        if not (w * event).sum() > 0:
            raise InputError("every event has weight 0; give some events a positive weight")
        rows = RiskSets.build(time, event, w)
        return cls(rows.sort(X), rows)

    @property
    def n_rows(self) -> int:
        """The number of rows (not merged)."""
        return self.rows.n_rows

    @property
    def n_features(self) -> int:
        """The number of features (``len(lam) - 1``)."""
        return self.X.shape[1]

    def scores(self, lam: np.ndarray) -> np.ndarray:
        """The rows' scores ``X @ lam[1:]`` in time order (the intercept is ignored).

        Parameters
        ----------
        lam : ndarray of shape (d+1,)
            The model.

        Returns
        -------
        ndarray
            The scores.
        """
        return self.X @ np.asarray(lam, dtype=float)[1:]

    def column(self, j) -> np.ndarray:
        """How the scores change per unit of ``lam[j]`` (zero for the intercept, ``j = 0``).

        Parameters
        ----------
        j : int or array of int
            A coordinate of ``lam``, or several (then one column each).

        Returns
        -------
        ndarray
            The column(s), in time order.
        """
        return self._columns[:, j]

    def loss_bounds(self, lower: np.ndarray, upper: np.ndarray, max_size: int):
        """``(L_min, L_max)`` over a box of models (see
        :func:`~riskexplore.risk_score.survival.bounds.cox_loss_bounds`).

        Parameters
        ----------
        lower, upper : ndarray of shape (d+1,)
            The box of ``[intercept, points...]`` (the intercept ignored).
        max_size : int
            The most non-zero points.

        Returns
        -------
        tuple of float
            ``(L_min, L_max)``.
        """
        return cox_loss_bounds(self, lower, upper, max_size)

    def from_scores(self, s: np.ndarray, integral: bool = False) -> float:
        """The loss at scores ``s`` (time order); ``integral`` is accepted and ignored.

        Parameters
        ----------
        s : ndarray
            Scores, as :meth:`scores` gives them.
        integral : bool
            Unused (no lookup table).

        Returns
        -------
        float
            The loss.
        """
        return cox_value(self.rows, s)

    def batch_from_scores(self, S: np.ndarray) -> np.ndarray:
        """Losses of many candidates whose scores are the columns of ``S`` (n, k).

        Parameters
        ----------
        S : ndarray of shape (n, k)
            Scores in time order, one column per candidate.

        Returns
        -------
        ndarray of shape (k,)
            The losses.
        """
        r = self.rows
        S = np.asarray(S, dtype=float)
        return _batch_values(S, r.weights, r.event_weights, r.first, r.total_weight)

    def value_and_grad_scores(self, s: np.ndarray) -> tuple[float, np.ndarray]:
        """The loss at scores ``s`` (time order) and its gradient in the scores.

        Parameters
        ----------
        s : ndarray
            Scores, as :meth:`scores` gives them.

        Returns
        -------
        tuple
            ``(loss, gradient)``, the gradient in time order (it sums to 0: shifting
            every score leaves the loss unchanged).
        """
        return cox_value_and_grad(self.rows, s)

    def value(self, lam: np.ndarray, integral: bool = False) -> float:
        """The loss of the model ``lam``.

        Parameters
        ----------
        lam : ndarray of shape (d+1,)
            The model (``lam[0]`` ignored).
        integral : bool
            Unused (no lookup table).

        Returns
        -------
        float
            The loss.
        """
        return self.from_scores(self.scores(lam))

    def value_and_grad(self, lam: np.ndarray, integral: bool = False):
        """The loss of ``lam`` and its gradient in ``lam`` (0 for the intercept).

        Parameters
        ----------
        lam : ndarray of shape (d+1,)
            The model.
        integral : bool
            Unused (no lookup table).

        Returns
        -------
        tuple
            ``(loss, gradient)``, the gradient of shape (d+1,).
        """
        value, g = self.value_and_grad_scores(self.scores(lam))
        grad = np.empty(self.n_features + 1)
        grad[0] = 0.0
        grad[1:] = g @ self.X
        return value, grad

    def feature_floors(self, lower: np.ndarray, upper: np.ndarray, **kwargs) -> np.ndarray | None:
        """Certified floors of the root's models per feature used (root fixing; see
        :func:`~riskexplore.risk_score.survival.support.cox_feature_floors`).

        Parameters
        ----------
        lower, upper : ndarray of shape (2d+1,)
            The root's bounds on ``[lambda, alpha]``.
        **kwargs
            ``c0``, ``k_min``, ``k_max``, ``max_supports``, ``max_work``, ``alpha_rows``,
            ``should_stop``.

        Returns
        -------
        ndarray or None
            The floors, or None when the root has too many supports.
        """
        return cox_feature_floors(self, lower, upper, **kwargs)

    def loss_floor(self) -> float:
        """A lower bound on the loss of every model, for the LP's loss column.

        Each event's risk set holds the event's row and every later row with the same
        features, which share its score whatever the points; so its term is at least
        ``log c_i``, ``c_i`` the weight of those rows. With unit weights ``c_i >= 1`` and
        the floor is ``>= 0`` (the usual ``L >= 0``). With weights, a weight below 1 can
        make ``log c_i < 0``: the loss can then be negative and ``L >= 0`` is no valid
        bound, but this floor still is.

        Returns
        -------
        float
            ``(1 / W) sum_{events} w_i log c_i``.
        """
        _, pattern = np.unique(self.X, axis=0, return_inverse=True)
        pattern = np.ascontiguousarray(pattern.ravel(), dtype=np.int64)
        r = self.rows
        c = _same_row_weights(pattern, r.weights, r.first, r.last, int(pattern.max()) + 1)
        events = r.event_weights > 0
        return float(r.event_weights[events] @ np.log(c[events])) / r.total_weight

    def fingerprint(self) -> str:
        """A digest of the sorted rows, times, events and weights (equal data, equal digest).

        Returns
        -------
        str
            A hex digest, as the cut pool keeps.
        """
        r = self.rows
        return data_fingerprint(self.X, r.time, r.weights, r.event_weights)
