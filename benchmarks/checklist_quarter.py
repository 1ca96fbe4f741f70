"""How early the checklist lower bound rises: its trajectory over CPU time (issue 35).

One search per run on one core, default settings but ``n_jobs=1``; the lower bound of
every event is recorded with the process's CPU time, and the record gives the bound over
the optimum at 25, 50, 75 and 100% of the CPU time to certify. Run the same script with
``PYTHONPATH`` pointing at another tree (say main, unpacked by ``git archive``) to compare
side by side::

    python benchmarks/checklist_quarter.py heart 10
    python benchmarks/checklist_quarter.py adult_raw 7 --time-limit 1800 --label branch
"""

from __future__ import annotations

import argparse
import json
import os
import time

from _common import emit
from checklists import feasible_checklists, scale_items

from riskexplore.checklist.constraints import OneItemPerGroup
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search import ExactSearchSettings, solve_checklist_exact, warm_up
from riskexplore.core.limits import Limits

#: Shares of the CPU time to certify at which the bound is read.
SHARES = (0.25, 0.5, 0.75, 1.0)


def trajectory_record(
    dataset: str, n_max: int, time_limit: float, settings: dict | None = None, **extra
) -> dict:
    """One search on ``dataset`` with at most ``n_max`` items, on one core (``settings``:
    other :class:`ExactSearchSettings` fields, for experiments); its bound over CPU time."""
    items, y, groups = scale_items(dataset)
    problem = ChecklistProblem(
        items, y, item_groups=groups, max_items=n_max, constraints=[OneItemPerGroup()]
    )
    points: list[tuple[float, float]] = []  # (cpu s, lower bound)
    cpu0 = time.process_time()
    result = solve_checklist_exact(
        problem,
        limits=Limits(time_limit=time_limit),
        listeners=[lambda e: points.append((time.process_time() - cpu0, e.lower_bound))],
        settings=ExactSearchSettings(**{"n_jobs": 1, **(settings or {})}),
    )
    cpu = time.process_time() - cpu0
    optimum = result.upper_bound
    certified = result.status == "optimal"
    at = {}
    for share in SHARES:
        when = share * cpu
        bound = max([lb for c, lb in points if c <= when] or [0.0])
        at[f"bound_at_{int(share * 100)}pct_cpu"] = round(bound / optimum, 4)
    # a thinned trajectory: the bound each time it rose by a percent of the optimum
    rises, last = [], -1.0
    for c, lb in points:
        if lb / optimum >= last + 0.01:
            rises.append([round(c, 2), round(lb / optimum, 4)])
            last = lb / optimum
    return {
        "kind": "checklist_quarter",
        **extra,
        "settings": settings or "default",
        "dataset": dataset,
        "n_max": n_max,
        "status": result.status,
        "objective": optimum,
        "lower_bound": result.lower_bound,
        "cpu_time": round(cpu, 2),
        "time": round(result.time, 2),
        "cpu_to_certify": round(cpu, 2) if certified else None,
        **at,
        "nodes": result.nodes,
        "feasible_checklists": sum(feasible_checklists(groups, n_max)),
        "deferred_nodes": result.stats.get("deferred_nodes"),
        "frontier_nodes": result.stats.get("frontier_nodes"),
        "load_average": round(os.getloadavg()[0], 2),
        "trajectory": rises,
        "items": None if result.solution is None else list(result.solution.items),
        "M": None if result.solution is None else result.solution.M,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", choices=["heart", "adult_raw", "real_valued"])
    parser.add_argument("n_max", type=int)
    parser.add_argument("--time-limit", type=float, default=1800.0)
    parser.add_argument("--label", default="", help="a name for the tree under test")
    parser.add_argument("--settings", type=json.loads, default=None, help="JSON settings")
    args = parser.parse_args(argv)
    warm_up()
    emit(
        trajectory_record(
            args.dataset, args.n_max, args.time_limit, args.settings, label=args.label
        )
    )


if __name__ == "__main__":
    main()
