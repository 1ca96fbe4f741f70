"""The decision curve and the score table on tables small enough to work out on paper."""

from __future__ import annotations

import math

import numpy as np
import pytest

from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import wilson_interval
from riskexplore.evaluation.validation import net_benefit, observed_expected
from riskexplore.evaluation.validation.score_table import score_table

# ten patients: predicted risks and outcomes
RISK = np.array([0.1, 0.1, 0.3, 0.3, 0.3, 0.6, 0.6, 0.8, 0.8, 0.9])
Y = np.array([0, 0, 0, 1, 0, 1, 0, 1, 1, 1])


@pytest.mark.parametrize(
    ("t", "model", "treat_all"),
    [
        # treated: the 8 with risk >= 0.2 (5 events, 3 not): 5/10 - 3/10 * 0.2/0.8
        (0.2, 0.425, 0.375),
        # t = 0.3 treats the patients at exactly 0.3 too: 5/10 - 3/10 * 0.3/0.7
        (0.3, 0.5 - 0.3 * 3 / 7, 0.5 - 0.5 * 3 / 7),
        # 5 treated (4 events, 1 not): 4/10 - 1/10 * 1
        (0.5, 0.3, 0.0),
        # 3 treated, all events: 3/10; treating everyone: 5/10 - 5/10 * 7/3
        (0.7, 0.3, 0.5 - 0.5 * 7 / 3),
        # nobody treated
        (0.95, 0.0, 0.5 - 0.5 * 19),
    ],
)
def test_net_benefit_worked_on_paper(t, model, treat_all):
    curve = net_benefit(Y, RISK).set_index("threshold")
    row = curve.loc[round(t, 2)]
    assert row["model"] == pytest.approx(model, abs=1e-12)
    assert row["treat_all"] == pytest.approx(treat_all, abs=1e-12)
    assert row["treat_none"] == 0


def test_net_benefit_without_risks_keeps_treat_all():
    curve = net_benefit(Y, None)
    assert curve["model"].isna().all() and len(curve) == 99
    assert curve["treat_all"].iloc[0] == pytest.approx(0.5 - 0.5 / 99)


def test_net_benefit_subtracts_a_harm_from_the_model_only():
    plain = net_benefit(Y, RISK, [0.2, 0.5])
    harmed = net_benefit(Y, RISK, [0.2, 0.5], harm=0.05)
    assert list(harmed["model"]) == pytest.approx(list(plain["model"] - 0.05))
    assert list(harmed["treat_all"]) == list(plain["treat_all"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"risk": RISK[:-1]}, "10 outcomes but 9 predicted risks"),
        ({"risk": RISK * 100}, r"row 0 is 10\.0.*not its score or a percentage"),
        ({"risk": np.where(RISK > 0.5, np.nan, RISK)}, "row 5 is nan"),
        ({"risk": RISK, "thresholds": [0.1, 1.0]}, "strictly between 0 and 1, got 1.0"),
        ({"risk": RISK, "harm": math.inf}, "harm must be a finite number"),
        ({"risk": RISK, "y": Y * 2}, "y must be 0/1"),
    ],
)
def test_net_benefit_bad_input(kwargs, match):
    args = {"y": Y, **kwargs}
    with pytest.raises(InputError, match=match):
        net_benefit(**args)


def test_score_table_worked_on_paper():
    score = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    y = np.array([0, 1, 0, 0, 1, 1, 1, 0])
    table = score_table(y, score, risk=score / 10)
    assert list(table["score"]) == [0, 1, 2, 3]
    assert list(table["patients"]) == [2, 3, 1, 2]
    assert list(table["events"]) == [1, 1, 1, 1]
    assert list(table["predicted_risk"]) == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert list(table["sensitivity"]) == pytest.approx([1, 3 / 4, 2 / 4, 1 / 4])
    assert list(table["specificity"]) == pytest.approx([0, 1 / 4, 3 / 4, 3 / 4])
    assert list(table["ppv"]) == pytest.approx([4 / 8, 3 / 6, 2 / 3, 1 / 2])
    assert math.isnan(table["npv"][0])  # nobody scores below 0
    assert list(table["npv"][1:]) == pytest.approx([1 / 2, 3 / 5, 3 / 6])
    assert (table.loc[2, "lower"], table.loc[2, "upper"]) == wilson_interval(1, 1)
    assert table.loc[2, "upper"] == 1.0


def test_score_table_without_risks_or_events():
    table = score_table(np.zeros(3), np.array([1, 1, 2]))
    assert table["predicted_risk"].isna().all() and table["sensitivity"].isna().all()
    assert list(table["specificity"]) == [0.0, 2 / 3]


def test_observed_expected_interval():
    oe = observed_expected(Y, RISK)
    assert oe.estimate == pytest.approx(5 / 4.8)
    assert oe.lower == pytest.approx(5 / 4.8 * math.exp(-1.959963984540054 / math.sqrt(5)))
    assert observed_expected(np.zeros(3), np.full(3, 0.2)).estimate == 0.0
