"""The support screen: a certified lower bound for every support of a region, at once.

A *support* ``S`` is the set of features a model uses. Every model on ``S`` of a region of the
search (integer points in the region's box, any ``t = 1/m`` in its range) has ``w = t lambda``
in the box ``[min(t lo_j), max(t hi_j)]`` per feature, so the least loss over that box on
``S`` (a logistic regression with a few columns) bounds its loss from below. The compiled
kernel (:mod:`riskexplore.risk_score.support.kernel`) returns a bound from a gradient of the
convex loss at its last Newton iterate, valid whether or not Newton converged; adding the
penalties of ``S`` gives a lower bound on the objective of every model on ``S``.

In the learned-scale class this is strong: a continuous logistic regression on ``S`` is
barely better than the best integer model with a free multiplier, so against a good
incumbent only a handful of supports survive (3-4 of 3,472 on mammo with at most five
features). :func:`screen_supports` enumerates the supports of a region (those that its
indicator bounds, the model size bounds and the rows on indicators allow) and returns
their bounds; :func:`beam_supports` is a cheap forward selection with the same kernel,
for heuristics where enumeration is too costly.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from riskexplore.core.parallel import dask_workers, ordered_map
from riskexplore.risk_score.loss import LogisticLoss
from riskexplore.risk_score.rows import RowMatrix
from riskexplore.risk_score.support.binned import bin_codes, weighted_columns
from riskexplore.risk_score.support.combinations import (
    equal_stretches,
    stretch_supports,
    support_batches,
)
from riskexplore.risk_score.support.entropy import entropy_tables
from riskexplore.risk_score.support.kernel import screen_batch, screen_workspace
from riskexplore.risk_score.support.merge import PATTERN_CAP, row_splits

__all__ = [
    "ScreenResult",
    "SupportData",
    "beam_supports",
    "count_supports",
    "screen_supports",
    "support_floors",
]

#: Supports fitted per call of the kernel (stop requests are polled in between). Each call
#: starts its caches cold (the rows' codes on the first features, the prefixes' sums), and
#: its Python costs a fraction of a millisecond: with 4,096 that was a quarter of adult's
#: learned scale (99 CPU-s against 74 with 16,384). A batch of adult takes about 10 ms, of
#: real-valued features (28 us a support) half a second.
_BATCH = 16384
#: Supports per task on a Dask cluster at most (about 0.1 s of work on adult): a task's
#: round trip costs milliseconds, so a batch per task spent more time in messages than in
#: fits. A region is cut into runs of equal length, as many as a multiple of the workers.
_STRETCH = 131072


class SupportData:
    """The loss's rows in the form the kernel reads (value indices per feature).

    Parameters
    ----------
    loss : LogisticLoss
        The problem's loss (its distinct rows ``Z`` and their weights).
    split_pairs : bool
        Intersect the rarer rows of every pair of binary features, so that a support
        reads only the rows rare on both its last features (see
        :mod:`~riskexplore.risk_score.support.merge`; False for a comparison).

    Attributes
    ----------
    X, y, w : arrays
        Margins ``y_i x_i`` (n, d), labels and weights.
    K : int array (d,)
        Distinct values of each feature.
    vals : array (d, max K)
        Those values.
    VT : int32 array (d + 1, n)
        Each row's value index per feature, then its label bit.
    split : tuple of arrays
        Per binary feature its rarer value's rows, and per pair of them the rows rare on
        both (:func:`~riskexplore.risk_score.support.merge.row_splits`): the kernel merges
        a support's rows by reading only those of its last one or two features.
    bins : tuple
        Each row's bin per feature at a few levels, the bins' counts
        (:func:`~riskexplore.risk_score.support.binned.bin_codes`) and the weighted
        nonzero values of each feature
        (:func:`~riskexplore.risk_score.support.binned.weighted_columns`): a support
        whose rows do not merge is first bounded on its rows grouped by those bins.
    entropy : tuple of arrays
        Upper bounds on ``H(X_e | X_a)`` per pair of features and ``H(X_e)``
        (:func:`~riskexplore.risk_score.support.entropy.entropy_tables`): the screen
        rules out a support by its first features' counts when they leave its last one
        too little information to gain.
    prior : float
        Log-odds of the positive class (the intercept-only start of Newton).
    d : int
        Number of features.
    """

    def __init__(self, loss: LogisticLoss, split_pairs: bool = True) -> None:
        Z = loss.Z
        self.y = np.ascontiguousarray(Z[:, 0])
        self.X = np.ascontiguousarray(Z[:, 1:] * self.y[:, None])
        self.w = np.ascontiguousarray(loss.weights)
        n, d = self.X.shape
        values = [np.unique(self.X[:, j]) for j in range(d)]
        self.K = np.array([len(v) for v in values], dtype=np.int64)
        width = int(self.K.max()) if d else 1
        self.vals = np.zeros((d, width))
        self.VT = np.zeros((d + 1, n), dtype=np.int32)  # value indices, then the label bit
        for j, v in enumerate(values):
            self.vals[j, : len(v)] = v
            self.VT[j] = np.searchsorted(v, self.X[:, j])
        self.VT[d] = self.y > 0
        self.split = row_splits(self.VT[:d], self.K, pairs=split_pairs)
        self.entropy = entropy_tables(self.VT, self.K, self.w, self.split)
        VB, KB = bin_codes(self.VT, self.K, self.w)
        nothing = VB.shape[0] == 0  # then the kernel never reads the columns
        self.bins = (VB, KB, weighted_columns(self.X[:0] if nothing else self.X, self.w))
        pos = float(self.w[self.y > 0].sum())
        self.prior = math.log(pos / (1 - pos)) if 0 < pos < 1 else 0.0
        self.d = d

    def screen_order(self, features) -> tuple[int, ...]:
        """``features`` in the order the screen enumerates them: most informative first.

        The supports are enumerated in lexicographic order of this list, so its last
        features are the ones the entropy bound
        (:func:`~riskexplore.risk_score.support.entropy.extension_bound`) meets as
        extensions, and a prefix's last feature is the one whose rarer rows are read once
        per prefix. A feature of low entropy gains little information, so late in the
        list its supports are ruled out from the table of ``H(X_e)`` alone, and its rarer
        rows are few. On adult (110 items) this halves the screen's time: of one
        region's 4.8 million supports, those left to the dearer bounds drop from 661
        to 122 thousand and the rows read from 436 to 68 million.

        Parameters
        ----------
        features : iterable of int
            0-based features.

        Returns
        -------
        tuple of int
            The same features by decreasing ``H(X_j)``, ties by index.
        """
        He = self.entropy[1]
        return tuple(sorted((int(j) for j in features), key=lambda j: (-He[j], j)))

    def _few(self, counts, support) -> bool:
        """Whether ``prod counts[j]`` over ``support`` is at most :data:`PATTERN_CAP` and
        the number of rows."""
        return math.prod(int(counts[j]) for j in support) <= min(PATTERN_CAP, self.X.shape[0])

    def merges(self, support) -> bool:
        """Whether the kernel merges the rows by their values on ``support`` (then a fit
        costs one pass over the rows and a Newton method on a few patterns).

        Parameters
        ----------
        support : sequence of int
            0-based features.

        Returns
        -------
        bool
            ``prod K_j`` over the support is at most :data:`PATTERN_CAP` and the number of
            rows.
        """
        return self._few(self.K, support)

    def merges_all(self, k_max: int) -> bool:
        """Whether the rows merge on every support of at most ``k_max`` features.

        Parameters
        ----------
        k_max : int
            Largest support.

        Returns
        -------
        bool
            :meth:`merges` for the ``k_max`` features with the most values.
        """
        return self.merges(_widest(self.K, k_max))

    def groups(self, support) -> bool:
        """Whether the rows on ``support`` fall in few groups at the first level of bins
        (:mod:`~riskexplore.risk_score.support.binned`; then a support whose rows do not
        merge is first bounded by one pass over them).

        Parameters
        ----------
        support : sequence of int
            0-based features.

        Returns
        -------
        bool
            The bins' patterns over the support are at most :data:`PATTERN_CAP` and the
            number of rows; False when there are no bins (every feature has few values).
        """
        KB = self.bins[1]
        return KB.shape[0] > 0 and self._few(KB[0], support)

    def groups_all(self, k_max: int) -> bool:
        """Whether the rows fall in few groups on every support of at most ``k_max``
        features.

        Parameters
        ----------
        k_max : int
            Largest support.

        Returns
        -------
        bool
            :meth:`groups` for the ``k_max`` features with the most bins.
        """
        KB = self.bins[1]
        return KB.shape[0] > 0 and self.groups(_widest(KB[0], k_max))


def _widest(counts: np.ndarray, k_max: int) -> np.ndarray:
    """The ``k_max`` features with the largest ``counts``."""
    return np.argsort(counts)[::-1][: max(k_max, 0)]


@dataclass
class ScreenResult:
    """Supports with a lower bound on the objective of every model on each.

    Attributes
    ----------
    supports : int array (N, k_max)
        0-based feature indices, padded with -1.
    sizes : int array (N,)
    bounds : array (N,)
        Lower bounds on the objective (loss plus penalties) of the models on each support.
    fits : array (N,)
        Objective of the last Newton iterate (a continuous point; at least the least
        continuous objective on the support's box, except for a support ruled out by its
        rows grouped in bins, whose fit is on those rows and then at least the cutoff).
    thetas : array (N, k_max + 1)
        That iterate, ``[w_0, w_S]``.
    complete : bool
        False when a stop request cut the screen short (then the bounds cover only the
        supports screened).
    screened : int
        Number of supports screened (more than those listed when the screen kept only
        the bounds below a cutoff).
    floors : array (d,), optional
        Per feature, the least bound over the screened supports that contain it
        (``inf`` for a feature in none), when the screen was asked for them.
    """

    supports: np.ndarray
    sizes: np.ndarray
    bounds: np.ndarray
    fits: np.ndarray
    thetas: np.ndarray
    complete: bool = True
    screened: int = -1
    floors: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.screened < 0:
            self.screened = len(self.sizes)

    def __len__(self) -> int:
        return len(self.sizes)

    def support(self, s: int) -> np.ndarray:
        """The features (0-based) of support ``s``.

        Parameters
        ----------
        s : int
            The support's index.

        Returns
        -------
        int array
            Its features, without the padding.
        """
        return self.supports[s, : self.sizes[s]]

    def point(self, s: int, d: int) -> np.ndarray:
        """The iterate of support ``s`` as a full vector ``[w_0, w_1..w_d]``.

        Parameters
        ----------
        s : int
            The support's index.
        d : int
            Number of features.

        Returns
        -------
        numpy.ndarray (d+1,)
            The iterate, zero off the support.
        """
        w = np.zeros(d + 1)
        w[0] = self.thetas[s, 0]
        w[self.support(s) + 1] = self.thetas[s, 1 : self.sizes[s] + 1]
        return w


def count_supports(n_forced: int, n_free: int, k_min: int, k_max: int) -> int:
    """Number of supports with the forced features, some free ones and a size in range.

    Parameters
    ----------
    n_forced : int
        Features every support has.
    n_free : int
        Features a support may have.
    k_min, k_max : int
        Size range of the supports.

    Returns
    -------
    int
        ``sum_e C(n_free, e)`` over the numbers ``e`` of free features that give a size
        in range.
    """
    lo, hi = max(k_min - n_forced, 0), min(k_max - n_forced, n_free)
    return sum(math.comb(n_free, e) for e in range(lo, hi + 1))


def _alpha_feasible(
    rows: RowMatrix | None, d: int, supports: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The supports (and their sizes) that meet every row that involves indicators only;
    the arrays themselves, not a copy, when there are no such rows."""
    if rows is None or rows.n_rows == 0:
        return supports, sizes
    # Gather the rows' columns of each support's features (padding -1 reads a zero column):
    # O(supports x size x rows), not a dense supports x d indicator matrix.
    by_feature = np.vstack([rows.A[:, d + 1 :].T, np.zeros((1, rows.n_rows))])
    index = np.where(supports >= 0, supports, d)
    act = np.zeros((len(sizes), rows.n_rows))
    for k in range(supports.shape[1]):
        act += by_feature[index[:, k]]
    keep = np.all((act >= rows.lower - 1e-9) & (act <= rows.upper + 1e-9), axis=1)
    return supports[keep], sizes[keep]


def _as_array(batch: list[tuple[int, ...]], k_max: int) -> tuple[np.ndarray, np.ndarray]:
    sup = np.full((len(batch), max(k_max, 1)), -1, dtype=np.int64)
    sizes = np.fromiter((len(c) for c in batch), dtype=np.int64, count=len(batch))
    for k in np.unique(sizes):  # supports of one size in one assignment
        rows = np.flatnonzero(sizes == k)
        if k:
            sup[rows, :k] = np.array([batch[r] for r in rows], dtype=np.int64)
    return sup, sizes


def screen_supports(
    data: SupportData,
    *,
    forced,
    free,
    k_min: int,
    k_max: int,
    w_lower: np.ndarray,
    w_upper: np.ndarray,
    c0: np.ndarray,
    alpha_rows: RowMatrix | None = None,
    cutoff: float = math.inf,
    should_stop: Callable[[], bool] | None = None,
    n_jobs: int = 1,
    client: Any = None,
    keep_below: float | None = None,
    floors: bool = False,
) -> ScreenResult:
    """Bound the objective of every model on every support of a region.

    Parameters
    ----------
    data : SupportData
        The loss's rows.
    forced, free : sequences of int
        0-based features every support has, and features it may have.
    k_min, k_max : int
        Size range of the supports.
    w_lower, w_upper : arrays (d+1,)
        Box of ``[w_0, w_1..w_d]`` over the region.
    c0 : array (d,)
        Penalty of each feature.
    alpha_rows : RowMatrix, optional
        Rows on indicators only; supports that break one are left out.
    cutoff : float
        Newton may stop once a support's bound reaches this objective.
    should_stop : callable, optional
        Polled between batches; when true the screen returns what it has, marked
        incomplete.
    n_jobs : int
        Threads that fit batches of supports at once (the compiled kernel releases the
        GIL). Every batch is fitted the same way whatever the thread, so the result is
        the serial one.
    client : dask.distributed.Client, optional
        Fit the batches as tasks on this Dask cluster instead (the rows are sent to every
        worker once per :class:`SupportData`); the result is again the serial one.
    keep_below : float, optional
        List only the supports whose bound is below this objective (the others hold no
        better model); a screen of a hundred million supports then keeps a few.
    floors : bool
        Also give each feature's least bound over the supports that contain it
        (``ScreenResult.floors``).

    Returns
    -------
    ScreenResult
        One entry per support that meets ``alpha_rows`` (and whose bound is below
        ``keep_below``), with its lower bound (valid whether or not Newton converged).
    """
    forced = tuple(int(j) for j in forced)
    free = data.screen_order(j for j in free if j not in forced)

    stopped = []
    fit_args = (w_lower, w_upper, c0, cutoff, keep_below, floors)

    def polled(tasks):
        for task in tasks:
            if should_stop is not None and should_stop():
                stopped.append(True)
                return
            yield task

    def batches():
        for sup, sizes in polled(support_batches(forced, free, k_min, k_max, _BATCH)):
            yield *_alpha_feasible(alpha_rows, data.d, sup, sizes), *fit_args

    total = count_supports(len(forced), len(free), k_min, k_max)

    def stretches():  # a worker writes its own supports: only where they start travels
        workers = dask_workers(client)
        parts = workers * math.ceil(total / (_STRETCH * workers))  # equal work for each
        runs = equal_stretches(len(forced), len(free), k_min, k_max, parts, align=_BATCH)
        for run in polled(runs):
            yield forced, free, run, k_max, alpha_rows, *fit_args

    if total <= _BATCH:  # one batch: no worker to wait for
        n_jobs, client = 1, None
    func, tasks = (_fit, batches()) if client is None else (_fit_stretches, stretches())
    parts = list(ordered_map(func, tasks, n_jobs=n_jobs, client=client, shared=(data,)))
    return _merge(parts, k_max, not stopped, data.d if floors else None)


#: The kernel's scratch arrays kept between batches: data -> {k_max: [free workspaces]}
#: (one is in use per thread at a time; they go with the data).
_WORKSPACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_WORKSPACES_LOCK = threading.Lock()


@contextmanager
def _workspace(data: SupportData, kmax: int) -> Iterator[tuple]:
    """Scratch arrays of the kernel for supports of up to ``kmax`` features of ``data``,
    reused from an earlier batch when one is free (see
    :func:`~riskexplore.risk_score.support.kernel.screen_workspace`). Their caches are
    keyed by features only, so ``data``'s rows must not change once it has screened."""
    with _WORKSPACES_LOCK:
        free = _WORKSPACES.setdefault(data, {}).setdefault(kmax, [])
        work = free.pop() if free else None
    if work is None:
        n, levels = data.X.shape[0], data.bins[0].shape[0]
        work = screen_workspace(kmax, n, data.d, levels)
    try:
        yield work
    finally:
        with _WORKSPACES_LOCK:
            free.append(work)


def _fit(
    data, sup, sizes, w_lower, w_upper, c0, cutoff, keep_below=None, floors=False
) -> ScreenResult:
    """Fit one batch of supports (a task of :func:`screen_supports`' workers)."""
    n = len(sizes)
    bounds, fits = np.zeros(n), np.zeros(n)
    thetas = np.zeros((n, sup.shape[1] + 1))
    if n:
        with _workspace(data, sup.shape[1]) as work:
            screen_batch(
                sup, sizes, data.VT, data.K, data.vals, data.X, data.y, data.w, data.split,
                data.entropy, *data.bins, np.asarray(w_lower, float),
                np.asarray(w_upper, float), np.asarray(c0, float), data.prior,
                float(cutoff), bounds, fits, thetas, work,
            )  # fmt: skip
    result = ScreenResult(sup, sizes, bounds, fits, thetas)
    if floors:
        result.floors = support_floors(sup, bounds, data.d)
    if keep_below is not None:
        kept = bounds < keep_below
        result.supports, result.sizes = sup[kept], sizes[kept]
        result.bounds, result.fits, result.thetas = bounds[kept], fits[kept], thetas[kept]
    return result


def _fit_stretches(data, forced, free, stretches, k_max, alpha_rows, *fit_args) -> ScreenResult:
    """Write and fit a run of stretches of supports, a batch at a time (a Dask task of
    :func:`screen_supports`; within a stretch, the batches are the threads' screen's)."""
    parts = [
        _fit(data, *_alpha_feasible(alpha_rows, data.d, sup, sizes), *fit_args)
        for extra, first, count in stretches
        for sup, sizes in stretch_supports(forced, free, extra, first, count, k_max, _BATCH)
    ]
    floors = fit_args[-1]  # the last of screen_supports' fit_args
    return _merge(parts, k_max, True, data.d if floors else None)


def support_floors(supports: np.ndarray, bounds: np.ndarray, d: int) -> np.ndarray:
    """Per feature, the least bound over the supports that contain it.

    Parameters
    ----------
    supports : int array (N, k_max)
        One support per row, padded with -1.
    bounds : array (N,)
        Their bounds.
    d : int
        Number of features.

    Returns
    -------
    numpy.ndarray (d,)
        ``min(bounds[s] for s containing j)`` per feature ``j``; ``inf`` for a feature in
        no support.
    """
    out = np.full(d, math.inf)
    for q in range(supports.shape[1]):
        col = supports[:, q]
        used = col >= 0
        np.minimum.at(out, col[used], bounds[used])
    return out


def _merge(
    parts: list[ScreenResult], k_max: int, complete: bool, d: int | None = None
) -> ScreenResult:
    width = max(k_max, 1)
    floors = None
    if d is not None:
        floors = np.full(d, math.inf)
        for p in parts:
            np.minimum(floors, p.floors, out=floors)
    if not parts:
        return ScreenResult(
            np.zeros((0, width), np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0),
            np.zeros((0, width + 1)), complete, 0, floors,
        )  # fmt: skip
    return ScreenResult(
        np.vstack([p.supports for p in parts]),
        np.concatenate([p.sizes for p in parts]),
        np.concatenate([p.bounds for p in parts]),
        np.concatenate([p.fits for p in parts]),
        np.vstack([p.thetas for p in parts]),
        complete,
        sum(p.screened for p in parts),
        floors,
    )


def beam_supports(
    data: SupportData,
    *,
    allowed,
    k_max: int,
    width: int,
    w_lower: np.ndarray,
    w_upper: np.ndarray,
    c0: np.ndarray,
    forced=(),
) -> ScreenResult:
    """Forward selection with a beam: grow the ``width`` best supports one feature at a
    time (each child fitted exactly), and return every support met, best first.

    Parameters
    ----------
    data : SupportData
        The loss's rows.
    allowed : sequence of int
        Features that may be added.
    k_max : int
        Largest support.
    width : int
        Supports kept per size.
    w_lower, w_upper : arrays (d+1,)
        Box of ``[w_0, w_1..w_d]``.
    c0 : array (d,)
        Penalty of each feature.
    forced : sequence of int
        Features every support starts with.

    Returns
    -------
    ScreenResult
        Every support fitted, in increasing order of its fitted objective.
    """
    start = tuple(sorted(int(j) for j in forced))
    beam = [start]
    seen: set[tuple[int, ...]] = {start}
    parts = [_fit(data, *_as_array([start], k_max), w_lower, w_upper, c0, math.inf)]
    for _ in range(len(start), k_max):
        children = sorted(
            {tuple(sorted((*s, j))) for s in beam for j in allowed if j not in s} - seen
        )
        if not children:
            break
        seen.update(children)
        fitted = _fit(data, *_as_array(children, k_max), w_lower, w_upper, c0, math.inf)
        parts.append(fitted)
        order = np.argsort(fitted.fits, kind="stable")[:width]
        beam = [children[i] for i in order]
    merged = _merge(parts, k_max, True)
    order = np.argsort(merged.fits, kind="stable")
    return ScreenResult(
        merged.supports[order], merged.sizes[order], merged.bounds[order],
        merged.fits[order], merged.thetas[order],
    )  # fmt: skip
