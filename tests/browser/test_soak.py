"""Soak: 30 visits of the risk dashboard, closed in four ways, and the server comes back to
its idle level.

One server as the launcher starts it (a pool of 2 ready kernels). Six rounds of five pages
opened together; each page waits for its search button and has its kernel answer an upload,
then goes away in one of four ways, in turn: its tab closed, navigated away, its browser
context closed, or dropped off the network (through a relay that stops passing data). After
the last round the number of kernels comes back to the pool's within the 2 minutes promised,
and the memory of the server and its kernels to within 200 MB of its idle level (one kernel
left behind is about 300 MB).
"""

from __future__ import annotations

import time

from _browser import FreezingProxy, button, kernel_pids, rss_mb, upload_csv, wait_for, watched_page
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import start_voila, stop_process

LOAD_MS = 180_000
POOL = 2
ROUNDS, PAGES = 6, 5
STYLES = ("tab closed", "navigated away", "context closed", "dropped")
REPEATED = b"sick,age,smoker,age\n1,70,1,1\n0,40,0,0\n1,65,1,1\n0,30,1,0\n"


def _server_mb(proc) -> float:
    return rss_mb([proc.pid, *kernel_pids(proc.pid)])


def test_thirty_visits_leave_no_kernel_and_no_memory_behind(browser, tmp_path):
    log = open(tmp_path / "voila.log", "w")
    proc, url = start_voila("risk", preheat=POOL, timeout=120, log_file=log)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    proxies: list[FreezingProxy] = []
    open_contexts = []
    try:
        filled, _ = wait_for(lambda: len(kernel_pids(proc.pid)) == POOL, 180)
        assert filled, kernel_pids(proc.pid)
        time.sleep(45)  # the pool's kernels build the page
        idle_mb = _server_mb(proc)
        visits = 0
        for round_ in range(ROUNDS):
            pages = []
            for i in range(PAGES):
                style = STYLES[(round_ * PAGES + i) % len(STYLES)]
                target = url
                proxy = None
                if style == "dropped":
                    proxy = FreezingProxy(port)
                    proxies.append(proxy)
                    target = f"http://127.0.0.1:{proxy.port}/"
                context, page, errors, outside = watched_page(browser, 1280, 900)
                open_contexts.append(context)
                page.goto(target, timeout=LOAD_MS)
                pages.append((style, context, page, errors, proxy))
            for _style, _context, page, errors, _proxy in pages:
                button(page, "Find the best score").wait_for(state="visible", timeout=LOAD_MS)
                upload_csv(page, "repeated.csv", REPEATED)
                message = page.locator(".rx-message", has_text="repeats the column name").first
                expect(message).to_be_visible(timeout=60_000)
                assert not errors, errors
                visits += 1
            for style, context, page, _errors, proxy in pages:
                if style == "tab closed":
                    page.close()
                elif style == "navigated away":
                    page.goto("about:blank")
                elif style == "context closed":
                    context.close()
                    open_contexts.remove(context)
                else:
                    proxy.freeze()
            print(f"round {round_ + 1}: {len(kernel_pids(proc.pid))} kernels")
        gone_at = time.monotonic()
        back, waited = wait_for(lambda: len(kernel_pids(proc.pid)) == POOL, 150, every=2)
        after_mb = _server_mb(proc)
        print(
            f"{visits} visits; kernels back to {POOL} after {waited:.0f} s; "
            f"memory {idle_mb:.0f} MB idle, {after_mb:.0f} MB after"
        )
        assert visits == ROUNDS * PAGES
        assert back, f"kernels left: {kernel_pids(proc.pid)}"
        assert time.monotonic() - gone_at <= 150
        assert after_mb <= idle_mb + 200, (idle_mb, after_mb)
    finally:
        for context in open_contexts:
            context.close()
        for proxy in proxies:
            proxy.close()
        stop_process(proc)
        log.close()
