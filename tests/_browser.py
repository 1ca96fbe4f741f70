"""Shared helpers of the browser tests (``test_*_browser.py``): Debian's headless Chromium
driven by Playwright's Python API (no browser is ever downloaded), and a page that may load
nothing from outside localhost.

The ``browser`` fixture itself lives in ``conftest.py``; this module holds plain functions
and constants so that importing it needs neither Playwright nor a running browser. Servers are
started and stopped with :mod:`riskexplore.cli.dashboard.server` (``start_voila``,
``wait_listening``, ``stop_process``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from _gallery import gallery

from riskexplore.cli.dashboard.server import start_voila, stop_process

#: Server options for tests that only need a gone page's kernel to end, not the launcher's
#: timings (its 45 s wait, checked every 5 s: ``test_kernel_lifecycle.py`` tests those):
#: ended 3 s after its page is gone, checked every second.
QUICK_PAGE_END = ["--PageKernelManager.page_gone_timeout=3", "--PageKernelManager.check_interval=1"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
#: How long a dashboard may take to show its first button: kernel start + plotly import +
#: widget scripts on a busy machine.
DASHBOARD_LOAD_MS = 180_000
#: URL prefixes a page may load; everything else is blocked and recorded.
LOCAL_PREFIXES = ("http://127.0.0.1", "http://localhost", "data:", "blob:")


def ensure_chromium() -> None:
    """Install Debian's chromium package if it is missing (never a downloaded browser)."""
    if Path(CHROMIUM).exists():
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium package (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)


def block_outside(context) -> list[str]:
    """Let ``context`` load only local URLs; returns the (growing) list of blocked URLs."""
    outside: list[str] = []

    def only_local(route):
        target = route.request.url
        if target.startswith(LOCAL_PREFIXES):
            return route.continue_()
        outside.append(target)
        return route.abort()

    context.route("**/*", only_local)
    return outside


def watched_page(browser, width: int, height: int):
    """A new page in a new context that loads only local URLs.

    Returns ``(context, page, errors, outside)``: the page's uncaught errors and the URLs
    blocked, both growing lists that a test asserts empty at its end.
    """
    context = browser.new_context(viewport={"width": width, "height": height})
    outside = block_outside(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors, outside


def explorer_cell(notebook: Path) -> int:
    """The index of the cell of ``notebook`` (the starter) that displays the Explorer."""
    cells = json.loads(Path(notebook).read_text())["cells"]
    return next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("ex = Explorer("))


def button(page, text: str):
    """The button whose text is exactly ``text`` (icons ignored)."""
    return page.locator("button", has_text=re.compile(rf"^\W*{re.escape(text)}\s*$")).first


def upload_csv(page, name: str, content: bytes) -> None:
    """Choose a CSV file in a dashboard's "Upload a CSV file" button."""
    with page.expect_file_chooser(timeout=30_000) as chooser:
        page.locator("button", has_text="Upload a CSV file").first.click()
    chooser.value.set_files(files=[{"name": name, "mimeType": "text/csv", "buffer": content}])


def open_study_file(page, name: str, content: bytes) -> None:
    """Choose a study file in a dashboard's "Open a study file" button."""
    with page.expect_file_chooser(timeout=30_000) as chooser:
        page.locator("button", has_text="Open a study file").first.click()
    chooser.value.set_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": content}]
    )


def card_clear_of_certificate(scope) -> bool:
    """Whether the first model card under ``scope`` (a locator) and its certificate keep
    apart (at least 4 px), beside each other or one under the other."""
    card = scope.locator(".rx-model-card").first
    a = card.locator(".rx-card, .rx-checklist").first.bounding_box()
    b = card.locator(".rx-certificate").first.bounding_box()
    gap = 4
    return (
        a["x"] + a["width"] + gap <= b["x"]
        or b["x"] + b["width"] + gap <= a["x"]
        or a["y"] + a["height"] + gap <= b["y"]
        or b["y"] + b["height"] + gap <= a["y"]
    )


#: Gallery pictures taken by the running test: ``{path: page code hashes}``, kept in
#: ``artifacts/gallery.json`` only if the test passes (``browser/conftest.py``).
TAKEN: dict[Path, dict[str, str]] = {}


def screenshot(target, path: Path, **options) -> None:
    """``target.screenshot`` (a page or a locator) to ``path``; a picture of the docs'
    gallery (``docs/_static/gallery/sources.json``) also notes the hashes of the page code
    it shows, now (``docs/scripts/gallery.py`` copies it with them)."""
    target.screenshot(path=str(path), **options)
    print(f"screenshot: {path}")
    hashes = gallery.record(path)
    if hashes is not None:
        TAKEN[Path(path)] = hashes


def full_page_screenshot(page, path: Path) -> None:
    """A screenshot of a whole Voila page (it scrolls inside a container, not the body:
    the viewport is made as tall as its content first, at most 9,000 pixels)."""
    height = page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('*'), e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": 1280, "height": min(max(int(height), 1000), 9000)})
    page.wait_for_timeout(500)
    screenshot(page, path, full_page=True)


@contextlib.contextmanager
def risk_dashboard(browser, tmp_path: Path, picture: Path):
    """The risk dashboard served by Voila, open in a page 1280 pixels wide that loads
    nothing from outside, its *Find the best score* button shown.

    Yields ``(page, outside)`` (``outside``: the URLs blocked, for the test to assert
    empty); on leaving, a full-page screenshot to ``picture``, then the page and the server
    are closed.
    """
    log = open(tmp_path / "voila.log", "w")
    proc, url = start_voila("risk", timeout=120, log_file=log)
    context, page, _errors, outside = watched_page(browser, 1280, 1000)
    picture.parent.mkdir(exist_ok=True)
    try:
        page.goto(url, timeout=DASHBOARD_LOAD_MS)
        button(page, "Find the best score").wait_for(state="visible", timeout=DASHBOARD_LOAD_MS)
        yield page, outside
    finally:
        full_page_screenshot(page, picture)
        context.close()
        stop_process(proc)
        log.close()


def settle_gallery(passed: bool) -> None:
    """After a test: keep its gallery pictures' hashes if it passed, else forget them."""
    by_folder: dict[Path, dict] = {}
    for path, hashes in TAKEN.items():
        by_folder.setdefault(path.parent, {})[path.name] = hashes if passed else None
    TAKEN.clear()
    for folder, taken in by_folder.items():
        gallery.keep(folder, taken)


def kernel_pids(server_pid: int) -> list[int]:
    """The Python kernels (``ipykernel``) started by the server process ``server_pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:  # ended meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == server_pid and b"ipykernel" in cmdline:
            out.append(int(entry.name))
    return sorted(out)


def rss_mb(pids: list[int]) -> float:
    """The resident memory of processes ``pids`` together, in MB (ended ones count 0)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def cpu_idle(pid: int, window: float = 1.0) -> bool:
    """Whether process ``pid`` used under 5% of a core over ``window`` seconds (an ended
    process is idle)."""

    def ticks():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return int(fields[11]) + int(fields[12])

    a = ticks()
    time.sleep(window)
    b = ticks()
    if a is None or b is None:
        return True
    return (b - a) / os.sysconf("SC_CLK_TCK") < 0.05 * window


def wait_pool_ready(server_pid: int, pool: int, timeout: float) -> float | None:
    """Seconds until the server's ``pool`` ready kernels have started and run the notebook
    (each idle over two checks in a row: a kernel is busy from its start until the page is
    built), or None after ``timeout`` seconds. Polled, so a test waits only as long as the
    pool takes on this machine, instead of a fixed sleep sized for a busy one."""
    start = time.monotonic()
    idle_checks = 0
    while time.monotonic() - start < timeout:
        pids = kernel_pids(server_pid)
        ready = len(pids) >= pool and all(cpu_idle(p) for p in pids)
        idle_checks = idle_checks + 1 if ready else 0
        if idle_checks >= 2:
            return round(time.monotonic() - start, 1)
        if not ready:
            time.sleep(1)
    return None


def wait_for(check, timeout: float, every: float = 1.0):
    """Poll ``check()`` until it returns a true value or ``timeout`` seconds pass; returns
    ``(value, seconds waited)`` (the caller asserts on the value)."""
    start = time.monotonic()
    value = check()
    while not value and time.monotonic() - start < timeout:
        time.sleep(every)
        value = check()
    return value, time.monotonic() - start


class FreezingProxy:
    """A TCP relay from a free localhost port to ``port`` whose :meth:`freeze` stops
    relaying in both directions while keeping every socket open: to the server, the
    browser behind it has dropped off the network without closing its connections."""

    def __init__(self, port: int, host: str = "127.0.0.1"):
        self.target = (host, port)
        self.frozen = threading.Event()
        self._sockets: list[socket.socket] = []
        self._listener = socket.create_server((host, 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._relay, args=(a, b), daemon=True).start()

    def _relay(self, source: socket.socket, sink: socket.socket) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                if not self.frozen.is_set():
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)
                return
            if not self.frozen.is_set():
                with contextlib.suppress(OSError):
                    sink.sendall(data)

    def freeze(self) -> None:
        """Drop everything from now on, closing nothing."""
        self.frozen.set()

    def close(self) -> None:
        """Close the listener and every relayed socket."""
        for s in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                s.close()
