"""Where a dashboard page's time goes before its search button shows (headless Chromium).

    OPENBLAS_NUM_THREADS=1 flock /work/cpu.lock python benchmarks/profile_page_load.py \
        [--pages 10] [--pool N] [--which risk] [--cpu-profile FILE]

Starts the server as the load test does (a pool of ready kernels that already ran the
notebook), opens N pages together and, per page, records when

* the page's HTML arrived (``html_s``, ``dom_s``: DOMContentLoaded),
* the page's widget state arrived on the websocket (``state_s``: the kernel's reply to the
  widget manager's request for every model's state; ``models``: how many, ``state_mb``),
* the search button became visible (``button_s``),

all from the moment the pages were opened, and the browser's own work in the page (CDP
``Performance.getMetrics``: ``script_s``, ``layout_s``, ``style_s``, ``task_s``) and the
page's widget views (``views``: ``.jupyter-widgets`` elements). ``button_s - state_s`` is
the browser building the page after the kernel answered; ``state_s`` the server side (and
the HTML). ``--cpu-profile`` saves a CPU profile of the first page (Chrome DevTools format)
and prints its heaviest functions (self time).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import threading  # noqa: E402

from _browser import CHROMIUM, CHROMIUM_ARGS, ensure_chromium, wait_pool_ready  # noqa: E402
from _load import _cpu_by_process  # noqa: E402

from riskexplore.cli.dashboard.server import start_voila, stop_process, warm_up  # noqa: E402

BUTTON = re.compile(r"^\W*Find the best (score|checklist)\s*$")


def _frame_text(payload) -> str:
    if isinstance(payload, bytes):
        return payload.decode("utf-8", errors="replace")
    return payload


async def _visit(browser, url, t0, out, profile: Path | None, frames_too: bool, shown):
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Performance.enable")
    if profile is not None:
        await cdp.send("Profiler.enable")
        await cdp.send("Profiler.setSamplingInterval", {"interval": 500})
        await cdp.send("Profiler.start")
    frames = {"bytes": 0}

    def on_ws(ws):
        def received(payload):
            now = time.monotonic() - t0
            text = _frame_text(payload)
            frames["bytes"] += len(text)
            if '"msg_type":"comm_msg"' in text.replace(" ", "") and '"states"' in text:
                # the widget manager's request_states reply: every model's state
                out["state_s"] = round(now, 2)
                out["state_mb"] = round(len(text) / 1e6, 2)
                out["models"] = text.count('"model_name"')
                out["model_kinds"] = Counter(re.findall(r'"model_name":\s*"(\w+)"', text))

        def sent(payload):
            text = _frame_text(payload)
            if "request_states" in text:
                out["asked_s"] = round(time.monotonic() - t0, 2)

        out.setdefault("ws_open_s", round(time.monotonic() - t0, 2))
        ws.on("framereceived", received)
        ws.on("framesent", sent)

    if frames_too:
        page.on("websocket", on_ws)
    page.on("domcontentloaded", lambda _p: out.setdefault("dom_s", round(time.monotonic() - t0, 2)))
    response = await page.goto(url, timeout=300_000, wait_until="commit")
    await response.finished()
    out["html_s"] = round(time.monotonic() - t0, 2)
    button = page.locator("button", has_text=BUTTON).first
    await button.wait_for(state="visible", timeout=300_000)
    out["button_s"] = round(time.monotonic() - t0, 2)
    shown()
    metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
    for key, name in (
        ("script_s", "ScriptDuration"),
        ("layout_s", "LayoutDuration"),
        ("style_s", "RecalcStyleDuration"),
        ("task_s", "TaskDuration"),
    ):
        out[key] = round(metrics.get(name, 0.0), 2)
    out["views"] = await page.evaluate("document.querySelectorAll('.jupyter-widgets').length")
    out["ws_mb"] = round(frames["bytes"] / 1e6, 2)
    if profile is not None:
        result = await cdp.send("Profiler.stop")
        profile.write_text(json.dumps(result["profile"]))
        out["profile"] = _heaviest(result["profile"])
    # after the button: let the page settle, then its whole work so far
    await page.wait_for_timeout(5000)
    metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
    out["task_settled_s"] = round(metrics.get("TaskDuration", 0.0), 2)
    await context.close()


def _cpu_shares(seen: dict, before: dict, server_pid: int) -> dict[str, float]:
    """CPU seconds used since ``before``: the server, its kernels, this script's browser
    (its descendants) and every other process of the machine (other users' jobs)."""
    parent = {pid: ppid for pid, (_cmd, _s, ppid) in seen.items()}

    def under(pid, root):
        for _ in range(20):
            if pid == root:
                return True
            pid = parent.get(pid)
            if pid is None:
                return False
        return False

    me = os.getpid()
    shares = {"server": 0.0, "kernels": 0.0, "other": 0.0}
    for pid, (cmd, seconds, _ppid) in seen.items():
        used = seconds - (before[pid][1] if pid in before and before[pid][0] == cmd else 0.0)
        if pid == server_pid:
            key = "server"
        elif under(pid, server_pid):
            key = "kernels"
        elif under(pid, me):
            kind = re.search(r"--type=([\w-]+)", cmd)
            key = "browser:" + (kind.group(1) if kind else ("main" if "chrom" in cmd else "driver"))
        else:
            key = "other"
        shares[key] = shares.get(key, 0.0) + max(used, 0.0)
    return {k: round(v, 1) for k, v in shares.items()}


def _heaviest(profile: dict, top: int = 25) -> list[tuple[str, float]]:
    """Self time per function (seconds), heaviest first."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    self_time: Counter = Counter()
    for sample, delta in zip(profile.get("samples", []), deltas, strict=False):
        frame = nodes[sample]["callFrame"]
        where = f"{frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber']}"
        name = f"{frame['functionName'] or '(anon)'} {where}"
        self_time[name] += delta / 1e6
    return [(k, round(v, 2)) for k, v in self_time.most_common(top)]


async def _visits(url, results, profile, frames_too, all_shown):
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        t0 = time.monotonic()
        count = [0]

        def shown():
            count[0] += 1
            if count[0] == len(results):
                all_shown()

        await asyncio.gather(
            *(
                _visit(browser, url, t0, r, profile if i == 0 else None, frames_too, shown)
                for i, r in enumerate(results)
            )
        )
        await browser.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=10)
    p.add_argument("--pool", type=int, default=None, help="ready kernels (default: --pages)")
    p.add_argument("--which", default="risk")
    p.add_argument("--cpu-profile", type=Path, default=None)
    p.add_argument("--frames", action="store_true", help="watch the websockets (state_s)")
    p.add_argument("--voila-arg", action="append", default=[], help="a further Voila argument")
    args = p.parse_args(argv)
    ensure_chromium()
    pool = args.pages if args.pool is None else args.pool
    warm_up()
    with open(os.devnull, "w") as devnull:
        proc, url = start_voila(
            args.which, preheat=pool, timeout=120, log_file=devnull, extra=args.voila_arg
        )
        try:
            filled = wait_pool_ready(proc.pid, pool, 300)
            results = [{"page": i} for i in range(args.pages)]
            timeline = []
            done = threading.Event()
            at_buttons = {}
            start_cpu = _cpu_by_process()

            def all_shown():
                seen = dict(start_cpu)
                seen.update(_cpu_by_process())
                at_buttons.update(_cpu_shares(seen, start_cpu, proc.pid))

            def watch():
                before = _cpu_by_process()
                start = time.monotonic()
                seen = dict(before)
                while not done.wait(2.0):
                    seen.update(_cpu_by_process())
                    timeline.append(
                        (round(time.monotonic() - start), _cpu_shares(seen, before, proc.pid))
                    )

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            asyncio.run(_visits(url, results, args.cpu_profile, args.frames, all_shown))
            done.set()
            watcher.join()
        finally:
            stop_process(proc)
    for r in results:
        kinds = r.pop("model_kinds", None)
        prof = r.pop("profile", None)
        print(json.dumps(r))
        if prof:
            print("heaviest functions (self s):")
            for name, s in prof:
                print(f"  {s:7.2f}  {name}")
        if kinds and r["page"] == 0:
            print("models:", dict(kinds.most_common()))
    print("CPU seconds used so far (t: server, kernels, this browser, other processes):")
    for t, shares in timeline:
        print(f"  {t:4d} s: " + ", ".join(f"{k} {v}" for k, v in shares.items()))
    browser = sum(v for k, v in at_buttons.items() if k.startswith("browser"))
    print("CPU seconds until every button showed:", at_buttons)
    summary = {"pool_filled_s": filled, "browser_cpu_s_until_buttons": round(browser, 1)}
    for key in (
        "html_s",
        "ws_open_s",
        "asked_s",
        "state_s",
        "button_s",
        "script_s",
        "layout_s",
        "task_s",
    ):
        values = [r[key] for r in results if key in r]
        if values:
            summary[key] = [round(statistics.median(values), 1), round(max(values), 1)]
    print(json.dumps({"summary (median, max)": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
