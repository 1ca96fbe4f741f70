"""How many workers a solve may use: ``n_jobs`` as scikit-learn reads it."""

from __future__ import annotations

import os
from numbers import Integral

from riskexplore.errors import InputError

__all__ = ["available_cores", "resolve_n_jobs"]


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - not on Linux
        return max(os.cpu_count() or 1, 1)


def resolve_n_jobs(n_jobs: int | None) -> int:
    """The number of workers that ``n_jobs`` asks for.

    ``None`` and ``-1`` mean every available core, ``-2`` all but one, and so on (as in
    scikit-learn); a positive number is taken as given.

    Parameters
    ----------
    n_jobs : int or None
        As given by the user.

    Returns
    -------
    int
        At least 1.

    Raises
    ------
    InputError
        For 0, a non-integer, or a negative number beyond the cores available.
    """
    if n_jobs is None:
        return available_cores()
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral):
        raise InputError(f"n_jobs must be a whole number or None, got {n_jobs!r}")
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise InputError("n_jobs=0 runs nothing: use 1 for one worker or None for every core")
    if n_jobs > 0:
        return n_jobs
    cores = available_cores()
    if cores + 1 + n_jobs < 1:
        raise InputError(f"n_jobs={n_jobs} leaves no worker on a machine with {cores} cores")
    return cores + 1 + n_jobs
