"""Where a risk score's extra CPU goes on a Dask LocalCluster, beside threads (issue 35).

One fit of the risk score of ``scaling.py`` (adult's 110 items resampled to ``n`` rows with
noise; fixed scale, at most 5 items) in one mode per run:

* ``threads``: ``n_jobs=2``, no cluster;
* ``serial``: ``n_jobs=1``, no cluster;
* ``dask``: a LocalCluster of two worker processes, ``n_jobs=1`` in this process (the
  nodes one at a time, their support screens on the cluster);
* ``dask2``: the same cluster with ``n_jobs=2`` here (the nodes on two threads).

Every support screen is logged (its supports, its wall and this process's CPU time), and
on the cluster each worker's time is split (``worker_split``): the thread time of its
tasks, of the fits inside them (``_fit``, the compiled kernel) and its process's CPU time
since it started (imports and numba's loading included). Prints one JSON line::

    OPENBLAS_NUM_THREADS=1 python benchmarks/dask_overhead.py dask2 1000000
"""

from __future__ import annotations

import argparse
import resource
import time

from _common import banners_to_stderr, emit
from scaling import RISK_SETTINGS, resampled

import riskexplore.risk_score.scaled.search as scaled_search
from riskexplore.risk_score.fit import build_problem, solve_problem
from riskexplore.risk_score.support.screen import count_supports

MODES = {"threads": (2, False), "serial": (1, False), "dask": (1, True), "dask2": (2, True)}


def _count_worker_time() -> bool:
    """Run on each worker: wrap its screen tasks and fits to add up their thread time."""
    import riskexplore.risk_score.support.screen as screen

    stats = screen.__dict__.setdefault(
        "_OVERHEAD", {"tasks": 0, "task_thread": 0.0, "fit_thread": 0.0, "supports": 0}
    )
    datas = screen.__dict__.setdefault("_OVERHEAD_DATA", set())
    task_name = "_fit_stretches" if hasattr(screen, "_fit_stretches") else "_fit_stretch"  # main
    task_func, fit_func = getattr(screen, task_name), screen._fit

    def fit(*args, **kwargs):
        stats["supports"] += len(args[2])  # _fit(data, supports, sizes, ...)
        datas.add(id(args[0]))
        start = time.thread_time()
        try:
            return fit_func(*args, **kwargs)
        finally:
            stats["fit_thread"] += time.thread_time() - start

    def task(*args, **kwargs):
        start = time.thread_time()
        try:
            return task_func(*args, **kwargs)
        finally:
            stats["task_thread"] += time.thread_time() - start
            stats["tasks"] += 1

    setattr(screen, task_name, task)
    screen._fit = fit
    return True


def _worker_time() -> dict:
    """Run on each worker: its tasks' and fits' thread time and its process's CPU time."""
    import riskexplore.risk_score.support.screen as screen

    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats = {k: round(v, 2) for k, v in screen._OVERHEAD.items()}
    cpu = round(usage.ru_utime + usage.ru_stime, 2)
    return {**stats, "data_objects": len(screen._OVERHEAD_DATA), "process_cpu": cpu}


def run(mode: str, n: int, time_limit: float) -> dict:
    screens = []
    search_class = scaled_search._ScaledLCPA
    screen_nodes = search_class._screen_supports

    def logged(self, data, forced, free, k_min, k_max, *args):
        wall, cpu = time.perf_counter(), time.process_time()
        result = screen_nodes(self, data, forced, free, k_min, k_max, *args)
        supports = count_supports(len(forced), len(free), k_min, k_max)
        screens.append((supports, time.perf_counter() - wall, time.process_time() - cpu))
        return result

    search_class._screen_supports = logged
    X, y, _ = resampled(n, 0.001)
    problem = build_problem(X, y, **RISK_SETTINGS)
    n_jobs, on_cluster = MODES[mode]
    client = cluster = None
    if on_cluster:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        )
        client = Client(cluster)
        client.run(_count_worker_time)
    wall, cpu = time.perf_counter(), time.process_time()
    with banners_to_stderr():
        model = solve_problem(problem, time_limit=time_limit, n_jobs=n_jobs, client=client)
    record = {
        "kind": "dask_overhead",
        "mode": mode,
        "n": n,
        "status": model.certificate.status,
        "objective": model.certificate.upper_bound,
        "wall": round(time.perf_counter() - wall, 1),
        "cpu": round(time.process_time() - cpu, 1),
        "screens": len(screens),
        "supports": sum(s[0] for s in screens),
        "screen_wall": round(sum(s[1] for s in screens), 1),
        "screen_cpu": round(sum(s[2] for s in screens), 1),
    }
    if client is not None:
        record["worker_split"] = list(client.run(_worker_time).values())
        client.close()
        cluster.close()
    return record


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=list(MODES))
    parser.add_argument("n", type=int)
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args(argv)
    emit(run(args.mode, args.n, args.time_limit))


if __name__ == "__main__":
    main()
