"""Distinct rows: exactly ``np.unique(axis=0)`` (rows, order, inverse) on every kind of
table, by packed words on tables of small whole numbers."""

from __future__ import annotations

import numpy as np
import pytest

import riskexplore.core.distinct_rows as distinct_module
from riskexplore.core.distinct_rows import distinct_rows, small_integer_codes


def table(kind: str, rng: np.random.Generator) -> np.ndarray:
    n, d = int(rng.integers(1, 50)), int(rng.integers(1, 70))
    A = {
        "binary float": lambda: rng.integers(0, 2, (n, d)).astype(float),
        "signed int8": lambda: rng.integers(-1, 2, (n, d)).astype(np.int8),
        "small floats": lambda: rng.integers(-3, 12, (n, d)).astype(float),
        "bool": lambda: rng.integers(0, 2, (n, d)).astype(bool),
        "wide ints": lambda: rng.integers(-1000, 1000, (n, d)),
        "real values": lambda: rng.normal(size=(n, d)).round(1),
    }[kind]()
    return A[rng.integers(0, n, 3 * n)]  # rows repeat


KINDS = ("binary float", "signed int8", "small floats", "bool", "wide ints", "real values")


@pytest.mark.parametrize("kind", KINDS)
def test_same_as_numpy_unique(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    for _ in range(40):
        A = table(kind, rng)
        unique, inverse = np.unique(A, axis=0, return_inverse=True)
        got, got_inverse = distinct_rows(A)
        assert got.dtype == A.dtype
        assert np.array_equal(got, unique)
        assert np.array_equal(got_inverse, inverse.ravel())
        assert np.array_equal(got[got_inverse], A)


def test_packed_path_taken_only_for_small_whole_numbers():
    assert small_integer_codes(np.array([[0.0, 1.0], [1.0, 0.0]])) is not None
    assert small_integer_codes(np.array([[0.5, 1.0]])) is None  # not whole
    assert small_integer_codes(np.array([[0, 256]])) is None  # range above 255
    assert small_integer_codes(np.array([[0.0, np.inf]])) is None
    codes, low = small_integer_codes(np.array([[-2, 3], [0, 1]]))
    assert low == -2 and codes.dtype == np.uint8 and codes.tolist() == [[0, 5], [2, 3]]


def test_blocks_agree_across_block_edges(monkeypatch):
    monkeypatch.setattr(distinct_module, "_BLOCK", 7)  # many blocks on a small table
    rng = np.random.default_rng(5)
    A = rng.integers(0, 3, (100, 9)).astype(float)
    A[55, 3] = 0.5  # one entry that is not whole, in a later block: np.unique's answer
    unique, inverse = np.unique(A, axis=0, return_inverse=True)
    got, got_inverse = distinct_rows(A)
    assert np.array_equal(got, unique) and np.array_equal(got_inverse, inverse.ravel())
    assert small_integer_codes(A) is None
