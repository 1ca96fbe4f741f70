"""Cost of watching a solve: mammo with and without the SolveMonitor attached.

Modes, run alternately ``--repeats`` times each:

* ``bare``: ``fit_risk_score`` with no listener;
* ``monitor``: the same solve started by a ``SolveMonitor`` whose refresh loop runs as an
  asyncio task (as on a kernel's loop), redrawing its PlotView every
  ``--refresh`` seconds.

Prints one JSON object per line: one per run (solver time, wall time, nodes, cuts, events,
refreshes) and a summary with the overhead of the median solve time and of the median time
per node (target < 10%). Run from the repository root::

    python benchmarks/monitor_overhead.py --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from _common import emit

#: binarize=False: the table as given (points per unit), as in the recorded runs.
SETTINGS = dict(max_size=5, coef_min=-5, coef_max=5, c0=1e-6, binarize=False)


def run_bare(data, time_limit: float) -> dict:
    from riskexplore import fit_risk_score

    start = time.perf_counter()
    model = fit_risk_score(data.X, data.y, time_limit=time_limit, **SETTINGS)
    wall = time.perf_counter() - start
    return _record("bare", model, wall, events=0, refreshes=0)


def run_monitor(data, time_limit: float, refresh: float) -> dict:
    from riskexplore.widgets.monitor import SolveMonitor

    monitor = SolveMonitor.for_data(
        "risk_score",
        data.X,
        data.y,
        time_limit=time_limit,
        monitor_kw={"refresh_interval": refresh},
        **SETTINGS,
    )

    async def main() -> float:
        start = time.perf_counter()
        monitor.start()
        while monitor.running:
            await asyncio.sleep(0.05)
        return time.perf_counter() - start

    wall = asyncio.run(main())
    if monitor.error is not None:
        raise monitor.error
    record = _record(
        "monitor",
        monitor.model,
        wall,
        events=len(monitor.series),
        refreshes=monitor.n_refreshes,
    )
    record["first_point_s"] = monitor.first_point_latency
    record["points_shown"] = len(monitor.figure.sent_figure().data[0].x)
    record["figure_messages"] = monitor.figure.messages_sent
    record["last_message_bytes"] = len(monitor.figure._spec)
    return record


def _record(mode: str, model, wall: float, events: int, refreshes: int) -> dict:
    stats = model.stats
    return {
        "kind": "run",
        "mode": mode,
        "status": model.certificate.status,
        "objective": stats.get("objective"),
        "solve_time": stats.get("time"),
        "wall_time": wall,
        "nodes": stats.get("nodes"),
        "cuts": stats.get("cuts"),
        "time_per_node_ms": 1e3 * stats["time"] / max(stats.get("nodes") or 1, 1),
        "events": events,
        "refreshes": refreshes,
        "refresh_rate_hz": refreshes / wall if wall > 0 else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="mammo")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--refresh", type=float, default=0.3, help="seconds between redraws")
    args = parser.parse_args()

    from riskexplore.datasets import load_dataset

    data = load_dataset(args.dataset)
    start = time.perf_counter()
    import riskexplore.widgets.plot_view  # noqa: F401 -- pay the one-off import before timing

    emit({"kind": "setup", "plot_view_import_s": time.perf_counter() - start})

    runs: dict[str, list[dict]] = {"bare": [], "monitor": []}
    for rep in range(args.repeats):
        for mode in ("bare", "monitor") if rep % 2 == 0 else ("monitor", "bare"):
            if mode == "bare":
                record = run_bare(data, args.time_limit)
            else:
                record = run_monitor(data, args.time_limit, args.refresh)
            record.update(dataset=args.dataset, repeat=rep)
            emit(record)
            runs[mode].append(record)

    def median(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[mode])

    summary = {"kind": "summary", "dataset": args.dataset, "repeats": args.repeats}
    for key in ("solve_time", "wall_time", "time_per_node_ms"):
        bare, mon = median("bare", key), median("monitor", key)
        summary[f"bare_{key}"] = bare
        summary[f"monitor_{key}"] = mon
        summary[f"overhead_{key}_pct"] = 100.0 * (mon - bare) / bare
    summary["target_pct"] = 10.0
    summary["refresh_rate_hz"] = median("monitor", "refresh_rate_hz")
    summary["first_point_s"] = median("monitor", "first_point_s")
    emit(summary)


if __name__ == "__main__":
    main()
