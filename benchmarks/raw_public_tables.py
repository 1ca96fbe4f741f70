"""Raw patient tables the project has never seen, through the command line, beside FasterRisk
(issue 32).

Three public survival tables become raw CSV files with a binary outcome (rows censored before
the horizon removed, the time and status columns dropped):

- ``gbsg2``: German Breast Cancer Study Group 2 (686 rows; scikit-survival's
  ``load_gbsg2``): recurrence or death within 5 years; ``horTh`` yes/no, ``menostat``
  Pre/Post, ``tgrade`` I/II/III, five numeric columns.
- ``flchain``: serum free light chains, Olmsted County (7,874 rows; scikit-survival's
  ``load_flchain``): death within 5 years; ``creatinine`` missing in 1,350 rows;
  ``chapter`` (the cause of death) is dropped, it would leak the outcome.
- ``lung``: NCCTG advanced lung cancer (228 rows; the ``lung.csv`` shipped in lifelines):
  death within 1 year; missing values in five columns; ``inst`` (the institution's code)
  is dropped and ``sex`` written as male/female.

Each table, and the bundled ``heart`` and ``adult_raw`` (raw columns), is fitted in both
scales with exactly ``riskexplore fit FILE --target COL --max-size 5 --time-limit 300``
(default settings; ``--json`` to read the result; ``--scale learned`` for the learned scale)
in a subprocess. One JSON object per line: rows, columns, items, time, status, gap, lower bound,
loss, the most items of one column in the score, the "per unit" lines of the card,
whether ``predict_proba`` is finite on every raw row, and FasterRisk on the same items.

FasterRisk (0.1.10) runs with ``k = 5``, points in -5..5 and its group sparsity
(``group_sparsity = 5`` with the items' source columns as groups). Its group sparsity
bounds the number of columns, not the items of a column, so the model reported is the
best-loss model of its pool with at most one item per column (``loss`` is None when no
model of the pool obeys the rule), beside its best model overall (``top_...``, with the
most items it takes of one column). Its loss is evaluated here, on the same items:
``mean log(1 + exp(-y (b0 + x.b) / m))`` with its multiplier ``m`` (the class of the learned
scale; a fixed-scale score has ``m = 1``, a smaller class).

FasterRisk pins numpy 1.26, pandas 1.5 and scikit-learn 1.2, and lifelines needs pandas < 3:
neither can share the package's environment, so both live in a virtual environment of their
own, made on first use (``~/.cache/riskexplore-bench/fasterrisk-venv``, as
``benchmarks/scaled.py``; ``--side-python`` to give another). scikit-survival installs in
the package's environment (``pip install -e .[bench]``)::

    nice python benchmarks/raw_public_tables.py > benchmarks/results/issue32_raw_public.jsonl
    python benchmarks/raw_public_tables.py --tables gbsg2 lung --no-fasterrisk --out /tmp/raw
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import emit

from riskexplore import RiskScore
from riskexplore.data.tables import read_csv_table
from riskexplore.datasets import load_dataset
from riskexplore.risk_score.raw_table import item_frame

ROOT = Path(__file__).resolve().parents[1]
SIDE_VENV = Path.home() / ".cache" / "riskexplore-bench" / "fasterrisk-venv"
SIDE_PACKAGES = ("fasterrisk==0.1.10", "lifelines")
DAY_YEAR = 365.25
FIT = ("--max-size", "5", "--time-limit", "300")
PUBLIC = ("gbsg2", "flchain", "lung")
BUNDLED = ("heart", "adult_raw")

#: Run in the side environment: FasterRisk on the items of an .npz, its whole pool.
_FASTERRISK_WORKER = """
import json, sys, time
import numpy as np
from fasterrisk.fasterrisk import RiskScoreOptimizer
data = np.load(sys.argv[1])
X, y, groups = data["X"].astype(float), data["y"].astype(float), data["groups"].astype(np.int_)
start = time.perf_counter()
optimizer = RiskScoreOptimizer(X=X, y=y, k=5, lb=-5, ub=5, group_sparsity=5,
                               featureIndex_to_groupIndex=groups)
optimizer.optimize()
seconds = time.perf_counter() - start
multipliers, intercepts, points = optimizer.get_models()
print(json.dumps({"time": seconds, "multipliers": multipliers.tolist(),
                  "intercepts": intercepts.tolist(), "points": points.tolist()}))
"""


def side_python(given: str | None) -> str:
    """The interpreter of the side environment (FasterRisk, lifelines), made on first use."""
    if given:
        return given
    python = SIDE_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {SIDE_VENV} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(SIDE_VENV)], check=True)
    has = (
        "import importlib.util as u; assert u.find_spec('fasterrisk') and u.find_spec('lifelines')"
    )
    if subprocess.run([str(python), "-c", has], capture_output=True).returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *SIDE_PACKAGES],
            check=True,
            stdout=sys.stderr,
        )
    return str(python)


# --- the tables --------------------------------------------------------------------------
def within(time_days: np.ndarray, event: np.ndarray, horizon: float) -> pd.Series:
    """1 for an event by the horizon, 0 for follow-up past it, NA when censored before it."""
    out = pd.Series(np.where(time_days > horizon, 0, np.where(event, 1, -1)))
    return out.where(out >= 0).astype("Int64")


def _with_outcome(X: pd.DataFrame, outcome: pd.Series, name: str) -> pd.DataFrame:
    frame = X.reset_index(drop=True).copy()
    frame[name] = outcome.to_numpy()
    return frame[frame[name].notna()].astype({name: int})


def gbsg2() -> tuple[pd.DataFrame, str]:
    """GBSG2: recurrence or death within 5 years."""
    from sksurv.datasets import load_gbsg2

    X, y = load_gbsg2()
    X = X.astype({c: str for c in ("horTh", "menostat", "tgrade")})
    outcome = within(y["time"], y["cens"], 5 * DAY_YEAR)
    return _with_outcome(X, outcome, "recurrence_5y"), "recurrence_5y"


def flchain() -> tuple[pd.DataFrame, str]:
    """flchain: death within 5 years; ``chapter`` (cause of death) dropped."""
    from sksurv.datasets import load_flchain

    X, y = load_flchain()
    X = X.drop(columns="chapter").astype({"sex": str, "mgus": str})
    X = X.astype({"flc.grp": int, "sample.yr": int})  # ordinal codes, written as numbers
    outcome = within(y["futime"], y["death"], 5 * DAY_YEAR)
    return _with_outcome(X, outcome, "death_5y"), "death_5y"


def lung(python: str) -> tuple[pd.DataFrame, str]:
    """NCCTG lung: death within 1 year (lifelines' ``lung.csv``, status 1 = dead)."""
    where = subprocess.run(
        [python, "-c", "import importlib.util as u; "
         "print(u.find_spec('lifelines').submodule_search_locations[0])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    raw = pd.read_csv(Path(where) / "datasets" / "lung.csv")
    X = raw.drop(columns=["inst", "time", "status"])
    X["sex"] = X["sex"].map({1: "male", 2: "female"})
    outcome = within(raw["time"].to_numpy(), raw["status"].to_numpy() == 1, DAY_YEAR)
    return _with_outcome(X, outcome, "death_1y"), "death_1y"


def write_tables(names, out: Path, python: str | None) -> dict[str, tuple[Path, str]]:
    """The public tables as CSV files in ``out``: name -> (path, outcome column)."""
    makers = {"gbsg2": gbsg2, "flchain": flchain, "lung": lambda: lung(python)}
    written = {}
    for name in names:
        frame, target = makers[name]()
        path = out / f"{name}.csv"
        frame.to_csv(path, index=False)
        written[name] = (path, target)
    return written


# --- our fit, through the command line ------------------------------------------------------
def fit(data: str, target: str | None, scale: str) -> tuple[dict, float, list[str]]:
    """``riskexplore fit DATA [--target COL] --max-size 5 --time-limit 300 --json``."""
    argv = [sys.executable, "-m", "riskexplore", "fit", data, *FIT, "--json"]
    if target is not None:
        argv[5:5] = ["--target", target]
    if scale != "fixed":
        argv += ["--scale", scale]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr[-2000:]}")
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    return json.loads(proc.stdout), wall, warnings


def raw_rows(data: str, target: str | None) -> tuple[pd.DataFrame, np.ndarray]:
    """The raw rows and the outcome, as the command reads them."""
    if Path(data).is_file():
        frame = read_csv_table(Path(data), data)
        return frame.drop(columns=target), frame[target].to_numpy()
    dataset = load_dataset(data)
    return dataset.X, dataset.y.to_numpy()


def log_loss(risk: np.ndarray, y: np.ndarray) -> float:
    """Mean logistic loss of the risks (the risk scores' loss)."""
    risk = np.clip(risk, 1e-300, 1 - 1e-16)
    return float(-np.mean(np.where(y > 0, np.log(risk), np.log1p(-risk))))


def ours(report: dict, X: pd.DataFrame, y: np.ndarray) -> tuple[dict, RiskScore]:
    """What the command's model does on the raw rows."""
    model = RiskScore.from_dict(report["model"])
    groups = model.binarizer.item_groups_
    used = [name for name, points in model.points.items() if points]
    per_column = pd.Series([groups.get(name, name) for name in used]).value_counts()
    risk = model.predict_proba(X)[:, 1]
    return {
        "items": len(model.binarizer.items_),
        "status": report["status"],
        "certified": report["status"] == "optimal",
        "gap": report["gap"],
        "lower_bound": report["lower_bound"],
        "objective": report["objective"],
        "loss": report["loss"],
        "loss_raw_rows": log_loss(risk, y),
        "multiplier": report["multiplier"],
        "solve_time": report["time"],
        "nodes": report["nodes"],
        "most_items_of_a_column": int(per_column.max()) if len(used) else 0,
        "per_unit_lines": model.to_text().count("per unit"),
        "predict_proba_finite": bool(np.isfinite(risk).all()) and len(risk) == len(X),
        "score": {name: model.points[name] for name in used},
        "intercept": report["intercept"],
    }, model


# --- FasterRisk on the same items ------------------------------------------------------------
def fasterrisk(model: RiskScore, X: pd.DataFrame, y: np.ndarray, python: str) -> dict:
    """FasterRisk's best pool model with at most one item per column, its loss by us."""
    items = item_frame(model.binarizer, X)
    columns = [model.binarizer.item_groups_.get(c, c) for c in items.columns]
    codes = {c: k for k, c in enumerate(dict.fromkeys(columns))}
    groups = np.array([codes[c] for c in columns], dtype=np.int64)
    Z = items.to_numpy(dtype=float)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "items.npz")
        np.savez(path, X=Z, y=np.where(y > 0, 1.0, -1.0), groups=groups)
        out = subprocess.run(
            [python, "-c", _FASTERRISK_WORKER, path], check=True, capture_output=True, text=True
        )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    pool = []
    for m, b0, b in zip(found["multipliers"], found["intercepts"], found["points"], strict=True):
        b = np.asarray(b)
        used = np.flatnonzero(b)
        obeys = len(set(groups[used])) == len(used)
        risk = 1 / (1 + np.exp(-(b0 + Z @ b) / m))
        pool.append((log_loss(risk, y), obeys, m, b0, b))
    best = min((p for p in pool if p[1]), default=None, key=lambda p: p[0])
    top = min(pool, key=lambda p: p[0])

    def described(model: tuple, prefix: str = "") -> dict:
        loss, obeys, m, b0, b = model
        used = np.flatnonzero(b)
        return {
            f"{prefix}loss": loss,
            f"{prefix}multiplier": m,
            f"{prefix}intercept": b0,
            f"{prefix}most_items_of_a_column": int(np.bincount(groups[used]).max())
            if len(used)
            else 0,
            f"{prefix}score": {items.columns[j]: int(b[j]) for j in used},
        }

    record = {"time": found["time"], "pool": len(pool), "top_obeys_rule": top[1]}
    record.update(described(top, "top_"))
    return {**record, **(described(best) if best is not None else {"loss": None})}


def run(name: str, data: str, target: str | None, scale: str, python: str | None) -> dict:
    report, wall, warnings = fit(data, target, scale)
    X, y = raw_rows(data, target)
    mine, model = ours(report, X, y)
    record = {
        "table": name,
        "scale": scale,
        "rows": int(len(X)),
        "columns": int(X.shape[1]),
        "positives": float(np.mean(y > 0)),
        "wall": round(wall, 2),
        **mine,
        "warnings": warnings,
    }
    if python is not None:
        theirs = fasterrisk(model, X, y, python)
        record["fasterrisk"] = theirs
        # FasterRisk's class is the learned scale's: the fixed scale (m = 1) is a smaller one
        record["same_class_as_fasterrisk"] = scale == "learned"
        if theirs["loss"] is not None:
            record["loss_no_worse_than_fasterrisk"] = mine["loss_raw_rows"] <= theirs["loss"] + 1e-9
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", nargs="+", default=[*BUNDLED, *PUBLIC])
    parser.add_argument("--out", type=Path, help="folder for the CSV files (default: temporary)")
    parser.add_argument("--side-python", help="interpreter with fasterrisk and lifelines")
    parser.add_argument("--no-fasterrisk", action="store_true")
    args = parser.parse_args()
    needs_side = not args.no_fasterrisk or "lung" in args.tables
    python = side_python(args.side_python) if needs_side else None
    out = args.out or Path(tempfile.mkdtemp(prefix="raw_public_"))
    out.mkdir(parents=True, exist_ok=True)
    public = write_tables([t for t in args.tables if t in PUBLIC], out, python)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    for name in args.tables:
        data, target = (str(public[name][0]), public[name][1]) if name in public else (name, None)
        for scale in ("fixed", "learned"):
            record = run(name, data, target, scale, None if args.no_fasterrisk else python)
            emit({"commit": commit, **record})


if __name__ == "__main__":
    main()
