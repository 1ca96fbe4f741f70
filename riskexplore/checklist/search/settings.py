"""Settings of the exact checklist search (:func:`~riskexplore.checklist.search.solve`)."""

from __future__ import annotations

from dataclasses import dataclass

from riskexplore.core.parallel import check_client, resolve_n_jobs
from riskexplore.errors import InputError

__all__ = ["DEFER_BAND", "DEFER_FRONTIER_SIZE", "DEFER_MIN_WORDS", "ExactSearchSettings"]

#: Deferring is on by default when the rows fill at least this many 64-bit words (a
#: node's expansion then costs far more than handling a deferred node).
DEFER_MIN_WORDS = 32
#: The default frontier when deferring: a shallow one (one item on adult_raw), so that
#: the workers start at once and the deferral does the best-first part.
DEFER_FRONTIER_SIZE = 1000
#: Share of the gap of the default defer band.
DEFER_BAND = 0.25


@dataclass
class ExactSearchSettings:
    """Settings of :func:`solve_checklist_exact`.

    Attributes
    ----------
    progress_interval : float
        Smallest time (s) between two progress events (incumbent events are never held).
    slice_seconds : float
        Target time (s) of one run of the compiled loop between two returns to Python;
        stop requests and the time limit are checked at each return.
    group_order : {"given", "strong_first", "weak_first", "large_first", "small_first"}
        Order of the search groups (groups holding an item that a constraint requires
        always come first): as the items come in the data (default: it explored the
        fewest nodes on the benchmarks), by the best single item, or by group size.
    n_jobs : int or None
        Threads that search subtrees at once, sharing the incumbent (``None``: every
        core of the machine; ``-1`` likewise). The checklist and its certificate are the
        same with any number.
    client : dask.distributed.Client or None
        Search the subtrees on this Dask cluster instead of in threads.
    cell_bound : bool
        Use the equivalent-row cells bound
        (:mod:`~riskexplore.checklist.search.cells`); off only to measure it.
    sibling_bound : bool
        Bound a node whose children are leaves by a searched sibling of the same group
        (``bounds.sibling_bound``); off only to measure it.
    frontier_size : int or None
        The frontier is the deepest level with at most this many subsets (one item per
        group), at least two levels above the largest size (``None``: ``FRONTIER_SIZE``,
        or ``DEFER_FRONTIER_SIZE`` when deferring, which does the best-first part itself).
    refine : bool
        Refine the frontier best-first before the depth-first phase
        (:mod:`~riskexplore.checklist.search.refine`), so that the lower bound rises early
        (not when deferring, which does that below the frontier too).
    frontier_limit : int
        Most frontier nodes after refining.
    refine_seconds : float
        Most time spent refining (each expansion is a call from Python; the depth-first
        phase, on every worker, does the rest faster).
    defer_band : float or None
        Below the frontier, a child whose bound is more than this share of the gap above
        the least open bound is *deferred*: put back with the frontier nodes, to be
        searched when the least open bound gets near it, instead of right below its
        parent. The search is then best-first down to ``defer_depth`` items and
        depth-first below, so the lower bound rises early (on adult_raw N <= 5, nodes
        bounded below 80% of the optimum hold a tenth of the work, but the depth-first
        order searched them for four fifths of the time). 0 turns it off: depth-first
        below each frontier node. ``None``: 0.25 when the rows fill at least
        ``DEFER_MIN_WORDS`` words of 64, else 0 (on small data a node costs less than
        handling it twice: heart N <= 8 took 5.4 s deferring against 4.0 s without).
    defer_depth : int or None
        Largest size of a deferred node (``None``: any node below the frontier). A node
        is deferred when its turn comes, so that its searched siblings can still rule it
        out (the sibling bound) first.
    refine_share : float
        Refining also stops after this share of the time already spent building the
        search and its frontier. Refining runs on one core, so it pays only where the
        subtrees are expensive, which is where building the frontier was: heart builds it
        in 0.3 s and certifies N <= 8 in seconds (a full second of refining was a quarter
        of its time), adult_raw takes 1.7 s and refines for its full second.
    """

    progress_interval: float = 0.1
    slice_seconds: float = 0.05
    group_order: str = "given"
    n_jobs: int | None = None
    client: object | None = None
    cell_bound: bool = True
    sibling_bound: bool = True
    frontier_size: int | None = None
    refine: bool = True
    frontier_limit: int = 200_000
    refine_seconds: float = 1.0
    refine_share: float = 0.5
    defer_band: float | None = None
    defer_depth: int | None = None

    def __post_init__(self) -> None:
        self.n_jobs = resolve_n_jobs(self.n_jobs)
        check_client(self.client)
        if self.defer_band is not None and not 0.0 <= self.defer_band <= 1.0:
            raise InputError(
                f"defer_band must be in [0, 1] (a share of the gap), got {self.defer_band}"
            )
        if self.defer_depth is not None and self.defer_depth < 0:
            raise InputError(f"defer_depth must be None or at least 0, got {self.defer_depth}")
