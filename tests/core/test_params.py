"""Tests for riskexplore.core.params: the one way settings are validated."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from riskexplore.core.limits import Limits, checked_limits
from riskexplore.core.params import Check, Interval, Options, describe, satisfies, validate
from riskexplore.errors import InputError


@pytest.mark.parametrize(
    ("interval", "good", "bad"),
    [
        (Interval(int, 1, None), [1, 3, 3.0, np.int64(7)], [0, 2.5, True, "3", math.nan, None]),
        (Interval(float, 0, 1, closed="left"), [0, 0.5, np.float32(0.25)], [1, -0.1, math.nan]),
        (Interval(float, 0, None, closed="neither"), [1e-9, 5, math.inf], [0, -1, False]),
        (Interval(int, None, 10, closed="neither"), [-4, 9], [10, 11]),
    ],
)
def test_interval_membership(interval, good, bad):
    assert all(interval.satisfied_by(v) for v in good), good
    assert not any(interval.satisfied_by(v) for v in bad), bad


def test_descriptions_read_as_sentences():
    assert str(Interval(int, 1, None)) == "a whole number >= 1"
    assert str(Interval(int, 0, None, closed="neither")) == "a positive whole number"
    assert str(Interval(float, 0, 1, closed="left")) == "a number in [0, 1)"
    assert str(Interval(float, 0, 1, closed="neither")) == "a number in (0, 1)"
    assert str(Interval(float, 0, 1)) == "a number in [0, 1]"
    assert str(Interval(int, 0, 3, closed="right")) == "a whole number > 0 and <= 3"
    assert str(Interval(float, -2.5, 5)) == "a number >= -2.5 and <= 5"
    assert str(Options({"b", "a"})) == "one of 'a', 'b'"
    assert describe([Interval(int, 1, None), None]) == "a whole number >= 1 or None"


def test_options_and_check():
    opts = Options({"adaptive", "fixed"})
    assert opts.satisfied_by("fixed") and not opts.satisfied_by("other")
    assert not opts.satisfied_by(["fixed"])  # unhashable: refused, not a TypeError
    even = Check(lambda v: v % 2 == 0, "an even number")
    assert even.satisfied_by(4) and not even.satisfied_by(3)
    assert not even.satisfied_by("x")  # the predicate raising counts as not satisfied
    assert satisfies(None, [even, None]) and not satisfies(None, [even])


def test_validate_names_the_first_bad_setting():
    constraints = {"max_items": [Interval(int, 1, None), None], "mode": [Options({"a"})]}
    validate(constraints, {"max_items": None, "mode": "a", "unchecked": object()})
    with pytest.raises(InputError, match=r"^max_items must be a whole number >= 1 or None, got 0$"):
        validate(constraints, {"max_items": 0, "mode": "z"})
    with pytest.raises(InputError, match=r"^mode must be one of 'a', got 'z'$"):
        validate(constraints, {"max_items": 2, "mode": "z"})


def test_checked_limits():
    event = threading.Event()
    limits = checked_limits(None, 5, 0, event)
    assert limits == Limits(time_limit=math.inf, node_limit=5, gap_tolerance=0.0, stop=event)
    assert checked_limits(2, None, 0.01, lambda: False).time_limit == 2.0
    for args, name in [
        ((0, None, 0.0, None), "time_limit"),
        (("10", None, 0.0, None), "time_limit"),
        ((1, -1, 0.0, None), "node_limit"),
        ((1, 2.5, 0.0, None), "node_limit"),
        ((1, None, 1.0, None), "gap_tolerance"),
        ((1, None, 0.0, "stop"), "stop"),
    ]:
        with pytest.raises(InputError, match=rf"^{name} must be "):
            checked_limits(*args)
