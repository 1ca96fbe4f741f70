"""Run a grid of fits (folds x sizes x constraint variants ...) serially or in parallel.

>>> result = run_grid(cells, fit_cell, backend="joblib", n_jobs=2)  # doctest: +SKIP
>>> result.to_frame()  # doctest: +SKIP

* ``cells`` is a sequence of dicts (e.g. ``{"dataset": "mammo", "fold": 3, "size": 5}``);
  ``fit_cell(cell)`` fits one cell and returns a dict of (picklable) results.
* ``backend="serial"`` runs in this process, ``"joblib"`` in ``n_jobs`` worker processes
  (loky), ``"dask"`` on a ``dask.distributed`` client (given with ``client=``; without one
  a local cluster of ``n_jobs`` single-threaded worker processes is started and closed).
  ``fit_cell`` and the results must be picklable for the parallel backends (cloudpickle
  is used, so lambdas and closures work).
* Progress arrives as :class:`GridEvent` objects, delivered to ``listener`` in the
  calling process as each cell finishes (in completion order).
* A cell that raises is reported with status ``"failed"`` and the exception message; a
  cell that runs longer than ``time_limit_per_cell`` seconds with status ``"timeout"``.
  No cell is ever dropped: :class:`GridResult` has one :class:`CellResult` per cell, in
  the order of ``cells``.

Time limits: in a process's main thread (serial backend, joblib workers) a timer signal
interrupts the cell's Python code (code inside a C extension, such as one HiGHS call, is
interrupted when it returns). Elsewhere (dask workers run cells in threads) the cell runs
in a helper thread that is abandoned when time is up; it keeps its CPU until it ends, so
give solvers their own time limit too (as :func:`fit_risk_score` does) and treat
``time_limit_per_cell`` as a safety net.
"""

from __future__ import annotations

import math
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from riskexplore.core.highs import highs_thread
from riskexplore.errors import InputError

__all__ = ["BACKENDS", "CellResult", "GridEvent", "GridResult", "run_grid"]

BACKENDS = ("serial", "joblib", "dask")
#: Cell statuses.
OK, FAILED, TIMEOUT = "ok", "failed", "timeout"


@dataclass(frozen=True)
class GridEvent:
    """Progress of a grid after one more cell finished.

    Attributes
    ----------
    done, total : int
        Cells finished (any status) and cells in the grid.
    failed : int
        Cells finished with status ``"failed"`` or ``"timeout"``.
    best_upper_bound, best_lower_bound : float
        Smallest ``upper_bound`` (or ``objective``) and largest ``lower_bound`` that any
        finished cell's result reported so far (``inf`` / ``-inf`` if none did). These
        compare across cells only when the cells solve the same problem (restarts,
        variants of one instance); per-cell bounds are in :meth:`GridResult.to_frame`.
    last_cell : dict
        The cell that just finished.
    last_status : str
        Its status: ``"ok"``, ``"failed"`` or ``"timeout"``.
    elapsed : float
        Seconds since the grid started.
    """

    done: int
    total: int
    failed: int
    best_upper_bound: float
    best_lower_bound: float
    last_cell: dict
    last_status: str
    elapsed: float

    @property
    def fraction(self) -> float:
        """The share of cells finished (0 to 1)."""
        return self.done / self.total if self.total else 1.0


@dataclass
class CellResult:
    """Outcome of one cell: its status, result dict or error, and wall time."""

    index: int
    cell: dict
    status: str
    result: dict = field(default_factory=dict)
    error: str | None = None
    time: float = math.nan

    @property
    def ok(self) -> bool:
        """Whether the cell finished without an error."""
        return self.status == OK


@dataclass
class GridResult:
    """Every cell's outcome, in the order of the cells."""

    cells: list[CellResult]
    backend: str
    elapsed: float

    def __len__(self) -> int:
        return len(self.cells)

    def __iter__(self):
        return iter(self.cells)

    def __getitem__(self, i: int) -> CellResult:
        return self.cells[i]

    @property
    def failed(self) -> list[CellResult]:
        """Cells that failed or timed out."""
        return [c for c in self.cells if not c.ok]

    @property
    def n_failed(self) -> int:
        """The number of cells that failed."""
        return len(self.failed)

    def to_frame(self):
        """One row per cell: the cell's keys, ``status``, ``error``, ``time``, then the
        result's keys (values that are not scalars are kept as Python objects)."""
        rows = []
        for c in self.cells:
            row: dict[str, Any] = dict(c.cell)
            row.update(status=c.status, error=c.error, time=c.time)
            for k, v in c.result.items():
                row[k if k not in row else f"result_{k}"] = v
            rows.append(row)
        return pd.DataFrame(rows)


# --- running one cell (in whatever process runs it) --------------------------------------
class _CellTimeout(Exception):
    pass


def _message(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _call(fit_cell, cell) -> dict:
    out = fit_cell(dict(cell))
    if out is None:
        return {}
    if not isinstance(out, Mapping):
        raise TypeError(f"fit_cell must return a dict, got {type(out).__name__}")
    return dict(out)


def _run_cell(fit_cell, cell, time_limit: float | None) -> dict:
    """``{"status", "result", "error", "time"}`` of one cell; never raises."""
    start = time.perf_counter()
    try:
        if time_limit is None:
            result = _call(fit_cell, cell)
        elif threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            result = _with_alarm(fit_cell, cell, time_limit)
        else:
            result = _in_thread(fit_cell, cell, time_limit)
        status, error = OK, None
    except _CellTimeout:
        result, status, error = {}, TIMEOUT, f"no result within {time_limit:g} s"
    except Exception as exc:  # reported, never raised: the grid goes on
        result, status = {}, FAILED
        error = _message(exc)
        result = {"traceback": traceback.format_exc(limit=5)}
    return {
        "status": status,
        "result": result,
        "error": error,
        "time": time.perf_counter() - start,
    }


def _with_alarm(fit_cell, cell, time_limit: float) -> dict:
    def on_alarm(signum, frame):
        raise _CellTimeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, float(time_limit))
    try:
        return _call(fit_cell, cell)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)


def _in_thread(fit_cell, cell, time_limit: float) -> dict:
    box: dict[str, Any] = {}

    def target():
        try:
            box["result"] = _call(fit_cell, cell)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(
        target=highs_thread(target), daemon=True, name="riskexplore-grid-cell"
    )
    thread.start()
    thread.join(float(time_limit))
    if thread.is_alive():
        raise _CellTimeout
    if "error" in box:
        raise box["error"]
    return box["result"]


# --- the grid ------------------------------------------------------------------------------
class _Progress:
    def __init__(self, cells, listener, start):
        self.cells, self.listener, self.start = cells, listener, start
        self.outcomes: list[CellResult | None] = [None] * len(cells)
        self.done = self.failed = 0
        self.upper, self.lower = math.inf, -math.inf

    def record(self, index: int, outcome: dict) -> None:
        cell = self.cells[index]
        res = CellResult(
            index,
            cell,
            outcome["status"],
            outcome.get("result") or {},
            outcome.get("error"),
            float(outcome.get("time", math.nan)),
        )
        self.outcomes[index] = res
        self.done += 1
        if not res.ok:
            self.failed += 1
        else:
            upper = _number(res.result.get("upper_bound", res.result.get("objective")))
            lower = _number(res.result.get("lower_bound"))
            if upper is not None and upper < self.upper:
                self.upper = upper
            if lower is not None and lower > self.lower:
                self.lower = lower
        if self.listener is not None:
            self.listener(
                GridEvent(
                    done=self.done,
                    total=len(self.cells),
                    failed=self.failed,
                    best_upper_bound=self.upper,
                    best_lower_bound=self.lower,
                    last_cell=dict(cell),
                    last_status=res.status,
                    elapsed=time.perf_counter() - self.start,
                )
            )

    def fail_rest(self, message: str) -> None:
        for i, o in enumerate(self.outcomes):
            if o is None:
                self.record(i, {"status": FAILED, "error": message, "time": math.nan})


def _number(value) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if not math.isnan(f) else None


def run_grid(
    cells: Sequence[Mapping[str, Any]],
    fit_cell: Callable[[dict], Mapping[str, Any]],
    *,
    backend: str = "serial",
    client=None,
    n_jobs: int = 2,
    listener: Callable[[GridEvent], None] | None = None,
    time_limit_per_cell: float | None = None,
) -> GridResult:
    """Fit every cell and collect the results (see the module docstring).

    Parameters
    ----------
    cells : sequence of dict
        One dict per fit; passed (as a copy) to ``fit_cell``.
    fit_cell : callable
        ``fit_cell(cell) -> dict`` of results; include ``upper_bound`` / ``lower_bound``
        (or ``objective``) to have them tracked in the progress events.
    backend : "serial", "joblib" or "dask"
        Where cells run; ``"dask"`` is implied by ``client``.
    client : dask.distributed.Client, optional
        Run on this client's cluster (not closed here).
    n_jobs : int
        Worker processes for joblib, or for the local dask cluster started without a client.
    listener : callable, optional
        Called with a :class:`GridEvent` in this process after each cell.
    time_limit_per_cell : float, optional
        Seconds after which a cell is reported as ``"timeout"``.

    Returns
    -------
    GridResult
    """
    cells = [dict(c) for c in cells]
    if any(not isinstance(c, dict) for c in cells):
        raise InputError("cells must be dicts")
    if client is not None:
        backend = "dask"
    if backend not in BACKENDS:
        raise InputError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if time_limit_per_cell is not None and not float(time_limit_per_cell) > 0:
        raise InputError(f"time_limit_per_cell must be positive, got {time_limit_per_cell}")
    limit = None if time_limit_per_cell is None else float(time_limit_per_cell)
    if int(n_jobs) < 1:
        raise InputError(f"n_jobs must be at least 1, got {n_jobs}")
    start = time.perf_counter()
    progress = _Progress(cells, listener, start)
    if cells:
        if backend == "serial":
            for i, cell in enumerate(cells):
                progress.record(i, _run_cell(fit_cell, cell, limit))
        elif backend == "joblib":
            _run_joblib(cells, fit_cell, limit, int(n_jobs), progress)
        else:
            _run_dask(cells, fit_cell, limit, client, int(n_jobs), progress)
    outcomes = [o for o in progress.outcomes if o is not None]
    return GridResult(outcomes, backend, time.perf_counter() - start)


def _indexed(index: int, fit_cell, cell, limit):
    return index, _run_cell(fit_cell, cell, limit)


def _run_joblib(cells, fit_cell, limit, n_jobs, progress: _Progress) -> None:
    from joblib import Parallel, delayed

    tasks = (delayed(_indexed)(i, fit_cell, c, limit) for i, c in enumerate(cells))
    try:
        parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
        for index, outcome in parallel(tasks):
            progress.record(index, outcome)
    except Exception as exc:  # a worker died (or fit_cell could not be pickled)
        progress.fail_rest(_message(exc))


def _run_dask(cells, fit_cell, limit, client, n_jobs, progress: _Progress) -> None:
    from distributed import Client, LocalCluster, as_completed

    own = client is None
    cluster = None
    if own:
        cluster = LocalCluster(
            n_workers=n_jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        futures = {
            client.submit(_indexed, i, fit_cell, c, limit, pure=False): i
            for i, c in enumerate(cells)
        }
        for future in as_completed(list(futures)):
            try:
                index, outcome = future.result()
            except Exception as exc:  # the worker died, or the task could not run
                index = futures[future]
                outcome = {"status": FAILED, "error": _message(exc), "time": math.nan}
            progress.record(index, outcome)
    finally:
        if own:
            client.close()
            cluster.close()
