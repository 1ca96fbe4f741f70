"""Beyond the optimum (issue 13): near-optimal sets, hand edits and feature prices.

Prints one JSON object per line:

* ``kind: "near_optimal"``: the certified set of mammo risk scores (at most 5 features)
  within 1% of the optimum, and of heart checklists (at most 5 items) within 2 mistakes
  (a first call, which may compile the exact search, then a second one);
* ``kind: "feature_prices"``: the certified price of each feature of mammo's best score;
* ``kind: "edit"``: the time of one hand edit in the kernel (model, metrics of the view's
  table and ROC curves), mammo and heart.

The browser's edit latency (card, metrics and distance on the page) is measured by
``tests/browser/test_alternatives.py`` (``artifacts/alternatives_<page>.json``).

Run from the repository root: ``python benchmarks/near_optimal.py [--time-limit S]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import banners_to_stderr, clean, emit

from riskexplore import (
    feature_prices,
    fit_checklist,
    fit_risk_score,
    load_dataset,
    near_optimal_checklists,
    near_optimal_risk_scores,
)
from riskexplore.datasets import dataset_info
from riskexplore.evaluation.tables import metrics_table

HEART_CATEGORICAL = list(dataset_info("heart").get("categorical") or ())


def _set_record(name: str, found, seconds: float, target: float, **extra) -> dict:
    return {
        "kind": "near_optimal",
        "dataset": name,
        **extra,
        "tolerance": found.tolerance,
        "tolerance_unit": found.tolerance_unit,
        "models": len(found),
        "complete": found.complete,
        "reason": found.reason,
        "optimum": clean(found.optimum),
        "lower_bound": clean(found.lower_bound),
        "nodes": found.nodes,
        "time": round(seconds, 2),
        "target_s": target,
        "within_target": bool(found.complete and seconds <= target),
    }


def quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with HiGHS' banner kept off stdout (the JSON lines)."""
    with banners_to_stderr():
        return function(*args, **kwargs)


def near_optimal(time_limit: float) -> None:
    mammo = load_dataset("mammo")
    began = time.perf_counter()
    found = quiet(
        near_optimal_risk_scores,
        mammo.X,
        mammo.y,
        max_size=5,
        tolerance=0.01,
        max_models=1000,
        time_limit=time_limit,
        binarize=False,  # mammo as given (Density per unit), as in the recorded runs
    )
    emit(_set_record("mammo", found, time.perf_counter() - began, 60.0, max_size=5))
    heart = load_dataset("heart")
    for call in ("first", "second"):
        began = time.perf_counter()
        found = quiet(
            near_optimal_checklists,
            heart.X,
            heart.y,
            max_items=5,
            tolerance=2,
            max_models=1000,
            categorical=HEART_CATEGORICAL,
            time_limit=time_limit,
        )
        seconds = time.perf_counter() - began
        emit(_set_record("heart", found, seconds, 10.0, max_items=5, call=call))


def prices(time_limit: float) -> None:
    mammo = load_dataset("mammo")
    began = time.perf_counter()
    table = quiet(
        feature_prices, mammo.X, mammo.y, max_size=5, time_limit=time_limit, binarize=False
    )
    seconds = time.perf_counter() - began
    emit(
        {
            "kind": "feature_prices",
            "dataset": "mammo",
            "max_size": 5,
            "features": len(table),
            "certified": sum(p.certified for p in table.prices),
            "complete": table.complete,
            "time": round(seconds, 2),
            "target_s": 60.0,
            "within_target": bool(
                table.complete and all(p.certified for p in table.prices) and seconds <= 60
            ),
            "prices": {p.feature: [clean(p.low), clean(p.high)] for p in table.prices},
        }
    )


def edits() -> None:
    mammo = load_dataset("mammo")
    score = quiet(fit_risk_score, mammo.X, mammo.y, max_size=5, binarize=False)
    heart = load_dataset("heart")
    checklist = quiet(fit_checklist, heart.X, heart.y, max_items=5, categorical=HEART_CATEGORICAL)
    outside = next(i for i in checklist.item_names if i not in checklist.items)
    cases = [
        ("mammo", mammo, lambda i: score.with_points({"Age_geq_60": 1 + i % 2})),
        ("heart", heart, lambda i: checklist.with_items(add=[outside])),
    ]
    for name, data, edit in cases:
        alone, with_metrics = [], []
        for i in range(20):
            began = time.perf_counter()
            edited = edit(i)
            alone.append(time.perf_counter() - began)
            metrics_table({"this model": edited}, data.X, data.y)
            with_metrics.append(time.perf_counter() - began)
        emit(
            {
                "kind": "edit",
                "dataset": name,
                "edit_ms": round(1000 * statistics.median(alone), 2),
                "edit_and_metrics_ms": round(1000 * statistics.median(with_metrics), 2),
                "distance": edited.distance.to_dict(),
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per search")
    args = parser.parse_args()
    near_optimal(args.time_limit)
    prices(60.0)
    edits()


if __name__ == "__main__":
    main()
