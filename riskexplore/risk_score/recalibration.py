"""A risk score recalibrated to other rows: every point kept, its score-to-risk map
refitted.

The risk of a card score ``s`` is ``sigma((b + s) / m)``. Recalibration is the
maximum-likelihood fit of that map on the new rows, a convex fit solved exactly by Newton's
method (:func:`riskexplore.core.logistic_fit.logistic_fit`):

* **fixed scale** (``m = 1``): only the intercept ``b``, a logistic regression with the
  score as offset; the fitted intercept is a real number (the card's risks follow it);
* **learned scale**: the intercept and the multiplier, a logistic regression of the outcome
  on the score (``a + c s``, so ``m = 1 / c`` and ``b = a / c``).

Both fits make the predicted events on the new rows equal the observed ones (the score
equation of the intercept), so the recalibrated model has O/E = 1 there.
"""

from __future__ import annotations

import numpy as np

from riskexplore.core.logistic_fit import logistic_fit
from riskexplore.core.recalibration import checked_outcome, recalibration_record
from riskexplore.errors import InputError
from riskexplore.risk_score.model import RiskScore

__all__ = ["recalibrate_risk_score"]


def recalibrate_risk_score(model: RiskScore, X, y) -> RiskScore:
    """The risk score with its intercept (and, for the learned scale, its multiplier)
    refitted to ``(X, y)``.

    Parameters
    ----------
    model : RiskScore
        A fitted risk score.
    X : DataFrame or array
        The rows (raw columns when the model keeps its binarizer, or its features).
    y : array-like (n,)
        Their 0/1 outcome.

    Returns
    -------
    RiskScore
        A new model with the same points, the refitted intercept (and multiplier) and
        ``stats["recalibrated"] = {"rows": n, "events": e}``. The certificate and the
        other statistics are the development fit's (they certify the points).

    Raises
    ------
    InputError
        For rows the model cannot read, an outcome that is not 0/1 or of another length,
        rows with one outcome only, or a learned scale whose score does not rise with the
        outcome on the rows.
    """
    score = np.asarray(model.total_points(X), dtype=float)
    yv = checked_outcome(y, len(score))
    events = int(yv.sum())
    if events == 0 or events == len(yv):
        raise InputError(
            f"recalibrate needs rows with and without the outcome; all {len(yv)} rows "
            f"have outcome {int(events > 0)}"
        )
    if model.scale == "fixed":
        fit = logistic_fit(np.ones((len(yv), 1)), yv, offset=score)
        intercept, multiplier = float(fit.coef[0]), 1.0
    else:
        fit = logistic_fit(np.column_stack([np.ones(len(yv)), score]), yv)
        a, c = (float(v) for v in fit.coef)
        if not fit.converged or c <= 0:
            raise InputError(
                "cannot refit the learned scale on these rows: the outcome does not rise "
                "with the total score there (or every row has the same score)"
            )
        intercept, multiplier = a / c, 1.0 / c
    if not fit.converged:
        raise InputError("the recalibration did not converge on these rows")
    out = RiskScore(
        model.feature_names,
        model.all_points,
        intercept,
        model.certificate,
        {**model.stats, "recalibrated": recalibration_record(yv)},
        model.feature_info,
        model.observed_score_range,
        model.trace,
        multiplier=multiplier,
        binarizer=model.binarizer,
    )
    out._problem = model._problem  # hand edits still start from the development rows
    return out
