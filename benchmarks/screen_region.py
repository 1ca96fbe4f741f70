"""The support screen alone: one region of a table screened serially, a few times.

The screen is most of a risk score's time at 100+ items. This times
:func:`riskexplore.risk_score.support.screen.screen_supports` on the supports of at most
5 items that hold one given item (about 4.8 million on adult), with points -5..5,
intercept -100..100 and the settings' ``c0``, cut off at ``--cutoff`` (the supports that
cannot beat it are ruled out, as in a search whose incumbent is there), in this process
and on one thread, ``--reps`` times. Tables: those of ``engines.py``, or adult's items
resampled to ``--rows`` rows with noise (as ``scaling.py`` does).

A Dask worker runs the screen with the allocator setting that Dask's nanny gives it
(``MALLOC_TRIM_THRESHOLD_=65536``: large blocks go back to the system when freed); run the
script under it to see what a worker pays::

    export OPENBLAS_NUM_THREADS=1
    python benchmarks/screen_region.py --rows 1000000
    MALLOC_TRIM_THRESHOLD_=65536 python benchmarks/screen_region.py --rows 1000000

One JSON line: the table, its distinct rows, the CPU seconds of each repetition, the
supports kept (0 when the cutoff rules out all), whether the allocator setting was on, and
the package's directory (for main-against-branch runs with ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from _common import banners_to_stderr, emit

import riskexplore
from riskexplore.risk_score.support.screen import SupportData, screen_supports


def _problem(table: str, rows: int | None):
    if rows:
        from scaling import RISK_SETTINGS, resampled

        from riskexplore.risk_score.fit import build_problem

        X, y, _groups = resampled(rows, 0.001)
        return f"adult resampled to {rows} rows", build_problem(X, y, **RISK_SETTINGS)
    from engines import make_problem

    return table, make_problem(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", default="adult")
    parser.add_argument("--rows", type=int, default=None, help="resampled adult instead")
    parser.add_argument("--item", type=int, default=3, help="the item every support holds")
    parser.add_argument("--cutoff", type=float, default=0.37)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    with banners_to_stderr():
        name, problem = _problem(args.table, args.rows)
        data = SupportData(problem.loss)
        d = data.d
        lower = np.concatenate([[-100.0], np.full(d, -5.0)])
        upper = np.concatenate([[100.0], np.full(d, 5.0)])
        cpu, kept = [], 0
        for _ in range(args.reps):
            start = time.process_time()
            result = screen_supports(
                data, forced=(args.item,), free=range(d), k_min=0, k_max=5, w_lower=lower,
                w_upper=upper, c0=problem.c0, cutoff=args.cutoff, keep_below=args.cutoff,
            )  # fmt: skip
            cpu.append(round(time.process_time() - start, 3))
            kept = len(result.sizes)
    emit(
        {
            "kind": "screen_region",
            "table": name,
            "distinct_rows": int(data.X.shape[0]),
            "item": args.item,
            "cutoff": args.cutoff,
            "cpu": cpu,
            "kept": kept,
            "malloc_trim_threshold": os.environ.get("MALLOC_TRIM_THRESHOLD_"),
            "tree": os.path.dirname(riskexplore.__file__),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
