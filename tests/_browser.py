"""Shared helpers of the browser tests (``test_*_browser.py``): Debian's headless Chromium
driven by Playwright's Python API (no browser is ever downloaded), Voila on a free localhost
port, and a page that may load nothing from outside localhost.

The ``browser`` fixture itself lives in ``conftest.py``; this module holds plain functions
and constants so that importing it needs neither Playwright nor a running browser.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from riskexplore.dashboard_cli import TEMPLATE_NAME, free_port, template_root

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
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


def stop(proc: subprocess.Popen) -> None:
    """Terminate ``proc`` (started by a test), killing it if it does not stop in time."""
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def wait_listening(host: str, port: int, proc: subprocess.Popen, timeout: float) -> None:
    """Wait until ``host:port`` accepts connections; fails if ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"the server did not listen on {host}:{port} within {timeout:.0f} s")


def serve_with_voila(
    target: Path,
    log_file,
    *,
    template_dir: Path | None = None,
    timeout: float = 120.0,
    extra: list[str] | None = None,
) -> tuple[subprocess.Popen, str]:
    """Serve a notebook or a directory of notebooks with Voila on a free localhost port,
    with the offline ``riskexplore`` template (nothing requested from a CDN); returns
    ``(process, base URL)`` once the port listens. The caller stops it with :func:`stop`.
    ``log_file`` receives Voila's output; the template is written to ``template_dir``
    (default: a new temporary directory).

    A directory's notebooks are at ``<base URL>voila/render/<name>.ipynb``."""
    host = "127.0.0.1"
    port = free_port(host)
    cmd = [
        sys.executable,
        "-m",
        "voila",
        str(target),
        f"--port={port}",
        "--no-browser",
        f"--Voila.ip={host}",
        f"--template={TEMPLATE_NAME}",
        "--MappingKernelManager.cull_idle_timeout=0",
        *(extra or []),
    ]
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    templates = str(template_root(template_dir))
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (templates, env.get("JUPYTER_PATH")) if p)
    cwd = target if target.is_dir() else target.parent
    proc = subprocess.Popen(cmd, cwd=str(cwd), stdout=log_file, stderr=subprocess.STDOUT, env=env)
    try:
        wait_listening(host, port, proc, timeout)
    except BaseException:
        stop(proc)
        raise
    return proc, f"http://{host}:{port}/"
