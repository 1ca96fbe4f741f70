"""Many clinicians at once: N pages of the risk dashboard opened together in headless Chromium.

    python benchmarks/dashboard_load.py [--pages 10] [--preheat] [--timeout 300]

One server started as the launcher starts it (``start_voila``); N pages (one browser, a
context each) open it at the same moment; each waits for its "Find the best score" button,
clicks it (the defaults: mammo, at most 5 characteristics, 60 s limit) and waits for
"certified optimal".
Prints one JSON line per page (``button_s``, ``certified_s`` from the moment all pages were
opened, ``status``) and a summary line (median and slowest of both, pages certified, kernels
and their memory at the peak and after the pages closed, and the machine's load average).
Needs the test extra (Playwright) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _browser import CHROMIUM, CHROMIUM_ARGS, kernel_pids, rss_mb  # noqa: E402
from _common import emit  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

from riskexplore.cli.dashboard import start_voila, stop_process  # noqa: E402


async def _visit(browser, url: str, t0: float, timeout: float, out: dict) -> None:
    """One clinician: open the page, search, wait for the certificate (own context)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = await context.new_page()
        await page.goto(url, timeout=timeout * 1000)
        solve = page.locator("button", has_text=re.compile(r"^\W*Find the best score\s*$")).first
        await solve.wait_for(state="visible", timeout=timeout * 1000)
        out["button_s"] = time.monotonic() - t0
        await solve.click()
        status = page.locator(".rx-search-unconstrained .rx-status")
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = await status.inner_text()
            if "optimal" in text or "limit reached" in text or "failed" in text:
                break
            await page.wait_for_timeout(250)
        out["status"] = text[:80]
        if "certified optimal" in text:
            out["certified_s"] = time.monotonic() - t0
    except Exception as exc:  # a page that did not answer: reported, not raised
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    finally:
        await context.close()


async def _visits(url: str, results: list[dict], timeout: float) -> None:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        t0 = time.monotonic()
        await asyncio.gather(*(_visit(browser, url, t0, timeout, r) for r in results))
        await browser.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=10)
    p.add_argument("--preheat", action="store_true")
    p.add_argument("--timeout", type=float, default=300.0)
    args = p.parse_args(argv)
    log = open(os.devnull, "w")
    proc, url = start_voila("risk", preheat=args.preheat, timeout=120, log_file=log)
    try:
        time.sleep(5)
        idle = rss_mb(kernel_pids(proc.pid)) + rss_mb([proc.pid])
        results = [{"page": i} for i in range(args.pages)]
        peak = {"kernels": 0, "mb": 0.0}
        done = threading.Event()

        def watch():
            while not done.is_set():
                pids = kernel_pids(proc.pid)
                peak["kernels"] = max(peak["kernels"], len(pids))
                peak["mb"] = max(peak["mb"], rss_mb(pids) + rss_mb([proc.pid]))
                time.sleep(1)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            asyncio.run(_visits(url, results, args.timeout))
        finally:
            done.set()
            watcher.join()
        for r in results:
            emit(
                {
                    "kind": "page",
                    **{k: round(v, 1) if isinstance(v, float) else v for k, v in r.items()},
                }
            )
        buttons = [r["button_s"] for r in results if "button_s" in r]
        certified = [r["certified_s"] for r in results if "certified_s" in r]
        left = None
        for _ in range(36):  # the pages are gone: their kernels end within 2 minutes
            time.sleep(5)
            left = kernel_pids(proc.pid)
            if len(left) <= (1 if args.preheat else 0):
                break
        emit(
            {
                "kind": "summary",
                "pages": args.pages,
                "preheat": args.preheat,
                "cores": os.cpu_count(),
                "button_median_s": round(statistics.median(buttons), 1) if buttons else None,
                "button_max_s": round(max(buttons), 1) if buttons else None,
                "certified": len(certified),
                "certified_median_s": round(statistics.median(certified), 1) if certified else None,
                "certified_max_s": round(max(certified), 1) if certified else None,
                "errors": [r["error"] for r in results if "error" in r],
                "peak_kernels": peak["kernels"],
                "peak_mb": round(peak["mb"]),
                "idle_mb": round(idle),
                "kernels_after": len(left or []),
                "mb_after": round(rss_mb(left or []) + rss_mb([proc.pid])),
                "loadavg": os.getloadavg(),
            }
        )
    finally:
        stop_process(proc)
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
