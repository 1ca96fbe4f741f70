"""The report's sections about how well the model does: development and validation
metrics side by side, the calibration and decision-curve figures, and the score table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from riskexplore.figures.validation import calibration_figure, decision_curve_figure
from riskexplore.report.cohorts import Cohort
from riskexplore.report.markup import esc, number, paragraph, percent, section, table

__all__ = [
    "FIGURE_WIDTH",
    "NET_BENEFIT_THRESHOLDS",
    "calibration_section",
    "decision_section",
    "figure_blocks",
    "metric_number",
    "metrics_section",
    "performance_section",
    "score_table_section",
]

#: The figures' width in pixels: fits a printed A4 or Letter page with its margins.
FIGURE_WIDTH = 680
#: The thresholds at which the decision section lists the net benefits in numbers.
NET_BENEFIT_THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.5)

#: The metrics table's rows: label, key, what is ideal.
_METRICS = (
    ("AUC (discrimination)", "auc", "1 is perfect, 0.5 is chance"),
    ("calibration-in-the-large (intercept)", "calibration_intercept", "ideal 0"),
    ("calibration slope", "calibration_slope", "ideal 1"),
    ("observed / expected events (O/E)", "observed_expected", "ideal 1"),
    ("Brier score", "brier", "lower is better"),
)


def metric_number(metric: Mapping[str, Any] | None, digits: int = 3) -> str:
    """A metric of a validation dict with its interval: ``0.81 (0.78 to 0.84)``.

    Parameters
    ----------
    metric : mapping or None
        ``{"estimate", "lower", "upper"}``.
    digits : int
        Significant digits.

    Returns
    -------
    str
        The text (``—`` without an estimate).
    """
    if not metric or metric.get("estimate") is None:
        return "—"
    text = number(metric["estimate"], digits)
    if metric.get("lower") is not None and metric.get("upper") is not None:
        text += f" ({number(metric['lower'], digits)} to {number(metric['upper'], digits)})"
    return text


def metrics_section(cohorts: Sequence[Cohort]) -> str:
    """Development and validation metrics side by side, with their intervals and notes.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts.

    Returns
    -------
    str
        The section.
    """
    level = f"{100 * float(cohorts[0].validation.get('confidence') or 0.95):.0f}%"
    rows = [
        ["patients (events)", *(_patients(c.validation) for c in cohorts), ""],
        *(
            [label, *(metric_number(c.validation.get(key)) for c in cohorts), ideal]
            for label, key, ideal in _METRICS
        ),
    ]
    intro = (
        f"Each number is followed by its {level} confidence interval in brackets (AUC: "
        "DeLong's method). The calibration intercept and slope come from a logistic "
        "regression of the outcome on the model's predicted log-odds."
    )
    return performance_section(cohorts, intro, rows)


def performance_section(cohorts: Sequence[Cohort], intro: str, rows: list[list[str]]) -> str:
    """The performance section: its words, the metrics table and the cohorts' notes.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts (their names head the table's columns).
    intro : str
        The paragraph before the table.
    rows : list of list of str
        The table's rows: measure, one cell per cohort, what is ideal.

    Returns
    -------
    str
        The section.
    """
    body = [
        paragraph(intro),
        table(["measure", *(c.name for c in cohorts), "what is ideal"], rows),
    ]
    notes = [f"{c.name}: {n}" for c in cohorts for n in c.validation.get("notes") or ()]
    if notes:
        body.append(
            '<ul class="rx-notes">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"
        )
    return section("performance", "Performance: development and validation", "\n".join(body))


def _patients(v: Mapping[str, Any]) -> str:
    return f"{int(v['n']):,} ({int(v.get('events') or 0):,})"


def figure_blocks(
    cohorts: Sequence[Cohort], draw: Callable[..., Any], what: str, embed, height: int
) -> str:
    """One figure per cohort, ``draw(validation, title=, width=, height=)``, as HTML blocks.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts.
    draw : callable
        A figure function of a validation (dict).
    what : str
        The figures' title, before the cohort's name.
    embed : callable
        A figure -> its HTML.
    height : int
        The figures' height in pixels.

    Returns
    -------
    str
        The blocks.
    """
    return "\n".join(
        '<div class="rx-figure">'
        + embed(
            draw(
                c.validation,
                title=f"{what}, {c.name} ({int(c.validation['n']):,} patients)",
                width=FIGURE_WIDTH,
                height=height,
            )
        )
        + "</div>"
        for c in cohorts
    )


def calibration_section(cohorts: Sequence[Cohort], embed: Callable) -> str:
    """The calibration plot of each cohort.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts.
    embed : callable
        A figure -> its HTML.

    Returns
    -------
    str
        The section.
    """
    body = paragraph(
        "Each point is the patients with one total score: the risk the model predicts for "
        "them against the share who had the outcome, with its 95% Wilson interval; larger "
        "points are more patients. Points on the diagonal are perfectly calibrated."
    )
    figures = figure_blocks(cohorts, calibration_figure, "Calibration", embed, 430)
    return section("calibration", "Calibration", body + "\n" + figures)


def _benefit_rows(cohorts: Sequence[Cohort]) -> list[list[str]]:
    rows = []
    for c in cohorts:
        by_t = {round(float(r["threshold"]), 4): r for r in c.validation["net_benefit"]}
        for t in NET_BENEFIT_THRESHOLDS:
            r = by_t.get(round(t, 4))
            if r is not None:
                cells = [number(r.get(k), 3) for k in ("model", "treat_all", "treat_none")]
                rows.append([c.name, percent(t, 0), *cells])
    return rows


def decision_section(cohorts: Sequence[Cohort], embed: Callable) -> str:
    """The decision curve of each cohort, and its net benefit at a few thresholds.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts.
    embed : callable
        A figure -> its HTML.

    Returns
    -------
    str
        The section.
    """
    body = [
        paragraph(
            "Net benefit counts the true positives per patient, minus the false positives "
            "weighted by the odds of the threshold risk at which one would treat. The model "
            "is useful at the thresholds where its curve lies above both treating everyone "
            "and treating no one."
        ),
        figure_blocks(cohorts, decision_curve_figure, "Decision curve", embed, 380),
        table(
            ["cohort", "threshold", "the model", "treat all", "treat none"], _benefit_rows(cohorts)
        ),
    ]
    return section(
        "net-benefit", "Clinical usefulness: net benefit (decision curve)", "\n".join(body)
    )


def _rate_with_interval(r) -> str:
    low, high = percent(r.get("lower")), percent(r.get("upper"))
    return f"{percent(r.get('observed_rate'))} ({low} to {high})"


def score_table_section(cohort: Cohort, noun: str) -> str:
    """The score table of one cohort: patients, observed rate, predicted risk and the
    rates of "positive when the score is at least s", per total score.

    Parameters
    ----------
    cohort : Cohort
        The cohort (the validation one when there is one).
    noun : str
        What the model is called (``score``, ``checklist``).

    Returns
    -------
    str
        The section.
    """
    rows = [
        [
            number(r["score"], 4),
            f"{int(r['patients']):,}",
            f"{int(r['events']):,}",
            _rate_with_interval(r),
            percent(r.get("predicted_risk")),
            *(percent(r.get(k)) for k in ("sensitivity", "specificity", "ppv", "npv")),
        ]
        for r in cohort.validation["score_table"]
    ]
    headers = [
        "score s",
        "patients",
        "events",
        "observed rate (95% interval)",
        "predicted risk",
        "sensitivity",
        "specificity",
        "PPV",
        "NPV",
    ]
    words = paragraph(
        f"On the {cohort.name} data. Row s: the patients whose {noun} total is exactly s; "
        "sensitivity, specificity, PPV and NPV are those of calling a patient positive when "
        "the total is at least s."
    )
    return section("score-table", "Score table", words + "\n" + table(headers, rows))
