"""From a finding to its rule: the constraint, its groups, and that it limits the gap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _audit_data import site_data

from riskexplore.checklist.constraints import GroupRateGap, WorstGroupRate
from riskexplore.checklist.fit import fit_checklist
from riskexplore.checklist.model import Checklist
from riskexplore.errors import ConstraintError
from riskexplore.evaluation.audit import audit
from riskexplore.evaluation.audit.findings import Finding
from riskexplore.evaluation.audit.rules import (
    calibrating_shift,
    group_conditions,
    rule_available,
    rule_for_finding,
)
from riskexplore.risk_score.fit import fit_risk_score
from riskexplore.risk_score.group_calibration import GroupCalibration
from riskexplore.risk_score.problem import RiskScoreProblem


@pytest.fixture(scope="module")
def fitted():
    X, y = site_data()
    features = X[["a", "b", "site"]]
    # site as a number among the features (not binarized): the rule's group column is a
    # feature column of the problem
    model = fit_risk_score(
        features, y, max_size=2, coef_min=-3, coef_max=3, time_limit=30, binarize=False
    )
    return X, y, features, model


def calibration_finding(result, group):
    found = [f for f in result.findings if f.metric == "calibration" and f.group == group]
    assert found, result.to_text()
    return found[0]


def test_a_risk_scores_calibration_finding_gives_a_group_calibration(fitted):
    X, y, features, model = fitted
    result = audit(model, X, y, "site")
    finding = calibration_finding(result, "site = 2")
    assert finding.value > finding.rest_value  # underestimated
    assert rule_available(finding, result) is None
    rule = rule_for_finding(finding, result)
    c = rule.constraint
    assert c == GroupCalibration(
        {"site": 2.0}, max_gap=c.max_gap, limit="under", label="site = 2", target=c.target
    )
    assert rule.group_columns == ("site",)
    assert "underestimates the risk of site = 2" in rule.sentence
    # the target: shifting every score of the group by c makes its average risk the
    # observed rate; the rule asks for at least half of that shift
    mask = X["site"].to_numpy() == 2
    logits = model.decision_function(features)[mask]
    mean = logits.mean()
    shift = c.target - mean
    assert np.mean(1 / (1 + np.exp(-(logits + shift)))) == pytest.approx(y[mask].mean(), abs=1e-3)
    assert shift > 0 and c.max_gap == pytest.approx(round(shift / 2, 2))
    assert mean < c.target - c.max_gap  # the model breaks it: the rule binds
    # the rule picks exactly the audited rows of the group
    problem = RiskScoreProblem(features, y)
    assert np.array_equal(rule.constraint.rows_of(problem), X["site"].to_numpy() == 2)
    # searched again with the rule, the score no longer underestimates the group much
    ruled = fit_risk_score(
        features,
        y,
        max_size=2,
        coef_min=-3,
        coef_max=3,
        constraints=[rule.constraint],
        time_limit=30,
        binarize=False,
    )
    after = audit(ruled, X, y, "site").table.set_index("group").loc["site = 2"]
    before = result.table.set_index("group").loc["site = 2"]
    assert abs(after["calibration_gap"]) < abs(before["calibration_gap"])
    assert ruled.certificate.upper_bound >= model.certificate.lower_bound  # it has a price


def test_binned_groups_become_ranges(fitted):
    X, y, _, model = fitted
    result = audit(model, X, y, "age", bins=[45, 60])
    labels = list(result.table["group"])
    assert labels == ["age under 45", "age 45 to 59", "age 60 and older"]
    assert group_conditions("age under 45", result) == {"age": (None, 45.0)}
    assert group_conditions("age 45 to 59", result) == {"age": (45.0, 60.0)}
    assert group_conditions("age 60 and older", result) == {"age": (60.0, None)}
    problem = RiskScoreProblem(X[["a", "b"]], y, groups=X[["age"]])
    for label in labels:
        rule = GroupCalibration(group_conditions(label, result), label=label)
        in_audit = np.array([g == label for g in _labels(result, X)])
        assert np.array_equal(rule.rows_of(problem), in_audit)
    with pytest.raises(ConstraintError, match="is not a group of the audit by age"):
        group_conditions("age 99 and older", result)


def _labels(result, X):
    from riskexplore.evaluation.audit.groups import make_groups

    return make_groups(X, result.settings["by"], result.settings["bins"]).labels


def test_crossed_groups(fitted):
    X, y, _, model = fitted
    result = audit(model, X, y, ["site", "age"], bins={"age": [60]}, min_size=5)
    for label in result.table["group"]:
        where = group_conditions(label, result)
        assert set(where) == {"site", "age"}
    assert group_conditions("site = 1, age 60 and older", result) == {
        "site": 1.0,
        "age": (60.0, None),
    }


def finding(metric, group="sex = 1", value=0.3, rest=0.1):
    return Finding(group, metric, value, rest, value - rest, 0.05, 0.3, "words")


class _Result:
    def __init__(self, kind, cuts=None):
        self.kind = kind
        self.settings = {"by": ["sex"], "cuts": cuts or {}}


def test_a_checklists_rate_finding_gives_the_group_rate_limits():
    result = _Result("checklist")
    rule = rule_for_finding(finding("fnr"), result)
    assert rule.constraint == GroupRateGap("fnr", 0.1, by=("sex",))
    assert rule.group_columns == ("sex",)
    assert "missed cases (FNR) of sex = 1 is 30%, against 10%" in rule.sentence
    capped = rule_for_finding(finding("fpr"), result, cap=True)
    assert capped.constraint == WorstGroupRate("fpr", 0.2, by=("sex",))
    own = rule_for_finding(finding("fpr"), result, max_gap=0.05)
    assert own.constraint.max_gap == 0.05


def test_findings_without_a_rule_say_why():
    assert rule_available(finding("auc"), _Result("risk_score")) == (
        "the rules of a score can bring a group's predicted risk closer to what happened, "
        "not its ranking of patients (AUC)"
    )
    assert "not its missed cases (FNR)" in rule_available(finding("fnr"), _Result("risk_score"))
    assert "not its share of flagged patients with the outcome (PPV)" in rule_available(
        finding("ppv"), _Result("checklist")
    )
    binned = _Result("checklist", cuts={"sex": [1.0]})
    assert rule_available(finding("fnr"), binned) is None  # a binned group column
    assert rule_for_finding(finding("fnr"), binned).group_columns == ("sex (ranges at 1)",)
    assert "risk scores and checklists only" in rule_available(finding("fnr"), _Result("model"))
    with pytest.raises(ConstraintError, match="no rule limits this finding"):
        rule_for_finding(finding("auc"), _Result("checklist"))
    with pytest.raises(ConstraintError, match=r"shrink must be a number in \[0, 1\)"):
        rule_for_finding(finding("fnr"), _Result("checklist"), shrink=1.0)


def test_the_missing_group_has_no_rule():
    result = _Result("risk_score")
    result.settings = {"by": ["sex"], "cuts": {}}
    with pytest.raises(ConstraintError, match="missing sex has no rule"):
        group_conditions("sex missing", result)


def test_checklist_rule_end_to_end():
    """A checklist that flags every row with b = 1 raises false alarms there; the rule of
    that finding, given the audited column as groups, bounds the gap of the new search."""
    X, y = site_data(seed=3)
    result = audit(Checklist(["b"], 1), X, y, "b")
    (found,) = [f for f in result.findings if f.metric == "fpr"]
    assert found.group == "b = 1" and found.value == 1.0
    rule = rule_for_finding(found, result, max_gap=0.1)
    assert rule.constraint == GroupRateGap("fpr", 0.1, by=("b",))
    ruled = fit_checklist(
        X[["a", "b"]],
        y,
        max_items=2,
        binarize=None,
        constraints=[rule.constraint],
        groups=X[list(rule.group_columns)],
        time_limit=30,
    )
    rates = audit(ruled, X, y, "b").table.set_index("group")["fpr"]
    assert abs(rates["b = 1"] - rates["b = 0"]) <= 0.1 + 1e-9


def test_calibrating_shift_by_hand():
    table = pd.DataFrame({"predicted_risk": [0.5, 0.5], "count": [1, 3]})
    mean, c = calibrating_shift(table, 0.5)
    assert mean == pytest.approx(0.0) and c == pytest.approx(0.0, abs=1e-9)
    # two scores, log-odds -2 and 2, one patient each: the average risk is 0.5 already
    table = pd.DataFrame(
        {"predicted_risk": [1 / (1 + np.exp(2)), 1 / (1 + np.exp(-2))], "count": [1, 1]}
    )
    mean, c = calibrating_shift(table, 0.5)
    assert mean == pytest.approx(0.0) and c == pytest.approx(0.0, abs=1e-9)
    mean, c = calibrating_shift(table, 0.7)
    expect = np.mean(1 / (1 + np.exp(-(np.array([-2.0, 2.0]) + c))))
    assert expect == pytest.approx(0.7, abs=1e-9) and c > 0


def test_plain_rule_speaks_in_words():
    from riskexplore.checklist.constraints import GroupRateGap, WorstGroupRate
    from riskexplore.evaluation.audit.rules import plain_rule

    gap = GroupRateGap("fpr", 0.12, by=("age (ranges at 48, 56, 61)",))
    assert plain_rule(gap) == (
        "false alarms may differ by at most 12 points between the groups by age ranges"
    )
    cap = WorstGroupRate("fnr", 0.2, by=("sex", "age (ranges at 48, 56)"))
    assert plain_rule(cap) == (
        "none of the groups by sex and age ranges may have more than 20% missed cases"
    )
    for rule in (gap, cap):  # no jargon or raw cut points on the page
        assert "FPR" not in plain_rule(rule) and "ranges at" not in plain_rule(rule)
    half = GroupRateGap("fnr", 0.125, by=("sex",))
    assert plain_rule(half).startswith("missed cases may differ by at most 12.5 points")
