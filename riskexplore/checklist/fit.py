"""One-call fitting of certifiably optimal predictive checklists (M-of-N rules)."""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from collections.abc import Generator, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.checklist import constraints as cc
from riskexplore.checklist.engines import check_feasible, check_method, solve_with
from riskexplore.checklist.heuristics import submodular_checklists, unit_weighting_checklists
from riskexplore.checklist.model import Checklist
from riskexplore.checklist.problem import PARAMETERS, ChecklistProblem, checklist_sizes
from riskexplore.checklist.search import ExactSearchSettings
from riskexplore.core.events import Listener, SolveEvent, iterate_solve
from riskexplore.core.limits import (
    DEFAULT_GAP_TOLERANCE,
    StopRequest,
    checked_limits,
)
from riskexplore.core.parallel import resolve_n_jobs
from riskexplore.core.params import Interval, validate
from riskexplore.data.binarize import Binarizer
from riskexplore.errors import InputError

__all__ = [
    "fit_checklist",
    "iter_fit_checklist",
    "prepare_checklist",
    "solve_checklist_problem",
    "PreparedChecklist",
]


BINARIZE_METHODS = ("adaptive", "fixed")

#: Seconds the IP always gets, even when the heuristics used up the time limit.
MIN_SOLVE_TIME = 0.2


class PreparedChecklist:
    """A built checklist problem with what is needed to turn its solution into a model."""

    def __init__(self, problem, binarizer, outcome: str | None, settings: dict[str, Any]):
        self.problem = problem
        self.binarizer = binarizer
        self.outcome = outcome
        self.settings = settings


def _binarizer_params() -> set[str]:
    return set(inspect.signature(Binarizer).parameters)


def _binarize(X, binarize, thresholds, categorical, binarizer_kw: dict[str, Any], sample_weight):
    """``(item frame, binarizer or None)``; the binarizer is fitted with the rows' weights."""
    if binarize is None:
        if thresholds is not None:
            raise InputError("thresholds need binarize='adaptive' or 'fixed', not None")
        if binarizer_kw:
            raise InputError(
                f"binarizer option(s) {', '.join(sorted(binarizer_kw))} need binarize set"
            )
        return X, None

    if isinstance(binarize, Binarizer):
        if thresholds is not None or binarizer_kw:
            raise InputError("give binarizer options to the Binarizer itself, not fit_checklist")
        if hasattr(binarize, "items_"):
            return binarize.transform(X), binarize
        return binarize.fit(X, sample_weight=sample_weight).transform(X), binarize
    if not isinstance(binarize, str) or binarize not in BINARIZE_METHODS:
        raise InputError(
            f"binarize must be 'adaptive', 'fixed', None or a Binarizer, got {binarize!r}"
        )
    binarizer = Binarizer(
        method=binarize, thresholds=thresholds, categorical=categorical, **binarizer_kw
    )
    return binarizer.fit(X, sample_weight=sample_weight).transform(X), binarizer


def _outcome_name(y, outcome_name: str | None) -> str | None:
    if outcome_name is not None:
        return str(outcome_name)
    name = getattr(y, "name", None)
    return str(name) if isinstance(name, str) and name else None


#: What the fit-level settings may be (the problem's own are checked by
#: :func:`~riskexplore.checklist.problem.checklist_sizes` and the problem).
FIT_PARAMETERS = {
    "fnr_max": [Interval(float, 0, 1), None],
    "fpr_max": [Interval(float, 0, 1), None],
}


def prepare_checklist(
    X,
    y,
    *,
    binarize: Any = "adaptive",
    thresholds: dict | None = None,
    categorical="auto",
    max_items: int | None = None,
    min_m: int = 1,
    max_m: int | None = None,
    one_item_per_group: bool = True,
    fnr_max: float | None = None,
    fpr_max: float | None = None,
    fp_weight: float = 1.0,
    constraints: Iterable = (),
    groups=None,
    outcome_name: str | None = None,
    **kw: Any,
) -> PreparedChecklist:
    """Binarize (if asked), then build the :class:`ChecklistProblem` that is solved.

    Parameters
    ----------
    X, y, binarize, thresholds, categorical, max_items, min_m, max_m, one_item_per_group
        As for :func:`fit_checklist`.
    fnr_max, fpr_max, fp_weight, constraints, groups, outcome_name
        As for :func:`fit_checklist`.
    **kw
        Binarizer options and further :class:`ChecklistProblem` arguments.

    Returns
    -------
    PreparedChecklist
        The problem, the fitted binarizer (or None), the outcome's wording and the
        settings as the model records them.

    Raises
    ------
    InputError
        For settings or data that cannot be used (before binarizing when possible).
    """
    sizes = checklist_sizes(max_items=max_items, min_m=min_m, max_m=max_m)  # before binarizing
    validate(FIT_PARAMETERS, {"fnr_max": fnr_max, "fpr_max": fpr_max})
    validate(PARAMETERS, {"fp_weight": fp_weight})
    fnr_max = None if fnr_max is None else float(fnr_max)
    fpr_max = None if fpr_max is None else float(fpr_max)
    if not isinstance(X, pd.DataFrame):
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise InputError(f"X must be a 2-dimensional table, got shape {arr.shape}")
        X = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise InputError(f"y has {y.shape[1]} columns; give a single outcome column")
        y = y.iloc[:, 0]
    if len(y) != len(X):
        raise InputError(f"X has {len(X)} rows but y has {len(y)}")
    outcome = _outcome_name(y, outcome_name)

    bin_kw = {k: kw.pop(k) for k in list(kw) if k in _binarizer_params()}
    items, binarizer = _binarize(
        X, binarize, thresholds, categorical, bin_kw, kw.get("sample_weight")
    )
    item_groups = None
    if binarizer is not None:
        item_groups = dict(binarizer.item_groups_)
    elif kw.get("item_groups") is not None:
        item_groups = kw.pop("item_groups")
    kw.pop("item_groups", None)

    cons = [] if constraints is None else list(constraints)
    if one_item_per_group and item_groups is not None:
        cons.append(cc.OneItemPerGroup())
    if fnr_max is not None:
        cons.append(cc.FNRLimit(fnr_max))
    if fpr_max is not None:
        cons.append(cc.FPRLimit(fpr_max))
    problem = ChecklistProblem(
        items,
        y.to_numpy() if isinstance(y, pd.Series) else y,
        item_groups=item_groups,
        max_items=sizes["max_items"],
        min_m=sizes["min_m"],
        max_m=sizes["max_m"],
        fp_weight=fp_weight,
        constraints=tuple(cons),
        groups=groups,
        **kw,
    )
    settings = {
        "binarize": binarize
        if binarize is None or isinstance(binarize, str)
        else getattr(binarize, "method", "custom"),
        "max_items": sizes["max_items"],
        "min_m": sizes["min_m"],
        "max_m": sizes["max_m"],
        "one_item_per_group": bool(one_item_per_group),
        "fnr_max": fnr_max,
        "fpr_max": fpr_max,
        "fp_weight": float(fp_weight),
        "n_constraints": len(cons),
    }
    return PreparedChecklist(problem, binarizer, outcome, settings)


def _warm_starts(prepared: PreparedChecklist, warm_start, use_heuristics: bool) -> list:
    """``(items, M)`` pairs: the user's warm start, then heuristic checklists."""
    problem = prepared.problem
    names = [str(n) for n in problem.item_names]
    starts: list[tuple[list[str], int]] = []
    if warm_start is not None:
        if isinstance(warm_start, Checklist):
            pairs = [(warm_start.items, warm_start.M)]
        elif (
            isinstance(warm_start, tuple)
            and len(warm_start) == 2
            and not isinstance(warm_start[1], (tuple, list))
        ):
            pairs = [warm_start]
        else:
            pairs = list(warm_start)
        for start in pairs:
            if isinstance(start, Checklist):
                items, m = start.items, start.M
            else:
                try:
                    items, m = start
                except (TypeError, ValueError):
                    raise InputError("warm_start must be a Checklist or (items, M) pairs") from None
            items = [names[int(i)] if not isinstance(i, str) else i for i in items]
            unknown = [i for i in items if i not in names]
            if unknown:
                raise InputError(f"warm start uses items not in the data: {', '.join(unknown)}")
            starts.append((list(items), int(m)))
    if use_heuristics:
        for heuristic in (submodular_checklists, unit_weighting_checklists):
            try:
                found = heuristic(problem)
            except (ArithmeticError, ValueError, RuntimeError):  # a heuristic may fail
                continue
            starts.extend((list(items), int(m)) for items, m in found[:5])
    return starts


def engine_settings(method: str, settings, n_jobs: int | None, client):
    """The engine's settings with ``n_jobs`` and ``client`` applied (validated).

    Parameters
    ----------
    method : {"exact", "mip"}
    settings : ExactSearchSettings, ChecklistIPSettings or None
    n_jobs : int or None
    client : dask.distributed.Client or None

    Returns
    -------
    settings
        For the exact search, an :class:`ExactSearchSettings`; otherwise ``settings``.

    Raises
    ------
    InputError
        For a bad ``n_jobs``, a ``client`` that is not a Dask client, or a ``client``
        with the MIP.
    """
    if method != "exact":
        if client is not None:
            raise InputError("client runs the exact search only: use method='exact'")
        resolve_n_jobs(n_jobs)
        return settings
    if settings is None:
        settings = ExactSearchSettings()
    elif not isinstance(settings, ExactSearchSettings):
        raise InputError(
            f"settings of method='exact' must be ExactSearchSettings, got {type(settings).__name__}"
        )
    changes = {}
    if n_jobs is not None:
        changes["n_jobs"] = n_jobs
    if client is not None:
        changes["client"] = client
    return dataclasses.replace(settings, **changes) if changes else settings


def solve_checklist_problem(
    prepared: PreparedChecklist,
    *,
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    callbacks: Sequence[Listener] = (),
    warm_start=None,
    use_heuristics: bool | None = None,
    settings=None,
    method: str = "exact",
    n_jobs: int | None = None,
    client=None,
) -> Checklist:
    """Solve a prepared problem with the checklist engine ``method`` and wrap the result
    as a Checklist (raising :class:`InfeasibleError` with the culprits when no checklist
    satisfies the constraints).

    Parameters
    ----------
    prepared : PreparedChecklist
        The problem (see :func:`prepare_checklist`).
    time_limit, node_limit, gap_tolerance, stop, callbacks, warm_start, use_heuristics
        As for :func:`fit_checklist`.
    settings, method, n_jobs, client
        As for :func:`fit_checklist`.

    Returns
    -------
    Checklist
        The checklist, its certificate and statistics.
    """
    method = check_method(method)
    settings = engine_settings(method, settings, n_jobs, client)
    if use_heuristics is None:  # the exact search finds its own incumbents at once
        use_heuristics = method == "mip"
    limits = checked_limits(time_limit, node_limit, gap_tolerance, stop)
    began = time.perf_counter()
    starts = _warm_starts(prepared, warm_start, use_heuristics)
    heuristics_time = time.perf_counter() - began
    requested = limits.time_limit
    if math.isfinite(limits.time_limit):  # the heuristics count against the time limit
        limits.time_limit = max(limits.time_limit - heuristics_time, MIN_SOLVE_TIME)
    result = solve_with(
        prepared.problem,
        method,
        limits=limits,
        listeners=tuple(callbacks or ()),
        warm_starts=tuple(starts),
        settings=settings,
    )
    if result.status == "infeasible" and method == "exact":
        check_feasible(prepared.problem, method)  # raises, naming the culprits
    fit_settings = dict(prepared.settings)
    fit_settings.update(
        time_limit=requested,
        gap_tolerance=limits.gap_tolerance,
        use_heuristics=bool(use_heuristics),
        n_warm_starts=len(starts),
        method=method,
    )
    if method == "exact":
        fit_settings["n_jobs"] = settings.n_jobs
        fit_settings["dask"] = settings.client is not None
    model = Checklist.from_result(
        prepared.problem,
        result,
        binarizer=prepared.binarizer,
        outcome_name=prepared.outcome,
        settings=fit_settings,
    )
    # time covers the heuristics and the IP, as the time limit does
    model.stats["solve_time"] = float(model.stats.get("time", 0.0))
    model.stats["heuristics_time"] = float(heuristics_time)
    model.stats["time"] = model.stats["solve_time"] + float(heuristics_time)
    return model


def fit_checklist(
    X,
    y,
    *,
    binarize: Any = "adaptive",
    thresholds: dict | None = None,
    categorical="auto",
    max_items: int | None = None,
    min_m: int = 1,
    max_m: int | None = None,
    one_item_per_group: bool = True,
    fnr_max: float | None = None,
    fpr_max: float | None = None,
    fp_weight: float = 1.0,
    constraints: Iterable = (),
    groups=None,
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    callbacks: Sequence[Listener] = (),
    warm_start=None,
    use_heuristics: bool | None = None,
    settings=None,
    outcome_name: str | None = None,
    method: str = "exact",
    n_jobs: int | None = None,
    client=None,
    **kw: Any,
) -> Checklist:
    """Fit a certifiably optimal predictive checklist (an M-of-N rule).

    Raw features are first binarized into items (``age ≥ 54``, ``cp = 2``, ...); the
    solver then picks the items and the threshold ``M`` that minimise the (weighted)
    number of mistakes ``FN + fp_weight * FP`` within the limits and constraints,
    breaking ties towards fewer items and smaller ``M``, and proves it (a certificate
    with a lower bound and the gap).

    Parameters
    ----------
    X : DataFrame or array of shape (n, d)
        Raw features (with ``binarize`` set) or 0/1 items (``binarize=None``).
    y : array-like of shape (n,)
        0/1 outcome; 1 is what a checked-enough checklist predicts.
    binarize : {"adaptive", "fixed"}, None or Binarizer
        How raw columns become items (see :class:`~riskexplore.data.binarize.Binarizer`);
        ``None`` uses the columns of ``X`` as items (they must be 0/1). A fitted
        Binarizer is applied as is; an unfitted one is fitted on ``X``.
    thresholds, categorical
        Passed to the Binarizer (user cut-offs per column; categorical columns).
    max_items : int, optional
        Largest number of items ``N`` (default: no limit).
    min_m, max_m : int
        Range of the threshold ``M``.
    one_item_per_group : bool
        At most one item per source column (needs binarization or ``item_groups``).
    fnr_max, fpr_max : float, optional
        Limits on the training false negative / false positive rates.
    fp_weight : float
        Cost of a false positive relative to a false negative (``W-`` of Zhang et al.
        [1]_, Section 3).
    constraints : iterable
        Further constraints (see :mod:`riskexplore.checklist.constraints`).
    groups : array-like of shape (n,), optional
        Group of each example, for group-rate constraints and per-group statistics.
    time_limit, node_limit, gap_tolerance, stop, callbacks
        As in :func:`riskexplore.fit_risk_score`.
    warm_start : Checklist, ``(items, M)`` or a list of them, optional
        Feasible checklists to start from (items as names or indices).
    use_heuristics : bool, optional
        Also start from the submodular-cover and unit-weighting heuristics (default:
        only for ``method="mip"``; the exact search finds incumbents at once).
    settings : optional
        Engine settings: :class:`~riskexplore.checklist.search.ExactSearchSettings`
        or :class:`~riskexplore.checklist.mip.ChecklistIPSettings`.
    outcome_name : str, optional
        What a positive prediction means (default: the name of ``y``).
    method : {"exact", "mip"}
        ``"exact"`` (default): the exact search over item subsets
        (:mod:`riskexplore.checklist.search`), which certifies in seconds;
        ``"mip"``: the integer program (2) of [1]_ (Section 3) on HiGHS, kept for
        cross-checks.
    n_jobs : int, optional
        Cores the exact search uses, sharing its best checklist (default ``None``: every
        core of the machine; ``-1`` likewise, ``1`` for one). The checklist and its
        certificate do not depend on it. The MIP uses HiGHS' own threads.
    client : dask.distributed.Client, optional
        Run the exact search on this Dask cluster (for searches that outgrow one
        machine); the answer is the same as on one core.
    **kw
        Further Binarizer options (``n_quantiles``, ``complements``,
        ``max_categories_auto``, ...) or ChecklistProblem arguments
        (``sample_weight``, ``min_items``, ``item_groups``, ...).

    Returns
    -------
    Checklist
        The checklist, its certificate and training statistics.

    Raises
    ------
    InputError
        If the data or settings cannot be used.
    InfeasibleError
        If no checklist satisfies the limits and constraints.

    References
    ----------
    .. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.

    Examples
    --------
    >>> from riskexplore import fit_checklist, load_dataset
    >>> data = load_dataset("heart")
    >>> model = fit_checklist(data.X, data.y, max_items=4, time_limit=20)  # doctest: +SKIP
    >>> print(model.to_text())  # doctest: +SKIP
    """
    engine_settings(check_method(method), settings, n_jobs, client)  # bad input raises first
    prepared = prepare_checklist(
        X,
        y,
        binarize=binarize,
        thresholds=thresholds,
        categorical=categorical,
        max_items=max_items,
        min_m=min_m,
        max_m=max_m,
        one_item_per_group=one_item_per_group,
        fnr_max=fnr_max,
        fpr_max=fpr_max,
        fp_weight=fp_weight,
        constraints=constraints,
        groups=groups,
        outcome_name=outcome_name,
        **kw,
    )
    return solve_checklist_problem(
        prepared,
        time_limit=time_limit,
        node_limit=node_limit,
        gap_tolerance=gap_tolerance,
        stop=stop,
        callbacks=callbacks,
        warm_start=warm_start,
        use_heuristics=use_heuristics,
        settings=settings,
        method=method,
        n_jobs=n_jobs,
        client=client,
    )


def iter_fit_checklist(
    X,
    y,
    *,
    callbacks: Sequence[Listener] = (),
    time_limit: float = math.inf,
    node_limit: int | None = None,
    gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
    stop: StopRequest = None,
    warm_start=None,
    use_heuristics: bool | None = None,
    settings=None,
    method: str = "exact",
    n_jobs: int | None = None,
    client=None,
    **problem_args: Any,
) -> Generator[SolveEvent, None, Checklist]:
    """Fit like :func:`fit_checklist`, yielding progress events as the solve runs.

    The data are binarized and the problem is built (and the inputs validated) before
    this function returns, so bad input raises here. The generator yields
    :class:`~riskexplore.core.events.SolveEvent` objects and *returns* the fitted
    :class:`Checklist` (the ``value`` of ``StopIteration``).

    Parameters
    ----------
    X, y, callbacks, time_limit, node_limit, gap_tolerance, stop, warm_start
        As for :func:`fit_checklist`.
    use_heuristics, settings, method, n_jobs, client
        As for :func:`fit_checklist`.
    **problem_args
        The problem arguments of :func:`fit_checklist` (``binarize``, ``max_items``,
        ``constraints``, ...).

    Returns
    -------
    generator of SolveEvent, returning Checklist
        The events; the fitted checklist is the generator's return value.
    """
    engine_settings(check_method(method), settings, n_jobs, client)
    prepared = prepare_checklist(X, y, **problem_args)
    checked_limits(time_limit, node_limit, gap_tolerance, stop)  # bad input raises here
    return iterate_solve(
        solve_checklist_problem,
        prepared,
        callbacks,
        time_limit=time_limit,
        node_limit=node_limit,
        gap_tolerance=gap_tolerance,
        stop=stop,
        warm_start=warm_start,
        use_heuristics=use_heuristics,
        settings=settings,
        method=method,
        n_jobs=n_jobs,
        client=client,
    )
