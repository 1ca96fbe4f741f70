"""The supports of a region in lexicographic order, in batches of arrays (numba).

A region's supports are its forced features plus every subset of its free features whose
size is in range. There can be hundreds of millions (five of 111 features: 1.3e8), so they
are written straight into integer arrays, a batch at a time, rather than built as Python
tuples; the order is that of :func:`itertools.combinations`, size by size.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numba import njit

__all__ = ["support_batches"]


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
    width, f = max(k_max, 1), forced.size
    lo, hi = max(k_min - f, 0), min(k_max - f, free.size)
    for extra in range(lo, hi + 1):
        state = np.arange(extra, dtype=np.int64)
        picks = np.zeros((batch, extra), dtype=np.int64)
        while True:
            if extra == 0:
                count = 1
            else:
                if state[0] < 0:
                    break
                count = fill_combinations(state, free.size, picks)
            sup = np.full((count, width), -1, dtype=np.int64)
            sup[:, :f] = forced
            sup[:, f : f + extra] = free[picks[:count]]
            yield sup, np.full(count, f + extra, dtype=np.int64)
            if extra == 0:
                break
