"""Risk scores on every core: the same solves with ``n_jobs`` 1 and more, side by side.

Prints one JSON object per line on stdout (solver banners go to stderr). Each dataset is
solved with each scale (``fixed``: the engine ``fit_risk_score`` picks; ``learned``:
multipliers 0.25..10) once per ``--n-jobs`` value, with the settings of ``riskslim.py``
and ``scaled.py`` (R <= 5, points -5..5, c0 = 1e-6, gap tolerance 1e-6). Run from the
repository root, alone on the machine::

    OPENBLAS_NUM_THREADS=1 python benchmarks/parallel.py --datasets income adult \\
        --n-jobs 1 2 --time-limit 300 --adult-time-limit 300

Records: ``kind: "parallel"`` per solve (status, bounds, gap, time, CPU time, nodes, the
first time the gap reached each of ``GAPS``, the bounds about once a second), and
``kind: "speedup"`` per dataset and scale: the time to the certificate, or to the least
gap both runs reached, of one worker over ``n`` workers (``speedup``); the time one worker
takes to its final lower bound over the time ``n`` take to reach it (``bound_speedup``);
and whether they found the same model.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

from _common import banners_to_stderr, emit
from scaled import MULTIPLIERS, make_problem

from riskexplore.core.limits import Limits
from riskexplore.risk_score.fit import fixed_scale_engine
from riskexplore.risk_score.lcpa import solve_lcpa
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.scaled import solve_scaled_lcpa
from riskexplore.risk_score.scaled.search import ScaledLCPASettings

DATASETS = ("mammo", "breastcancer", "income", "adult")
#: Gaps whose first time is recorded.
GAPS = (0.5, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02, 0.01, 1e-3, 1e-6)


def solve(name: str, scale: str, n_jobs: int, time_limit: float) -> dict:
    """One solve of ``name`` with ``n_jobs`` workers, described."""
    problem = make_problem(name, 5)
    limits = Limits(time_limit=time_limit, gap_tolerance=1e-6)
    events = []
    engine = "learned" if scale == "learned" else fixed_scale_engine(problem)
    load = os.getloadavg()[0]
    cpu = time.process_time()
    with banners_to_stderr():
        if engine == "lcpa":
            result = solve_lcpa(
                problem, limits=limits, settings=LCPASettings(n_jobs=n_jobs),
                listeners=[events.append],
            )  # fmt: skip
        else:
            m_range = MULTIPLIERS if scale == "learned" else (1.0, 1.0)
            result = solve_scaled_lcpa(
                problem, m_range, limits=limits, settings=ScaledLCPASettings(n_jobs=n_jobs),
                listeners=[events.append],
            )  # fmt: skip
    cpu = time.process_time() - cpu
    reached = {}
    for gap in GAPS:
        first = next((e.time for e in events if e.gap <= gap), None)
        if first is None and result.gap <= gap:
            first = result.time
        reached[str(gap)] = first
    trajectory, last = [], -math.inf  # (time, lower, upper), at most one a second
    for e in events:
        if e.time - last >= 1.0 and math.isfinite(e.upper_bound):
            trajectory.append((round(e.time, 2), e.lower_bound, e.upper_bound))
            last = e.time
    trajectory.append((round(result.time, 2), result.lower_bound, result.upper_bound))
    return {
        "kind": "parallel",
        "dataset": name,
        "scale": scale,
        "engine": engine,
        "n_jobs": n_jobs,
        "d": int(problem.n_features),
        "distinct_rows": int(problem.loss.n_rows),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.objective,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "cpu": cpu,
        "load_before": load,  # the machine's load average (1 min) before and after
        "load_after": os.getloadavg()[0],
        "time_to_certificate": result.time if result.status == "optimal" else None,
        "time_to_gap": reached,
        "trajectory": trajectory,
        "nodes": result.nodes,
        "lp_solves": result.stats.get("lp_solves"),
        "screen_time": result.stats.get("screen_time"),
        "supports_screened": result.stats.get("supports_screened"),
        "model": problem.as_dict(result.solution) if result.has_model else None,
    }


def speedup(one: dict, many: dict) -> dict:
    """One worker against ``many["n_jobs"]``: certificate times, else the time to the
    least gap both reached, and the gaps at the time limit."""
    record = {
        "kind": "speedup",
        "dataset": one["dataset"],
        "scale": one["scale"],
        "n_jobs": many["n_jobs"],
        "same_model": one["model"] == many["model"],
        "same_status": one["status"] == many["status"],
        "gap_1": one["gap"],
        f"gap_{many['n_jobs']}": many["gap"],
    }
    if one["status"] == many["status"] == "optimal":
        record["measure"] = "time to certificate"
        record["speedup"] = one["time"] / max(many["time"], 1e-9)
        return record
    # the lower bound: when each run reached the bound one worker ends with
    target = one["lower_bound"]
    t_one = next(t for t, lower, _ in one["trajectory"] if lower >= target)
    t_many = next((t for t, lower, _ in many["trajectory"] if lower >= target), None)
    record["lower_bound_1"] = target
    record[f"lower_bound_{many['n_jobs']}"] = many["lower_bound"]
    if t_many is not None:
        record["bound_speedup"] = t_one / max(t_many, 1e-9)
    common = [g for g in GAPS if one["time_to_gap"][str(g)] and many["time_to_gap"][str(g)]]
    if common:
        gap = min(common)
        record["measure"] = f"time to gap {gap}"
        record["speedup"] = one["time_to_gap"][str(gap)] / max(many["time_to_gap"][str(gap)], 1e-9)
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["income", "adult"], choices=DATASETS)
    parser.add_argument("--scales", nargs="*", default=["fixed", "learned"])
    parser.add_argument("--n-jobs", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--adult-time-limit", type=float, default=300.0)
    args = parser.parse_args(argv)
    solve("breastcancer", "learned", 1, 5.0)  # compile or load the kernels, untimed
    for name in args.datasets:
        limit = args.adult_time_limit if name == "adult" else args.time_limit
        for scale in args.scales:
            records = []
            for n_jobs in args.n_jobs:
                records.append(solve(name, scale, n_jobs, limit))
                emit(records[-1])
            for many in records[1:]:
                emit(speedup(records[0], many))
    return 0


if __name__ == "__main__":
    sys.exit(main())
