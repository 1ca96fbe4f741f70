"""Tests for riskexplore.core.rates: one definition of error rates and groups."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from riskexplore.core.rates import error_rates, group_labels, group_rates, worst_gap
from riskexplore.errors import InputError


def test_error_rates_hand_computed():
    y = np.array([1, 1, 1, 0, 0])
    pred = np.array([1, 0, 0, 1, 0])
    r = error_rates(y, pred)
    assert (r["n"], r["n_pos"], r["n_neg"], r["fn"], r["fp"], r["errors"]) == (5, 3, 2, 2, 1, 3)
    assert isinstance(r["fn"], int)
    assert r["error"] == pytest.approx(3 / 5)
    assert r["fnr"] == pytest.approx(2 / 3) and r["fpr"] == pytest.approx(1 / 2)
    w = error_rates(y, pred, sample_weight=[1, 2, 0, 4, 1])
    assert w["fn"] == 2.0 and w["fp"] == 4.0
    assert w["fnr"] == pytest.approx(2 / 3) and w["fpr"] == pytest.approx(4 / 5)


def test_error_rates_empty_denominator_is_nan():
    r = error_rates(np.ones(3), np.ones(3))
    assert r["fnr"] == 0 and math.isnan(r["fpr"])
    assert all(math.isnan(error_rates([], [])[k]) for k in ("error", "fnr", "fpr"))
    with pytest.raises(InputError, match="2 predictions for 3 outcomes"):
        error_rates([0, 1, 1], [0, 1])
    with pytest.raises(InputError, match="sample_weight has 1 entries for 2 rows"):
        error_rates([0, 1], [0, 1], sample_weight=[1])


def test_group_labels():
    frame = pd.DataFrame({"sex": [0, 1, 1], "race": ["a", "b", "a"]})
    assert list(group_labels(frame[["sex"]], 3)) == ["sex=0", "sex=1", "sex=1"]
    assert list(group_labels(frame, 3)) == ["sex=0 & race=a", "sex=1 & race=b", "sex=1 & race=a"]
    assert list(group_labels(pd.Series([1, 2, 1]), 3)) == ["1", "2", "1"]
    with pytest.raises(InputError, match="groups has 3 entries for 4 rows"):
        group_labels(frame, 4)
    with pytest.raises(InputError, match="no columns"):
        group_labels(frame[[]], 3)
    with pytest.raises(InputError, match="one label per row"):
        group_labels(np.zeros((3, 2)), 3)


def test_group_rates_and_worst_gap():
    y = np.array([1, 1, 0, 1, 0, 0])
    pred = np.array([0, 1, 0, 1, 1, 0])
    groups = ["a", "a", "a", "b", "b", "c"]
    per = group_rates(y, pred, groups)
    assert list(per) == ["a", "b", "c"]
    assert per["a"]["fnr"] == 0.5 and per["b"]["fnr"] == 0.0 and math.isnan(per["c"]["fnr"])
    worst, gap, pair = worst_gap(per, "fnr")  # c has no positives: left out
    assert (worst, gap, pair) == (0.5, 0.5, ("a", "b"))
    assert worst_gap({"a": per["a"]}, "fnr") == (0.5, 0.0, None)
    worst, gap, pair = worst_gap({"c": per["c"]}, "fnr")
    assert math.isnan(worst) and math.isnan(gap) and pair is None
