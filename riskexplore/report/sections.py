"""The report's sections about the model and its data: the card, its certificate in plain
words, the settings and rules, and the data summary of each cohort."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from riskexplore.core.registry import family_of
from riskexplore.report.cohorts import Cohort, DataSummary
from riskexplore.report.markup import esc, paragraph, percent, section, setting, table

__all__ = [
    "card_section",
    "certificate_words",
    "data_section",
    "settings_section",
]


def card_section(model: Any) -> str:
    """The model as printed (its ``to_html()``), under the family's name.

    Parameters
    ----------
    model : fitted model
        A model of any registered family.

    Returns
    -------
    str
        The section.
    """
    family = family_of(model)
    return section(
        "model", f"The {family.noun}", f'<div class="rx-card-box">{model.to_html()}</div>'
    )


def certificate_words(model: Any) -> str:
    """The certificate in plain words: proven optimal, or how far from optimal at most.

    Parameters
    ----------
    model : fitted model
        The model.

    Returns
    -------
    str
        One or two sentences.
    """
    noun = family_of(model).noun
    cert = getattr(model, "certificate", None)
    if cert is None:
        return f"This {noun} has no certificate: how close it is to the best one is not known."
    gap = float(cert.gap)
    if cert.is_optimal:
        return (
            f"This {noun} is proven optimal: no {noun} with the same settings and rules fits "
            "the development data better (optimality gap 0%)."
        )
    reason = {
        "time_limit": "the search reached its time limit",
        "node_limit": "the search reached its node limit",
        "stopped": "the search was stopped",
        "edited": f"the {noun} was edited by hand",
        "alternative": f"it is a near-optimal alternative to the best {noun}",
    }.get(cert.status, f"the search ended with status {cert.status!r}")
    if not math.isfinite(gap):
        return f"This {noun} is not proven optimal ({reason}); no bound was proven."
    return (
        f"This {noun} is not proven optimal ({reason}), but it is proven to be at most "
        f"{percent(gap)} worse than the best {noun} with the same settings and rules "
        f"(optimality gap {percent(gap)})."
    )


def _rule_text(rule: Any) -> str:
    describe = getattr(rule, "describe", None)
    return str(describe()) if callable(describe) else str(rule)


def settings_section(model: Any, settings: Any = None, rules: Sequence[Any] = ()) -> str:
    """The certificate in words, the fit's settings and the rules the model obeys.

    Parameters
    ----------
    model : fitted model
        The model.
    settings : mapping or str, optional
        The fit's settings (name -> value) or a text.
    rules : sequence
        Constraints (their ``describe()``) or sentences.

    Returns
    -------
    str
        The section.
    """
    body = [paragraph(certificate_words(model), "rx-certificate")]
    if isinstance(settings, Mapping) and settings:
        body.append(table(["setting", "value"], [(k, setting(v)) for k, v in settings.items()]))
    elif settings:
        body.append(f'<pre class="rx-text">{esc(settings)}</pre>')
    else:
        body.append(paragraph("Settings: not given."))
    if rules:
        items = "".join(f"<li>{esc(_rule_text(r))}</li>" for r in rules)
        body.append(
            f"<p>Rules every {family_of(model).noun} of the search obeys:</p><ul>{items}</ul>"
        )
    else:
        body.append(paragraph("Rules: none beyond the settings."))
    return section("settings", "Certificate, settings and rules", "\n".join(body))


def _summary_rows(cohorts: Sequence[Cohort]) -> list[list[str]]:
    """Rows and events from each validation; the rest from the rows when they were given."""

    def cell(fn):
        return [("not given" if c.data is None else fn(c.data)) for c in cohorts]

    rows = [
        ["rows (patients)", *(f"{int(c.validation['n']):,}" for c in cohorts)],
        ["with the outcome", *(_events(c.validation) for c in cohorts)],
        ["columns", *cell(lambda d: str(d.columns))],
        ["period", *cell(lambda d: "not given" if d.period is None else " to ".join(d.period))],
    ]
    names = sorted({n for c in cohorts if c.data is not None for n, _ in c.data.missing})
    rows += [[f"missing: {n}", *cell(lambda d, n=n: _missing_cell(d, n))] for n in names]
    if not names:
        rows.append(["missing values", *cell(lambda d: "none")])
    return rows


def _events(v: Mapping[str, Any]) -> str:
    events, n = int(v.get("events") or 0), int(v["n"])
    return f"{events:,} ({percent(events / n if n else None)})"


def _missing_cell(d: DataSummary, name: str) -> str:
    count = dict(d.missing).get(name, 0)
    return f"{count:,} ({percent(count / d.rows)})" if d.rows else "0"


def data_section(cohorts: Sequence[Cohort], outcome: str | None = None) -> str:
    """The data of each cohort side by side: rows, outcome rate, period, missing values.

    Parameters
    ----------
    cohorts : sequence of Cohort
        The report's cohorts.
    outcome : str, optional
        The outcome in words when it is not a 0/1 column (a survival score's: "the time
        to the event, censored or not").

    Returns
    -------
    str
        The section (a cohort given only as a validation shows its rows and events).
    """
    data = [c.data for c in cohorts if c.data is not None]
    column = next((d.outcome for d in data if d.outcome), "")
    dates = next((d.date_column for d in data if d.date_column), None)
    lines = [
        f"Outcome: {outcome}; with the outcome = the patients who had the event."
        if outcome
        else f"Outcome: {column or 'the 0/1 outcome given'} (1 = event)."
    ]
    lines.append(
        f"Period: the first and last date of column {dates!r}."
        if dates
        else "Period: not covered (no date column was named)."
    )
    body = [paragraph(line) for line in lines]
    body.append(table(["", *(c.name for c in cohorts)], _summary_rows(cohorts)))
    return section("data", "Data", "\n".join(body))
