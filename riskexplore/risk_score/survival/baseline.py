"""The Breslow baseline cumulative hazard of given scores, and the risk by a horizon.

With scores ``s`` fitted by the Cox loss, Breslow's estimate of the cumulative hazard of
a score of 0 is the step function

``H0(t) = sum_{event times u <= t} d_u / sum_{j: t_j >= u} w_j exp(s_j)``

(``d_u`` the weight of the events at ``u``), and a row with score ``s`` has the risk of
the event by ``h``: ``1 - exp(-H0(h) exp(s))``, computed as ``-expm1(-exp(log H0(h) + s))``
so that it lies in [0, 1], rises with ``s`` and never overflows. ``H0`` is kept in log
form (a cumulative log-sum-exp over the risk-set sums), so scores of any scale give
finite numbers. Matches scikit-survival's ``BreslowEstimator``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from riskexplore.data.survival import check_survival_outcome, check_survival_weights
from riskexplore.errors import InputError
from riskexplore.risk_score.survival.risk_sets import RiskSets, log_risk_sums

__all__ = ["BreslowBaseline", "breslow_baseline"]


@dataclass(frozen=True)
class BreslowBaseline:
    """A step function ``H0`` at the distinct event times, in log form.

    Attributes
    ----------
    times : ndarray
        The distinct event times, ascending.
    log_cumulative_hazard : ndarray
        ``log H0`` at each of them (``H0`` is 0 before the first).
    """

    times: np.ndarray
    log_cumulative_hazard: np.ndarray

    @property
    def cumulative_hazard(self) -> np.ndarray:
        """``H0`` at :attr:`times`."""
        return np.exp(self.log_cumulative_hazard)

    def log_hazard_at(self, t) -> np.ndarray:
        """``log H0(t)`` (``-inf`` before the first event time).

        Parameters
        ----------
        t : float or array-like
            Times.

        Returns
        -------
        ndarray
            One value per time.
        """
        k = np.searchsorted(self.times, np.asarray(t, dtype=float), side="right") - 1
        return np.where(k >= 0, self.log_cumulative_hazard[np.maximum(k, 0)], -np.inf)

    def hazard_at(self, t) -> np.ndarray:
        """``H0(t)``, right-continuous, 0 before the first event time.

        Parameters
        ----------
        t : float or array-like
            Times.

        Returns
        -------
        ndarray
            One value per time.
        """
        return np.exp(self.log_hazard_at(t))

    def risk(self, scores, horizon) -> np.ndarray:
        """The risk of the event by each horizon: ``1 - exp(-H0(h) exp(s))``.

        Parameters
        ----------
        scores : array-like
            Scores (total points).
        horizon : float or array-like
            One horizon, or several.

        Returns
        -------
        ndarray
            Shape ``(n,)`` for one horizon, ``(n, k)`` for ``k`` horizons; in [0, 1].

        Raises
        ------
        InputError
            For a horizon that is negative or not finite, or scores that are not finite.
        """
        s = np.asarray(scores, dtype=float)
        h = np.asarray(horizon, dtype=float)
        if not np.isfinite(h).all() or (h < 0).any():
            raise InputError(f"a horizon must be a finite time >= 0, got {horizon!r}")
        if not np.isfinite(s).all():
            raise InputError("scores must be finite numbers")
        log_h = self.log_hazard_at(h)
        exponent = np.add.outer(s, log_h) if h.ndim else s + log_h
        return -np.expm1(-np.exp(exponent))


def breslow_baseline(scores, time, event=None, weights=None) -> BreslowBaseline:
    """Breslow's baseline cumulative hazard of the given scores.

    Parameters
    ----------
    scores : array-like
        One score per row (total points, on the rows the points were fitted on).
    time, event : array-like
        The survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`).
    weights : array-like, optional
        Frequency weights.

    Returns
    -------
    BreslowBaseline
        ``H0`` at the distinct event times.

    Raises
    ------
    InputError
        For a bad outcome or weights, or scores that are not finite or of another length.
    """
    time, event = check_survival_outcome(time, event)
    w = check_survival_weights(weights, len(time))
    s = np.asarray(scores, dtype=float)
    if s.shape != time.shape or not np.isfinite(s).all():
        raise InputError(f"scores must be {len(time)} finite numbers, one per row")
    rows = RiskSets.build(time, event, w)
    log_risk = log_risk_sums(rows.sort(s), rows.weights)
    events = rows.event_weights > 0
    group_start = rows.first[events]
    starts, where = np.unique(group_start, return_index=True)
    # events of one tie group share their risk set: their weights add up
    d = np.add.reduceat(rows.event_weights[events], where)
    log_steps = np.log(d) - log_risk[starts]
    return BreslowBaseline(rows.time[starts], np.logaddexp.accumulate(log_steps))
