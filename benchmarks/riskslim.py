"""RiskSLIM benchmarks: LCPA on the bundled datasets, loss-evaluation scaling, CPA stalling.

Prints one JSON object per line on stdout (solver banners go to stderr). See
``benchmarks/README.md`` for the targets. Run from the repository root::

    python benchmarks/riskslim.py --quick
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _common import banners_to_stderr, emit

from riskexplore.core.limits import Limits
from riskexplore.risk_score.lcpa import solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem

DATASETS = ("mammo", "breastcancer", "income")
SETTINGS = dict(coef_min=-5, coef_max=5, intercept_min=-100, intercept_max=100, c0=1e-6)
MAX_SIZE = 5


def make_problem(name: str) -> RiskScoreProblem:
    from riskexplore.datasets import load_dataset

    data = load_dataset(name)
    return RiskScoreProblem(data.X, data.y, max_size=MAX_SIZE, **SETTINGS)


def run_lcpa(name: str, time_limit: float) -> dict:
    problem = make_problem(name)
    events = []
    with banners_to_stderr():
        result = solve_lcpa(
            problem,
            limits=Limits(time_limit=time_limit, gap_tolerance=1e-6),
            listeners=[events.append],
        )
    final = result.objective
    within = None
    for e in events:
        if e.kind in ("incumbent", "final") and e.upper_bound <= final * 1.01:
            within = e.time
            break
    first = next((e.time for e in events if math.isfinite(e.upper_bound)), None)
    return {
        "kind": "lcpa",
        "dataset": name,
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_features),
        "distinct_rows": int(problem.loss.n_rows),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.objective,
        "loss": problem.loss_of(result.solution) if result.has_model else None,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "time_to_certificate": result.time if result.status == "optimal" else None,
        "time_to_first_solution": first,
        "time_to_within_1pct": within,
        "nodes": result.nodes,
        "nodes_per_s": result.nodes / max(result.time, 1e-9),
        "cuts": result.cuts,
        "lp_solves": result.stats.get("lp_solves"),
        "model": problem.as_dict(result.solution) if result.has_model else None,
    }


def run_cpa(name: str, time_limit: float) -> dict:
    from riskexplore.risk_score.cpa import solve_cpa

    problem = make_problem(name)
    with banners_to_stderr():
        result = solve_cpa(problem, limits=Limits(time_limit=time_limit, gap_tolerance=1e-6))
    mip_times = result.stats["mip_times"]
    return {
        "kind": "cpa",
        "dataset": name,
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_features),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.objective,
        "loss": problem.loss_of(result.solution) if result.has_model else None,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "iterations": result.stats["iterations"],
        "nodes": result.nodes,
        "cuts": result.cuts,
        "mip_time_first10": sum(mip_times[:10]),
        "mip_time_last10": sum(mip_times[-10:]),
        "mip_times": [round(t, 4) for t in mip_times],
        "mip_nodes": result.stats["mip_nodes"],
    }


def time_per_cut(n: int, d: int, kind: str, rng: np.random.Generator, reps: int = 20) -> dict:
    """Mean seconds of one ``loss.value_and_grad`` at random integer ``lam``."""
    if kind == "binary":
        X = rng.integers(0, 2, size=(n, d)).astype(float)
    else:
        X = rng.normal(size=(n, d))
    y = (rng.random(n) < 0.3).astype(int)
    t0 = time.perf_counter()
    problem = RiskScoreProblem(X, y, max_size=MAX_SIZE, **SETTINGS)
    setup = time.perf_counter() - t0
    loss = problem.loss
    lams = [
        np.concatenate([[rng.integers(-10, 11)], rng.integers(-5, 6, size=d)]) for _ in range(reps)
    ]
    loss.value_and_grad(lams[0].astype(float), integral=True)  # warm up lazy state
    t0 = time.perf_counter()
    for lam in lams:
        loss.value_and_grad(lam.astype(float), integral=True)
    per_cut = (time.perf_counter() - t0) / reps
    return {
        "kind": "scaling",
        "features": kind,
        "n": n,
        "d": d,
        "distinct_rows": int(loss.n_rows),
        "setup_s": setup,
        "time_per_cut_s": per_cut,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--income-time-limit", type=float, default=1200.0)
    parser.add_argument("--datasets", nargs="*", default=None, choices=DATASETS)
    parser.add_argument(
        "--quick", action="store_true", help="mammo and breastcancer only; scaling to 1e6"
    )
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--scaling-max-n", type=int, default=1_000_000)
    parser.add_argument(
        "--compare-cpa", action="store_true", help="also run plain CPA on mammo (stalling)"
    )
    args = parser.parse_args(argv)
    names = args.datasets
    if names is None:
        names = ["mammo", "breastcancer"] if args.quick else list(DATASETS)

    for name in names:
        limit = args.income_time_limit if name == "income" else args.time_limit
        emit(run_lcpa(name, limit))

    if args.compare_cpa:
        emit(run_cpa("mammo", args.time_limit))

    if not args.no_scaling:
        rng = np.random.default_rng(0)
        for n in (10_000, 100_000, 1_000_000):
            if n > args.scaling_max_n:
                break
            for kind in ("binary", "normal"):
                emit(time_per_cut(n, 30, kind, rng))
    return 0


if __name__ == "__main__":
    sys.exit(main())
