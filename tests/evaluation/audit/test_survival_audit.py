"""The subgroup audit of a survival score: per group Harrell's C, observed (Kaplan-Meier)
against predicted risk at the horizon and O/E, as validate_survival gives on the group's
rows; a group without an event is refused in words."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _survival_data import structured, survival_table

from riskexplore import audit, fit_survival_score
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.validation import validate_survival


@pytest.fixture(scope="module")
def fitted():
    table = survival_table(n=300, seed=4)
    table["site"] = np.where(np.arange(300) % 10 == 0, "C", np.where(table["sex"] == 1, "A", "B"))
    table.loc[table["site"] == "C", "died"] = 0  # site C: every row censored
    X = table[["age", "chf"]]
    model = fit_survival_score(
        X, table["days"], table["died"], max_size=2, coef_min=-3, coef_max=3, horizon=365,
        n_jobs=1, time_unit="days",
    )  # fmt: skip
    return model, table, structured(table["days"].to_numpy(float), table["died"].to_numpy(bool))


def test_a_group_has_the_numbers_of_validate_survival_on_its_rows(fitted):
    model, table, y = fitted
    result = audit(model, table, y, "site", n_boot=50, min_size=20)
    assert result.settings["outcome"] == "survival" and result.settings["horizon"] == 365
    row = result.table.set_index("group").loc["site = A"]
    rows = (table["site"] == "A").to_numpy()
    alone = validate_survival(
        model.total_points(table[rows]), model.predict_risk(table[rows]), y["time"][rows],
        y["event"][rows], 365, train_time=y["time"], train_event=y["event"], n_boot=50,
        random_state=1,
    )  # fmt: skip
    assert row["n"] == rows.sum() and row["events"] == y["event"][rows].sum()
    assert row["c_index"] == pytest.approx(alone.harrell_c.estimate)
    assert (row["c_index_low"], row["c_index_high"]) == pytest.approx(
        (alone.harrell_c.lower, alone.harrell_c.upper)
    )
    assert row["observed_risk"] == pytest.approx(alone.observed_risk.estimate)
    assert row["predicted_risk"] == pytest.approx(alone.predicted_risk)
    assert row["observed_expected"] == pytest.approx(alone.observed_expected.estimate)
    assert row["observed_risk_low"] <= row["observed_risk"] <= row["observed_risk_high"]
    site_c = result.table.set_index("group").loc["site = C"]
    assert site_c["events"] == 0 and "no event in this group" in site_c["note"]
    assert math.isnan(site_c["c_index"])
    text = result.to_text()
    assert "C-index" in text and "no event in this group" in text and "O/E" in text
    assert "risk by 365 days)" in text and result.settings["time_unit"] == "days"
    assert result.to_dict()["groups"][0]["group"] == "site = A"


def test_bad_input_is_refused_in_words(fitted):
    model, table, y = fitted
    with pytest.raises(InputError, match="horizon"):
        audit(model, table, y, "site", horizon=-1)
    with pytest.raises(InputError, match="time"):
        audit(model, table, table["died"], "site")  # a 0/1 label is no survival outcome


def test_a_group_whose_events_come_sooner_than_predicted_is_a_finding(fitted):
    model, table, y = fitted
    sooner = y.copy()
    rows = (table["site"] == "B").to_numpy()
    sooner["time"][rows] = np.ceil(sooner["time"][rows] / 4)  # events 4 times sooner
    result = audit(model, table, sooner, "site", n_boot=20, min_size=20)
    (finding,) = result.findings
    assert finding.group == "site = B" and finding.metric == "calibration"
    assert finding.value > finding.rest_value and finding.low > 0
    assert "more than the" in finding.sentence and "by 365 days (95% interval" in finding.sentence
