"""Predictive-checklist benchmarks on ``heart``: IP, sequential training, heuristics.

Prints one JSON object per line on stdout (solver banners go to stderr). See
``benchmarks/README.md`` (section "Predictive checklists") for the fields and targets.
Run from the repository root::

    python benchmarks/checklists.py             # 60 s runs
    python benchmarks/checklists.py --long      # also the 600 s runs
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _common import banners_to_stderr, emit

from riskexplore.checklist.binarize import Binarizer
from riskexplore.checklist.constraints import FNRLimit, OneItemPerGroup
from riskexplore.checklist.heuristics import (
    submodular_checklists,
    unit_weighting_checklists,
)
from riskexplore.checklist.mip import solve_checklist
from riskexplore.checklist.paths import sequential_training
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.datasets import load_dataset

CATEGORICAL = ["cp", "thal", "ca", "slope", "restecg"]
FNR_LIMIT = 0.10


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
    items, y, groups = heart_items(split)
    constraints: list = [OneItemPerGroup()]
    fp_weight = 1.0
    if target == "fpr":
        n_pos, n_neg = float(np.sum(y == 1)), float(np.sum(y != 1))
        # the paper's W- = n- (bumped if needed so that false positives come first)
        fp_weight = max(n_neg, math.floor(FNR_LIMIT * n_pos) + 1.0)
        constraints.append(FNRLimit(FNR_LIMIT))
    return ChecklistProblem(
        items,
        y,
        item_groups=groups,
        max_items=n_max,
        fp_weight=fp_weight,
        constraints=constraints,
    )


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
        "train_error": e["error"],
        "fnr": e["fnr"],
        "fpr": e["fpr"],
    }


def first_time_within(trace: Trace, value: float) -> float | None:
    for event in trace.events:
        if event.upper_bound <= value + 1e-9:
            return event.time
    return None


def run(config: dict, method: str, time_limit: float) -> dict:
    problem = make_problem(config["n_max"], config["target"], config["split"])
    base = {
        "kind": "checklist",
        "method": method,
        **{k: v for k, v in config.items()},
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_items),
        "time_limit": time_limit,
    }
    t0 = time.perf_counter()
    heur = submodular_checklists(problem)
    t_sub = time.perf_counter() - t0
    t0 = time.perf_counter()
    unit = unit_weighting_checklists(problem)
    t_unit = time.perf_counter() - t0
    heuristics = {
        "submodular_time": t_sub,
        "submodular_errors": describe(problem, *heur[0])["train_errors"] if heur else None,
        "submodular_objective": problem.objective(*heur[0]) if heur else None,
        "unit_time": t_unit,
        "unit_errors": describe(problem, *unit[0])["train_errors"] if unit else None,
        "unit_objective": problem.objective(*unit[0]) if unit else None,
    }
    if method == "heuristics":
        emit({**base, **heuristics})
        return heuristics
    trace = Trace()
    with banners_to_stderr():
        if method == "ip":
            result = solve_checklist(
                problem,
                limits=Limits(time_limit=time_limit),
                listeners=[trace],
                warm_starts=heur[:20] + unit[:20],
            )
        else:
            result = sequential_training(
                problem, limits=Limits(time_limit=time_limit), listeners=[trace]
            )
    record = {
        **base,
        "status": result.status,
        "objective": result.upper_bound,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "time_to_certificate": result.time if result.status == "optimal" else None,
        "time_to_final_incumbent": first_time_within(trace, result.upper_bound),
        "nodes": result.nodes,
        **describe(problem, result.items, result.M),
        **heuristics,
    }
    if method == "sequential":
        record["sub_solves"] = len(result.steps)
        record["cells_certified"] = sum(
            1 for c, lb in result.cells.items() if lb >= result.upper_bound - 1e-9
        )
        record["cells"] = len(result.cells)
    emit(record)
    return record


CONFIGS = [
    {"name": "full_N5", "n_max": 5, "target": "error", "split": None},
    {"name": "full_N8", "n_max": 8, "target": "error", "split": None},
    {"name": "fpr_fnr10_N5", "n_max": 5, "target": "fpr", "split": None},
    {"name": "fpr_fnr10_N8", "n_max": 8, "target": "fpr", "split": None},
    {"name": "split80_N5", "n_max": 5, "target": "error", "split": 0.8},
]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--long", action="store_true", help="also run with --long-time-limit")
    parser.add_argument("--long-time-limit", type=float, default=600.0)
    parser.add_argument(
        "--configs", nargs="*", default=[c["name"] for c in CONFIGS], help="subset of configs"
    )
    parser.add_argument(
        "--methods", nargs="*", default=["ip", "sequential"], choices=["ip", "sequential"]
    )
    args = parser.parse_args(argv)
    limits = [args.time_limit] + ([args.long_time_limit] if args.long else [])
    for config in CONFIGS:
        if config["name"] not in args.configs:
            continue
        for time_limit in limits:
            for method in args.methods:
                run(config, method, time_limit)


if __name__ == "__main__":
    main()
