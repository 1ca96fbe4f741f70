"""Real-valued features, where the support screen's rows do not merge: a spambase-shaped probe.

The issue's example (4,601 rows x 57 real-valued columns, fixed scale: an 18% gap after
600 s) is not bundled, so this script builds a stand-in of the same shape: skewed,
correlated columns with many zeros (like word frequencies) and a label from a sparse
logistic model on eight of them (seeded). R <= 5, points -5..5, c0 = 1e-6; the fixed scale
by the engine ``fit_risk_score`` picks or the ones named, and the learned scale
(multiplier in [0.25, 10]) by its engine with ``--learned``. Prints one JSON object per
line, with where the screen engine's time went::

    OPENBLAS_NUM_THREADS=1 python benchmarks/real_valued.py --engines lcpa screen --learned \
        --time-limit 300
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from _common import banners_to_stderr, emit, result_record
from scaled import MULTIPLIERS, SETTINGS

from riskexplore.core.limits import Limits
from riskexplore.risk_score.fit import fixed_scale_engine
from riskexplore.risk_score.lcpa import solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled import solve_scaled_lcpa


def make_problem(seed: int = 1, max_size: int = 5) -> RiskScoreProblem:
    """The stand-in: 4,601 rows, 57 skewed real-valued columns, a sparse logistic label."""
    X, y = make_table(seed)
    return RiskScoreProblem(X, y, max_size=max_size, **SETTINGS)


def make_table(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The stand-in's ``(X, y)``: also the checklists' real-valued table
    (``checklists.py --parts real``)."""
    rng = np.random.default_rng(seed)
    n, d = 4601, 57
    Z = rng.normal(size=(n, d))
    Z = Z @ (np.eye(d) + 0.3 * rng.normal(size=(d, d)) / np.sqrt(d))  # correlated columns
    X = np.round(np.exp(Z) * (rng.random((n, d)) < 0.4), 2)
    beta = np.zeros(d)
    beta[rng.choice(d, 8, replace=False)] = rng.normal(size=8)
    score = (X > np.median(X, axis=0)).astype(float) @ beta
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * score - 0.5)))).astype(int)
    return X, y


#: Where the screen engine's time went (``SolveResult.stats``).
_SCREEN_STATS = (
    "supports_screened", "screen_survivors", "screen_time", "lattice_nodes", "lattice_time",
    "lp_time", "heuristic_time",
)  # fmt: skip


def run(engine: str, time_limit: float, multipliers=(1.0, 1.0)) -> dict:
    problem = make_problem()
    limits = Limits(time_limit=time_limit, gap_tolerance=1e-6)
    start = time.perf_counter()
    with banners_to_stderr():
        if engine == "screen":
            result = solve_scaled_lcpa(problem, multipliers, limits=limits)
        else:
            result = solve_lcpa(problem, limits=limits)
    wall = time.perf_counter() - start
    scale = "fixed" if multipliers == (1.0, 1.0) else "learned"
    record = result_record(
        problem, result, time_limit, wall, kind="real_valued", scale=scale, engine=engine,
        picked=fixed_scale_engine(problem) if scale == "fixed" else "screen",
    )  # fmt: skip
    record.update({key: result.stats[key] for key in _SCREEN_STATS if key in result.stats})
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="*", default=None, choices=["lcpa", "screen"])
    parser.add_argument("--learned", action="store_true", help="also the learned scale")
    parser.add_argument("--time-limit", type=float, default=300.0)
    args = parser.parse_args(argv)
    for engine in args.engines or [fixed_scale_engine(make_problem())]:
        emit(run(engine, args.time_limit))
    if args.learned:
        emit(run("screen", args.time_limit, MULTIPLIERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
