"""The report as one self-contained HTML page: :func:`report_html` and
:func:`write_report`. Plotly's JavaScript is inlined once, every figure is a ``<div>``
drawn by it, and the CSS is inline: the file opens offline and prints to PDF with each
section kept on one page where it fits."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from riskexplore import __version__
from riskexplore.core.registry import family_of
from riskexplore.errors import InputError
from riskexplore.report.audit import audit_section, audits
from riskexplore.report.cohorts import Cohort, cohort
from riskexplore.report.markup import esc
from riskexplore.report.performance import (
    calibration_section,
    decision_section,
    metrics_section,
    score_table_section,
)
from riskexplore.report.sections import card_section, data_section, settings_section
from riskexplore.report.survival import (
    SURVIVAL_CONTENTS,
    survival_figures_section,
    survival_metrics_section,
)
from riskexplore.report.tripod import SURVIVAL_TRIPOD_ITEMS, ReportContents, tripod_section

__all__ = ["STYLE", "report_html", "write_report"]

#: The page's CSS: plain, narrow enough for a printed page, one section per page block.
STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       max-width: 760px; margin: 24px auto; padding: 0 16px; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 3px; margin-top: 1.6em; }
h3 { font-size: 1.05em; }
.rx-meta { color: #555; margin-top: 0; }
.rx-table { border-collapse: collapse; margin: 8px 0; width: 100%; font-size: 0.92em; }
.rx-table th, .rx-table td { border: 1px solid #ddd; padding: 3px 6px; text-align: left;
       vertical-align: top; }
.rx-table th { background: #f2f4f7; }
.rx-small { font-size: 0.8em; }
.rx-text { white-space: pre-wrap; font-size: 0.9em; background: #f7f7f7; padding: 6px; }
.rx-figure { margin: 10px 0; page-break-inside: avoid; break-inside: avoid; }
.rx-certificate { font-weight: 600; }
nav ol { columns: 2; }
@media print {
  body { margin: 0; max-width: none; }
  nav { display: none; }
  section { page-break-inside: avoid; break-inside: avoid; }
  #calibration, #net-benefit, #audit, #score-table { page-break-before: always;
       break-before: page; }
  tr, .rx-figure { page-break-inside: avoid; break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
@page { size: A4; margin: 14mm; }
"""

_CONTENTS = (
    ("model", "The model"),
    ("settings", "Certificate, settings and rules"),
    ("data", "Data"),
    ("performance", "Performance"),
    ("calibration", "Calibration"),
    ("net-benefit", "Clinical usefulness"),
    ("score-table", "Score table"),
    ("audit", "Subgroup audit"),
    ("tripod", "TRIPOD+AI items"),
)


def _embed(fig) -> str:
    """A figure as a ``<div>`` and its drawing script (plotly's JS is on the page)."""
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        config={"displayModeBar": False, "responsive": False},
    )


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _cohorts(model, development, validation, date_column) -> list[Cohort]:
    found = [
        c
        for c in (
            cohort("development", model, development, date_column),
            cohort("validation", model, validation, date_column),
        )
        if c is not None
    ]
    if not found:
        raise InputError(
            "a report needs data to show: give development=(X, y) and/or validation= "
            "(rows (X, y), riskexplore.validate(...) or its to_dict())"
        )
    return found


def report_html(
    model: Any,
    *,
    development: Any = None,
    validation: Any = None,
    audit: Any = None,
    settings: Any = None,
    rules: Sequence[Any] = (),
    date_column: str | None = None,
    title: str | None = None,
) -> str:
    """The report of a fitted model as one self-contained HTML page.

    Parameters
    ----------
    model : fitted model
        A risk score, a checklist, or a model of any registered family.
    development : (X, y), (X, y, Validation), Validation or dict, optional
        The development (training) data: rows are validated here (unless their
        validation is given with them) and summarised in the Data section.
    validation : (X, y), (X, y, Validation), Validation or dict, optional
        The validation data, likewise (e.g. another hospital's patients, or
        :func:`~riskexplore.evaluation.validation.validate` on them).
    audit : AuditResult, its dict, or a mapping name -> either, optional
        Subgroup audit(s) to show.
    settings : mapping or str, optional
        The fit's settings (name -> value) or a text.
    rules : sequence, optional
        The constraints of the fit (their ``describe()``) or sentences.
    date_column : str, optional
        A column of the rows with each patient's date: the Data section gives the period.
    title : str, optional
        The page's title.

    Returns
    -------
    str
        The HTML.

    Raises
    ------
    InputError
        Without development or validation data, or for a date column that is not there.
    """
    family = family_of(model)
    cohorts = _cohorts(model, development, validation, date_column)
    heading = title or f"{family.label}: development and validation report"
    contents = ReportContents(
        development=any(c.name == "development" for c in cohorts),
        validation=any(c.name == "validation" for c in cohorts),
        audit=bool(audits(audit)),
        period=any(c.data is not None and c.data.period for c in cohorts),
        settings=bool(settings),
    )
    head = [card_section(model), settings_section(model, settings, rules)]
    if family.outcome == "survival":  # figures at a horizon (no decision curve)
        body = [
            data_section(cohorts, outcome="the time to the event, censored or not"),
            survival_metrics_section(cohorts),
            survival_figures_section(cohorts, _embed),
            audit_section(audit),
            tripod_section(contents, SURVIVAL_TRIPOD_ITEMS),
        ]
        return _document(heading, "\n".join(head + body), SURVIVAL_CONTENTS)
    body = [
        data_section(cohorts),
        metrics_section(cohorts),
        calibration_section(cohorts, _embed),
        decision_section(cohorts, _embed),
        score_table_section(cohorts[-1], family.noun),
        audit_section(audit),
        tripod_section(contents),
    ]
    return _document(heading, "\n".join(head + body), _CONTENTS)


def _document(heading: str, body: str, contents: Sequence[tuple[str, str]]) -> str:
    today = datetime.date.today().isoformat()
    nav = "".join(f'<li><a href="#{a}">{esc(t)}</a></li>' for a, t in contents)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(heading)}</title><style>{STYLE}</style>"
        f"<script>{_plotly_js()}</script></head>\n<body>"
        f"<h1>{esc(heading)}</h1>"
        f'<p class="rx-meta">Written on {today} by riskexplore {esc(__version__)}.</p>'
        f"<nav><ol>{nav}</ol></nav>\n{body}\n</body></html>\n"
    )


def write_report(model: Any, path: str | Path, **kwargs: Any) -> Path:
    """Write the report of :func:`report_html` to ``path`` (UTF-8).

    Parameters
    ----------
    model : fitted model
        The model.
    path : str or Path
        The HTML file.
    **kwargs
        The arguments of :func:`report_html`.

    Returns
    -------
    Path
        The file written.
    """
    path = Path(path)
    path.write_text(report_html(model, **kwargs), encoding="utf-8")
    return path
