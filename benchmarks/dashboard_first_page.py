"""The launcher's own first page while a large pool fills: seconds to its search button.

    python benchmarks/dashboard_first_page.py [--pool 10] [--at-once 0 10] [--runs 2]

A server is started as the launcher starts it with ``--pool`` ready kernels (the
default's size where memory allows), and one page (headless Chromium) is opened the moment
it listens, as ``riskexplore dashboard`` opens the user's browser. For each
``--at-once`` (``PageKernelManager.first_fill_at_once``: kernels of the first fill started
together, 0 for the default, one per core) and run, prints one JSON line:
``served_s`` (the server listening) and ``first_button_s`` (the page's "Find the best
score" button shown), both from the server's start. The values take turns, so that a
change in the machine's load falls on each alike. Needs the test extra (Playwright) and
Debian's chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from _browser import CHROMIUM, CHROMIUM_ARGS, ensure_chromium  # noqa: E402
from _common import emit  # noqa: E402

from riskexplore.cli.dashboard.server import start_voila, stop_process  # noqa: E402

BUTTON = re.compile(r"^\W*Find the best score\s*$")


async def _first_button(url: str, t0: float, timeout: float) -> float:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 900})
            page = await context.new_page()
            await page.goto(url, timeout=timeout * 1000)
            button = page.locator("button", has_text=BUTTON).first
            await button.wait_for(state="visible", timeout=timeout * 1000)
            return time.monotonic() - t0
        finally:
            await browser.close()


def run(pool: int, at_once: int, timeout: float) -> dict:
    """One launch and its first page."""
    extra = [f"--PageKernelManager.first_fill_at_once={at_once}"] if at_once else []
    t0 = time.monotonic()
    proc, url = start_voila(
        "risk", preheat=pool, timeout=120, log_file=open(os.devnull, "w"), extra=extra
    )
    served = time.monotonic() - t0
    try:
        button = asyncio.run(_first_button(url, t0, timeout))
    finally:
        stop_process(proc)
    return {
        "kind": "first_page",
        "pool": pool,
        "first_fill_at_once": at_once or os.cpu_count(),
        "served_s": round(served, 1),
        "first_button_s": round(button, 1),
        "load": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pool", type=int, default=10)
    p.add_argument("--at-once", type=int, nargs="+", default=[0, 10])
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=300.0)
    args = p.parse_args(argv)
    ensure_chromium()
    for _ in range(args.runs):
        for at_once in args.at_once:
            emit(run(args.pool, at_once, args.timeout))
            time.sleep(5)  # the last server's kernels end
    return 0


if __name__ == "__main__":
    sys.exit(main())
