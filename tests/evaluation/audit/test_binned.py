"""A checklist's rule for a finding on a column the audit cut into ranges: the binned
group column, its groups (the audit's, row for row) and the limit it certifies."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.constraints import GroupRateGap, WorstGroupRate
from riskexplore.checklist.fit import fit_checklist
from riskexplore.checklist.model import Checklist
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.errors import InputError
from riskexplore.evaluation.audit import audit
from riskexplore.evaluation.audit.binned import (
    binned_column,
    binned_column_name,
    group_data,
    is_group_column,
    parse_binned_column,
)
from riskexplore.evaluation.audit.groups import make_groups
from riskexplore.evaluation.audit.rules import rule_available, rule_for_finding


def aged_data(n=400, seed=1):
    """Four 0/1 items and an age that is no feature: the outcome follows a and b before
    60, c and d from 60 on, so a checklist of one kind errs in the other age group."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({k: rng.integers(0, 2, n) for k in "abcd"})
    age = pd.Series(rng.integers(30, 90, n).astype(float), name="age")
    old = (age >= 60).to_numpy()
    score = np.where(old, X["c"] + X["d"], X["a"] + X["b"])
    y = (rng.random(n) < np.where(score >= 1, 0.8, 0.15)).astype(int)
    return X, age, y


@pytest.fixture(scope="module")
def audited():
    X, age, y = aged_data()
    free = fit_checklist(X, y, max_items=2, binarize=None, time_limit=30, n_jobs=1)
    A = X.assign(age=age)
    result = audit(free, A, y, "age", bins=[45, 60])
    return X, A, y, free, result


def test_the_name_keeps_the_cut_points_exactly():
    cuts = [0.1 + 0.2, 1.6, 60.0]
    name = binned_column_name("oldpeak", cuts)
    assert name == "oldpeak (ranges at 0.30000000000000004, 1.6, 60)"
    assert parse_binned_column(name) == ("oldpeak", cuts)
    assert parse_binned_column("age (ranges at 40, 60)") == ("age", [40.0, 60.0])
    assert parse_binned_column("age (mean 40, sd 9)") is None
    assert parse_binned_column("age (ranges at 60, 40)") is None  # not increasing
    assert parse_binned_column("age") is None
    with pytest.raises(InputError, match="must increase"):
        binned_column_name("age", [60, 40])
    with pytest.raises(InputError, match="finite numbers"):
        binned_column_name("age", [])
    assert is_group_column("age (ranges at 40, 60)", ["age", "sex"])
    assert not is_group_column("height (ranges at 40, 60)", ["age", "sex"])


def test_the_column_errors_name_the_column():
    X = pd.DataFrame({"age": [35.0, 70.0], "site": ["a", "b"]})
    with pytest.raises(InputError, match="needs the column 'weight'"):
        binned_column(X, "weight (ranges at 40)")
    with pytest.raises(InputError, match="'site' is not numeric"):
        binned_column(X, "site (ranges at 1)")
    with pytest.raises(InputError, match="unknown group column 'nope'"):
        group_data(X, ["nope"])
    frame = group_data(X, ["site", "age (ranges at 40)"])
    assert list(frame.columns) == ["site", "age (ranges at 40)"]
    assert list(frame["age (ranges at 40)"]) == ["age under 40", "age 40 and older"]


def test_a_binned_finding_has_its_rule(audited):
    X, A, y, free, result = audited
    assert result.settings["cuts"] == {"age": [45.0, 60.0]}
    fpr = [f for f in result.findings if f.metric == "fpr"]
    assert fpr, result.to_text()
    finding = fpr[0]
    assert rule_available(finding, result) is None
    rule = rule_for_finding(finding, result)
    name = "age (ranges at 45, 60)"
    assert rule.group_columns == (name,)
    assert rule.constraint == GroupRateGap("fpr", rule.constraint.max_gap, by=(name,))
    assert f"FPR gap between groups by {name} at most" in rule.sentence
    capped = rule_for_finding(finding, result, cap=True)
    assert capped.constraint == WorstGroupRate("fpr", capped.constraint.cap, by=(name,))
    # the rule's groups are the audit's, row for row (and age is no feature)
    groups = rule.groups(A)
    assert list(groups.columns) == [name]
    audit_labels = make_groups(A, ["age"], {"age": [45.0, 60.0]}).labels
    assert np.array_equal(groups[name].to_numpy(dtype=object), audit_labels)
    assert set(groups[name]) == set(result.table["group"])


def test_missing_values_and_a_cross_match_the_audit():
    X, age, y = aged_data(n=200, seed=4)
    age = age.copy()
    age.iloc[[3, 17, 40]] = np.nan
    A = X.assign(age=age, site=np.where(X["a"] == 1, "north", "south"))
    model = Checklist(["b"], 1)
    result = audit(model, A, y, ["site", "age"], bins={"age": [50.0]}, min_size=5)
    finding = next(f for f in result.findings if f.metric == "fpr")
    assert finding.group == "site = north, age 50 and older"
    rule = rule_for_finding(finding, result)
    name = binned_column_name("age", [50.0])
    assert rule.group_columns == ("site", name)
    assert rule.constraint.by == ("site", name)
    frame = rule.groups(A)
    assert frame[name].iloc[3] == "age missing"
    # the problem's intersectional groups are the audit's groups, row for row
    problem = ChecklistProblem(X, y, groups=frame)
    ours = problem.group_labels()
    audit_labels = make_groups(A, ["site", "age"], {"age": [50.0]}).labels
    assert len(ours) == len(set(audit_labels)) == len(result.table)
    for label in ours:
        rows = problem.group_rows(label)
        (theirs,) = set(audit_labels[rows])
        assert np.array_equal(rows, audit_labels == theirs)


def _brute_force(X, y, groups, max_items, rate, max_gap):
    """The fewest mistakes of every checklist (items, M) whose rate gap between the
    groups is at most ``max_gap`` (groups without the rate's class are skipped)."""
    best = None
    items = list(X.columns)
    positive = rate == "fnr"
    for size in range(1, max_items + 1):
        for chosen in itertools.combinations(items, size):
            checked = X[list(chosen)].to_numpy().sum(axis=1)
            for m in range(1, size + 1):
                pred = (checked >= m).astype(int)
                rates = []
                for g in np.unique(groups):
                    rows = (groups == g) & (y == int(positive))
                    if rows.any():
                        wrong = pred[rows] != y[rows]
                        rates.append(wrong.mean())
                if max(rates) - min(rates) > max_gap + 1e-9:
                    continue
                mistakes = int((pred != y).sum())
                best = mistakes if best is None else min(best, mistakes)
    return best


def test_the_rule_certifies_the_limit_on_the_audits_groups(audited):
    X, A, y, free, result = audited
    finding = next(f for f in result.findings if f.metric == "fpr")
    rule = rule_for_finding(finding, result)
    limit = rule.constraint.max_gap
    ruled = fit_checklist(
        X,
        y,
        max_items=2,
        binarize=None,
        constraints=[rule.constraint],
        groups=rule.groups(A),
        time_limit=30,
        n_jobs=1,
    )
    assert ruled.certificate.status == "optimal"
    assert "age" not in ruled.item_names  # a group column, never an item
    # on the audit's own groups (the same cut points), the gap is within the limit
    after = audit(ruled, A, y, "age", bins=[45, 60]).table.set_index("group")["fpr"]
    before = result.table.set_index("group")["fpr"]
    assert after.max() - after.min() <= limit + 1e-9 < before.max() - before.min()
    # and no checklist within the limit makes fewer mistakes (brute force)
    labels = make_groups(A, ["age"], {"age": [45.0, 60.0]}).labels
    best = _brute_force(X, y, labels, 2, "fpr", limit)
    mistakes = int((ruled.predict(X) != y).sum())
    assert mistakes == best
    # its certified bound is below the best (the tie-breaks on N and M add less than one)
    assert best <= ruled.certificate.lower_bound < best + 1
    assert mistakes > int((free.predict(X) != y).sum())  # the rule has a price
