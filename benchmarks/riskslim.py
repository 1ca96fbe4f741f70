"""RiskSLIM benchmarks: LCPA on the bundled datasets, loss-evaluation scaling, CPA stalling.

Prints one JSON object per line on stdout (solver banners go to stderr). See
``benchmarks/README.md`` for the targets. Run from the repository root::

    python benchmarks/riskslim.py --quick

Each dataset is solved by the package as it is (``engine: "new"``: the engine
``fit_risk_score`` picks, and LCPA with the root fixing, ``"new lcpa"``) and, side by side,
by the package of commit :data:`OLD_REF` or ``--old-ref`` (``"old (REF)"``, in a subprocess
from ``git archive``; ``--skip-old`` leaves it out).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import CutTimer, banners_to_stderr, emit, old_and_new, root_supports, time_split

from riskexplore.core.limits import Limits
from riskexplore.risk_score.lcpa import solve_lcpa  # a module in old trees, a package now
from riskexplore.risk_score.problem import RiskScoreProblem

ROOT = Path(__file__).resolve().parent.parent
#: The package before issue 18 (root fixing, the fixed scale by the screen, the faster kernel).
OLD_REF = "cd087f5"
DATASETS = ("mammo", "breastcancer", "income", "adult")
SETTINGS = dict(coef_min=-5, coef_max=5, intercept_min=-100, intercept_max=100, c0=1e-6)
MAX_SIZE = 5


def make_problem(name: str) -> RiskScoreProblem:
    from riskexplore.datasets import load_dataset

    if name == "adult":  # the 111-item set of scaled.py
        from scaled import make_problem as scaled_problem

        return scaled_problem(name, MAX_SIZE)
    data = load_dataset(name)
    return RiskScoreProblem(data.X, data.y, max_size=MAX_SIZE, **SETTINGS)


def run_lcpa(
    name: str, time_limit: float, engine: str = "lcpa", label: str = "new", n_jobs=None
) -> dict:
    """Solve ``name`` by LCPA (``engine="lcpa"``) or by the support screen with ``m = 1``
    (``"screen"``) and describe the solve; ``n_jobs`` workers (None: the default)."""
    problem = make_problem(name)
    settings = None
    if n_jobs is not None:  # (old trees may have no n_jobs)
        from riskexplore.risk_score.lcpa.search import LCPASettings
        from riskexplore.risk_score.scaled.search import ScaledLCPASettings

        settings = (ScaledLCPASettings if engine == "screen" else LCPASettings)(n_jobs=n_jobs)
    events = []
    limits = Limits(time_limit=time_limit, gap_tolerance=1e-6)
    cpu = time.process_time()
    cut_timer = CutTimer(problem)
    with banners_to_stderr():
        if engine == "screen":
            from riskexplore.risk_score.scaled import solve_scaled_lcpa

            result = solve_scaled_lcpa(
                problem, (1.0, 1.0), limits=limits, listeners=[events.append], settings=settings
            )
        else:
            result = solve_lcpa(
                problem, limits=limits, listeners=[events.append], settings=settings
            )
    cpu = time.process_time() - cpu
    cuts = cut_timer.stop()
    final = result.objective
    within = None
    for e in events:
        if e.kind in ("incumbent", "final") and e.upper_bound <= final * 1.01:
            within = e.time
            break
    first = next((e.time for e in events if math.isfinite(e.upper_bound)), None)
    return {
        "kind": "lcpa",
        "engine": label,
        "solver": engine,
        "dataset": name,
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_features),
        "distinct_rows": int(problem.loss.n_rows),
        "n_jobs": result.stats.get("n_jobs", 1),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.objective,
        "loss": problem.loss_of(result.solution) if result.has_model else None,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "cpu": cpu,
        "time_to_certificate": result.time if result.status == "optimal" else None,
        "time_to_first_solution": first,
        "time_to_within_1pct": within,
        "nodes": result.nodes,
        "nodes_per_s": result.nodes / max(result.time, 1e-9),
        "cuts": result.cuts,
        "lp_solves": result.stats.get("lp_solves"),
        "root_supports": root_supports(problem),
        "fixed_features": result.stats.get("fixed_features"),
        "fixing_time": result.stats.get("fixing_time"),
        "supports_screened": result.stats.get("supports_screened"),
        "screen_survivors": result.stats.get("screen_survivors"),
        "screen_time": result.stats.get("screen_time"),
        "root_bound": result.stats.get("root_bound"),
        "time_split": time_split(result.stats, result.time, cuts),
        "model": problem.as_dict(result.solution) if result.has_model else None,
    }


def run_new(name: str, time_limit: float, n_jobs=None) -> list[dict]:
    """The engine ``fit_risk_score`` picks, then LCPA (with the root fixing) if that was
    not it."""
    from riskexplore.risk_score.fit import fixed_scale_engine

    engine = fixed_scale_engine(make_problem(name))
    records = [run_lcpa(name, time_limit, engine, "new", n_jobs)]
    if engine != "lcpa":
        records.append(run_lcpa(name, time_limit, "lcpa", "new lcpa", n_jobs))
    return records


def old_tree(tmp: str, ref: str = OLD_REF) -> Path:
    """The package as it was at commit ``ref`` (:data:`OLD_REF`), unpacked into ``tmp``."""
    archive = subprocess.run(
        ["git", "archive", ref, "riskexplore"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    return Path(tmp)


def run_old(tree: Path, names: list[str], args) -> list[dict]:
    """This script's LCPA records with the old package (a subprocess); the first call
    fills the old tree's numba cache on a small problem, untimed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT / "benchmarks")])}
    script = str(Path(__file__).resolve())
    command = [sys.executable, script, "--as-old", "--no-scaling", "--datasets", *names]
    command += ["--old-ref", args.old_ref]
    command += ["--time-limit", str(args.time_limit)]
    command += ["--income-time-limit", str(args.income_time_limit)]
    command += ["--adult-time-limit", str(args.adult_time_limit)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def run_cpa(name: str, time_limit: float) -> dict:
    from riskexplore.risk_score.lcpa import solve_cpa

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


def _time_limit(name: str, args) -> float:
    return {"income": args.income_time_limit, "adult": args.adult_time_limit}.get(
        name, args.time_limit
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--income-time-limit", type=float, default=1200.0)
    parser.add_argument("--adult-time-limit", type=float, default=300.0)
    parser.add_argument("--datasets", nargs="*", default=None, choices=DATASETS)
    parser.add_argument(
        "--quick", action="store_true", help="mammo and breastcancer only; scaling to 1e6"
    )
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--scaling-max-n", type=int, default=1_000_000)
    parser.add_argument(
        "--compare-cpa", action="store_true", help="also run plain CPA on mammo (stalling)"
    )
    parser.add_argument("--skip-old", action="store_true", help="no run of the old package")
    parser.add_argument("--old-ref", default=OLD_REF, help="the old package's commit")
    parser.add_argument("--n-jobs", type=int, default=None, help="workers (default: all cores)")
    parser.add_argument("--as-old", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = args.datasets
    if names is None:
        names = ["mammo", "breastcancer"] if args.quick else list(DATASETS[:3])

    if args.as_old:  # inside the old package: warm up its kernels, then plain LCPA
        with banners_to_stderr():
            solve_lcpa(make_problem("breastcancer"), limits=Limits(time_limit=5.0))
        for name in names:
            limit = _time_limit(name, args)
            emit(run_lcpa(name, limit, "lcpa", f"old ({args.old_ref})"))
        return 0

    run_lcpa("breastcancer", 5.0, "screen")  # compile or load the kernels, untimed
    with tempfile.TemporaryDirectory() as tmp:
        tree = None if args.skip_old else old_tree(tmp, args.old_ref)
        for name in names:
            limit = _time_limit(name, args)
            news = run_new(name, limit, args.n_jobs)
            for record in news:
                emit(record)
            if tree is not None:
                for record in run_old(tree, [name], args):
                    emit(record)
                    emit(old_and_new(record, news[0], new_solver=news[0]["solver"]))

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
