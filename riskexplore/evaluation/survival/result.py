"""The result of a survival validation: every figure with its interval, tables, curves, notes.

:class:`SurvivalValidation` is what
:func:`~riskexplore.evaluation.survival.validation.validate_survival` returns, in the style
of the binary :class:`~riskexplore.evaluation.validation.result.Validation`:
:meth:`~SurvivalValidation.to_dict` is the JSON document the figures, a report or the
command line read (missing values as None), :meth:`~SurvivalValidation.table` the headline
figures as a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from riskexplore.core.plain_numbers import plain_number
from riskexplore.evaluation.validation.estimate import Estimate, json_number
from riskexplore.evaluation.validation.result import HeadlineWords, records

__all__ = ["SURVIVAL_HEADLINE", "SurvivalValidation", "horizon_words"]

#: The headline figures, in the order of :meth:`SurvivalValidation.table`, with their names.
SURVIVAL_HEADLINE = {
    "harrell_c": "Harrell's C (discrimination)",
    "uno_c": "Uno's C up to the horizon (discrimination)",
    "time_auc": "time-dependent AUC at the horizon",
    "observed_risk": "observed risk by the horizon (1 − Kaplan-Meier)",
    "observed_expected": "observed / expected risk by the horizon (ideal 1)",
    "calibration_slope": "calibration slope (ideal 1)",
}


def horizon_words(horizon: float, unit: str | None = None) -> str:
    """A horizon in plain digits with its unit: ``"365 days"`` (``"365"`` without one).

    Parameters
    ----------
    horizon : float
        The time.
    unit : str, optional
        Its unit in words.

    Returns
    -------
    str
        The words.
    """
    value = plain_number(float(horizon))
    return f"{value} {unit}" if unit else value


@dataclass(frozen=True)
class SurvivalValidation(HeadlineWords):
    """A survival score's figures on other rows, at one horizon.

    Attributes
    ----------
    n, events : int
        Rows, and rows with the event (at any time).
    horizon : float
        The time the risks are predicted for.
    events_by_horizon : int
        Rows with the event at or before the horizon.
    confidence : float
        The level of every interval.
    censoring_from : str
        Where the censoring distribution of Uno's C and the time-dependent AUC was
        estimated: ``"training rows"`` or ``"validation rows"``.
    harrell_c, uno_c, time_auc : Estimate
        Discrimination, with bootstrap percentile intervals.
    observed_risk : Estimate
        ``1 - KM(h)`` on all rows with its log(-log) interval.
    predicted_risk : float
        The mean predicted risk by the horizon.
    observed_expected : Estimate
        ``observed_risk / predicted_risk`` (its interval: the observed risk's over the mean
        predicted risk).
    calibration_slope : Estimate
        The Cox coefficient of the score on these rows, Wald interval.
    calibration : DataFrame
        Per total score: predicted against observed risk by the horizon
        (:func:`~riskexplore.evaluation.survival.calibration.survival_calibration`).
    group_calibration : DataFrame
        The same per score group (``group`` the group's name, ``low``, ``high`` its scores).
    km_curves : list of dict
        The Kaplan-Meier curve of each score group
        (:func:`~riskexplore.evaluation.survival.score_groups.km_by_group`).
    min_group_rows : int
        The fewest rows of a score group.
    n_boot : int
        The bootstrap resamples of the discrimination intervals.
    notes : list of str
        What could not be computed, and why, and how the figures were made.
    time_unit : str or None
        The unit of the times in words (``"days"``; the model's), None when unknown.
    """

    n: int
    events: int
    horizon: float
    events_by_horizon: int
    confidence: float
    censoring_from: str
    harrell_c: Estimate
    uno_c: Estimate
    time_auc: Estimate
    observed_risk: Estimate
    predicted_risk: float
    observed_expected: Estimate
    calibration_slope: Estimate
    calibration: pd.DataFrame
    group_calibration: pd.DataFrame
    km_curves: list[dict[str, Any]]
    min_group_rows: int
    n_boot: int
    notes: list[str] = field(default_factory=list)
    kind: str = "survival score"
    time_unit: str | None = None

    HEADLINE_FIGURES: ClassVar[dict[str, str]] = SURVIVAL_HEADLINE

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready document of the validation (missing values as None).

        Returns
        -------
        dict
            ``kind, n, events, horizon, time_unit, events_by_horizon, confidence, censoring_from,
            predicted_risk, min_group_rows, n_boot``, the headline figures (each
            ``{"estimate", "lower", "upper", "method"}``), the lists ``calibration``,
            ``group_calibration``, ``km_curves`` and ``notes``.
        """
        out: dict[str, Any] = {
            "kind": self.kind,
            "n": int(self.n),
            "events": int(self.events),
            "horizon": json_number(self.horizon),
            "time_unit": self.time_unit,
            "events_by_horizon": int(self.events_by_horizon),
            "confidence": float(self.confidence),
            "censoring_from": self.censoring_from,
            "predicted_risk": json_number(self.predicted_risk),
            "min_group_rows": int(self.min_group_rows),
            "n_boot": int(self.n_boot),
        }
        out.update(self._headline_dicts())
        out["calibration"] = records(self.calibration)
        out["group_calibration"] = records(self.group_calibration)
        out["km_curves"] = [dict(curve) for curve in self.km_curves]
        out["notes"] = list(self.notes)
        return out

    def _first_line(self) -> str:
        share = 100 * self.events / self.n if self.n else math.nan
        return (
            f"Validation of a {self.kind} on {self.n} patients, {self.events} with the event "
            f"({share:.1f}%), {self.events_by_horizon} by the horizon "
            f"{horizon_words(self.horizon, self.time_unit)}; mean predicted risk by then "
            f"{100 * self.predicted_risk:.1f}%"
        )
