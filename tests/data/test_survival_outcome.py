"""The survival outcome's checks: the forms accepted, and errors that name the fault."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _survival_data import structured

from riskexplore.data.survival import (
    check_survival_outcome,
    check_survival_weights,
    time_unit_of,
)
from riskexplore.errors import InputError

TIME = np.array([5.0, 0.0, 3.5, 8.0])
EVENT = np.array([True, False, True, False])


@pytest.mark.parametrize(
    "args",
    [
        (TIME, EVENT),
        (pd.Series(TIME), pd.Series(EVENT.astype(int))),
        (TIME.tolist(), [1.0, 0.0, 1.0, 0.0]),
        (structured(TIME, EVENT),),
        ((TIME, EVENT),),
        (list(zip(TIME, EVENT.astype(int), strict=True)),),
    ],
)
def test_every_form_gives_the_same_outcome(args):
    time, event = check_survival_outcome(*args)
    np.testing.assert_array_equal(time, TIME)
    np.testing.assert_array_equal(event, EVENT)
    assert time.dtype == float and event.dtype == bool


def test_structured_array_with_other_field_names():
    y = np.array([(8.0, True), (2.0, False)], dtype=[("days", float), ("died", bool)])
    time, event = check_survival_outcome(y)
    assert time.tolist() == [8.0, 2.0] and event.tolist() == [True, False]


@pytest.mark.parametrize(
    "time,event,match",
    [
        ([1.0, np.nan], [1, 0], "time has 1 missing or infinite"),
        ([1.0, np.inf], [1, 0], "finite follow-up"),
        ([1.0, -2.0], [1, 0], "negative value.*start date"),
        (["a", "b"], [1, 0], "must be numbers"),
        ([1.0, 2.0], [1, 2], "event must be 0/1.*competing"),
        ([1.0, 2.0], [1, np.nan], "event must be 0/1"),
        ([1.0, 2.0, 3.0], [1, 0], "time has 3 rows but event has 2"),
        ([1.0, 2.0], [0, 0], "censored.*at least one event"),
        ([], [], "no rows"),
    ],
)
def test_bad_outcomes_are_named(time, event, match):
    with pytest.raises(InputError, match=match):
        check_survival_outcome(time, event)


def test_all_censored_only_when_allowed_and_bad_shapes():
    time, event = check_survival_outcome([1.0, 2.0], [0, 0], allow_all_censored=True)
    assert not event.any()
    bad = np.zeros(2, dtype=[("a", float), ("b", float)])
    with pytest.raises(InputError, match="boolean event"):
        check_survival_outcome(bad)
    with pytest.raises(InputError, match="give the survival outcome"):
        check_survival_outcome([1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="1-d"):
        check_survival_outcome(np.ones((2, 2)), [1, 0])


def test_weights():
    assert check_survival_weights(None, 3).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(InputError, match=">= 0"):
        check_survival_weights([1.0, -1.0], 2)
    with pytest.raises(InputError, match="one per row"):
        check_survival_weights([1.0], 2)
    with pytest.raises(InputError, match="every weight is 0"):
        check_survival_weights([0.0, 0.0], 2)


@pytest.mark.parametrize(
    ("column", "unit"),
    [
        ("days", "days"),
        ("followup_months", "months"),
        ("Time (years)", "years"),
        ("futime", None),
        ("time", None),
        (None, None),
        ("days_or_months", None),  # two units: none is guessed
    ],
)
def test_the_unit_a_time_column_names(column, unit):
    assert time_unit_of(column) == unit
