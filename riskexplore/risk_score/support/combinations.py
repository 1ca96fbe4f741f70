"""The supports of a region in lexicographic order, in batches of arrays (numba).

A region's supports are its forced features plus every subset of its free features whose
size is in range. There can be hundreds of millions (five of 111 features: 1.3e8), so they
are written straight into integer arrays, a batch at a time, rather than built as Python
tuples; the order is that of :func:`itertools.combinations`, size by size. On a Dask
cluster a task carries only a *stretch* of the enumeration (its first combination and its
length, :func:`support_stretches`) and its worker writes the supports itself
(:func:`stretch_supports`): sending the arrays cost more than fitting them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numba import njit

__all__ = ["stretch_supports", "support_batches", "support_stretches"]


@njit(cache=True)
def fill_combinations(state: np.ndarray, n: int, out: np.ndarray) -> int:
    """Write the combinations from ``state`` on into ``out``; return how many.

    ``state`` holds the next combination of ``state.size`` items of ``range(n)`` (in
    increasing order) and is advanced past the last one written; ``state[0] = -1`` marks
    the end of the enumeration.
    """
    e = state.size
    for r in range(out.shape[0]):
        if state[0] < 0:
            return r
        out[r, :e] = state
        i = e - 1
        while i >= 0 and state[i] == n - e + i:
            i -= 1
        if i < 0:
            state[0] = -1
            continue
        state[i] += 1
        for q in range(i + 1, e):
            state[q] = state[q - 1] + 1
    return out.shape[0]


def support_batches(
    forced: np.ndarray, free: np.ndarray, k_min: int, k_max: int, batch: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The supports ``forced + subset of free`` with a size in ``[k_min, k_max]``.

    Parameters
    ----------
    forced, free : int arrays
        Features every support has, and features it may have (disjoint).
    k_min, k_max : int
        Size range of the supports.
    batch : int
        Supports per batch (at most).

    Yields
    ------
    supports : int array (N, max(k_max, 1))
        One support per row, padded with -1 (forced features first).
    sizes : int array (N,)
        Their sizes (one size per batch).
    """
    forced = np.asarray(forced, dtype=np.int64)
    free = np.asarray(free, dtype=np.int64)
    for extra in range(*_extra_range(forced.size, free.size, k_min, k_max)):
        state = np.arange(extra, dtype=np.int64)
        picks = np.zeros((batch, extra), dtype=np.int64)
        while True:
            if extra == 0:
                count = 1
            else:
                if state[0] < 0:
                    break
                count = fill_combinations(state, free.size, picks)
            yield _padded(forced, free, picks[:count], count, k_max)
            if extra == 0:
                break


def support_stretches(
    forced: np.ndarray, free: np.ndarray, k_min: int, k_max: int, stretch: int
) -> Iterator[tuple[int, np.ndarray, int]]:
    """The enumeration of :func:`support_batches` cut into stretches, without the supports.

    Parameters
    ----------
    forced, free : int arrays
        Features every support has, and features it may have (disjoint).
    k_min, k_max : int
        Size range of the supports.
    stretch : int
        Supports per stretch (at most).

    Yields
    ------
    extra : int
        Free features in each support of the stretch.
    first : int array (extra,)
        Positions in ``free`` of the stretch's first combination.
    count : int
        Supports in the stretch; :func:`stretch_supports` writes them.
    """
    n_free = len(free)
    for extra in range(*_extra_range(len(forced), n_free, k_min, k_max)):
        if extra == 0:
            yield 0, np.zeros(0, dtype=np.int64), 1
            continue
        state = np.arange(extra, dtype=np.int64)
        scratch = np.zeros((stretch, extra), dtype=np.int64)
        while state[0] >= 0:
            first = state.copy()
            yield extra, first, fill_combinations(state, n_free, scratch)


def stretch_supports(
    forced: np.ndarray, free: np.ndarray, extra: int, first: np.ndarray, count: int, k_max: int
) -> tuple[np.ndarray, np.ndarray]:
    """The supports of one stretch of :func:`support_stretches`, as :func:`support_batches`
    gives them.

    Parameters
    ----------
    forced, free : int arrays
        As given to :func:`support_stretches`.
    extra, first, count
        One stretch of :func:`support_stretches`.
    k_max : int
        Largest support size (the rows' width is ``max(k_max, 1)``).

    Returns
    -------
    supports : int array (count, max(k_max, 1))
        One support per row, padded with -1 (forced features first).
    sizes : int array (count,)
        Their sizes.
    """
    forced = np.asarray(forced, dtype=np.int64)
    free = np.asarray(free, dtype=np.int64)
    picks = np.zeros((count, extra), dtype=np.int64)
    if extra:
        fill_combinations(first.copy(), free.size, picks)
    return _padded(forced, free, picks, count, k_max)


def _extra_range(n_forced: int, n_free: int, k_min: int, k_max: int) -> tuple[int, int]:
    """``range`` arguments of the numbers of free features a support may add."""
    return max(k_min - n_forced, 0), min(k_max - n_forced, n_free) + 1


def _padded(forced, free, picks, count: int, k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Forced features then ``free[picks]`` per row, padded with -1 to ``max(k_max, 1)``."""
    f, extra = forced.size, picks.shape[1]
    sup = np.full((count, max(k_max, 1)), -1, dtype=np.int64)
    sup[:, :f] = forced
    sup[:, f : f + extra] = free[picks]
    return sup, np.full(count, f + extra, dtype=np.int64)
