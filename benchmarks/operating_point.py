"""Operating-point rules of risk scores (issue 34): the certified solve with a rule vs without.

Prints one JSON object per line, ``kind: "operating_point"``, per dataset, rule and engine
(the one ``fit_risk_score`` picks, and LCPA): the rule (``null`` for the solve without
one), the engine, the status, objective, lower bound, time, nodes, the model's rates at
the rule's threshold and the certified price (objective with the rule minus the optimum
without, as an interval).

Run from the repository root: ``python benchmarks/operating_point.py [--time-limit S]
[--datasets mammo heart]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import banners_to_stderr, clean, emit

from riskexplore import OperatingPoint, load_dataset
from riskexplore.risk_score.fit import build_problem, fixed_scale_engine, solve_problem
from riskexplore.risk_score.lcpa.settings import LCPASettings

#: Rules that bind at each dataset's optimum without a rule (at most 5 features, points
#: -5..5, features as given): mammo's optimum has sensitivity 74.8% at a total of 1 or
#: more, 35.3% at 2 or more, specificity 73.4% below 0; heart's (real-valued features)
#: has sensitivity 49.7% at -2 or more.
RULES = {
    "mammo": [
        OperatingPoint(1, min_sensitivity=0.85),
        OperatingPoint(2, min_sensitivity=0.6),
        OperatingPoint(0, min_specificity=0.8),
    ],
    "heart": [OperatingPoint(-2, min_sensitivity=0.7)],  # real-valued: LCPA with a rule
}
SETTINGS = dict(max_size=5, coef_min=-5, coef_max=5, binarize=False)


def solve(name: str, rule, time_limit: float, settings=None) -> dict:
    data = load_dataset(name)
    began = time.perf_counter()
    with banners_to_stderr():
        problem = build_problem(data.X, data.y, constraints=[rule] if rule else [], **SETTINGS)
        model = solve_problem(problem, time_limit=time_limit, settings=settings)
    seconds = time.perf_counter() - began
    cert = model.certificate
    record = {
        "kind": "operating_point",
        "dataset": name,
        "rule": rule.describe() if rule else None,
        "engine": fixed_scale_engine(problem, settings),
        "status": cert.status,
        "objective": clean(cert.upper_bound),
        "lower_bound": clean(cert.lower_bound),
        "time": round(seconds, 2),
        "nodes": model.stats.get("nodes"),
        "model": {"intercept": model.intercept, "points": model.points},
    }
    if rule:
        totals = np.asarray(model.total_points(data.X), dtype=float)
        y = np.asarray(problem.y) > 0
        record["sensitivity"] = float((totals[y] >= rule.at_score).mean())
        record["specificity"] = float((totals[~y] < rule.at_score).mean())
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--datasets", nargs="+", default=["mammo", "heart"], choices=RULES)
    args = parser.parse_args()
    for name in args.datasets:
        free = solve(name, None, args.time_limit)
        emit(free)
        emit(solve(name, None, args.time_limit, LCPASettings()))
        for rule in RULES[name]:
            for settings in (None, LCPASettings()):
                record = solve(name, rule, args.time_limit, settings)
                low = max(0.0, (record["lower_bound"] or 0.0) - free["objective"])
                high = (record["objective"] or np.inf) - (free["lower_bound"] or 0.0)
                record["price"] = [clean(low), clean(high)]
                emit(record)


if __name__ == "__main__":
    main()
