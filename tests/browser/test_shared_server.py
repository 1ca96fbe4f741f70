"""A shared server in Chromium: ``riskexplore dashboard risk --ip 0.0.0.0 --base-url clinic``
(every address, as for a group) requires the token it prints, under the prefix.

The launcher runs as a user runs it (a subprocess, SIGTERM stops it). Headless Chromium
opens the page without the token and gets Voila's login page, not the dashboard; with the
printed URL (token included, its host name replaced by 127.0.0.1) the dashboard loads
under ``/clinic/``, and its kernel answers an upload through the prefixed websocket. The
bare root without the prefix is not served.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit, urlunsplit

from _browser import button, upload_csv, watched_page
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import free_port

LOAD_MS = 180_000
REPEATED = b"sick,age,smoker,age\n1,70,1,1\n0,40,0,0\n1,65,1,1\n0,30,1,0\n"
PRINTED = re.compile(r"Risk score builder: (?P<url>http://\S+)")


def _launch(port: int):
    cmd = [sys.executable, "-m", "riskexplore", "dashboard", "risk", "--ip", "0.0.0.0"]
    cmd += ["--base-url", "clinic", "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        found = [m for m in map(PRINTED.search, list(lines)) if m]
        if found:
            return proc, found[0]["url"], lines
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"no URL printed:\n{''.join(lines)}")


def test_a_shared_server_requires_its_token_under_its_prefix(browser):
    port = free_port("0.0.0.0")
    proc, printed, lines = _launch(port)
    contexts = []
    try:
        parts = urlsplit(printed)
        assert parts.path == "/clinic/" and parts.port == port, printed
        token = re.fullmatch(r"token=(\S+)", parts.query)
        assert token and len(token[1]) >= 24, printed
        assert any("has the token" in line for line in lines), lines
        local = urlunsplit(parts._replace(netloc=f"127.0.0.1:{port}"))
        bare = f"http://127.0.0.1:{port}/clinic/"

        # without the token: the login page, no dashboard, no kernel
        context, page, _errors, outside = watched_page(browser, 1280, 900)
        contexts.append(context)
        page.goto(bare, timeout=LOAD_MS)
        page.wait_for_timeout(3000)
        assert "login" in page.url, page.url
        assert page.locator("input[type=password]").count() >= 1  # it asks for the token
        assert button(page, "Find the best score").count() == 0
        # the prefix is the only place it serves
        try:
            status = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).status
        except urllib.error.HTTPError as exc:
            status = exc.code
        assert status == 404

        # with the printed URL: the dashboard, and a live kernel behind the prefix
        context, page, errors, outside = watched_page(browser, 1280, 900)
        contexts.append(context)
        page.goto(local, timeout=LOAD_MS)
        button(page, "Find the best score").wait_for(state="visible", timeout=LOAD_MS)
        assert urlsplit(page.url).path.startswith("/clinic/")
        upload_csv(page, "repeated.csv", REPEATED)
        message = page.locator(".rx-message", has_text="repeats the column name 'age'").first
        expect(message).to_be_visible(timeout=60_000)
        assert not errors and not outside, (errors, outside)
    finally:
        for context in contexts:
            context.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
