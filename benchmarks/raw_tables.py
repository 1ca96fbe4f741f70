"""Risk scores straight from raw tables (issue 32): a bundled table's raw columns are
binarized (``fit_risk_score(binarize="auto")``, the default: quantile cut points moved to
round numbers nearby, one item per category, a "missing" item per column with missing
values) and fitted with at most one item of each source column, in the fixed and the
learned scale. R <= 5, points -5..5,
c0 = 1e-6. Prints one JSON object per line: the table's shape, the items, the status,
objective, lower bound, gap and time, and the score's items::

    OPENBLAS_NUM_THREADS=1 python benchmarks/raw_tables.py --data heart adult_raw \
        --time-limit 300
    OPENBLAS_NUM_THREADS=1 python benchmarks/raw_tables.py --data adult_raw --split all

The side-by-side with FasterRisk on the same items, through the command line, is
``benchmarks/raw_public_tables.py``.
"""

from __future__ import annotations

import argparse
import time

from _common import banners_to_stderr, emit

from riskexplore import Binarizer, fit_risk_score, load_dataset
from riskexplore.risk_score.raw_table import BINARIZE_OPTIONS

#: ``--data heart`` reads heart's integer codes (cp, thal, ...) as categories.
CATEGORICAL = {"heart": ["cp", "thal", "ca", "slope", "restecg"]}


def binarizer(name: str) -> str | Binarizer:
    """``"auto"``, or the same binarizer with a table's integer-coded categories."""
    if name not in CATEGORICAL:
        return "auto"
    return Binarizer(**BINARIZE_OPTIONS, categorical=CATEGORICAL[name])


def run(name: str, scale: str, time_limit: float, n_jobs: int | None, split=None) -> dict:
    data = load_dataset(name, split)
    start = time.perf_counter()
    with banners_to_stderr():
        model = fit_risk_score(
            data.X,
            data.y,
            max_size=5,
            time_limit=time_limit,
            scale=scale,
            binarize=binarizer(name),
            n_jobs=n_jobs,
        )
    wall = time.perf_counter() - start
    cert = model.certificate
    return {
        "data": name,
        "split": data.split,
        "scale": scale,
        "rows": int(data.X.shape[0]),
        "columns": int(data.X.shape[1]),
        "items": len(model.binarizer.items_),
        "time_limit": time_limit,
        "status": cert.status,
        "objective": cert.upper_bound,
        "lower_bound": cert.lower_bound,
        "gap": cert.gap,
        "time": round(wall, 2),
        "score": [name for name, points in model.points.items() if points],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="+", default=["heart", "adult_raw"])
    parser.add_argument("--scales", nargs="+", default=["fixed", "learned"])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument(
        "--split",
        help="a split of tables that have one: train, test or all (adult_raw: 48,842 rows)",
    )
    args = parser.parse_args()
    for name in args.data:
        for scale in args.scales:
            emit(run(name, scale, args.time_limit, args.n_jobs, args.split))


if __name__ == "__main__":
    main()
