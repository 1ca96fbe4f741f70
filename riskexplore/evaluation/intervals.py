"""Confidence intervals of the subgroup audit and the validation: rates, differences of
rates, and AUC.

* :func:`wilson_interval` -- Wilson's score interval for a proportion ``k / n``;
* :func:`newcombe_interval` -- Newcombe's hybrid score interval (his method 10) for the
  difference of two independent proportions, built from the two Wilson intervals;
* :func:`delong_auc` -- the AUC and DeLong's variance (the variance of its structural
  components), with :func:`normal_interval` for the interval of an AUC or of the
  difference of two AUCs on disjoint samples (variances add);
* :func:`bootstrap_aucs` -- AUCs of stratified bootstrap resamples, with
  :func:`percentile_interval` for their interval.

Every function returns ``nan`` where its quantity is undefined (no rows, one class only),
never raises for a small or empty group: the audit marks such groups itself.
(Shared by :mod:`riskexplore.evaluation.audit` and
:mod:`riskexplore.evaluation.validation`.)
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from riskexplore.errors import InputError

__all__ = [
    "bootstrap_aucs",
    "delong_auc",
    "newcombe_interval",
    "normal_interval",
    "percentile_interval",
    "wilson_interval",
    "z_value",
]

_NAN_PAIR = (math.nan, math.nan)


def z_value(confidence: float) -> float:
    """The two-sided standard normal quantile of a confidence level (1.96 for 0.95).

    Parameters
    ----------
    confidence : float
        The level, in (0, 1).

    Returns
    -------
    float
        ``Phi^-1(1 - (1 - confidence) / 2)``.

    Raises
    ------
    InputError
        If ``confidence`` is not in (0, 1).
    """
    if not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return float(norm.ppf(1 - (1 - confidence) / 2))


def wilson_interval(k: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``k / n``.

    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``p = k / n``:
    it stays inside [0, 1] and keeps its coverage for small ``n`` and for ``p`` near 0
    or 1, where the Wald interval fails.

    Parameters
    ----------
    k : float
        Successes (``0 <= k <= n``).
    n : float
        Trials.
    confidence : float
        The level.

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` when ``n == 0``.
    """
    z = z_value(confidence)
    if n <= 0:
        return _NAN_PAIR
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    k1: float, n1: float, k2: float, n2: float, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Newcombe's hybrid score interval for ``k1/n1 - k2/n2`` (independent samples).

    With ``(l_i, u_i)`` the Wilson interval of ``p_i``, the difference ``d = p1 - p2`` has
    the interval ``[d - sqrt((p1 - l1)^2 + (u2 - p2)^2), d + sqrt((u1 - p1)^2 +
    (p2 - l2)^2)]`` (Newcombe 1998, *Statistics in Medicine* 17:873, method 10).

    Parameters
    ----------
    k1, n1 : float
        Successes and trials of the first sample.
    k2, n2 : float
        Successes and trials of the second sample.
    confidence : float
        The level.

    Returns
    -------
    tuple of float
        ``(difference, low, high)``; all ``nan`` when a sample is empty.
    """
    if n1 <= 0 or n2 <= 0:
        z_value(confidence)
        return math.nan, math.nan, math.nan
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence)
    l2, u2 = wilson_interval(k2, n2, confidence)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, low, high


def _placements(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's structural components: for each positive, the fraction of negatives it
    outscores (ties 1/2); for each negative, the fraction of positives that outscore it."""
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
    sp, sn = s[y == 1], s[y == 0]
    below = np.searchsorted(neg, sp, side="left")
    ties = np.searchsorted(neg, sp, side="right") - below
    v10 = (below + 0.5 * ties) / len(neg)
    above = len(pos) - np.searchsorted(pos, sn, side="right")
    ties_n = np.searchsorted(pos, sn, side="right") - np.searchsorted(pos, sn, side="left")
    v01 = (above + 0.5 * ties_n) / len(pos)
    return v10, v01


def delong_auc(y, scores) -> tuple[float, float]:
    """The AUC (ties count 1/2) and DeLong's estimate of its variance.

    ``var = S10 / m + S01 / n`` where ``m``, ``n`` are the numbers of positives and
    negatives and ``S10``, ``S01`` the sample variances (``ddof = 1``) of the structural
    components: ``V10_i`` = fraction of negatives that positive ``i`` outscores, ``V01_j``
    = fraction of positives that outscore negative ``j`` (DeLong, DeLong and
    Clarke-Pearson 1988, *Biometrics* 44:837). The AUC is the mean of either.

    Parameters
    ----------
    y : array-like of shape (n,)
        0/1 outcome.
    scores : array-like of shape (n,)
        Scores; larger means more likely positive.

    Returns
    -------
    tuple of float
        ``(auc, variance)``: ``(nan, nan)`` with one class only; the variance is ``nan``
        with a single positive and a single negative (no sample variance).
    """
    yb = np.asarray(y).astype(int).ravel()
    s = np.asarray(scores, dtype=float).ravel()
    m, n = int(yb.sum()), int(len(yb) - yb.sum())
    if m == 0 or n == 0:
        return _NAN_PAIR
    v10, v01 = _placements(yb, s)
    value = float(v10.mean())
    if m < 2 and n < 2:
        return value, math.nan
    s10 = float(v10.var(ddof=1)) if m > 1 else 0.0
    s01 = float(v01.var(ddof=1)) if n > 1 else 0.0
    return value, s10 / m + s01 / n


def normal_interval(
    value: float, variance: float, confidence: float = 0.95, bounds: tuple[float, float] = (0, 1)
) -> tuple[float, float]:
    """``value -+ z sqrt(variance)``, clipped to ``bounds``.

    Parameters
    ----------
    value : float
        The estimate.
    variance : float
        Its variance.
    confidence : float
        The level.
    bounds : tuple of float
        Where the quantity lives (``(0, 1)`` for an AUC, ``(-1, 1)`` for a difference).

    Returns
    -------
    tuple of float
        ``(low, high)``; ``nan`` when the value or variance is.
    """
    z = z_value(confidence)
    if not (math.isfinite(value) and math.isfinite(variance)):
        return _NAN_PAIR
    half = z * math.sqrt(max(variance, 0.0))
    return max(bounds[0], value - half), min(bounds[1], value + half)


def bootstrap_aucs(y, scores, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """AUCs of ``n_boot`` stratified bootstrap resamples (positives and negatives are
    resampled separately, so every resample has both classes).

    Parameters
    ----------
    y : array-like of shape (n,)
        0/1 outcome.
    scores : array-like of shape (n,)
        Scores.
    n_boot : int
        Resamples.
    rng : numpy Generator
        The random numbers.

    Returns
    -------
    ndarray of shape (n_boot,)
        The AUCs (all ``nan`` with one class only).
    """
    yb = np.asarray(y).astype(int).ravel()
    s = np.asarray(scores, dtype=float).ravel()
    sp, sn = s[yb == 1], s[yb == 0]
    if len(sp) == 0 or len(sn) == 0:
        return np.full(n_boot, math.nan)
    out = np.empty(n_boot)
    for b in range(n_boot):
        p = sp[rng.integers(0, len(sp), len(sp))]
        q = np.sort(sn[rng.integers(0, len(sn), len(sn))])
        lo = np.searchsorted(q, p, side="left")
        hi = np.searchsorted(q, p, side="right")
        out[b] = (lo + 0.5 * (hi - lo)).sum() / (len(p) * len(q))
    return out


def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap samples (``nan`` samples are dropped).

    Parameters
    ----------
    samples : ndarray
        Bootstrap replicates of a quantity.
    confidence : float
        The level.

    Returns
    -------
    tuple of float
        ``(low, high)``; ``nan`` without finite samples.
    """
    z_value(confidence)
    finite = np.asarray(samples, dtype=float)
    finite = finite[np.isfinite(finite)]
    if len(finite) == 0:
        return _NAN_PAIR
    alpha = 1 - confidence
    low, high = np.quantile(finite, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)
