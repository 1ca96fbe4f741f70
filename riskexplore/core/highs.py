"""Quiet construction of HiGHS instances, and the end of a thread that ran HiGHS.

HiGHS prints a copyright banner on standard output when the first instance of a process
is created, before any option can silence it. That would corrupt machine-readable
output (``--json``, JSON-lines benchmarks), so the first construction runs with the
process's standard output pointed at ``/dev/null``.

HiGHS keeps a task scheduler per thread that ran a solve (a C++ ``thread_local``); a
short-lived thread that ends without shutting its scheduler down can deadlock the process
at random (ERGO-Code/HiGHS pull request 1886; highspy's own background solves shut it down
for that reason). :func:`highs_thread` wraps the target of every thread of ours that may
solve with HiGHS so that it does the same.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import highspy
import numpy as np

_lock = threading.Lock()
_banner_done = False


def new_highs() -> highspy.Highs:
    """A silent ``highspy.Highs`` instance.

    Returns
    -------
    highspy.Highs
        The instance (banner muted, output off).
    """
    global _banner_done
    with _lock:
        if _banner_done:
            h = highspy.Highs()
        else:
            h = _construct_muted()
            _banner_done = True
    h.silent()
    return h


def highs_thread(target: Callable[..., Any]) -> Callable[..., Any]:
    """``target`` for a thread that may solve with HiGHS: it shuts the thread's HiGHS
    scheduler down (without waiting) when it returns or raises.

    Parameters
    ----------
    target : callable
        The thread's work.

    Returns
    -------
    callable
        The same work, followed by the shutdown.
    """

    @functools.wraps(target)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return target(*args, **kwargs)
        finally:
            end_highs_thread()

    return run


def end_highs_thread() -> None:
    """Shut down the calling thread's HiGHS task scheduler, if it has one (call it last in
    a short-lived thread that ran HiGHS; the main thread keeps its scheduler)."""
    if threading.current_thread() is not threading.main_thread():
        highspy.Highs.resetGlobalScheduler(False)


def _construct_muted() -> highspy.Highs:
    # HiGHS writes to file descriptor 1 itself, whatever Python's sys.stdout is (in a
    # Jupyter kernel sys.stdout is a stream object and fd 1 is the kernel's own output)
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            try:
                return highspy.Highs()
            finally:
                os.dup2(saved, 1)
    finally:
        os.close(saved)


def add_dense_rows(h: highspy.Highs, A, lower, upper) -> None:
    """Add the rows ``lower <= A @ x <= upper`` of a dense matrix (infinite bounds allowed).

    Parameters
    ----------
    h : highspy.Highs
        The model.
    A : array-like of shape (m, n)
        The rows.
    lower, upper : array-like of shape (m,)
        Row bounds (``-inf``/``inf`` for an open side).
    """

    A = np.asarray(A, dtype=float)
    if A.shape[0] == 0:
        return
    nz = A != 0
    starts = np.concatenate([[0], np.cumsum(nz.sum(axis=1))[:-1]]).astype(np.int32)
    rows_i, cols_i = np.nonzero(nz)
    inf = highspy.kHighsInf
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    h.addRows(
        A.shape[0],
        np.where(np.isinf(lower), -inf, lower),
        np.where(np.isinf(upper), inf, upper),
        int(nz.sum()),
        starts,
        cols_i.astype(np.int32),
        A[rows_i, cols_i],
    )
