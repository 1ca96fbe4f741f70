"""Table 3 of the RiskSLIM paper (R <= 5, points -5..5) for RiskSLIM and six baselines.

For each dataset: 5-fold CV (test CAL and test AUC, means over folds) and a final model
fitted on all the data (its training loss, size and, for RiskSLIM, optimality gap), for
RiskSLIM (LCPA with a per-solve time limit) and PLR→RD, PLR→RsRD, PLR→UNIT, PooledRD,
PooledRD*, PooledSeqRD* (:mod:`riskexplore.risk_score.baselines`). The folds run as cells
of :func:`riskexplore.evaluation.grids.run_grid` (one cell per dataset x fold x
{RiskSLIM, baselines}; the six baselines of a fold share one PLR pool).

Prints one JSON object per line (``kind: "cell"`` per fitted model and fold, then
``kind: "row"`` per dataset and method), then a table with the paper's numbers beside
ours. Run from the repository root::

    python benchmarks/table3.py --datasets mammo --time-limit 30
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _common import banners_to_stderr, emit

DATASETS = ("mammo", "income")
METHODS = (
    "plr_rd",
    "plr_rsrd",
    "plr_unit",
    "pooled_rd",
    "pooled_rd_star",
    "pooled_seqrd_star",
    "riskslim",
)
NAMES = {
    "plr_rd": "PLR→RD",
    "plr_rsrd": "PLR→RsRD",
    "plr_unit": "PLR→UNIT",
    "pooled_rd": "PooledRD",
    "pooled_rd_star": "PooledRD*",
    "pooled_seqrd_star": "PooledSeqRD*",
    "riskslim": "RiskSLIM",
}
#: The paper's settings; binarize=False: the paper's encodings as given (breastcancer's
#: scores 1-10 and mammo's Density as points per unit), as in its Table 3.
SETTINGS = dict(
    max_size=5, coef_min=-5, coef_max=5, intercept_min=-100, intercept_max=100, c0=1e-6,
    binarize=False,
)  # fmt: skip

#: The paper's Table 3 (R <= 5): test CAL (%), test AUC, final loss, final size, gap (%).
PAPER = {
    "mammo": {
        "plr_rd": (10.5, 0.832, 0.526, 3, None),
        "plr_rsrd": (16.2, 0.846, 0.745, 5, None),
        "plr_unit": (8.5, 0.842, 0.484, 5, None),
        "pooled_rd": (10.9, 0.845, 0.503, 3, None),
        "pooled_rd_star": (7.1, 0.841, 0.480, 3, None),
        "pooled_seqrd_star": (7.4, 0.845, 0.480, 3, None),
        "riskslim": (5.0, 0.843, 0.469, 5, 0.0),
    },
    "income": {
        "plr_rd": (10.5, 0.787, 0.465, 2, None),
        "plr_rsrd": (19.5, 0.813, 0.777, 3, None),
        "plr_unit": (25.4, 0.814, 0.599, 5, None),
        "pooled_rd": (3.0, 0.845, 0.392, 5, None),
        "pooled_rd_star": (3.1, 0.854, 0.383, 5, None),
        "pooled_seqrd_star": (4.2, 0.832, 0.417, 4, None),
        "riskslim": (2.6, 0.854, 0.385, 5, 9.7),
    },
}


def fit_cell(cell: dict) -> dict:
    """Fit RiskSLIM or the six baselines on one fold (or on all data) and evaluate."""
    from riskexplore import fit_risk_score
    from riskexplore.datasets import load_dataset
    from riskexplore.evaluation.cv import fold_indices
    from riskexplore.evaluation.metrics import risk_score_metrics
    from riskexplore.risk_score import baselines as B

    data = load_dataset(cell["dataset"])
    X, y = data.X, np.asarray(data.y)
    if cell["fold"] == "all":
        train = test = np.arange(len(y))
    else:
        train, test = fold_indices(y, n_splits=cell["n_splits"], seed=cell["seed"])[cell["fold"]]
    Xtr, ytr, Xte, yte = X.iloc[train], y[train], X.iloc[test], y[test]
    rows = []

    def record(method: str, model, seconds: float) -> None:
        train_m = risk_score_metrics(model, Xtr, ytr)
        test_m = risk_score_metrics(model, Xte, yte)
        rows.append(
            {
                "method": method,
                "train_loss": train_m["loss"],
                "train_cal": train_m["cal"],
                "train_auc": train_m["auc"],
                "test_cal": test_m["cal"],
                "test_auc": test_m["auc"],
                "size": model.size,
                "status": model.certificate.status,
                "gap": model.certificate.gap,
                "time": seconds,
                "model": {"intercept": model.intercept, "points": model.points},
            }
        )

    if cell["group"] == "riskslim":
        start = time.perf_counter()
        with banners_to_stderr():
            model = fit_risk_score(Xtr, ytr, time_limit=cell["time_limit"], **SETTINGS)
        record("riskslim", model, time.perf_counter() - start)
        return {
            "rows": rows,
            "upper_bound": model.certificate.upper_bound,
            "lower_bound": model.certificate.lower_bound,
        }
    start = time.perf_counter()
    pool = B.plr_pool(Xtr, ytr, n_gammas=cell["n_gammas"], binarize=False)
    pool_time = time.perf_counter() - start
    for name, fn in B.BASELINES.items():
        extra = {"choose": cell["choose"]} if name.startswith("plr_") else {}
        t0 = time.perf_counter()
        model = fn(Xtr, ytr, pool=pool, **SETTINGS, **extra)
        record(name, model, time.perf_counter() - t0 + pool_time)
    return {"rows": rows, "pool_size": len(pool), "pool_time": pool_time}


def summarise(frame_rows: list[dict], n_splits: int) -> dict:
    """Table 3 numbers of one dataset and method from its per-fold and final rows."""
    folds = [r for r in frame_rows if r["fold"] != "all"]
    final = [r for r in frame_rows if r["fold"] == "all"]
    out = {
        "test_cal": float(np.mean([r["test_cal"] for r in folds])) if folds else math.nan,
        "test_auc": float(np.mean([r["test_auc"] for r in folds])) if folds else math.nan,
        "n_folds": len(folds),
    }
    if final:
        f = final[0]
        out.update(loss=f["train_loss"], size=f["size"], gap=f["gap"], status=f["status"])
        out["model"] = f["model"]
    out["complete"] = len(folds) == n_splits and bool(final)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["mammo"], choices=DATASETS)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per RiskSLIM solve")
    parser.add_argument("--backend", default="joblib", choices=("serial", "joblib", "dask"))
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--n-splits", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--n-gammas", type=int, default=20, help="penalties per alpha in the PLR pool (paper: 100)"
    )
    parser.add_argument(
        "--choose",
        default="cv_auc",
        choices=("cv_auc", "loss"),
        help="how PLR→RD/RsRD/UNIT pick their PLR model (paper: 5-fold CV AUC)",
    )
    args = parser.parse_args(argv)

    from riskexplore.evaluation.grids import run_grid

    cells = [
        {
            "dataset": d,
            "fold": fold,
            "group": group,
            "time_limit": args.time_limit,
            "n_gammas": args.n_gammas,
            "choose": args.choose,
            "n_splits": args.n_splits,
            "seed": args.seed,
        }
        for d in args.datasets
        for fold in [*range(args.n_splits), "all"]
        for group in ("riskslim", "baselines")
    ]

    def progress(event) -> None:
        c = event.last_cell
        print(
            f"[{event.done}/{event.total}] {c['dataset']} fold {c['fold']} {c['group']}: "
            f"{event.last_status} ({event.elapsed:.0f} s)",
            file=sys.stderr,
            flush=True,
        )

    result = run_grid(
        cells,
        fit_cell,
        backend=args.backend,
        n_jobs=args.n_jobs,
        listener=progress,
        time_limit_per_cell=20 * args.time_limit + 1800,
    )
    rows: list[dict] = []
    for c in result:
        if not c.ok:
            emit({"kind": "failed_cell", **{k: c.cell[k] for k in ("dataset", "fold", "group")},
                  "status": c.status, "error": c.error})  # fmt: skip
            continue
        for r in c.result["rows"]:
            row = {"kind": "cell", "dataset": c.cell["dataset"], "fold": c.cell["fold"], **r}
            rows.append(row)
            emit({k: v for k, v in row.items() if k != "model"})

    table = []
    for d in args.datasets:
        for m in METHODS:
            mine = [r for r in rows if r["dataset"] == d and r["method"] == m]
            ours = summarise(mine, args.n_splits)
            paper = PAPER[d][m]
            record = {"kind": "row", "dataset": d, "method": NAMES[m], **ours}
            record.update(
                paper_test_cal=paper[0] / 100,
                paper_test_auc=paper[1],
                paper_loss=paper[2],
                paper_size=paper[3],
                paper_gap=None if paper[4] is None else paper[4] / 100,
            )
            emit(record)
            table.append(record)

    def pct(v):
        return "—" if v is None or not math.isfinite(v) else f"{100 * v:.1f}%"

    def num(v, fmt=".3f"):
        return "—" if v is None or not math.isfinite(float(v)) else format(v, fmt)

    header = (
        f"{'dataset':<8} {'method':<13} {'test CAL':>17} {'test AUC':>15} {'loss':>15} "
        f"{'size':>7} {'gap':>15}"
    )
    lines = ["", "ours / paper (R <= 5, points -5..5, 5-fold CV)", header, "-" * len(header)]
    for r in table:
        gap = pct(r.get("gap")) if r["method"] == "RiskSLIM" else "—"
        lines.append(
            f"{r['dataset']:<8} {r['method']:<13} "
            f"{pct(r['test_cal']):>7} / {pct(r['paper_test_cal']):>7} "
            f"{num(r['test_auc']):>6} / {num(r['paper_test_auc']):>6} "
            f"{num(r.get('loss', math.nan)):>6} / {num(r['paper_loss']):>6} "
            f"{r.get('size', '—')!s:>2} / {r['paper_size']!s:>2} "
            f"{gap:>6} / {pct(r['paper_gap']):>6}"
        )
    print("\n".join(lines), flush=True)
    return 0 if not result.failed else 1


if __name__ == "__main__":
    sys.exit(main())
