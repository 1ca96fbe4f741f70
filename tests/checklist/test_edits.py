"""Hand edits of checklists: add, remove or swap items and change M; mistakes and the
distance to the best checklist are recomputed and checked against counts made from the
data alone (and against enumeration: no edit of a certified optimum beats it)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from riskexplore import Checklist, InputError, fit_checklist


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(5)
    n = 90
    X = pd.DataFrame(rng.integers(0, 2, (n, 5)), columns=[f"i{j}" for j in range(5)])
    y = pd.Series(((X.i0 + X.i1 + X.i2 + rng.integers(0, 2, n)) >= 2).astype(int), name="y")
    model = fit_checklist(X, y, binarize=None, max_items=3)
    return X, y, model


def _mistakes(X, y, items, M):
    pred = X[list(items)].sum(axis=1) >= M
    return int(np.sum(pred.to_numpy() != (y.to_numpy() == 1)))


def test_add_remove_swap_and_threshold(small):
    X, y, model = small
    assert model.certificate.status == "optimal"
    best = _mistakes(X, y, model.items, model.M)
    outside = [i for i in model.item_names if i not in model.items]
    removed = model.with_items(remove=[model.items[0]])
    assert removed.items == model.items[1:] and removed.M == min(model.M, len(model.items) - 1)
    swapped = model.with_items(add=[outside[0]], remove=[model.items[-1]])
    assert swapped.items == model.items[:-1] + [outside[0]]
    threshold = model.with_threshold(1)
    assert threshold.M == 1 and threshold.items == model.items
    for edited in (removed, swapped, threshold):
        errors = _mistakes(X, y, edited.items, edited.M)
        assert edited.stats["train_errors"] == errors
        assert edited.certificate.status == "edited"
        assert edited.distance.unit == "mistakes"
        assert edited.distance.absolute == pytest.approx(errors - best)  # optimum certified
        assert edited.distance.lower_bound == best
        assert not edited.distance.breaks
        assert "edited by hand" in edited.to_text()


def test_no_edit_within_the_settings_beats_the_certified_optimum(small):
    X, y, model = small
    for n in range(1, 4):
        for items in itertools.combinations(model.item_names, n):
            for M in range(1, n + 1):
                keep = [i for i in model.items if i in items]
                edited = model.with_items(
                    add=[i for i in items if i not in model.items],
                    remove=[i for i in model.items if i not in items],
                    M=M,
                )
                assert sorted(edited.items) == sorted(keep + [i for i in items if i not in keep])
                assert edited.distance.absolute >= 0 and not edited.distance.breaks


def test_an_edit_that_breaks_the_search_names_it(small):
    X, y, model = small
    outside = [i for i in model.item_names if i not in model.items]
    big = model.with_items(add=outside[: 4 - model.N])
    assert "Use at most 3 items (max_items)" in big.distance.breaks
    zero = model.with_threshold(0)
    assert any("Threshold M" in b for b in zero.distance.breaks)


def test_a_checklist_read_from_json_asks_for_its_data(small):
    X, y, model = small
    loaded = Checklist.from_json(model.to_json())
    with pytest.raises(InputError, match="no training data attached"):
        loaded.with_threshold(1)
    again = loaded.with_threshold(1, X=X, y=y)
    assert again.stats["train_errors"] == model.with_threshold(1).stats["train_errors"]
    assert again.distance.absolute == model.with_threshold(1).distance.absolute


def test_raw_data_are_binarized_again_for_a_loaded_checklist():
    from riskexplore import load_dataset

    heart = load_dataset("heart")
    model = fit_checklist(heart.X, heart.y, max_items=3, time_limit=20)
    loaded = Checklist.from_json(model.to_json())
    edited = loaded.with_threshold(1, X=heart.X, y=heart.y)
    assert edited.stats["train_errors"] == model.with_threshold(1).stats["train_errors"]


def test_bad_edits_are_clear_errors(small):
    _, _, model = small
    outside = [i for i in model.item_names if i not in model.items][0]
    with pytest.raises(InputError, match="unknown item 'zz'"):
        model.with_items(add=["zz"])
    with pytest.raises(InputError, match="already on the checklist"):
        model.with_items(add=[model.items[0]])
    with pytest.raises(InputError, match="is not on the checklist"):
        model.with_items(remove=[outside])
    with pytest.raises(InputError, match="at least one item"):
        model.with_items(remove=list(model.items))
    with pytest.raises(InputError, match="M must be a whole number >= 0 and <= "):
        model.with_threshold(9)
    with pytest.raises(InputError, match="names an item twice"):
        model.with_items(add=[outside, outside])
