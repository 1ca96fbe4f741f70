"""Risk scores with a learned multiplier: our certified LCPA beside FasterRisk.

Prints one JSON object per line on stdout (solver banners go to stderr). See
``benchmarks/README.md``. FasterRisk is no dependency of the package: it runs in its own
virtual environment (created on first use with ``pip install fasterrisk``, or given with
``--fasterrisk-python``), on the same binarized data. Run from the repository root::

    python benchmarks/scaled.py --datasets mammo breastcancer

Each of our solves runs with the package as it is (``engine: "new"``) and, side by side,
with the package of commit ``OLD_REF`` of ``riskslim.py`` or ``--old-ref`` (``"old (REF)"``,
a subprocess from ``git archive``; ``--skip-old`` leaves it out).
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
from riskslim import OLD_REF, ROOT, old_tree

from riskexplore.core.limits import Limits
from riskexplore.risk_score.problem import RiskScoreProblem

try:
    from riskexplore.risk_score.scaled import ScaledClass, solve_scaled_lcpa
except ImportError:  # an old tree (--as-old) from before the engines' subpackages
    from riskexplore.risk_score.scaled_class import ScaledClass
    from riskexplore.risk_score.scaled_lcpa import solve_scaled_lcpa

DATASETS = ("mammo", "breastcancer", "income", "adult")
SETTINGS = dict(coef_min=-5, coef_max=5, intercept_min=-100, intercept_max=100, c0=1e-6)
MULTIPLIERS = (0.25, 10.0)
DEFAULT_VENV = Path.home() / ".cache" / "riskexplore-bench" / "fasterrisk-venv"

#: Run inside FasterRisk's environment: fit on X, y (+1/-1) with at most k features.
_FASTERRISK_WORKER = """
import json, sys, time
import numpy as np
from fasterrisk.fasterrisk import RiskScoreOptimizer
data = np.load(sys.argv[1])
X, y, k = data["X"].astype(float), data["y"].astype(float), int(sys.argv[2])
start = time.perf_counter()
optimizer = RiskScoreOptimizer(X=X, y=y, k=k, lb=-5, ub=5)
optimizer.optimize()
multiplier, intercept, points = optimizer.get_models(0)
print(json.dumps({"time": time.perf_counter() - start, "multiplier": float(multiplier),
                  "intercept": float(intercept), "points": [float(v) for v in points]}))
"""


def make_problem(name: str, max_size: int) -> RiskScoreProblem:
    """The bundled dataset; ``adult`` is ``adult_raw`` (train and test) binarized by
    quintile thresholds and one-hot categories (111 items, 48,842 rows)."""
    from riskexplore.datasets import load_dataset

    if name == "adult":
        from riskexplore import Binarizer

        data = load_dataset("adult_raw", split="all")
        X = Binarizer(complements=False).fit(data.X).transform(data.X)
        return RiskScoreProblem(X, data.y.to_numpy(), max_size=max_size, **SETTINGS)
    data = load_dataset(name)
    return RiskScoreProblem(data.X, data.y, max_size=max_size, **SETTINGS)


def _time_to_within(events, final: float, share: float) -> float | None:
    for e in events:
        if e.kind in ("incumbent", "final") and e.upper_bound <= final * (1 + share):
            return e.time
    return None


def run_ours(
    name: str, problem: RiskScoreProblem, time_limit: float, label: str = "new", n_jobs=None
) -> dict:
    events = []
    settings = None
    if n_jobs is not None:  # (old trees may have no n_jobs)
        from riskexplore.risk_score.scaled.search import ScaledLCPASettings

        settings = ScaledLCPASettings(n_jobs=n_jobs)
    cpu = time.process_time()
    wall, cut_timer = time.perf_counter(), CutTimer(problem)
    with banners_to_stderr():
        result = solve_scaled_lcpa(
            problem,
            MULTIPLIERS,
            limits=Limits(time_limit=time_limit, gap_tolerance=1e-6),
            listeners=[events.append],
            settings=settings,
        )
    cpu = time.process_time() - cpu
    wall, cuts = time.perf_counter() - wall, cut_timer.stop()
    stats = result.stats
    within = _time_to_within(events, result.objective, 0.01)
    model = problem.as_dict(result.solution) if result.has_model else None
    return {
        "kind": "scaled",
        "engine": label,
        "dataset": name,
        "n": int(problem.X.shape[0]),
        "d": int(problem.n_features),
        "distinct_rows": int(problem.loss.n_rows),
        "max_size": int(problem.max_size),
        "n_jobs": stats.get("n_jobs", 1),
        "time_limit": time_limit,
        "status": result.status,
        "objective": result.objective,
        "loss": stats.get("loss"),
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "time": result.time,
        "cpu": cpu,
        "time_to_certificate": result.time if result.status == "optimal" else None,
        "time_to_first_solution": next(
            (e.time for e in events if math.isfinite(e.upper_bound)), None
        ),
        "time_to_within_1pct": within,
        # the call's wall time (setup before the solver's clock included), and the time
        # to within 1% counted from the call (conservative: all overhead added)
        "wall": wall,
        "wall_to_within_1pct": None if within is None else within + wall - result.time,
        "multiplier": stats.get("multiplier"),
        "nodes": result.nodes,
        "supports_screened": stats.get("supports_screened"),
        "screen_survivors": stats.get("screen_survivors"),
        "screen_time": stats.get("screen_time"),
        "heuristic_time": stats.get("heuristic_time"),
        "root_supports": root_supports(problem),
        "fixed_features": stats.get("fixed_features"),
        "fixing_time": stats.get("fixing_time"),
        "lp_solves": stats.get("lp_solves"),
        "lp_time": stats.get("lp_time"),
        "lattice_nodes": stats.get("lattice_nodes"),
        "lattice_time": stats.get("lattice_time"),
        "root_bound": stats.get("root_bound"),
        "time_split": time_split(stats, result.time, cuts),
        "model": model,
    }


def fasterrisk_python(args) -> str | None:
    """The interpreter of FasterRisk's environment, made on first use."""
    if args.fasterrisk_python:
        return args.fasterrisk_python
    python = Path(args.fasterrisk_venv) / "bin" / "python"
    if not python.exists():
        print(f"creating {args.fasterrisk_venv} with fasterrisk ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(args.fasterrisk_venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "fasterrisk"],
            check=True,
            stdout=sys.stderr,
        )
    return str(python)


def run_fasterrisk(name: str, problem: RiskScoreProblem, python: str) -> dict:
    """FasterRisk's best model (default settings, ``k`` = the size limit), in our terms."""
    y = np.where(problem.y > 0, 1.0, -1.0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.npz")
        np.savez(path, X=problem.X, y=y)
        out = subprocess.run(
            [python, "-c", _FASTERRISK_WORKER, path, str(problem.max_size)],
            check=True,
            capture_output=True,
            text=True,
        )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    lam = np.rint([found["intercept"], *found["points"]]).astype(np.int64)
    m = found["multiplier"]
    sclass = ScaledClass(problem, MULTIPLIERS)
    return {
        "kind": "fasterrisk",
        "dataset": name,
        "time": found["time"],
        "loss": sclass.loss(lam, m),
        "objective": sclass.objective(lam, m),
        "multiplier": m,
        "in_class": not sclass.violations(lam, m),
        "model": problem.as_dict(lam),
    }


def compare(ours: dict, theirs: dict) -> dict:
    """Our final loss beside FasterRisk's, and FasterRisk's distance from the optimum as
    our lower bound certifies it."""
    lower = ours["lower_bound"]
    return {
        "kind": "compare",
        "dataset": ours["dataset"],
        "loss": ours["loss"],
        "fasterrisk_loss": theirs["loss"],
        "loss_difference": ours["loss"] - theirs["loss"],
        "no_worse_than_fasterrisk": ours["objective"] <= theirs["objective"] + 1e-12,
        "loss_no_worse_than_fasterrisk": ours["loss"] <= theirs["loss"] + 1e-12,
        "gap": ours["gap"],
        "fasterrisk_certified_gap": (theirs["objective"] - lower) / theirs["objective"],
        "time": ours["time"],
        "fasterrisk_time": theirs["time"],
        "time_to_within_1pct": ours["time_to_within_1pct"],
        "wall_to_within_1pct": ours["wall_to_within_1pct"],
        "within_1pct_before_fasterrisk_ends": ours["wall_to_within_1pct"] is not None
        and ours["wall_to_within_1pct"] <= theirs["time"],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--adult-time-limit", type=float, default=600.0)
    parser.add_argument("--max-size", type=int, default=5)
    parser.add_argument("--no-fasterrisk", action="store_true")
    parser.add_argument("--fasterrisk-python", default=None)
    parser.add_argument("--fasterrisk-venv", default=str(DEFAULT_VENV))
    parser.add_argument("--skip-old", action="store_true", help="no run of the old package")
    parser.add_argument("--old-ref", default=OLD_REF, help="the old package's commit")
    parser.add_argument("--n-jobs", type=int, default=None, help="workers (default: all cores)")
    parser.add_argument("--as-old", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.as_old:  # inside the old package: compile its kernels untimed, then solve
        run_ours("breastcancer", make_problem("breastcancer", args.max_size), 5.0)
        for name in args.datasets:
            limit = args.adult_time_limit if name == "adult" else args.time_limit
            emit(run_ours(name, make_problem(name, args.max_size), limit, f"old ({args.old_ref})"))
        return 0
    python = None if args.no_fasterrisk else fasterrisk_python(args)
    run_ours("breastcancer", make_problem("breastcancer", args.max_size), 5.0)  # warm up
    with tempfile.TemporaryDirectory() as tmp:
        tree = None if args.skip_old else old_tree(tmp, args.old_ref)
        for name in args.datasets:
            problem = make_problem(name, args.max_size)
            limit = args.adult_time_limit if name == "adult" else args.time_limit
            ours = run_ours(name, problem, limit, n_jobs=args.n_jobs)
            emit(ours)
            if tree is not None:
                for record in run_old(tree, name, args):
                    emit(record)
                    emit(old_and_new(record, ours, ("status", "time", "cpu", "gap")))
            if python is not None:
                theirs = run_fasterrisk(name, problem, python)
                emit(theirs)
                emit(compare(ours, theirs))
    return 0


def run_old(tree: Path, name: str, args) -> list[dict]:
    """Our record for ``name`` with the old package (a subprocess)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT / "benchmarks")])}
    command = [sys.executable, str(Path(__file__).resolve()), "--as-old", "--no-fasterrisk"]
    command += ["--datasets", name, "--max-size", str(args.max_size)]
    command += ["--old-ref", args.old_ref]
    command += ["--time-limit", str(args.time_limit)]
    command += ["--adult-time-limit", str(args.adult_time_limit)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


if __name__ == "__main__":
    sys.exit(main())
