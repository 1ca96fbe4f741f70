"""A survival score recalibrated to other rows: the points kept, Breslow's baseline refitted.

The points order the patients; how a total score becomes a risk by a horizon is the
baseline cumulative hazard ``H0``. Refitting ``H0`` on new rows (their total points and
outcome) makes the model predict, at each horizon, about as many events on those rows as
happened there (O/E close to 1), the usual update of a score moved to another hospital.
"""

from __future__ import annotations

from typing import Any

from riskexplore.data.survival import check_survival_outcome
from riskexplore.errors import InputError
from riskexplore.risk_score.survival.baseline import breslow_baseline
from riskexplore.risk_score.survival.model import SurvivalScore

__all__ = ["recalibrate_survival_score"]


def recalibrate_survival_score(model: SurvivalScore, X, y) -> SurvivalScore:
    """The model with its baseline hazard refitted to the rows ``(X, y)``, points kept.

    Parameters
    ----------
    model : SurvivalScore
        A fitted survival score.
    X : DataFrame or array
        The new rows (a raw table when the model keeps its binarizer).
    y : structured array, (time, event) pair or pairs
        Their survival outcome (see
        :func:`~riskexplore.data.survival.check_survival_outcome`).

    Returns
    -------
    SurvivalScore
        A new model: the same items, points, horizons, certificate and binarizer, the
        baseline of the new rows and ``stats["recalibrated"] = {"rows": n, "events": e}``.

    Raises
    ------
    InputError
        For a bad outcome (no event, another number of rows) or rows the model cannot read.
    """
    time, event = check_survival_outcome(y)
    scores = model.total_points(X)
    if len(scores) != len(time):
        raise InputError(f"X has {len(scores)} rows but y has {len(time)}; give one per row")
    stats: dict[str, Any] = dict(model.stats)
    stats["recalibrated"] = {"rows": int(len(time)), "events": int(event.sum())}
    return SurvivalScore(
        model.feature_names,
        model.points,
        breslow_baseline(scores, time, event),
        model.horizons or None,
        model.certificate,
        stats,
        model.observed_score_range,
        model.binarizer,
    )
