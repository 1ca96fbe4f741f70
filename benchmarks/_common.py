"""Helpers shared by the benchmark scripts: JSON-lines output, solver banners off stdout.

The scripts run as ``python benchmarks/NAME.py``, so this module is imported as
``_common`` (the scripts' folder is first on ``sys.path``).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "CutTimer",
    "banners_to_stderr",
    "clean",
    "emit",
    "old_and_new",
    "root_supports",
    "time_split",
]


@contextlib.contextmanager
def banners_to_stderr() -> Iterator[None]:
    """Keep C-level writes to fd 1 (HiGHS' banner) off stdout meanwhile.

    The package's :func:`riskexplore.cli.solving.stdout_to_stderr`, imported only when used.

    Yields
    ------
    None
    """
    from riskexplore.cli.solving import stdout_to_stderr

    with stdout_to_stderr():
        yield


def clean(value: Any) -> Any:
    """A JSON-ready scalar: non-finite floats as ``None``, numpy scalars as Python ones.

    Parameters
    ----------
    value : Any
        A value of a benchmark record.

    Returns
    -------
    Any
        ``value``, cleaned.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (np.floating, np.integer)):
        return clean(value.item())
    return value


def emit(record: dict[str, Any]) -> None:
    """Print ``record`` as one line of JSON on stdout (flushed).

    Parameters
    ----------
    record : dict
        The benchmark record; its values are passed through :func:`clean`.
    """
    print(json.dumps({k: clean(v) for k, v in record.items()}), flush=True)


def old_and_new(old: dict, new: dict, fields=("status", "time", "cpu"), **extra) -> dict:
    """The two solves of one dataset side by side.

    Parameters
    ----------
    old, new : dict
        The records of the old package's solve and of this package's.
    fields : tuple of str
        The fields given as ``old_FIELD`` and ``new_FIELD``.
    **extra
        More fields of the record.

    Returns
    -------
    dict
        The record (``kind: "old_and_new"``), with the speed-up and whether both found the
        same objective.
    """
    record = {"kind": "old_and_new", "dataset": new["dataset"], "old": old["engine"], **extra}
    for field in fields:
        record[f"old_{field}"] = old.get(field)
        record[f"new_{field}"] = new.get(field)
    record["speedup"] = old["time"] / max(new["time"], 1e-9)
    record["same_objective"] = abs(old["objective"] - new["objective"]) <= 1e-9 * old["objective"]
    return record


#: Phases of a risk-score solve whose seconds the engines' stats report.
_PHASES = ("screen_time", "lattice_time", "lp_time", "heuristic_time", "fixing_time")


class CutTimer:
    """Time every loss and gradient of ``problem``'s loss from now until :meth:`stop`
    (the loss cuts: the engines evaluate ``problem.loss.value_and_grad`` only for cuts,
    never inside their timed phases).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem about to be solved.
    """

    def __init__(self, problem) -> None:
        import time

        self.loss = problem.loss
        self.seconds = 0.0
        original = self.loss.value_and_grad

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0

        self.loss.value_and_grad = timed

    def stop(self) -> float:
        """Stop timing.

        Returns
        -------
        float
            The seconds spent in the loss and its gradient.
        """
        self.loss.__dict__.pop("value_and_grad", None)
        return self.seconds


def time_split(
    stats: dict[str, Any], total: float, cuts: float | None = None
) -> dict[str, float | None]:
    """Where the time of a solve went: the seconds of each phase its stats report, and
    the rest (branching, cuts, bookkeeping in Python).

    Parameters
    ----------
    stats : dict
        ``SolveResult.stats`` of :func:`~riskexplore.risk_score.lcpa.solve_lcpa` or
        :func:`~riskexplore.risk_score.scaled.solve_scaled_lcpa`.
    total : float
        The solve's time.
    cuts : float, optional
        Seconds spent on loss cuts (:class:`CutTimer`).

    Returns
    -------
    dict
        ``{phase: seconds}`` for the phases in ``stats`` (an old package may lack some:
        ``None``), and ``"other"``. The engines time the phases apart (the screen's
        time is its kernel calls only; rounding its best supports is heuristic time), so
        no second is counted twice.
    """
    split = {phase.removesuffix("_time"): stats.get(phase) for phase in _PHASES}
    split["loss_cuts"] = cuts
    known = sum(v for v in split.values() if v is not None)
    split["other"] = total - known
    return split


def root_supports(problem) -> int | None:
    """How many supports the root of ``problem`` has (what the root screen or the root
    fixing would bound; each gives up above its ``*_max_supports``); None in an old
    package without the support screen.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    int or None
        The number of feature sets of a size in ``[min_size, max_size]``.
    """
    try:
        from riskexplore.risk_score.support.screen import count_supports
    except ImportError:
        return None
    return int(count_supports(0, problem.n_features, problem.min_size, problem.max_size))


def result_record(problem, result, time_limit: float, wall: float, **fields) -> dict[str, Any]:
    """The fields every solve record shares: the problem's size, the status, bounds, gap,
    wall time and nodes of ``result`` (a ``SolveResult``), after ``fields``.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem solved.
    result : SolveResult
        Its result.
    time_limit : float
        The time limit of the solve.
    wall : float
        Seconds the solve took (wall clock).
    **fields
        Fields that come first (kind, engine, settings).

    Returns
    -------
    dict
        The record.
    """
    return {
        **fields,
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_features),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": wall,
        "nodes": result.nodes,
    }
