"""The supports of a region in lexicographic order, in batches of arrays (numba).

A region's supports are its forced features plus every subset of its free features whose
size is in range. There can be hundreds of millions (five of 111 features: 1.3e8), so they
are written straight into integer arrays, a batch at a time, rather than built as Python
tuples; the order is that of :func:`itertools.combinations`, size by size. On a Dask
cluster a task carries only a run of the enumeration (where it starts, found by
:func:`nth_combination`, and its length; :func:`equal_stretches` cuts a region into runs of
equal length) and its worker writes the supports itself, a batch at a time
(:func:`stretch_supports`): sending the arrays cost more than fitting them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from numba import njit

__all__ = [
    "equal_stretches",
    "nth_combination",
    "stretch_supports",
    "support_batches",
]


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


def nth_combination(index: int, n: int, k: int) -> np.ndarray:
    """The combination of ``k`` of ``range(n)`` at ``index`` (from 0) in the order of
    :func:`itertools.combinations`, found without listing the ones before it.

    Parameters
    ----------
    index : int
        Its place in the order, ``0 <= index < comb(n, k)``.
    n, k : int
        Items to choose from, and how many to choose.

    Returns
    -------
    int array (k,)
        The combination, increasing.
    """
    out = np.zeros(k, dtype=np.int64)
    x = 0
    for i in range(k):
        while True:  # combinations that start with x after out[:i]
            count = math.comb(n - x - 1, k - i - 1)
            if index < count:
                break
            index -= count
            x += 1
        out[i] = x
        x += 1
    return out


def equal_stretches(
    n_forced: int, n_free: int, k_min: int, k_max: int, parts: int, align: int = 1
) -> Iterator[tuple[tuple[int, np.ndarray, int], ...]]:
    """The enumeration of :func:`support_batches` cut into at most ``parts`` runs of about
    equal length, each given as its stretches (``extra``, ``first``, ``count``: a run may
    end one size and start the next): one Dask task each.

    Runs of equal length keep the workers equally busy; stretches cut size by size made
    a region's smaller sizes short tasks, and with tasks handed out in turn one worker
    got the long ones. Each run starts where the one before it ended, found by
    :func:`nth_combination`, so nothing is enumerated to cut it. Within a size, runs
    start at a multiple of ``align`` (the batch of :func:`support_batches`), so that a
    worker writing a run ``align`` at a time writes the batches of the threads' screen.

    Parameters
    ----------
    n_forced, n_free : int
        Features every support has, and features it may have.
    k_min, k_max : int
        Size range of the supports.
    parts : int
        Runs wanted (fewer when there are fewer supports, or two cuts meet).
    align : int
        Within a size, each run starts at a multiple of this.

    Yields
    ------
    tuple of (extra, first, count)
        One run: per size it covers, the free features in each support, the positions in
        the free features of its first combination, and how many supports it has there.
    """
    sizes = [
        (extra, math.comb(n_free, extra))
        for extra in range(*_extra_range(n_forced, n_free, k_min, k_max))
    ]
    total = sum(count for _, count in sizes)
    parts = max(1, min(parts, total))
    cuts = sorted({_aligned(sizes, total * p // parts, align) for p in range(1, parts)})
    start = 0
    for end in [*cuts, total]:
        if end <= start:
            continue
        run, offset = [], 0
        for extra, count in sizes:
            lo, hi = max(start, offset), min(end, offset + count)
            if lo < hi:
                run.append((extra, nth_combination(lo - offset, n_free, extra), hi - lo))
            offset += count
        yield tuple(run)
        start = end


def _aligned(sizes: list[tuple[int, int]], position: int, align: int) -> int:
    """``position`` in the enumeration moved back to a multiple of ``align`` within its size."""
    offset = 0
    for _, count in sizes:
        if position < offset + count:
            return offset + (position - offset) // align * align
        offset += count
    return position


def stretch_supports(
    forced: np.ndarray,
    free: np.ndarray,
    extra: int,
    first: np.ndarray,
    count: int,
    k_max: int,
    batch: int,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The supports of one stretch of :func:`equal_stretches`, as :func:`support_batches`
    gives them, a batch at a time (a batch's arrays stay in the CPU's cache while its
    supports are fitted; a whole stretch's did not: at 10^5 rows the workers' time outside
    the fits fell from 6.3 to 3.9 CPU-s).

    Parameters
    ----------
    forced, free : int arrays
        Features every support has, and features it may have (disjoint).
    extra, first, count
        One stretch of :func:`equal_stretches` (``first``: positions in ``free``).
    k_max : int
        Largest support size (the rows' width is ``max(k_max, 1)``).
    batch : int
        Supports per batch (at most).

    Yields
    ------
    supports : int array (N, max(k_max, 1))
        One support per row, padded with -1 (forced features first).
    sizes : int array (N,)
        Their sizes.
    """
    forced = np.asarray(forced, dtype=np.int64)
    free = np.asarray(free, dtype=np.int64)
    state = np.asarray(first, dtype=np.int64).copy()
    picks = np.zeros((min(batch, count), extra), dtype=np.int64)
    for start in range(0, count, batch):
        size = min(batch, count - start)
        if extra:
            fill_combinations(state, free.size, picks[:size])
        yield _padded(forced, free, picks[:size], size, k_max)


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
