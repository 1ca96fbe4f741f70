"""Both families on 10^4 to 10^6 rows: one core, every core, and a Dask LocalCluster.

The table is adult's 111 binary items (``adult_raw``, train and test, binarized by
quintile thresholds and one-hot categories as in ``scaled.py``: 48,842 rows) resampled
to ``n`` rows with replacement, **with noise**: every item of every resampled row is
flipped (0 <-> 1) with probability ``--noise`` (default 0.001, so about 10% of the rows
change in one item), so the number of distinct rows grows with ``n``. The labels are
resampled with their rows, never flipped. Seeded: the same ``n`` gives the same table.

Per table size, each family is fitted in three modes: ``n_jobs=1``, ``n_jobs=2``, and a
``LocalCluster`` of two worker processes (``processes=True, threads_per_worker=1``, and
the library's default ``n_jobs=None`` in this process: the risk score's nodes on every core
here, their support screens on the cluster; with ``n_jobs=1`` here, as until 7 December,
the nodes ran one at a time and the screens were larger: 1.8x the supports at 10^6).
Every fit runs in a process of its own, so that its peak memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``) is its own; with the cluster, each worker's
peak is read with ``client.run`` after the fit.

* risk score: fixed scale, at most 5 items, points -5..5, intercept -100..100,
  c0 = 1e-6 (``fit_risk_score`` on the 0/1 table, so no binarizer);
* checklist: at most 5 items, one item per source column (``fit_checklist`` with
  ``binarize=None`` and the binarizer's item groups).

Records (JSON lines on stdout): ``kind: "scaling"`` per fit: ``family, n, mode,
distinct_rows`` (rows after merging equal ones), ``status, objective, lower_bound, gap``,
``time_table`` (resampling), ``time_build`` (validation and merging, risk score only),
``time`` (the fit's wall time, build included), ``time_to_certificate``, ``cpu`` (this
process's CPU seconds; ``cpu_workers`` adds the workers'), ``peak_rss_mb`` (this
process), ``worker_peak_rss_mb`` (each worker), ``load_before/after`` (load average),
``model``. Then ``kind: "scaling_same"`` per family and ``n``: whether every mode found
the same model. Run from the repository root::

    OPENBLAS_NUM_THREADS=1 python benchmarks/scaling.py --rows 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import banners_to_stderr, emit

from riskexplore import Binarizer, fit_checklist
from riskexplore.core.distinct_rows import distinct_rows
from riskexplore.datasets import load_dataset
from riskexplore.risk_score.fit import build_problem, solve_problem

FAMILIES = ("risk_score", "checklist")
MODES = ("n_jobs=1", "n_jobs=2", "dask")
RISK_SETTINGS = dict(
    max_size=5, coef_min=-5, coef_max=5, intercept_min=-100, intercept_max=100, c0=1e-6
)


def adult_items() -> tuple[pd.DataFrame, np.ndarray, dict]:
    """The 111 binary items of adult (48,842 rows), the labels, the items' groups."""
    data = load_dataset("adult_raw", split="all")
    binarizer = Binarizer(complements=False).fit(data.X)
    items = binarizer.transform(data.X).astype(np.uint8)
    return items, np.asarray(data.y).astype(np.uint8), dict(binarizer.item_groups_)


def resampled(n: int, noise: float, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, dict]:
    """``n`` rows drawn with replacement, each item flipped with probability ``noise``."""
    items, y, groups = adult_items()
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(y), size=n)
    X = items.to_numpy()[rows]
    for j in range(X.shape[1]):  # column by column: no n x d float mask in memory
        X[rng.random(n) < noise, j] ^= 1
    return pd.DataFrame(X, columns=items.columns), y[rows], groups


def _peak_mb() -> float:
    """This process's peak resident memory so far (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _workers_usage() -> dict:
    """Run on each worker: its peak memory (MiB) and CPU seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"peak_mb": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime}


def _fit(family: str, X, y, groups, n_jobs: int, client, time_limit: float) -> tuple:
    """One fit: (status, objective, lower bound, gap, distinct rows, build time, model)."""
    if family == "risk_score":
        t0 = time.perf_counter()
        problem = build_problem(X, y, **RISK_SETTINGS)
        build = time.perf_counter() - t0
        model = solve_problem(problem, time_limit=time_limit, n_jobs=n_jobs, client=client)
        cert = model.certificate
        described = {"intercept": model.intercept, "points": model.points}
        distinct = int(problem.loss.n_rows)
        return cert.status, cert.upper_bound, cert.lower_bound, cert.gap, distinct, build, described
    model = fit_checklist(
        X, y, binarize=None, item_groups=groups, max_items=5, time_limit=time_limit,
        n_jobs=n_jobs, client=client,
    )  # fmt: skip
    cert = model.certificate
    described = {"items": list(model.items), "M": int(model.M)}
    return cert.status, cert.upper_bound, cert.lower_bound, cert.gap, None, None, described


def one(family: str, n: int, mode: str, noise: float, time_limit: float) -> dict:
    """Fit ``family`` on ``n`` resampled rows in ``mode``, in this process."""
    t0 = time.perf_counter()
    X, y, groups = resampled(n, noise)
    time_table = time.perf_counter() - t0
    client = cluster = None
    if mode == "dask":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        )
        client = Client(cluster)
    n_jobs = {"n_jobs=1": 1, "n_jobs=2": 2, "dask": None}[mode]
    load, cpu, wall = os.getloadavg()[0], time.process_time(), time.perf_counter()
    workers_before = client.run(_workers_usage) if client is not None else {}
    with banners_to_stderr():
        status, objective, lower, gap, distinct, build, model = _fit(
            family, X, y, groups, n_jobs, client, time_limit
        )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if distinct is None:  # a checklist: its (pattern, label) rows, counted after the fit
        distinct = len(distinct_rows(np.column_stack([X.to_numpy(), y]))[0])
    record = {
        "kind": "scaling", "family": family, "n": n, "d": int(X.shape[1]), "mode": mode,
        "noise": noise, "distinct_rows": distinct, "status": status, "objective": objective,
        "lower_bound": lower, "gap": gap, "time_table": time_table, "time_build": build,
        "time": wall, "time_to_certificate": wall if status == "optimal" else None,
        "time_limit": time_limit, "cpu": cpu, "peak_rss_mb": _peak_mb(),
        "load_before": load, "load_after": os.getloadavg()[0], "model": model,
    }  # fmt: skip
    if client is not None:
        after = client.run(_workers_usage)
        record["worker_peak_rss_mb"] = [after[w]["peak_mb"] for w in sorted(after)]
        record["cpu_workers"] = cpu + sum(
            after[w]["cpu"] - workers_before.get(w, {"cpu": 0.0})["cpu"] for w in after
        )
        client.close()
        cluster.close()
    return record


def small_tables() -> list[dict]:
    """The bundled small tables in this process (``--small``, for the tree on
    ``PYTHONPATH`` against another): merge time and fit, one worker."""
    records = []
    for name in ("mammo", "breastcancer", "income"):
        data = load_dataset(name)
        t0, cpu = time.perf_counter(), time.process_time()
        problem = build_problem(data.X, data.y, **RISK_SETTINGS)
        build = time.perf_counter() - t0
        with banners_to_stderr():
            model = solve_problem(problem, time_limit=300.0, n_jobs=1)
        records.append({
            "kind": "scaling_small", "family": "risk_score", "dataset": name,
            "time_build": build, "time": time.perf_counter() - t0,
            "cpu": time.process_time() - cpu, "status": model.certificate.status,
            "objective": model.certificate.upper_bound, "distinct_rows": problem.loss.n_rows,
        })  # fmt: skip
    X, y, groups = adult_items()
    t0 = time.perf_counter()
    problem = build_problem(X, y, **RISK_SETTINGS)
    records.append({
        "kind": "scaling_small", "family": "risk_score", "dataset": "adult (111 items)",
        "time_build": time.perf_counter() - t0, "distinct_rows": problem.loss.n_rows,
    })  # fmt: skip
    data = load_dataset("heart")
    t0, cpu = time.perf_counter(), time.process_time()
    with banners_to_stderr():
        model = fit_checklist(data.X, data.y, max_items=5, time_limit=300.0, n_jobs=1)
    records.append({
        "kind": "scaling_small", "family": "checklist", "dataset": "heart",
        "time": time.perf_counter() - t0, "cpu": time.process_time() - cpu,
        "status": model.certificate.status, "objective": model.certificate.upper_bound,
    })  # fmt: skip
    return records


def run_case(family: str, n: int, mode: str, noise: float, time_limit: float) -> dict:
    """:func:`one` in a new process (its own peak memory), its record."""
    command = [
        sys.executable, str(Path(__file__).resolve()), "--one", family, str(n), mode,
        "--noise", str(noise), "--time-limit", str(time_limit),
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = out.stderr.strip().splitlines()[-5:]
        return {"kind": "scaling", "family": family, "n": n, "mode": mode, "error": tail}
    return json.loads(lines[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="*", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--families", nargs="*", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=MODES)
    parser.add_argument("--noise", type=float, default=0.001)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--one", nargs=3, metavar=("FAMILY", "N", "MODE"))
    parser.add_argument("--small", action="store_true", help="only the bundled small tables")
    args = parser.parse_args(argv)
    if args.small:
        for record in small_tables():
            emit({**record, "load": os.getloadavg()[0]})
        return 0
    if args.one:
        family, n, mode = args.one
        emit(one(family, int(n), mode, args.noise, args.time_limit))
        return 0
    for family in args.families:
        for n in args.rows:
            records = [run_case(family, n, m, args.noise, args.time_limit) for m in args.modes]
            for record in records:
                emit(record)
            models = [r.get("model") for r in records]
            emit({
                "kind": "scaling_same", "family": family, "n": n, "modes": args.modes,
                "same_model": all(m == models[0] for m in models) and models[0] is not None,
                "same_status": len({r.get("status") for r in records}) == 1,
            })  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
