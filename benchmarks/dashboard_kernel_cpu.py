"""What a dashboard page costs its kernel at load, in CPU seconds (not wall time: the
machine's cores are shared).

    OPENBLAS_NUM_THREADS=1 python benchmarks/dashboard_kernel_cpu.py \
        [--tree PATH [PATH ...]] [--which risk checklist] [--runs 5] [--save FILE]

For each run a fresh kernel (``PYTHONPATH=`` a ``--tree``: the code and the dashboard
notebooks measured; default: this checkout) executes the dashboard notebook as Voila does
(nbclient), then serializes every widget's state as the page's widget manager asks for it
(``Widget.get_manager_state``). Prints one JSON line per run: ``start_cpu_s`` (the kernel
process's user + system CPU seconds from its start to its first cell: the interpreter and
ipykernel), ``cpu_s`` (for the notebook), ``state_cpu_s`` (for the widget state),
``total_cpu_s`` (the three: the kernel's whole start, to the page's widgets sent),
``modules`` (modules imported by the notebook), ``widgets`` (widget models created: comm
opens), ``state_kb`` (the state as JSON, buffers in base64; the kernel is told plotly.js's
address as the dashboard server tells it), and whether ``riskexplore.report`` /
``plotly.offline`` were imported; then a summary line per dashboard (median and spread).
The first run of each dashboard warms the disk cache and numba's cache and is left out of
the summary. With several trees (``git archive REF | tar -x -C DIR`` makes one of another
commit) the runs take turns, tree by tree, so that a change in the machine's load falls on
each alike; each tree's summary gives its medians' ratios to the first tree's
(``cpu_ratio``, ``total_cpu_ratio``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import emit  # noqa: E402

NOTEBOOKS = {"risk": "risk_score_builder.ipynb", "checklist": "checklist_builder.ipynb"}

#: riskexplore.widgets.plotly_bundle.PLOTLY_URL_VARIABLE (spelled out: older trees lack it).
_PLOTLY_URL = "RISKEXPLORE_PLOTLY_URL"

#: Run in the kernel before the notebook: its CPU time and modules so far.
_BEFORE = """
import resource as _r, sys as _s
_u = _r.getrusage(_r.RUSAGE_SELF)
_rx_before = (_u.ru_utime + _u.ru_stime, len(_s.modules))
"""

#: Run after it: the notebook's CPU time, then the widget state's.
_AFTER = """
import json as _j, resource as _r, sys as _s
from ipywidgets import Widget as _W
_u = _r.getrusage(_r.RUSAGE_SELF)
_cpu = _u.ru_utime + _u.ru_stime
_state = _j.dumps(_W.get_manager_state(drop_defaults=True), default=str)
_u = _r.getrusage(_r.RUSAGE_SELF)
print("RX-MEASURE " + _j.dumps({
    "start_cpu_s": _rx_before[0],
    "cpu_s": _cpu - _rx_before[0],
    "state_cpu_s": _u.ru_utime + _u.ru_stime - _cpu,
    "total_cpu_s": _u.ru_utime + _u.ru_stime,
    "modules": len(_s.modules) - _rx_before[1],
    "state_kb": len(_state) / 1024,
    "report_imported": "riskexplore.report.page" in _s.modules,
    "plotly_offline_imported": "plotly.offline" in _s.modules,
    "validation_imported": "riskexplore.evaluation.validation.run" in _s.modules,
}))
"""


def _code_cell(source: str):
    import nbformat

    return nbformat.v4.new_code_cell(source)


def measure(tree: Path, which: str) -> dict:
    """One fresh kernel runs one dashboard notebook; its CPU seconds and widgets."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(tree / "dashboards" / NOTEBOOKS[which], as_version=4)
    nb.cells = [_code_cell(_BEFORE), *nb.cells, _code_cell(_AFTER)]
    # as under the dashboard server: plotly.js by address (trees before issue 35 ignore it)
    env = {**os.environ, "PYTHONPATH": str(tree), _PLOTLY_URL: "/voila/static/plotly.js"}
    with tempfile.TemporaryDirectory() as cwd:
        client = NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": cwd}}
        )
        client.execute(env=env)
    out = nb.cells[-1].outputs
    text = "".join(o.get("text", "") for o in out if o.get("output_type") == "stream")
    line = next(x for x in text.splitlines() if x.startswith("RX-MEASURE "))
    result = json.loads(line.removeprefix("RX-MEASURE "))
    result["widgets"] = len(client.widget_state)  # comm opens of widget models
    return result


def _median(runs: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 3)


def _summary(tree: Path, which: str, runs: list[dict]) -> dict:
    cpu = [r["cpu_s"] for r in runs]
    return {
        "kind": "summary",
        "tree": str(tree),
        "which": which,
        "runs": len(runs),
        "cpu_s_median": round(statistics.median(cpu), 3),
        "cpu_s_min": round(min(cpu), 3),
        "cpu_s_max": round(max(cpu), 3),
        "state_cpu_s_median": _median(runs, "state_cpu_s"),
        "start_cpu_s_median": _median(runs, "start_cpu_s"),
        "total_cpu_s_median": _median(runs, "total_cpu_s"),
        "widgets": runs[-1]["widgets"],
        "modules": runs[-1]["modules"],
        "state_kb": round(runs[-1]["state_kb"], 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", type=Path, nargs="+", default=[HERE.parent], help="checkouts")
    p.add_argument("--which", nargs="+", default=list(NOTEBOOKS), choices=list(NOTEBOOKS))
    p.add_argument("--runs", type=int, default=5, help="measured runs (after one warm-up)")
    p.add_argument("--save", type=Path, default=None, help="append the summaries to FILE")
    args = p.parse_args(argv)
    trees = [t.resolve() for t in args.tree]
    for which in args.which:
        runs: dict[Path, list[dict]] = {t: [] for t in trees}
        for i in range(args.runs + 1):
            for tree in trees:
                r = {"kind": "run", "tree": str(tree), "which": which, "warm_up": i == 0}
                r.update(measure(tree, which))
                emit({k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()})
                if i:
                    runs[tree].append(r)
        first = None
        for tree in trees:
            summary = _summary(tree, which, runs[tree])
            first = first or (summary["cpu_s_median"], summary["total_cpu_s_median"])
            summary["cpu_ratio"] = round(summary["cpu_s_median"] / first[0], 3)
            summary["total_cpu_ratio"] = round(summary["total_cpu_s_median"] / first[1], 3)
            emit(summary)
            if args.save:
                with args.save.open("a") as f:
                    f.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
