"""Certified survival scores on public survival tables, through the command line, beside
scikit-survival's penalised Cox model rounded to integers (issue 36).

Tables (scikit-survival's loaders; licences in the design note: none is bundled):

- ``whas500``: Worcester Heart Attack Study (500 rows, 215 deaths; days): death within a
  year (``--horizon 365``);
- ``gbsg2``: German Breast Cancer Study Group 2 (686 rows, 299 events; days): recurrence
  or death within five years (``--horizon 1826``);
- ``flchain``: serum free light chains (7,874 rows, 2,169 deaths; days): death within five
  years; ``chapter`` (the cause of death: it leaks the outcome) and ``sample.yr`` dropped;
- ``aids``: ACTG 320 (1,151 rows, 96 events, 8%; days): AIDS or death within 300 days
  (follow-up ends at 364 days).

Each raw table is written to a CSV file and fitted with exactly ``riskexplore fit FILE
--time T --event E --horizon H --max-size 5 --time-limit 300 --json`` (a subprocess; default
binarization, one item per variable, ``c0`` as given). One JSON object per line: rows,
events, items, wall time, status, gap, nodes, the points, Harrell's C of the total score,
and calibration at the horizon (per total score: predicted risk against ``1 - KM(h)``; the
overall observed/expected ratio and the largest gap between them in groups of at least 20
patients). Beside it, scikit-survival's ``CoxPHSurvivalAnalysis(alpha=0.01,
ties="breslow")`` on the same items, its five largest coefficients (at most one item per
variable) rounded to integers (the usual heuristic): their objective (the same Cox loss plus
``c0`` per item), C, and the C of the continuous penalised model::

    nice python benchmarks/survival_scores.py > benchmarks/results/issue36_survival.jsonl
    python benchmarks/survival_scores.py --tables gbsg2 --time-limit 60
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import emit

from riskexplore import SurvivalScore
from riskexplore.data.tables import read_csv_table
from riskexplore.evaluation.survival.calibration import survival_calibration
from riskexplore.evaluation.survival.concordance import harrell_c
from riskexplore.evaluation.survival.product_limit import kaplan_meier
from riskexplore.risk_score.raw_table import item_frame
from riskexplore.risk_score.survival import CoxLoss

#: table -> (loader, time column, event column, horizon in days, columns dropped)
TABLES = {
    "whas500": ("load_whas500", "lenfol", "fstat", 365.0, ()),
    "gbsg2": ("load_gbsg2", "time", "cens", 1826.0, ()),
    "flchain": ("load_flchain", "futime", "death", 1826.0, ("chapter", "sample.yr")),
    "aids": ("load_aids", "time", "censor", 300.0, ()),  # follow-up ends at 364 days
}
MAX_SIZE = 5
#: Least patients of a score group whose calibration gap is reported.
MIN_GROUP = 20


def load(table: str) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, float]:
    """The raw table (categories as text), times, events and horizon."""
    from sksurv import datasets

    loader, time_col, event_col, horizon, dropped = TABLES[table]
    X, y = getattr(datasets, loader)()
    X = X.drop(columns=list(dropped))
    X = pd.DataFrame(
        {c: X[c].astype(str) if str(X[c].dtype) == "category" else X[c] for c in X.columns}
    )
    names = y.dtype.names
    event = np.asarray(y[names[0]], dtype=bool)
    time_ = np.asarray(y[names[1]], dtype=float)
    assert {names[0], names[1]} == {time_col, event_col}
    return X, time_, event, horizon


def fit_by_cli(X, time_, event, horizon, args, folder: Path) -> tuple[dict, float, pd.DataFrame]:
    """The ``--json`` report of ``riskexplore fit`` on the table, the wall time, and the
    features as the command read them (a category coded 0/1 reads back as a number)."""
    frame = X.assign(_time=time_, _event=event.astype(int))
    path = folder / "table.csv"
    frame.to_csv(path, index=False)
    command = [
        sys.executable, "-m", "riskexplore", "fit", str(path), "--time", "_time",
        "--event", "_event", "--horizon", f"{horizon:g}", "--max-size", str(MAX_SIZE),
        "--time-limit", str(args.time_limit), "--c0", str(args.c0), "--json",
    ]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    read = read_csv_table(path).drop(columns=["_time", "_event"])
    return json.loads(done.stdout), wall, read


def calibration(score, risk, time_, event, horizon) -> dict:
    """Observed/expected events by the horizon, and the largest gap of a score group."""
    table = survival_calibration(score, risk, time_, event, horizon)
    big = table[table["patients"] >= MIN_GROUP]
    gap = (big["observed_risk"] - big["predicted_risk"]).abs()
    observed = 1.0 - float(kaplan_meier(time_, event).survival_at(horizon))
    return {
        "observed_expected": observed / float(np.mean(risk)),
        "largest_gap": float(gap.max()) if len(gap) else None,
        "groups": table.round(4).to_dict("records"),
    }


def rounded_cox(items: pd.DataFrame, columns, time_, event, c0: float) -> dict:
    """scikit-survival's penalised Cox on the items, five largest coefficients rounded."""
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    y = Surv.from_arrays(event, time_)
    cox = CoxPHSurvivalAnalysis(alpha=0.01, ties="breslow").fit(items.to_numpy(float), y)
    coef = cox.coef_
    chosen, seen = [], set()
    for j in np.argsort(-np.abs(coef), kind="stable"):  # at most one item per variable
        if columns[j] not in seen and len(chosen) < MAX_SIZE:
            chosen.append(j)
            seen.add(columns[j])
    points = np.zeros(len(coef))
    points[chosen] = np.round(coef[chosen])
    loss = CoxLoss.from_data(items.to_numpy(float), time_, event)
    value = loss.value(np.r_[0.0, points])
    score = items.to_numpy(float) @ points
    return {
        "cox_objective": value + c0 * np.count_nonzero(points),
        "cox_points": {items.columns[j]: int(points[j]) for j in chosen if points[j]},
        "cox_c": harrell_c(time_, event, score).estimate,
        "cox_continuous_c": harrell_c(time_, event, items.to_numpy(float) @ coef).estimate,
    }


def run_table(table: str, args, folder: Path) -> dict:
    X, time_, event, horizon = load(table)
    report, wall, X = fit_by_cli(X, time_, event, horizon, args, folder)
    model = SurvivalScore.from_dict(report["model"])
    score = np.asarray(model.total_points(X), dtype=float)
    risk = model.predict_risk(X)
    items = item_frame(model.binarizer, X)
    source = {item.name: item.column for item in model.binarizer.items_}
    columns = [source.get(c, c) for c in items.columns]
    return {
        "table": table,
        "rows": len(X),
        "events": int(event.sum()),
        "items": items.shape[1],
        "horizon": horizon,
        "wall_s": round(wall, 1),
        "solve_s": report["time"],
        "status": report["status"],
        "gap": report["gap"],
        "nodes": report["nodes"],
        "fixing_s": model.stats.get("solver", {}).get("fixing_time"),
        "fixed_items": model.stats.get("solver", {}).get("fixed_features"),
        "objective": report["objective"],
        "points": report["points"],
        "c": harrell_c(time_, event, score).estimate,
        "calibration": calibration(score, risk, time_, event, horizon),
        **rounded_cox(items, columns, time_, event, args.c0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", choices=sorted(TABLES), default=list(TABLES))
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--c0", type=float, default=0.005)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for table in args.tables:
            emit(run_table(table, args, Path(folder)))


if __name__ == "__main__":
    main()
