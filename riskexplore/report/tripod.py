"""The TRIPOD+AI items table: for each item a report can answer, the section of this
report that answers it, or why it is not covered (Collins et al., BMJ 2024;385:e078378).
"""

from __future__ import annotations

from dataclasses import dataclass

from riskexplore.report.markup import esc, section

__all__ = [
    "SURVIVAL_TRIPOD_ITEMS",
    "TRIPOD_ITEMS",
    "ReportContents",
    "TripodItem",
    "tripod_section",
]


@dataclass(frozen=True)
class ReportContents:
    """What a report holds, for the items that depend on it."""

    development: bool
    validation: bool
    audit: bool
    period: bool
    settings: bool


@dataclass(frozen=True)
class TripodItem:
    """One TRIPOD+AI item: its number, topic, the section answering it (its anchor and
    name) and, when the answer depends on what was given, what must be given."""

    number: str
    topic: str
    anchor: str
    where: str
    needs: str = ""


#: The items a report of riskexplore answers (in part or whole), numbered and titled as in
#: the TRIPOD+AI checklist (its 27 items and their sub-items a, b, c).
TRIPOD_ITEMS = (
    TripodItem("5b", "data: dates, start and end of accrual", "data", "Data: period", "period"),
    TripodItem("8a", "outcome: what is predicted", "data", "Data: outcome"),
    TripodItem(
        "11",
        "missing data (how they were handled: for the authors)",
        "data",
        "Data: missing values per column",
    ),
    TripodItem(
        "12c",
        "analytical methods: type of model and how it was built",
        "settings",
        "Certificate, settings and rules",
        "settings",
    ),
    TripodItem(
        "12e",
        "analytical methods: measures and plots of performance",
        "performance",
        "Performance, Calibration, Clinical usefulness",
    ),
    TripodItem("14", "fairness: how it was assessed", "audit", "Subgroup audit", "audit"),
    TripodItem("15", "model output and thresholds", "score-table", "Score table"),
    TripodItem(
        "16",
        "training versus evaluation: differences between the data",
        "data",
        "Data (cohorts side by side)",
        "both",
    ),
    TripodItem("20b", "participants: characteristics, events, missing data", "data", "Data"),
    TripodItem(
        "20c", "participants: evaluation data against development data", "data", "Data", "both"
    ),
    TripodItem(
        "21", "participants and outcome events in each analysis", "performance", "Performance"
    ),
    TripodItem("22", "model specification: the full model", "model", "The model"),
    TripodItem(
        "23a",
        "model performance with confidence intervals",
        "performance",
        "Performance, Calibration, Clinical usefulness",
    ),
    TripodItem("23a", "model performance in key subgroups", "audit", "Subgroup audit", "audit"),
)

#: The items a survival score's report answers: its figures are at a horizon, its output
#: is the risk table of the card; the subgroup audit items stay (covered when an audit of
#: the survival score is given).
SURVIVAL_TRIPOD_ITEMS = (
    *(i for i in TRIPOD_ITEMS if i.anchor not in ("score-table", "performance")),
    TripodItem(
        "12e",
        "analytical methods: measures and plots of performance",
        "performance",
        "Performance, Survival by score group, Calibration at the horizon",
    ),
    TripodItem("15", "model output: risk of the event by each horizon", "model", "The model"),
    TripodItem(
        "21", "participants and outcome events in each analysis", "performance", "Performance"
    ),
    TripodItem(
        "23a",
        "model performance with confidence intervals",
        "performance",
        "Performance, Calibration at the horizon",
    ),
)

#: Items for the authors: nothing in the data or the model answers them.
_FOR_AUTHORS = (
    "1–4 (title, abstract, background, objectives), 5a (data sources), 6 (setting, "
    "eligibility, treatments), 7 (data preparation), 8b–c, 9 (predictors: their choice and "
    "definitions), 10 (sample size), 12a–b, 12d, 12f–g (model updating, how predictions "
    "were calculated), 13 (class imbalance), 17–19 (ethics, open science, patient "
    "involvement), 20a (flow of participants), 23b (heterogeneity across clusters), 24 "
    "(results of model updating) and 25–27 (discussion)"
)

_MISSING = {
    "period": "not covered: no date column was named, so the period is not reported",
    "settings": "in part: the certificate is shown, the search settings were not given",
    "audit": "not covered: no subgroup audit was run (audit the score by group to answer it)",
    "both": "not covered: give both development and validation data",
}


def _answered(item: TripodItem, contents: ReportContents) -> bool:
    return {
        "": True,
        "period": contents.period,
        "settings": contents.settings,
        "audit": contents.audit,
        "both": contents.development and contents.validation,
    }[item.needs]


def tripod_section(contents: ReportContents, items: tuple[TripodItem, ...] = TRIPOD_ITEMS) -> str:
    """The TRIPOD+AI items table of a report.

    Parameters
    ----------
    contents : ReportContents
        What the report holds.
    items : tuple of TripodItem
        The items the report answers (:data:`SURVIVAL_TRIPOD_ITEMS` for a survival score).

    Returns
    -------
    str
        The section: item, topic, where this report answers it (a link) or why not.
    """
    rows = []
    for item in sorted(items, key=lambda i: (int(i.number.rstrip("abcdefg")), i.number)):
        if _answered(item, contents):
            where = f'<a href="#{item.anchor}">{esc(item.where)}</a>'
        else:
            where = esc(_MISSING[item.needs])
        rows.append(f"<tr><td>{item.number}</td><td>{esc(item.topic)}</td><td>{where}</td></tr>")
    rows.append(
        f"<tr><td>others</td><td>{esc(_FOR_AUTHORS)}</td>"
        "<td>not covered: for the authors to write</td></tr>"
    )
    body = (
        "<p>Where this report answers the items of the TRIPOD+AI checklist (Collins et al., "
        "BMJ 2024) that data and model can answer.</p>"
        '<table class="rx-table"><thead><tr><th>item</th><th>topic</th>'
        "<th>where in this report</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )
    return section("tripod", "TRIPOD+AI items", body)
