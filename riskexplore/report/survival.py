"""The report's sections for a survival score (a family with ``outcome == "survival"``):
its figures at the horizon side by side for each cohort, the Kaplan-Meier curves and the
calibration plots by score group, and the words that explain them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from riskexplore.evaluation.survival.result import horizon_words
from riskexplore.figures.survival import km_figure, survival_calibration_figure
from riskexplore.report.cohorts import Cohort
from riskexplore.report.markup import paragraph, percent, section
from riskexplore.report.performance import figure_blocks, metric_number, performance_section

__all__ = ["SURVIVAL_CONTENTS", "survival_figures_section", "survival_metrics_section"]

#: The sections of a survival score's report (anchor, title), for its table of contents.
SURVIVAL_CONTENTS = (
    ("model", "The model"),
    ("settings", "Certificate, settings and rules"),
    ("data", "Data"),
    ("performance", "Performance"),
    ("survival-curves", "Survival by score group"),
    ("calibration", "Calibration at the horizon"),
    ("audit", "Subgroup audit"),
    ("tripod", "TRIPOD+AI items"),
)

#: The metrics table's rows: label, key, what is ideal.
_METRICS = (
    ("Harrell's C (discrimination)", "harrell_c", "1 is perfect, 0.5 is chance"),
    ("Uno's C up to the horizon", "uno_c", "1 is perfect, 0.5 is chance"),
    ("time-dependent AUC at the horizon", "time_auc", "1 is perfect, 0.5 is chance"),
    ("observed / expected risk (O/E)", "observed_expected", "ideal 1"),
    ("calibration slope", "calibration_slope", "ideal 1"),
)


def _risk(metric: Mapping[str, Any] | None) -> str:
    """A risk as a percent, with its interval when it has one."""
    metric = metric or {}
    value = percent(metric.get("estimate"))
    if metric.get("lower") is None or metric.get("upper") is None:
        return value
    return f"{value} ({percent(metric['lower'])} to {percent(metric['upper'])})"


def _patients(v: Mapping[str, Any]) -> str:
    return (
        f"{int(v['n']):,} ({int(v.get('events') or 0):,}; "
        f"{int(v.get('events_by_horizon') or 0):,} by the horizon)"
    )


def survival_metrics_section(cohorts: Sequence[Cohort]) -> str:
    """A survival score's figures at the horizon, each cohort side by side.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts (their validations: survival validation dicts).

    Returns
    -------
    str
        The section.
    """
    first = cohorts[0].validation
    level = f"{100 * float(first.get('confidence') or 0.95):.0f}%"
    rows = [
        ["patients (events; events by the horizon)", *(_patients(c.validation) for c in cohorts)],
        ["horizon", *(horizon_words(c.validation["horizon"], c.validation.get("time_unit"))
                      for c in cohorts)],
        ["mean predicted risk by the horizon",
         *(_risk({"estimate": c.validation.get("predicted_risk")}) for c in cohorts)],
        ["observed risk by the horizon (1 − Kaplan-Meier)",
         *(_risk(c.validation.get("observed_risk")) for c in cohorts)],
        *([label, *(metric_number(c.validation.get(key)) for c in cohorts)]
          for label, key, _ in _METRICS),
    ]  # fmt: skip
    ideal = {label: what for label, _, what in _METRICS}
    rows = [[*r, ideal.get(r[0], "")] for r in rows]
    intro = (
        f"Each number is followed by its {level} confidence interval in brackets. The "
        "C statistics and the time-dependent AUC (bootstrap intervals) say how well the "
        "total score orders the patients by when they had the event; the observed risk by "
        "the horizon is one minus the Kaplan-Meier survival there; O/E compares it with "
        "the mean predicted risk; the calibration slope is the Cox coefficient of the "
        "total score on these patients."
    )
    return performance_section(cohorts, intro, rows)


def survival_figures_section(cohorts: Sequence[Cohort], embed: Callable) -> str:
    """The Kaplan-Meier curves by score group, then the calibration plots at the horizon.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts.
    embed : callable
        A figure -> its HTML.

    Returns
    -------
    str
        Two sections.
    """
    curves = paragraph(
        "The share of patients still free of the event over time (Kaplan-Meier), one curve "
        "per group of adjacent total scores, with its 95% band. Well separated curves, "
        "ordered by score, mean the score sorts patients by their risk."
    ) + figure_blocks(cohorts, km_figure, "Survival by score group", embed, 440)
    calibration = paragraph(
        "Each point is a group of scores: the mean risk the model predicts by the horizon "
        "against the observed risk (one minus Kaplan-Meier) with its 95% interval; larger "
        "points are more patients. Points on the diagonal are perfectly calibrated."
    ) + figure_blocks(cohorts, survival_calibration_figure, "Calibration", embed, 430)
    return "\n".join(
        (
            section("survival-curves", "Survival by score group", curves),
            section("calibration", "Calibration at the horizon", calibration),
        )
    )
