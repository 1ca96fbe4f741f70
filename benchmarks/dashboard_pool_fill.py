"""How long a dashboard server takes to fill its pool of ready kernels, and their CPU.

    OPENBLAS_NUM_THREADS=1 python benchmarks/dashboard_pool_fill.py \
        [--tree PATH [PATH ...]] [--pool 10] [--runs 2] [--which risk]

For each run and each ``--tree`` (the code measured, as ``PYTHONPATH``; default: this
checkout; ``git archive REF | tar -x -C DIR`` makes one of another commit) a server is
started as the browser tests start it (``start_voila`` with ``--pool`` ready kernels, each
running the dashboard notebook for its future page) in a child process, and the run waits
until every kernel of the pool has built its page (``_browser.wait_pool_ready``). Prints
one JSON line per run: ``ready_s`` (wall seconds from the server's start to a full pool:
what a burst of visitors after a restart meets), ``server_cpu_s`` (the server's user +
system CPU seconds, its own start included), ``kernel_cpu_s`` (each kernel's, from its
start to its page built: interpreter, ipykernel, notebook) and their median; the trees
take turns, so that a change in the machine's load falls on each alike. A server that has
not filled its pool within ``--timeout`` seconds gives ``ready_s: null``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import emit  # noqa: E402

_ONE = """
import json, sys, time
sys.path.insert(0, {tests!r})
from _browser import kernel_pids, wait_pool_ready
from _load import _cpu_by_process
from riskexplore.cli.dashboard.server import start_voila, stop_process

t0 = time.monotonic()
proc, _url = start_voila({which!r}, preheat={pool}, timeout=120, log_file=subprocess_log)
try:
    ready = wait_pool_ready(proc.pid, {pool}, {timeout})
    ready = None if ready is None else round(time.monotonic() - t0, 1)
    seen = _cpu_by_process()
    kernels = [seen[p][1] for p in kernel_pids(proc.pid) if p in seen]
    print("RX-POOL " + json.dumps({{"ready_s": ready, "server_cpu_s": seen[proc.pid][1],
                                    "kernel_cpu_s": kernels}}))
finally:
    stop_process(proc)
"""


def measure(tree: Path, which: str, pool: int, timeout: float) -> dict:
    """One server on ``tree`` fills a pool of ``pool`` kernels; its seconds and CPU."""
    code = "import subprocess\nsubprocess_log = subprocess.DEVNULL\n" + _ONE.format(
        tests=str(tree / "tests"), which=which, pool=pool, timeout=timeout
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("RX-POOL "))
    result = json.loads(line.removeprefix("RX-POOL "))
    kernels = result["kernel_cpu_s"]
    result["kernel_cpu_s_median"] = round(statistics.median(kernels), 2) if kernels else None
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", type=Path, nargs="+", default=[HERE.parent], help="checkouts")
    p.add_argument("--which", default="risk", choices=["risk", "checklist"])
    p.add_argument("--pool", type=int, default=10, help="ready kernels")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=400.0, help="seconds to wait for the pool")
    args = p.parse_args(argv)
    for run in range(args.runs):
        for tree in (t.resolve() for t in args.tree):
            result = measure(tree, args.which, args.pool, args.timeout)
            emit({"kind": "run", "tree": str(tree), "run": run, "pool": args.pool, **result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
