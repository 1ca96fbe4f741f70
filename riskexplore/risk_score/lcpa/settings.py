"""Settings of the LCPA branch-and-bound (:func:`~riskexplore.risk_score.lcpa.solve_lcpa`)."""

from __future__ import annotations

from dataclasses import dataclass

from riskexplore.core.parallel import check_client, resolve_n_jobs

__all__ = ["LCPASettings"]


@dataclass
class LCPASettings:
    """Switches and knobs of LCPA; every improvement of Section 4 can be turned off.

    Attributes
    ----------
    initialization : bool
        Run cutting planes on the LP relaxation first, then round and polish its points.
    init_max_iterations : int
    init_time_fraction : float
        Share of the time limit the initialization may use.
    init_roundings : int
        How many of the last relaxation points are rounded and polished.
    beam_width : int
        Before the cutting planes, a beam search over supports (forward selection with
        the support kernel's continuous fits) keeps this many supports per size (0: no
        beam search).
    beam_roundings : int
        Best supports of the beam search whose fits are rounded and polished.
    sequential_rounding : bool
        Round fractional LP points when the lower bound has moved, then polish.
    polishing : bool
        Polish new incumbents with discrete coordinate descent.
    chained_updates : bool
        Tighten the bounds on loss and model size and feed them back to the LP.
    tighten_intercept : bool
        Shrink the intercept's bounds with the data-derived bounds (valid when no
        constraint involves the intercept).
    diving : bool
        After branching, process a child at once (depth first) before going back to the
        best-bound node.
    pseudo_costs : bool
        Choose the branching column by pseudo-costs (else the most fractional one).
    restore_bases : bool
        Store a basis with every queued node and restore it when jumping to it.
    max_cuts_in_lp : int
        Cut rows kept in the LP; idle cuts are dropped beyond this.
    fractional_cut_rounds : int
        Rounds of extra cuts at a node's fractional LP points before it is split.
    fractional_cut_threshold : float
        Add such a cut when the LP underestimates the loss there by this relative amount.
    heuristic_time_fraction : float
        Upper limit on the share of time spent in rounding and polishing.
    report_interval : float
        Seconds between progress events (when someone listens).
    root_fixing : bool
        After the initialization, screen every support of the root (when there are at
        most ``fixing_max_supports``) and fix to zero each feature whose certified floor
        (the least bound of a model using it) reaches the incumbent; more are fixed as the
        incumbent improves (:mod:`riskexplore.risk_score.support.fixing`).
    fixing_max_supports : int
    fixing_max_work : float
        No root fixing when its screen would read more rows than this (supports times
        distinct rows, times 20 where rows do not merge by pattern): income's 443,704
        supports of 9,787 rows, 4.3e9, take about 12 s.
    n_jobs : int or None
        Workers of the support screen (at the root fixing, and at the nodes of the
        learned-scale search and of the fixed scale's screen engine): each fits ranges of
        supports in a thread of its own (``None``: every core; ``-1`` likewise). The model
        and its certificate are the same with any number.
    client : dask.distributed.Client or None
        Fit the screen's ranges of supports on this Dask cluster instead of in threads
        (the rows are sent to every worker once per solve).
    """

    initialization: bool = True
    init_max_iterations: int = 300
    init_time_fraction: float = 0.2
    init_roundings: int = 5
    beam_width: int = 10
    beam_roundings: int = 10
    sequential_rounding: bool = True
    polishing: bool = True
    chained_updates: bool = True
    tighten_intercept: bool = True
    diving: bool = True
    pseudo_costs: bool = True
    restore_bases: bool = True
    max_cuts_in_lp: int = 200
    fractional_cut_rounds: int = 1
    fractional_cut_threshold: float = 1e-3
    heuristic_time_fraction: float = 0.1
    report_interval: float = 0.1
    root_fixing: bool = True
    fixing_max_supports: int = 2_000_000
    fixing_max_work: float = 1e10
    n_jobs: int | None = None
    client: object | None = None

    def __post_init__(self) -> None:
        self.n_jobs = resolve_n_jobs(self.n_jobs)
        check_client(self.client)
