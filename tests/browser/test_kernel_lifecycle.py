"""A page's kernel ends soon after the page is gone, and lives while it is open.

One server of the risk dashboard with the launcher's settings (``PageKernelManager``, its
default timeouts); four pages in headless Chromium, each with its own kernel (counted as the
server's ``ipykernel`` child processes). Page A starts a search that runs for minutes. Then
page B's tab is closed, page C navigates away, and page D drops off the network (it is
reached through a relay that stops passing data without closing anything, so only the
websocket pings notice). Within 2 minutes the three kernels of B, C and D have ended, while
A's kernel lives on with its search still running, and its page still answers (Stop).

With a pool of ready kernels (``--pool``, the launcher's default), a page takes one of them,
the pool refills, and the page's kernel ends after the page is gone.
"""

from __future__ import annotations

import time

from _browser import (
    QUICK_PAGE_END,
    FreezingProxy,
    button,
    kernel_pids,
    wait_for,
    wait_pool_ready,
    watched_page,
)
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import start_voila, stop_process

LOAD_MS = 180_000
GONE_WITHIN = 120.0  # seconds: the promise


def _open(browser, url: str):
    context, page, errors, outside = watched_page(browser, 1280, 900)
    page.goto(url, timeout=LOAD_MS)
    return context, page, errors, outside


def test_kernels_end_when_pages_go_and_live_while_open(browser, tmp_path):
    log = open(tmp_path / "voila.log", "w")
    proc, url = start_voila("risk", timeout=120, log_file=log)
    proxy = FreezingProxy(int(url.rsplit(":", 1)[1].strip("/")))
    opened = []
    try:
        via_proxy = f"http://127.0.0.1:{proxy.port}/"
        for target in (url, url, url, via_proxy):  # A, B, C, D
            opened.append(_open(browser, target))
        for _c, page, _e, _o in opened:
            button(page, "Find the best score").wait_for(state="visible", timeout=LOAD_MS)
        kernels, _ = wait_for(lambda: len(kernel_pids(proc.pid)) == 4, 30)
        assert kernels, f"expected 4 kernels, found {kernel_pids(proc.pid)}"
        before = set(kernel_pids(proc.pid))

        # page A: a search that runs for minutes: income (32,561 rows, 36 features) with
        # 10 characteristics and a 10 min limit (mammo now certifies 10 in seconds)
        page_a = opened[0][1]
        picker = page_a.get_by_label("Bundled data")
        options = picker.locator("option").all_inner_texts()
        picker.select_option(label=next(o for o in options if o.startswith("income")))
        loaded = page_a.get_by_text("Loaded income").first
        expect(loaded).to_be_visible(timeout=60_000)
        for label, value in (("Most characteristics in the score", 10), ("Time limit", 600)):
            field = page_a.get_by_label(label)
            field.fill(str(value))
            field.press("Tab")
        page_a.wait_for_timeout(500)
        button(page_a, "Find the best score").click()
        status = page_a.locator(".rx-search-unconstrained .rx-status")
        expect(status).to_contain_text("running", timeout=60_000)

        # B: tab closed; C: navigated away; D: dropped off the network
        gone_at = time.monotonic()
        opened[1][1].close()
        opened[2][1].goto("about:blank")
        proxy.freeze()

        one_left, waited = wait_for(lambda: len(kernel_pids(proc.pid)) == 1, GONE_WITHIN + 30)
        remaining = kernel_pids(proc.pid)
        print(f"kernels of the 3 pages gone: {time.monotonic() - gone_at:.0f} s; left {remaining}")
        assert one_left, f"after {waited:.0f} s kernels {remaining} (of {sorted(before)})"
        assert time.monotonic() - gone_at <= GONE_WITHIN, "the kernels ended too late"
        assert set(remaining) <= before

        # A's kernel lives on, its search still running, its page still answering
        assert "running" in status.inner_text(), status.inner_text()
        page_a.locator(".rx-search-unconstrained button", has_text="Stop").first.click()
        expect(status).to_contain_text("stopped", timeout=60_000)
        assert kernel_pids(proc.pid) == remaining
        errors = opened[0][2]
        assert not errors, errors
    finally:
        for context, *_ in opened:
            context.close()
        proxy.close()
        stop_process(proc)
        log.close()


def test_a_pool_of_ready_kernels_serves_pages_and_refills(browser, tmp_path):
    # a pool of ready kernels (--pool; two here): a page takes one that
    # has already built the page, the pool refills and grows by a spare (it follows
    # demand), and the page's kernel ends after it (3 s after, checked every second:
    # the launcher's 45 s are the test above's)
    log = open(tmp_path / "voila.log", "w")
    proc, url = start_voila("risk", preheat=2, timeout=120, log_file=log, extra=QUICK_PAGE_END)
    context = None
    try:
        # the pool's kernels have started and built the page (polled, not a fixed sleep)
        waited = wait_pool_ready(proc.pid, 2, 240)
        assert waited is not None, f"the pool did not fill: {kernel_pids(proc.pid)}"
        pool = set(kernel_pids(proc.pid))
        context, page, errors, outside = watched_page(browser, 1280, 900)
        opened = time.monotonic()
        page.goto(url, timeout=LOAD_MS)
        button(page, "Find the best score").wait_for(state="visible", timeout=LOAD_MS)
        shown = time.monotonic() - opened
        print(f"pool filled in {waited:.0f} s; a page from it showed its button in {shown:.1f} s")
        # the page's kernel and a pool of 3: its refill and a spare
        refilled, _ = wait_for(lambda: len(kernel_pids(proc.pid)) == 4, 120)
        assert refilled, kernel_pids(proc.pid)
        assert len(pool & set(kernel_pids(proc.pid))) == 2  # the page took one of them
        assert not errors and not outside, (errors, outside)
        context.close()
        context = None
        back, waited = wait_for(lambda: len(kernel_pids(proc.pid)) == 3, GONE_WITHIN)
        assert back, f"the page's kernel did not end: {kernel_pids(proc.pid)}"
        print(f"the page's kernel ended {waited:.0f} s after the page closed")
    finally:
        if context is not None:
            context.close()
        stop_process(proc)
        log.close()
