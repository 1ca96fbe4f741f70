"""Intervals of the subgroup audit against published values and brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from riskexplore.errors import InputError
from riskexplore.evaluation.intervals import (
    bootstrap_aucs,
    delong_auc,
    newcombe_interval,
    normal_interval,
    percentile_interval,
    wilson_interval,
    z_value,
)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [  # Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (Wilson score)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (0, 10, 0.0, 0.2775),
    ],
)
def test_wilson_matches_newcombe_table(k, n, low, high):
    got = wilson_interval(k, n, 0.95)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_formula_at_another_level():
    # By hand: p = 0.3, n = 50, z = 1.6449 (90%).
    z, p, n = 1.6448536269514722, 0.3, 50
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_interval(15, 50, 0.9) == pytest.approx((centre - half, centre + half))
    assert z_value(0.9) == pytest.approx(z)


def test_wilson_of_nothing_is_nan_and_bad_level_is_an_error():
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(InputError, match="between 0 and 1"):
        wilson_interval(1, 2, 1.0)
    with pytest.raises(InputError, match="between 0 and 1"):
        newcombe_interval(1, 2, 1, 0, 0.0)


@pytest.mark.parametrize(
    ("k1", "n1", "k2", "n2", "low", "high"),
    [  # Newcombe (1998), Statistics in Medicine 17:873, Table II, method 10
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (6, 7, 2, 7, 0.0582, 0.8062),
        (5, 56, 0, 29, -0.0381, 0.1926),
    ],
)
def test_newcombe_matches_published_examples(k1, n1, k2, n2, low, high):
    d, lo, hi = newcombe_interval(k1, n1, k2, n2)
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert (lo, hi) == pytest.approx((low, high), abs=5e-5)


def test_newcombe_with_an_empty_sample_is_nan():
    assert all(math.isnan(v) for v in newcombe_interval(1, 3, 0, 0))


def _delong_brute_force(y, s):
    """The structural components by a double loop over all (positive, negative) pairs."""
    pos = [a for a, t in zip(s, y, strict=True) if t == 1]
    neg = [b for b, t in zip(s, y, strict=True) if t == 0]

    def psi(a, b):
        return 1.0 if a > b else 0.5 if a == b else 0.0

    v10 = [sum(psi(a, b) for b in neg) / len(neg) for a in pos]
    v01 = [sum(psi(a, b) for a in pos) / len(pos) for b in neg]
    m, n = len(pos), len(neg)
    s10 = sum((v - np.mean(v10)) ** 2 for v in v10) / (m - 1)
    s01 = sum((v - np.mean(v01)) ** 2 for v in v01) / (n - 1)
    return float(np.mean(v10)), s10 / m + s01 / n


@pytest.mark.parametrize("seed", range(5))
def test_delong_matches_brute_force_and_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 60)
    y[:2] = [0, 1]
    s = rng.integers(-3, 4, 60) + y  # integer scores: many ties
    value, variance = delong_auc(y, s)
    want_value, want_variance = _delong_brute_force(y, s)
    assert value == pytest.approx(roc_auc_score(y, s))
    assert value == pytest.approx(want_value)
    assert variance == pytest.approx(want_variance)


def test_delong_variance_matches_the_spread_of_aucs_over_samples():
    # 2000 samples of 80 negatives and 40 positives, normal scores shifted by 1:
    # the mean DeLong variance estimates the variance of the AUC across samples.
    rng = np.random.default_rng(1)
    y = np.r_[np.zeros(80, int), np.ones(40, int)]
    values, variances = [], []
    for _ in range(2000):
        s = rng.normal(size=120) + y
        v, var = delong_auc(y, s)
        values.append(v)
        variances.append(var)
    assert np.mean(variances) == pytest.approx(np.var(values), rel=0.1)


def test_delong_with_one_class_or_one_pair():
    assert all(math.isnan(v) for v in delong_auc([1, 1, 1], [1, 2, 3]))
    value, variance = delong_auc([0, 1], [0.2, 0.7])
    assert value == 1.0 and math.isnan(variance)


def test_normal_interval_is_clipped():
    assert normal_interval(0.99, 0.01**2) == pytest.approx((0.99 - 1.959964 * 0.01, 1.0))
    assert all(math.isnan(v) for v in normal_interval(0.5, math.nan))


def test_bootstrap_aucs_spread_like_delong_and_are_reproducible():
    rng = np.random.default_rng(3)
    y = np.r_[np.zeros(150, int), np.ones(100, int)]
    s = rng.normal(size=250) + y
    boot = bootstrap_aucs(y, s, 2000, np.random.default_rng(0))
    again = bootstrap_aucs(y, s, 2000, np.random.default_rng(0))
    np.testing.assert_array_equal(boot, again)
    _, variance = delong_auc(y, s)
    assert np.std(boot) == pytest.approx(math.sqrt(variance), rel=0.1)
    low, high = percentile_interval(boot)
    assert low < roc_auc_score(y, s) < high


def test_bootstrap_with_one_class_is_nan():
    boot = bootstrap_aucs([1, 1], [0.1, 0.2], 5, np.random.default_rng(0))
    assert np.isnan(boot).all()
    assert all(math.isnan(v) for v in percentile_interval(boot))
