"""The cumulative/dynamic time-dependent AUC at a horizon.

At a horizon ``h``, the *cases* are the rows with the event by ``h`` (``t_i <= h``,
``delta_i = 1``), each weighted ``1 / G(t_i)`` (``G``: the censoring distribution's
Kaplan-Meier estimate on the training rows), and the *controls* the rows still free of
it after ``h`` (``t_j > h``). The AUC is the weighted share of (case, control) pairs the
score orders right, ties counted one half:
``sum_i w_i sum_j [1(s_i > s_j) + 1(s_i = s_j) / 2] / (sum_i w_i * #controls)``
(Uno et al. 2007; scikit-survival's ``cumulative_dynamic_auc``). Rows censored before
``h`` are neither: their weight goes to the cases through ``1 / G``.
"""

from __future__ import annotations

import math

import numpy as np

from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.concordance import inverse_censoring_weights, score_ranks
from riskexplore.evaluation.validation.estimate import Estimate

__all__ = ["time_dependent_auc"]


def time_dependent_auc(
    time, event, score, horizon: float, train=None, tied_tol: float = 1e-8
) -> Estimate:
    """The cumulative/dynamic AUC of scores at ``horizon`` (higher score, higher risk).

    Parameters
    ----------
    time, event : array-like
        The evaluation rows' outcome.
    score : array-like
        One score (or predicted risk) per evaluation row.
    horizon : float
        The time ``h``.
    train : outcome, optional
        The training rows' outcome (a structured array or a ``(time, event)`` pair), whose
        censoring distribution weighs the cases; default: the evaluation rows.
    tied_tol : float
        Scores this close count as tied.

    Returns
    -------
    Estimate
        The AUC (``nan`` without a case or a control); no interval.

    Raises
    ------
    InputError
        For a horizon that is not a finite number, or bad outcome or scores.
    """
    time, event = check_survival_outcome(time, event)
    rank = score_ranks(score, len(time), tied_tol)
    if not isinstance(horizon, (int, float, np.number)) or not math.isfinite(horizon):
        raise InputError(f"horizon must be a finite time, got {horizon!r}")
    cases = event & (time <= horizon)
    controls = np.sort(rank[time > horizon])
    if not cases.any() or len(controls) == 0:
        return Estimate(math.nan, method="cumulative/dynamic")
    weight = inverse_censoring_weights(train, time, event, below=np.nextafter(horizon, np.inf))
    case_rank = rank[cases]
    below = np.searchsorted(controls, case_rank, side="left")
    equal = np.searchsorted(controls, case_rank, side="right") - below
    w = weight[cases]
    auc = float(w @ (below + 0.5 * equal) / (w.sum() * len(controls)))
    return Estimate(auc, method="cumulative/dynamic")
