"""Predictive-checklist benchmarks: the exact search beside the HiGHS MIP, paths, adult, CLI.

Prints one JSON object per line on stdout (solver banners go to stderr). See
``benchmarks/README.md`` (section "Predictive checklists") for the fields and targets.
Run from the repository root::

    python benchmarks/checklists.py                       # every part, MIP at 60 s
    python benchmarks/checklists.py --parts heart cold    # some parts only
    python benchmarks/checklists.py --long                # also heart N <= 10 (exact)
    python benchmarks/checklists.py --parts heart --mip-long   # also the MIP at 600 s
    python benchmarks/checklists.py --parts scale --dask --long  # the search at scale
    python benchmarks/checklists.py --parts real      # the real-valued stand-in, N <= 5, 6
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import banners_to_stderr, emit
from real_valued import make_table

from riskexplore.checklist.constraints import FNRLimit, OneItemPerGroup
from riskexplore.checklist.engines import solve_with
from riskexplore.checklist.error_path import fnr_error_path
from riskexplore.checklist.heuristics import (
    submodular_checklists,
    unit_weighting_checklists,
)
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search import ExactSearchSettings, solve_checklist_exact, warm_up
from riskexplore.checklist.sequential import sequential_training
from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.data.binarize import Binarizer
from riskexplore.datasets import load_dataset

ROOT = Path(__file__).resolve().parent.parent
CATEGORICAL = ["cp", "thal", "ca", "slope", "restecg"]
FNR_LIMIT = 0.10
FNR_PATH = (0.05, 0.10, 0.15, 0.20, 0.30, 0.40, 0.50)


def heart_items(split: float | None):
    """Adaptive items of heart (all rows, or a stratified ``split`` training fraction)."""
    data = load_dataset("heart")
    X, y = data.X, np.asarray(data.y)
    if split is not None:
        from sklearn.model_selection import train_test_split

        X, _, y, _ = train_test_split(X, y, train_size=split, stratify=y, random_state=0)
    binarizer = Binarizer(method="adaptive", categorical=CATEGORICAL)
    items = binarizer.fit_transform(X)
    return items, y, binarizer.item_groups_


def make_problem(n_max: int, target: str, split: float | None) -> ChecklistProblem:
    """Heart, one item per feature group, at most ``n_max`` items; ``target`` "error"
    (training mistakes) or "fpr" (false positives under FNR <= 10%, ``W- = n-``)."""
    items, y, groups = heart_items(split)
    constraints: list = [OneItemPerGroup()]
    fp_weight = 1.0
    if target == "fpr":
        n_pos, n_neg = float(np.sum(y == 1)), float(np.sum(y != 1))
        # the paper's W- = n- (bumped if needed so that false positives come first)
        fp_weight = max(n_neg, math.floor(FNR_LIMIT * n_pos) + 1.0)
        constraints.append(FNRLimit(FNR_LIMIT))
    return ChecklistProblem(
        items, y, item_groups=groups, max_items=n_max, fp_weight=fp_weight,
        constraints=constraints,
    )  # fmt: skip


def describe(problem, items, M) -> dict:
    if items is None:
        return {"items": None, "M": None, "train_errors": None}
    e = problem.errors(items, M)
    return {
        "items": list(items),
        "M": int(M),
        "N": len(items),
        "train_errors": e["fp"] + e["fn"],
        "fp": e["fp"],
        "fn": e["fn"],
        "fnr": e["fnr"],
        "fpr": e["fpr"],
    }


def first_time_within(trace: Trace, value: float) -> float | None:
    for event in trace.events:
        if event.upper_bound <= value + 1e-9:
            return event.time
    return None


def gap_times(trace: Trace, levels=(0.5, 0.2, 0.1)) -> dict:
    """Seconds until the reported gap first fell to each level (how the bound rises)."""
    out = {}
    for level in levels:
        hit = next((e.time for e in trace.events if e.gap <= level), None)
        out[f"time_to_gap_{int(level * 100)}pct"] = hit
    return out


def solve_record(problem, method: str, time_limit: float, **extra) -> dict:
    """One solve with ``method`` ("exact" or "mip"), as a JSON-ready record."""
    trace = Trace()
    starts = ()
    heuristics_time = 0.0
    if method == "mip":  # the MIP is warm-started by the heuristics, as fit_checklist does
        t0 = time.perf_counter()
        starts = submodular_checklists(problem)[:20] + unit_weighting_checklists(problem)[:20]
        heuristics_time = time.perf_counter() - t0
    cpu0 = time.process_time()
    with banners_to_stderr():
        result = solve_with(
            problem, method, limits=Limits(time_limit=time_limit), listeners=[trace],
            warm_starts=starts,
        )  # fmt: skip
    record = {
        "kind": "checklist",
        "method": method,
        **extra,
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_items),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.upper_bound,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "cpu_time": time.process_time() - cpu0,
        "heuristics_time": heuristics_time,
        "time_to_certificate": result.time if result.status == "optimal" else None,
        "time_to_final_incumbent": first_time_within(trace, result.upper_bound),
        **gap_times(trace),
        "nodes": result.nodes,
        **describe(problem, *(result.solution or (None, None))),
    }
    emit(record)
    return record


# ------------------------------------------------------------------------------- parts
HEART = [
    {"config": "full_N5", "n_max": 5, "target": "error", "split": None},
    {"config": "full_N8", "n_max": 8, "target": "error", "split": None},
    {"config": "fpr_fnr10_N5", "n_max": 5, "target": "fpr", "split": None},
    {"config": "fpr_fnr10_N8", "n_max": 8, "target": "fpr", "split": None},
    {"config": "split80_N5", "n_max": 5, "target": "error", "split": 0.8},
]


def part_heart(args) -> None:
    """Heart: the exact search (no time limit) and the MIP (``--mip-time-limit``)."""
    warm_up()
    configs = list(HEART)
    if args.long:
        configs.append({"config": "full_N10", "n_max": 10, "target": "error", "split": None})
    for c in configs:
        problem = make_problem(c["n_max"], c["target"], c["split"])
        solve_record(problem, "exact", args.exact_time_limit, dataset="heart", **c)
        if c["n_max"] <= 8:
            for limit in [args.mip_time_limit] + ([600.0] if args.mip_long else []):
                solve_record(problem, "mip", limit, dataset="heart", **c)


def part_cold(args) -> None:
    """The first solve in a new process: with numba's cache emptied (compilation) and
    with it filled (loading the compiled code)."""
    code = (
        "import sys, time; sys.path.insert(0, 'benchmarks'); t0 = time.perf_counter(); "
        "from checklists import make_problem; "
        "from riskexplore.checklist.search import solve_checklist_exact; "
        "p = make_problem(5, 'error', None); t1 = time.perf_counter(); "
        "r = solve_checklist_exact(p); t2 = time.perf_counter(); "
        "print(r.status, t1 - t0, t2 - t1)"
    )
    with tempfile.TemporaryDirectory() as cache:
        for label in ("compile", "cached"):
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            out = subprocess.run(
                [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                text=True, check=True,
            )  # fmt: skip
            status, setup, solve = out.stdout.split()
            emit(
                {
                    "kind": "checklist_cold_start",
                    "start": label,
                    "config": "full_N5",
                    "status": status,
                    "setup_time": float(setup),
                    "first_solve_time": float(solve),
                }
            )


def part_paths(args) -> None:
    """Sequential training over (N, M) cells and the FNR error path, exact cells."""
    warm_up()
    problem = make_problem(5, "error", None)
    t0 = time.perf_counter()
    path = sequential_training(problem, limits=Limits(time_limit=args.path_time_limit))
    certified = sum(
        1 for step in path.steps if step.status in ("optimal", "ruled_out", "infeasible")
    )
    emit(
        {
            "kind": "checklist_path",
            "path": "sequential_NM",
            "n_max": 5,
            "status": path.status,
            "objective": path.upper_bound,
            "lower_bound": path.lower_bound,
            "gap": path.gap,
            "cells": len(path.cells),
            "cells_certified": certified,
            "sub_solves": len(path.steps),
            "time": time.perf_counter() - t0,
            **describe(problem, path.items, path.M),
        }
    )
    t0 = time.perf_counter()
    errors = fnr_error_path(problem, FNR_PATH, limits=Limits(time_limit=args.path_time_limit))
    emit(
        {
            "kind": "checklist_path",
            "path": "fnr",
            "n_max": 5,
            "fnr_limits": list(FNR_PATH),
            "statuses": [p.status for p in errors.points],
            "certified": sum(p.status in ("optimal", "infeasible") for p in errors.points),
            "fpr": [p.fpr for p in errors.points],
            "fnr": [p.fnr for p in errors.points],
            "time": time.perf_counter() - t0,
        }
    )


def part_adult(args) -> None:
    """adult_raw (training part), adaptive binarization, N <= 5."""
    warm_up()
    t0 = time.perf_counter()
    data = load_dataset("adult_raw")
    binarizer = Binarizer(method="adaptive")
    items = binarizer.fit_transform(data.X)
    t1 = time.perf_counter()
    problem = ChecklistProblem(
        items, data.y, item_groups=binarizer.item_groups_, max_items=5,
        constraints=[OneItemPerGroup()],
    )  # fmt: skip
    t2 = time.perf_counter()
    trace = Trace()
    result = solve_checklist_exact(
        problem, limits=Limits(time_limit=args.adult_time_limit), listeners=[trace]
    )
    s = result.stats
    emit(
        {
            "kind": "checklist",
            "method": "exact",
            "dataset": "adult_raw",
            "config": "adaptive_N5",
            "n": int(problem.X.shape[0]),
            "d": int(problem.n_items),
            "groups": s["n_groups"],
            "search_rows": s["n_search_rows"],
            "words": s["n_words"],
            "binarize_time": t1 - t0,
            "problem_time": t2 - t1,
            "build_time": s["build_time"],
            "time_limit": args.adult_time_limit,
            "status": result.status,
            "objective": result.upper_bound,
            "lower_bound": result.lower_bound,
            "gap": result.gap,
            "time": result.time,
            "nodes": result.nodes,
            "ns_per_node": 1e9 * result.time / max(result.nodes, 1),
            "time_to_final_incumbent": first_time_within(trace, result.upper_bound),
            **describe(problem, *(result.solution or (None, None))),
        }
    )


def part_cli(args, dataset: str = "heart", time_limit: str = "60") -> None:
    """The README's checklist command, as a new user runs it."""
    cmd = [
        sys.executable, "-m", "riskexplore", "checklist", dataset, "--max-items", "5",
        "--time-limit", time_limit, "--json",
    ]  # fmt: skip
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    emit(
        {
            "kind": "checklist_cli",
            "command": " ".join(cmd[1:]),
            "status": report["status"],
            "gap": report["gap"],
            "train_errors": report.get("train_errors"),
            "wall_time": time.perf_counter() - t0,
        }
    )


# ------------------------------------------------------------------ search at scale
#: The commit whose search is "old" in the scale part (before the cells, ties and
#: parallel workers of issue 21).
OLD_REF = "815e071"
_OLD_SCRIPT = """
import json, pickle, sys, time
from riskexplore.checklist.constraints import OneItemPerGroup
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search import ExactSearchSettings, solve_checklist_exact, warm_up
from riskexplore.core.limits import Limits
items, y, groups, n_max, limit = pickle.load(open(sys.argv[1], "rb"))
warm_up()
problem = ChecklistProblem(items, y, item_groups=groups, max_items=n_max,
                           constraints=[OneItemPerGroup()])
r = solve_checklist_exact(problem, limits=Limits(time_limit=limit))
print(json.dumps({"status": r.status, "objective": r.upper_bound,
                  "lower_bound": r.lower_bound, "gap": r.gap, "time": r.time,
                  "nodes": r.nodes, "items": None if r.solution is None else
                  list(r.solution.items), "M": None if r.solution is None else r.solution.M}))
"""


def scale_items(dataset: str):
    """Items of ``dataset`` as in the scale targets: adaptive binarization (heart with
    its categorical columns), one item per source column."""
    if dataset == "heart":
        return heart_items(None)
    if dataset == "real_valued":  # 4,601 x 57 skewed real-valued columns (real_valued.py)
        X, y = make_table()
        binarizer = Binarizer(method="adaptive")
        columns = [f"x{j}" for j in range(X.shape[1])]
        items = binarizer.fit_transform(pd.DataFrame(X, columns=columns))
        return items, y, binarizer.item_groups_
    data = load_dataset(dataset)
    binarizer = Binarizer(method="adaptive")
    return binarizer.fit_transform(data.X), np.asarray(data.y), binarizer.item_groups_


def feasible_checklists(groups: dict, n_max: int) -> list[int]:
    """e_N: checklists of exactly N items with at most one per group, N = 1..n_max."""
    sizes = np.bincount(np.unique(list(groups.values()), return_inverse=True)[1])
    count = [1] + [0] * n_max
    for size in sizes:
        for n in range(n_max, 0, -1):
            count[n] += count[n - 1] * int(size)
    return count[1:]


def _lower_at(trace: Trace, when: float) -> float:
    return max([e.lower_bound for e in trace.events if e.time <= when] or [0.0])


def new_search_record(items, y, groups, n_max, limit, *, n_jobs=None, client=None, **extra):
    """The current search on one configuration, as a JSON-ready record."""
    problem = ChecklistProblem(
        items, y, item_groups=groups, max_items=n_max, constraints=[OneItemPerGroup()]
    )
    settings = ExactSearchSettings(n_jobs=n_jobs, client=client)
    trace = Trace()
    cpu0 = time.process_time()
    result = solve_checklist_exact(
        problem, limits=Limits(time_limit=limit), listeners=[trace], settings=settings
    )
    s = result.stats
    e_n = feasible_checklists(groups, n_max)
    optimum = result.upper_bound
    certified = result.time if result.status == "optimal" else None
    quarter = None if certified is None else _lower_at(trace, certified / 4) / optimum
    return {
        "kind": "checklist_scale",
        "engine": "new",
        **extra,
        "n_max": n_max,
        "n_jobs": s["n_jobs"],
        "dask": s["dask"],
        "status": result.status,
        "objective": result.upper_bound,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "cpu_time": time.process_time() - cpu0,
        "time_to_certificate": certified,
        "lower_bound_at_quarter_time_over_optimum": quarter,
        **gap_times(trace, (0.5, 0.2, 0.1, 0.05)),
        "nodes": result.nodes,
        "feasible_checklists": sum(e_n),
        "nodes_over_feasible": result.nodes / max(sum(e_n), 1),
        "build_time": s["build_time"],
        "frontier_time": s["frontier_time"],
        "frontier_nodes": s["frontier_nodes"],
        "cell_entries": s["cell_entries"],
        "cell_bounds": s["cell_bounds"],
        "search_rows": s["n_search_rows"],
        "words": s["n_words"],
        "items": None if result.solution is None else list(result.solution.items),
        "M": None if result.solution is None else result.solution.M,
    }


def old_search_record(items, y, groups, n_max, limit, old_tree: Path, **extra) -> dict:
    """The search of :data:`OLD_REF` on one configuration, in a subprocess."""
    with tempfile.TemporaryDirectory() as tmp:
        case = Path(tmp) / "case.pkl"
        case.write_bytes(pickle.dumps((items, y, groups, n_max, limit)))
        env = dict(os.environ, PYTHONPATH=str(old_tree))
        out = subprocess.run(
            [sys.executable, "-c", _OLD_SCRIPT, str(case)],
            cwd=old_tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    record = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "kind": "checklist_scale",
        "engine": f"old ({OLD_REF})",
        **extra,
        "n_max": n_max,
        "n_jobs": 1,
        **record,
    }


def _old_tree(tmp: str) -> Path:
    """The package as it was at :data:`OLD_REF`, unpacked into ``tmp``."""
    archive = subprocess.run(
        ["git", "archive", OLD_REF, "riskexplore"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    return Path(tmp)


#: (dataset, N, time limit of the new search, time limit of the old one)
SCALE = [
    ("adult_raw", 5, 600.0, 600.0),
    ("heart", 8, 300.0, 300.0),
    ("heart", 10, 600.0, 600.0),
]


def part_scale(args) -> None:
    """The search at scale, old and new side by side: adult_raw N <= 5 (and N <= 7 with
    ``--long``), heart N <= 8 and 10; one core and all; a LocalCluster of two workers."""
    from riskexplore.core.parallel import available_cores

    warm_up()
    cores = available_cores()
    serial = {}
    with tempfile.TemporaryDirectory() as tmp:
        old_tree = None if args.skip_old else _old_tree(tmp)
        for dataset, n_max, limit, old_limit in SCALE:
            items, y, groups = scale_items(dataset)
            extra = {"dataset": dataset, "n": int(len(y)), "d": int(items.shape[1])}
            records = []
            for n_jobs in sorted({1, cores}):
                records.append(
                    new_search_record(items, y, groups, n_max, limit, n_jobs=n_jobs, **extra)
                )
                emit(records[-1])
            serial[dataset, n_max] = records[0]
            if len(records) == 2:
                emit(_speedup(records, cores, extra))
            if old_tree is not None:
                old_limit = min(old_limit, args.old_time_limit)
                emit(old_search_record(items, y, groups, n_max, old_limit, old_tree, **extra))
    part_cli(args, "adult_raw", "300")  # the command: optimal, gap 0
    if args.dask:
        _scale_dask("adult_raw", 5, serial["adult_raw", 5])
    if args.long:
        items, y, groups = scale_items("adult_raw")
        extra = {"dataset": "adult_raw", "n": int(len(y)), "d": int(items.shape[1])}
        emit(new_search_record(items, y, groups, 7, args.adult_time_limit, **extra))


def part_real(args) -> None:
    """The issue 35 target: checklists of at most 5 and 6 items on the real-valued stand-in
    (4,601 rows, 57 columns, adaptive items with complements, one item per column), on one
    core and on every core, ``--real-time-limit`` s each."""
    from riskexplore.core.parallel import available_cores

    warm_up()
    items, y, groups = scale_items("real_valued")
    extra = {"dataset": "real_valued", "n": int(len(y)), "d": int(items.shape[1])}
    for n_max in (5, 6):
        for n_jobs in sorted({1, available_cores()}):
            record = new_search_record(
                items, y, groups, n_max, args.real_time_limit, n_jobs=n_jobs, **extra
            )
            emit({**record, "load_average": os.getloadavg()[0]})


def _speedup(records: list[dict], cores: int, extra: dict) -> dict:
    one, every = records
    return {
        "kind": "checklist_speedup",
        **extra,
        "n_max": one["n_max"],
        "cores": cores,
        "speedup": one["time"] / every["time"],
        "both_certified": one["status"] == every["status"] == "optimal",
        "same_checklist": (one["items"], one["M"]) == (every["items"], every["M"]),
    }


def _scale_dask(dataset: str, n_max: int, serial: dict) -> None:
    """The same search on a LocalCluster of two single-threaded workers."""
    from distributed import Client, LocalCluster

    items, y, groups = scale_items(dataset)
    extra = {"dataset": dataset, "n": int(len(y)), "d": int(items.shape[1])}
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        record = new_search_record(items, y, groups, n_max, 600.0, client=client, **extra)
    same = (record["items"], record["M"]) == (serial["items"], serial["M"])
    record["same_checklist_as_one_core"] = same
    emit(record)


PARTS = {
    "cold": part_cold,
    "heart": part_heart,
    "paths": part_paths,
    "adult": part_adult,
    "cli": part_cli,
    "scale": part_scale,
    "real": part_real,
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = [p for p in PARTS if p not in ("scale", "real")]  # the long parts
    parser.add_argument("--parts", nargs="*", default=default, choices=list(PARTS))
    parser.add_argument("--exact-time-limit", type=float, default=900.0)
    parser.add_argument("--mip-time-limit", type=float, default=60.0)
    parser.add_argument("--path-time-limit", type=float, default=120.0)
    parser.add_argument("--adult-time-limit", type=float, default=600.0)
    parser.add_argument("--real-time-limit", type=float, default=120.0)
    parser.add_argument("--long", action="store_true", help="also heart N <= 10 (exact)")
    parser.add_argument("--mip-long", action="store_true", help="also the MIP at 600 s")
    parser.add_argument(
        "--old-time-limit",
        type=float,
        default=600.0,
        help="scale part: time limit of the old search (default 600 s)",
    )
    parser.add_argument("--skip-old", action="store_true", help="scale part: new search only")
    parser.add_argument("--dask", action="store_true", help="scale part: also a LocalCluster")
    args = parser.parse_args(argv)
    for name in args.parts:
        PARTS[name](args)


if __name__ == "__main__":
    main()
