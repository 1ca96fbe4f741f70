"""``recalibrate(model, X, y)``: a model's score-to-risk map refitted to other rows.

Every point (of a risk score) or item (of a checklist) is kept; the family refits only how
the card's score becomes a risk (see :class:`~riskexplore.core.registry.ValidationSpec`):
a risk score's intercept (and its multiplier, for the learned scale) by an exact logistic
fit, a checklist's outcome rate per number of items checked, a survival score's Breslow
baseline hazard. The recalibrated model
predicts as many events on those rows as happened (O/E = 1 there).
"""

from __future__ import annotations

from typing import Any

from riskexplore.evaluation.validation.run import fitted_model
from riskexplore.evaluation.validation.time_to_event import binary_outcome_only, survival_outcome

__all__ = ["recalibrate"]


def recalibrate(model, X, y=None, *, time=None, event=None) -> Any:
    """The model with its score-to-risk map refitted to the rows ``(X, y)``.

    Parameters
    ----------
    model : RiskScore, Checklist or fitted estimator
        A fitted model of any family.
    X : DataFrame or array
        The new rows (a raw table when the model keeps its binarizer).
    y : array-like (n,) or structured array
        Their outcome, 0/1; for a survival score the structured array
        ``[("event", bool), ("time", float)]`` (or ``time=`` and ``event=``), whose
        Breslow baseline hazard is refitted on these rows.
    time, event : array-like, optional
        A survival score's outcome as two columns.

    Returns
    -------
    model
        A new model of the same family, every point or item kept, with
        ``stats["recalibrated"] = {"rows": n, "events": e}`` (the card says so).

    Raises
    ------
    InputError
        For a model that is not fitted, rows it cannot read, an outcome that is not 0/1
        or not one per row, or rows the map cannot be fitted on (one outcome only).

    Examples
    --------
    >>> local = recalibrate(model, X_new, y_new)  # doctest: +SKIP
    >>> validate(local, X_new, y_new).observed_expected.estimate  # doctest: +SKIP
    1.0
    """
    model, family, spec = fitted_model(model)
    if family.outcome == "survival":
        return spec.recalibrate(model, X, survival_outcome(family.label, y, time, event))
    binary_outcome_only(family.label, y, time, event)
    return spec.recalibrate(model, X, y)
