"""Soak: visits of the risk dashboard, closed in four ways, leave no kernel and no memory
behind.

One server as the launcher starts it (a pool of 2 ready kernels), except that its pool grows
to at most :data:`GROW_TO` kernels (the launcher's limit follows the free memory) and
shrinks back after :data:`SHRINK_AFTER` seconds without a page taking a kernel instead of
the launcher's 30 minutes, and that a gone page's kernel ends sooner (:data:`QUICK_END`:
faster websocket pings, a shorter wait after the page is gone). The launcher's own timings
(every kernel of a gone page ends within 2 minutes) are ``test_kernel_lifecycle.py``'s; here
they would make each round wait 90 s for the page dropped off the network (with them the
test took 321 s, December 2026). Three rounds of four pages opened together; each page waits for
its search button and has its kernel answer an upload, then goes away in one of four ways,
one page each: its tab closed, navigated away, its browser context closed, or dropped off
the network (through a relay that stops passing data). The pool follows demand: each round's
pages grow it (the server logs it), and once nobody has taken a kernel for
:data:`SHRINK_AFTER` seconds it goes back to 2 (logged too; spares not yet started never
start, ready ones end). After each round the number of kernels comes back to the pool's 2
within :data:`GONE_WITHIN` seconds (the pages' kernels gone, the pool shrunk back); after
the last, the memory of the server and its kernels to within 200 MB of its idle level (one
kernel left behind is about 300 MB).

Why 12 visits are enough (the test made 30 until December 2026, 394 s):

* a kernel left behind is caught exactly, whatever the number of visits: while a round's
  pages are open the server must have at least a kernel for each, and after each round
  the count must be the pool's again soon after. Each way of going away
  is exercised three times, on pages opened together, by a server that has already served
  and ended pages;
* a leak in the server process itself (memory kept per visit) is caught by its growth
  from round to round, each measured in the same state (the round's kernels gone): a leak
  keeps memory in every round, while a one-time fill (caches, a higher high-water mark
  after more kernels at once; Python rarely gives memory back) shows in one round only. So
  the least growth of rounds 2 and 3 must be at most :data:`SERVER_MB_PER_VISIT` a visit,
  the 6.7 MB a visit that 30 visits against 200 MB tolerated, now for the server alone.
  Rounds do not overlap: overlapping rounds (8 kernels at once in round 2, 4 in round 1)
  once read as 7.7 MB a visit on CI. Measured here without overlap, rounds 2 and 3 kept
  +7.6 and +21 MB in one run, -11.6 and +38.8 MB in another: the server's memory moves by
  tens of MB from round to round, so this catches a leak of several MB a visit, not less.

The waits poll for their condition (the pool's kernels idle after building the page, the
kernels gone) rather than sleeping for a fixed time sized for a busy machine.
"""

from __future__ import annotations

import numpy as np
from _browser import (
    QUICK_PAGE_END,
    FreezingProxy,
    button,
    kernel_pids,
    rss_mb,
    upload_csv,
    wait_for,
    wait_pool_ready,
    watched_page,
)
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import start_voila, stop_process

LOAD_MS = 180_000
POOL = 2
SHRINK_AFTER = 20  # seconds without a page taking a kernel before the pool shrinks back
GROW_TO = 4  # the pool's largest size (the launcher's follows free memory: not repeatable)
GROWN, SHRUNK = "Pool of risk_score_builder.ipynb grows to", "Pools back to their size"
STYLES = ("tab closed", "navigated away", "context closed", "dropped")
ROUNDS, PAGES = 3, len(STYLES)
#: A gone page's kernel ends sooner than the launcher's: websocket pings every 2 s, a
#: connection silent for 10 s closed (launcher: 10 s, 30 s), then ``QUICK_PAGE_END`` (3 s
#: after its page is gone, checked every second). A dropped page's kernel ends within ~16 s.
QUICK_END = [
    '--Voila.tornado_settings={"ws_ping_interval": 2000, "ws_ping_timeout": 10000}',
    *QUICK_PAGE_END,
]
GONE_WITHIN = 60  # seconds: the pool's shrink (SHRINK_AFTER) and the pages' ends, with margin
SERVER_MB_PER_VISIT = 200 / 30  # the server's own memory kept per visit, at most (MB)
REPEATED = b"sick,age,smoker,age\n1,70,1,1\n0,40,0,0\n1,65,1,1\n0,30,1,0\n"


def _server_mb(proc) -> float:
    return rss_mb([proc.pid, *kernel_pids(proc.pid)])


def _logged(log_path, line: str) -> int:
    """How many times the server's log holds ``line`` so far."""
    return log_path.read_text().count(line)


def _open_round(browser, url: str, port: int, proxies: list, contexts: list) -> list:
    """Open a page in each way of going away, together; ``[(style, context, page, errors,
    proxy)]``."""
    pages = []
    for style in STYLES:
        target, proxy = url, None
        if style == "dropped":
            proxy = FreezingProxy(port)
            proxies.append(proxy)
            target = f"http://127.0.0.1:{proxy.port}/"
        context, page, errors, _outside = watched_page(browser, 1280, 900)
        contexts.append(context)
        page.goto(target, timeout=LOAD_MS)
        pages.append((style, context, page, errors, proxy))
    return pages


def _leave(pages: list, contexts: list) -> None:
    """Each page goes away in its own way."""
    for style, context, page, _errors, proxy in pages:
        if style == "tab closed":
            page.close()
        elif style == "navigated away":
            page.goto("about:blank")
        elif style == "context closed":
            context.close()
            contexts.remove(context)
        else:
            proxy.freeze()


def test_visits_leave_no_kernel_and_no_memory_behind(browser, tmp_path):
    log_path = tmp_path / "voila.log"
    log = open(log_path, "w")
    pool_args = [
        f"--PageKernelManager.pool_shrink_after={SHRINK_AFTER}",
        f"--PageKernelManager.pool_limit={GROW_TO}",
        *QUICK_END,
    ]
    proc, url = start_voila("risk", preheat=POOL, timeout=120, log_file=log, extra=pool_args)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    proxies: list[FreezingProxy] = []
    open_contexts: list = []
    try:
        filled = wait_pool_ready(proc.pid, POOL, 240)  # the pool's kernels built the page
        assert filled is not None, kernel_pids(proc.pid)
        idle_mb, idle_server_mb = _server_mb(proc), rss_mb([proc.pid])
        visits, clean_server_mb, waits = 0, [], []
        for round_ in range(ROUNDS):
            grown, shrunk = _logged(log_path, GROWN), _logged(log_path, SHRUNK)
            pages = _open_round(browser, url, port, proxies, open_contexts)
            for _style, _context, page, errors, _proxy in pages:
                button(page, "Find the best score").wait_for(state="visible", timeout=LOAD_MS)
                upload_csv(page, "repeated.csv", REPEATED)
                message = page.locator(".rx-message", has_text="repeats the column name").first
                expect(message).to_be_visible(timeout=60_000)
                assert not errors, errors
                visits += 1
            open_kernels = len(kernel_pids(proc.pid))
            assert open_kernels >= PAGES, f"round {round_ + 1}: {open_kernels} kernels"
            assert _logged(log_path, GROWN) > grown, f"round {round_ + 1}: the pool never grew"
            _leave(pages, open_contexts)
            # back: the pool shrunk (logged) and only its kernels left; the count alone can
            # read 2 for a moment, the pages' kernels ended before the spares started
            back, waited = wait_for(
                lambda shrunk=shrunk: (
                    _logged(log_path, SHRUNK) > shrunk and len(kernel_pids(proc.pid)) == POOL
                ),
                GONE_WITHIN,
                2,
            )
            waits.append(waited)
            assert _logged(log_path, SHRUNK) > shrunk, f"round {round_ + 1}: no shrink logged"
            assert back, f"round {round_ + 1}: kernels left {kernel_pids(proc.pid)}"
            assert waited <= GONE_WITHIN
            clean_server_mb.append(rss_mb([proc.pid]))
            print(
                f"round {round_ + 1}: {open_kernels} kernels open, back to {POOL} after "
                f"{waited:.0f} s, server {clean_server_mb[-1]:.0f} MB"
            )
        after_mb = _server_mb(proc)
        growth = np.diff(clean_server_mb)  # MB kept by each round after the first
        per_visit = growth.min() / PAGES
        print(
            f"{visits} visits; memory {idle_mb:.0f} MB idle, {after_mb:.0f} MB after; server "
            f"alone {idle_server_mb:.0f} MB idle, then {clean_server_mb} after each round "
            f"({per_visit:+.2f} MB a visit in the round that kept least)"
        )
        assert visits == ROUNDS * PAGES
        assert after_mb <= idle_mb + 200, (idle_mb, after_mb)
        assert per_visit <= SERVER_MB_PER_VISIT, clean_server_mb
    finally:
        for context in open_contexts:
            context.close()
        for proxy in proxies:
            proxy.close()
        stop_process(proc)
        log.close()
