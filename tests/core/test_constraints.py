"""Tests for riskexplore.core.constraints: name checks shared by both model families."""

from __future__ import annotations

import math

import pytest

from riskexplore.checklist import constraints as cc
from riskexplore.core.constraints import (
    check_name,
    fraction,
    name_tuple,
    one_or_more_names,
    whole_number,
)
from riskexplore.errors import ConstraintError
from riskexplore.risk_score import constraints as rc


@pytest.mark.parametrize(
    "build",
    [
        lambda names: rc.AtMostKOf(names),
        lambda names: rc.AtLeastKOf(names),
        lambda names: cc.AtMostKItems(names),
        lambda names: cc.PredictPositiveWhen(names),
        lambda names: cc.PredictNegativeWhen(names),
        lambda names: cc.OneItemPerGroup(groups=names),
    ],
)
def test_both_families_refuse_a_bare_string_where_a_list_is_expected(build):
    with pytest.raises(ConstraintError, match=r"not the single string 'age<30'"):
        build("age<30")
    built = build(["age<30", "age<30", "sex"])  # repeats dropped, order kept
    assert ("age<30", "sex") in {getattr(built, a, None) for a in ("features", "items", "groups")}


def test_then_any_takes_one_name_in_both_families():
    assert rc.Implies("a", then_any="b").then_any == ("b",)
    assert cc.Implies("a", then_any="b").then_any == ("b",)
    assert one_or_more_names(["b", "c"], "x", "item") == ("b", "c")


def test_name_checks():
    with pytest.raises(ConstraintError, match="the list of items is empty"):
        name_tuple([], "AtMostKItems", "item")
    with pytest.raises(ConstraintError, match="expected a list of item names, got 3"):
        name_tuple(3, "AtMostKItems", "item")
    assert check_name("Include", "age", ["age", "sex"], "feature") == "age"
    with pytest.raises(ConstraintError, match="unknown feature 'agee'.*'age'"):
        check_name("Include", "agee", ["age", "sex"], "feature")


def test_numbers():
    assert whole_number(3.0, "k") == 3 and type(whole_number(3.0, "k")) is int
    for bad in (True, 2.5, "3", math.nan):
        with pytest.raises(ConstraintError, match="k must be a whole number"):
            whole_number(bad, "k")
    with pytest.raises(ConstraintError, match="k must be >= 1, got 0"):
        whole_number(0, "k", minimum=1)
    assert fraction(0.25, "rate") == 0.25
    with pytest.raises(ConstraintError, match="rate"):
        fraction(1.5, "rate")
