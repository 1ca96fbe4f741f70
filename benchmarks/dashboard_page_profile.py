"""Where one dashboard page's CPU goes while it opens from a ready kernel (issue 35).

    OPENBLAS_NUM_THREADS=1 python benchmarks/dashboard_page_profile.py [--runs 3] [--top 15]

For each run, a server of the risk dashboard with one ready kernel (as the launcher keeps
them), and one page in headless Chromium (the browser tests' flags) opens it and waits for
its "Find the best score" button, then 3 s more. Measured over that time: the CPU seconds of
each kind of Chromium process (``renderer``, ``browser``, ``gpu-process``, the network
service...), of the Voila server and of its kernels, and the renderer's JavaScript by script
and by function (Chrome's sampling profiler, through the DevTools protocol; ``(idle)`` is
time the main thread waited). One JSON line per run (``--save`` appends them to
``benchmarks/results/dashboard_page_profile.jsonl``). Multiply by the pages of a burst to see
what ten visitors at once cost two cores (``dashboard_load.py`` measures the burst itself).
Needs the test extra (Playwright) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from _browser import CHROMIUM, CHROMIUM_ARGS, button, wait_pool_ready  # noqa: E402
from _common import emit  # noqa: E402

from riskexplore.cli.dashboard.server import start_voila, stop_process  # noqa: E402

RESULTS = HERE / "results" / "dashboard_page_profile.jsonl"


def _process_kind(cmdline: list[str]) -> str:
    """``renderer``, ``gpu-process``, ``utility:<service>``... or ``browser`` (no --type)."""
    options = dict(a[2:].split("=", 1) for a in cmdline if a.startswith("--") and "=" in a)
    kind = options.get("type", "browser")
    if kind == "utility":
        kind += ":" + options.get("utility-sub-type", "?").split(".")[0]
    return kind


def chromium_cpu(browser_pid: int) -> collections.Counter:
    """CPU seconds so far of the Chromium processes under ``browser_pid``, by kind."""
    out: collections.Counter = collections.Counter()
    root = psutil.Process(browser_pid)
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            out[_process_kind(proc.cmdline())] += times.user + times.system
        except psutil.Error:  # ended meanwhile
            pass
    return out


def server_cpu(server_pid: int) -> dict[str, float]:
    """CPU seconds so far of the Voila server and (summed) of its kernels."""
    root = psutil.Process(server_pid)
    out = {"server": sum(root.cpu_times()[:2]), "kernels": 0.0}
    for proc in root.children(recursive=True):
        try:
            out["kernels"] += sum(proc.cpu_times()[:2])
        except psutil.Error:
            pass
    return out


def js_self_time(profile: dict, top: int) -> tuple[dict, dict]:
    """Seconds of the profile's samples by script and by function (their own time)."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    by_script: collections.Counter = collections.Counter()
    by_function: collections.Counter = collections.Counter()
    for node, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node]
        script = frame["url"].rsplit("/", 1)[-1].split("?")[0] or frame["functionName"]
        by_script[script] += delta / 1e6
        name = frame["functionName"] or "(anonymous)"
        by_function[f"{name} @ {script}:{frame['lineNumber']}"] += delta / 1e6
    return (
        {k: round(v, 3) for k, v in by_script.most_common(top)},
        {k: round(v, 3) for k, v in by_function.most_common(top)},
    )


def _browser_pid(before: set[int]) -> int:
    """The Chromium started since ``before`` (this process's children then)."""
    me = psutil.Process()
    fresh = [p for p in me.children(recursive=True) if p.pid not in before]
    return next(p.pid for p in fresh if "chrom" in p.name() and "--type" not in p.cmdline())


def one_page(url: str, server_pid: int, top: int) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        known = {p.pid for p in psutil.Process().children(recursive=True)}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        chromium = _browser_pid(known)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 500})  # microseconds
        cdp.send("Profiler.start")
        chromium0, server0 = chromium_cpu(chromium), server_cpu(server_pid)
        start = time.monotonic()
        page.goto(url, timeout=180_000)
        button(page, "Find the best score").wait_for(state="visible", timeout=180_000)
        shown = time.monotonic() - start
        page.wait_for_timeout(3000)
        profile = cdp.send("Profiler.stop")["profile"]
        chromium1, server1 = chromium_cpu(chromium), server_cpu(server_pid)
        browser.close()
    by_script, by_function = js_self_time(profile, top)
    sampled = sum(profile["timeDeltas"]) / 1e6
    idle = sum(
        d / 1e6
        for n, d in zip(profile["samples"], profile["timeDeltas"], strict=True)
        if n in {x["id"] for x in profile["nodes"] if x["callFrame"]["functionName"] == "(idle)"}
    )
    return {
        "kind": "dashboard_page_profile",
        "button_s": round(shown, 2),
        "chromium_cpu_s": {k: round(chromium1[k] - chromium0.get(k, 0.0), 2) for k in chromium1},
        "server_cpu_s": {k: round(server1[k] - server0[k], 2) for k in server1},
        "main_thread_sampled_s": round(sampled, 2),
        "main_thread_busy_s": round(sampled - idle, 2),
        "js_by_script_s": by_script,
        "js_by_function_s": by_function,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3, help="pages, one after the other")
    p.add_argument("--top", type=int, default=15, help="scripts and functions listed")
    p.add_argument("--save", action="store_true", help=f"append each line to {RESULTS.name}")
    args = p.parse_args(argv)
    for run in range(args.runs):
        # a server of its own for each page, its one kernel ready (the page takes it)
        proc, url = start_voila("risk", preheat=1, timeout=120, log_file=subprocess.DEVNULL)
        try:
            if wait_pool_ready(proc.pid, 1, 300) is None:
                raise SystemExit("the ready kernel did not start within 5 minutes")
            record = {**one_page(url, proc.pid, args.top), "run": run + 1}
            record["when"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
            emit(record)
            if args.save:
                with RESULTS.open("a") as out:
                    out.write(json.dumps(record) + "\n")
        finally:
            stop_process(proc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
