"""One certified solve per line, for side-by-side runs of two trees (issue 35).

Each call solves the listed tables in the listed scales with the package found first on
``PYTHONPATH`` (run it once with this tree and once with main's, alternating), with the
settings of ``riskslim.py`` and ``scaled.py`` (R <= 5, points -5..5, c0 = 1e-6, gap
tolerance 1e-6), and prints one JSON object per solve: the package's directory, CPU
seconds of the process (``time.process_time``: the measure on a shared machine), wall
seconds, the load average at the start, status, objective, lower bound, and the screen's
counts. Tables: the bundled ``mammo``, ``breastcancer``, ``income``, ``adult`` (111
items) and the stand-ins of ``separable.py`` (``separable``: 0.5% of labels flipped) and
``real_valued.py`` (``real_valued``)::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/engines.py --tables adult \\
        --scales fixed learned --n-jobs 1
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from _common import banners_to_stderr, emit

import riskexplore
from riskexplore.core.limits import Limits
from riskexplore.risk_score.fit import fixed_scale_engine
from riskexplore.risk_score.lcpa import solve_lcpa
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.scaled import solve_scaled_lcpa
from riskexplore.risk_score.scaled.search import ScaledLCPASettings

TABLES = ("mammo", "breastcancer", "income", "adult", "separable", "real_valued")
MULTIPLIERS = (0.25, 10.0)
STATS = ("supports_screened", "screen_survivors", "screen_time", "lp_time", "heuristic_time")


def make_problem(table: str):
    """The problem of a table (the builders of the other benchmarks)."""
    if table == "separable":
        from separable import make_problem as separable_problem

        return separable_problem(0.005)
    if table == "real_valued":
        from real_valued import make_problem as real_valued_problem

        return real_valued_problem()
    from scaled import make_problem as bundled_problem

    return bundled_problem(table, 5)


def solve(table: str, scale: str, n_jobs: int, time_limit: float) -> dict:
    """One solve, described."""
    problem = make_problem(table)
    limits = Limits(time_limit=time_limit, gap_tolerance=1e-6)
    engine = "learned" if scale == "learned" else fixed_scale_engine(problem)
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    with banners_to_stderr():
        if engine == "lcpa":
            settings = LCPASettings(n_jobs=n_jobs)
            result = solve_lcpa(problem, limits=limits, settings=settings)
        else:
            m_range = MULTIPLIERS if scale == "learned" else (1.0, 1.0)
            settings = ScaledLCPASettings(n_jobs=n_jobs)
            result = solve_scaled_lcpa(problem, m_range, limits=limits, settings=settings)
    record = {
        "kind": "engines",
        "tree": os.path.dirname(os.path.dirname(os.path.abspath(riskexplore.__file__))),
        "table": table,
        "scale": scale,
        "engine": engine,
        "n_jobs": n_jobs,
        "cpu": round(time.process_time() - cpu, 2),
        "wall": round(time.perf_counter() - wall, 2),
        "load": round(load, 2),
        "status": result.status,
        "objective": result.upper_bound,
        "lower_bound": result.lower_bound,
    }
    record.update({key: result.stats.get(key) for key in STATS})
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="*", default=list(TABLES), choices=TABLES)
    parser.add_argument("--scales", nargs="*", default=["fixed", "learned"])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=900.0)
    args = parser.parse_args(argv)
    for table in args.tables:
        for scale in args.scales:
            emit(solve(table, scale, args.n_jobs, args.time_limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
