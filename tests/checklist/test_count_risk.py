"""A checklist's risk per number of items checked: monotone, every count, O/E = 1."""

from __future__ import annotations

import numpy as np
import pytest

from riskexplore import Checklist
from riskexplore.checklist.count_risk import count_risks, risk_of_counts
from riskexplore.errors import InputError


def test_rising_rates_are_kept_and_unseen_counts_interpolated():
    counts = np.array([0, 0, 0, 0, 2, 2, 4, 4])
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    risk = count_risks(counts, y, n_items=5)
    assert risk == pytest.approx({0: 0.25, 1: 0.375, 2: 0.5, 3: 0.75, 4: 1.0, 5: 1.0})


def test_a_dip_is_pooled_with_weights_and_events_are_kept():
    counts = np.array([0, 0, 1, 1, 1, 1, 2, 2])
    y = np.array([1, 0, 0, 0, 0, 1, 1, 1])
    w = np.array([1, 1, 1, 1, 1, 1, 2, 2])
    risk = count_risks(counts, y, n_items=2, sample_weight=w)
    # counts 0 (1/2) and 1 (1/4) pool to 2/6; count 2 keeps 1
    assert risk == pytest.approx({0: 1 / 3, 1: 1 / 3, 2: 1.0})
    assert np.sum(w * risk_of_counts(risk, counts)) == pytest.approx(np.sum(w * y))


def test_the_map_is_checked_and_kept_in_json():
    model = Checklist(["a", "b"], 1, count_risk={0: 0.1, 1: 0.4, 2: 0.7})
    again = Checklist.from_json(model.to_json())
    assert again.count_risk == {0: 0.1, 1: 0.4, 2: 0.7} and again == model
    assert "count_risk" not in Checklist(["a", "b"], 1).to_dict()
    with pytest.raises(InputError, match="every count 0..2"):
        Checklist(["a", "b"], 1, count_risk={0: 0.1, 1: 0.4})
    with pytest.raises(InputError, match=r"lie in \[0, 1\]"):
        Checklist(["a", "b"], 1, count_risk={0: 0.1, 1: 0.4, 2: 1.5})
