"""Serve the dashboards (``dashboards/*.ipynb``) as web apps with Voila.

``python -m riskexplore dashboard [risk|checklist|all] [--port P] [--no-browser]``
(or ``python dashboards/launch.py ...``) starts Voila on localhost with the code hidden
(``--strip_sources=True``), tracebacks hidden, the light theme, and prints the URL:

* ``risk``: the risk score builder at ``http://127.0.0.1:P/``
* ``checklist``: the checklist builder at ``http://127.0.0.1:P/``
* ``all``: a page listing both (Voila serving the ``dashboards/`` directory), each at
  ``http://127.0.0.1:P/voila/render/<notebook>.ipynb``

Everything is served from the local installation (widget and plotly scripts included);
nothing is loaded from the internet. :func:`start_voila` is the same as a function (used by
the browser tests).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

__all__ = [
    "DASHBOARDS",
    "dashboards_dir",
    "free_port",
    "template_root",
    "main",
    "start_voila",
    "stop_process",
    "voila_command",
    "wait_listening",
]

#: Dashboard name -> notebook file in ``dashboards/``.
DASHBOARDS = {
    "risk": "risk_score_builder.ipynb",
    "checklist": "checklist_builder.ipynb",
}


def dashboards_dir() -> Path:
    """The ``dashboards/`` directory of the source tree (next to the package)."""
    here = Path(__file__).resolve().parent.parent / "dashboards"
    if not here.is_dir():
        raise FileNotFoundError(
            f"dashboards not found at {here}; install riskexplore from a source checkout "
            "(pip install -e '.[interface]')"
        )
    return here


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _port_free(port: int, host: str) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


#: Voila template "riskexplore": the "lab" template without its CDN stylesheet links (Font
#: Awesome is already bundled in Voila's own scripts), so a page loads nothing from the
#: internet.
TEMPLATE_NAME = "riskexplore"
_CDN_LINKS = (
    '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free'
    '@^5/css/all.min.css" type="text/css" />',
    '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free'
    '@^5/css/v4-shims.min.css" type="text/css" />',
)
_INDEX = (
    "{%- extends 'voila/templates/lab/index.html.j2' -%}\n"
    "{%- block notebook_css -%}\n"
    "{{ super()" + "".join(f" | replace({link!r}, '')" for link in _CDN_LINKS) + " }}\n"
    "<style>#rendered_cells h1{font-size:28px} .jp-RenderedMarkdown p{font-size:15px;"
    "max-width:820px}</style>\n"
    "{%- endblock notebook_css -%}\n"
)
_PAGE = """<!DOCTYPE HTML>
<html>
<head>
<meta charset="utf-8">
<title>{% block title %}riskexplore{% endblock %}</title>
<meta name="viewport" content="width=device-width, initial-scale=1.0">
{% block stylesheets %}{% endblock %}
{% block meta %}{% endblock %}
</head>
<body data-base-url="{{ base_url }}voila/" data-voila="voila">
<noscript><div id="noscript">This page needs JavaScript.</div></noscript>
<div>{% block body %}{% endblock %}</div>
{% block scripts %}{% endblock %}
</body>
</html>
"""


def template_root(directory: str | Path | None = None) -> Path:
    """Write the offline Voila template; returns the directory to prepend to JUPYTER_PATH.

    By default one fixed folder per user in the temporary directory, rewritten on each
    start (so launches do not leave a new folder behind every time).
    """
    import json
    import tempfile

    if directory is None:
        user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
        directory = Path(tempfile.gettempdir()) / f"riskexplore-voila-{user}"
    root = Path(directory)
    folder = root / "voila" / "templates" / TEMPLATE_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conf.json").write_text(json.dumps({"base_template": "lab"}) + "\n")
    (folder / "index.html.j2").write_text(_INDEX)
    (folder / "page.html").write_text(_PAGE)
    return root


def voila_command(
    which: str | Path = "risk",
    port: int = 8866,
    *,
    host: str = "127.0.0.1",
    theme: str = "light",
    preheat: bool = False,
    show_tracebacks: bool = False,
    extra: list[str] | None = None,
) -> tuple[list[str], str]:
    """The Voila command line for a dashboard (or any notebook or folder given as a
    ``Path``) and the URL it will serve the app at."""
    base = f"http://{host}:{port}"
    if isinstance(which, Path):
        target, url = str(which), f"{base}/"
    elif which == "all":
        root = dashboards_dir()
        target, url = str(root), f"{base}/"
    elif which in DASHBOARDS:
        target, url = str(dashboards_dir() / DASHBOARDS[which]), f"{base}/"
    else:
        raise ValueError(f"unknown dashboard {which!r}; use risk, checklist or all")
    cmd = [
        sys.executable,
        "-m",
        "voila",
        target,
        f"--port={port}",
        f"--Voila.ip={host}",
        "--no-browser",
        "--strip_sources=True",
        f"--show_tracebacks={show_tracebacks}",
        f"--theme={theme}",
        f"--template={TEMPLATE_NAME}",
        # the solves run for up to minutes: keep idle kernels of open pages alive
        "--MappingKernelManager.cull_idle_timeout=0",
    ]
    if preheat:
        cmd += ["--preheat_kernel=True", "--pool_size=1"]
    cmd += list(extra or [])
    return cmd, url


def wait_listening(host: str, port: int, proc: subprocess.Popen, timeout: float) -> None:
    """Wait until ``host:port`` accepts connections; fails if ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"voila exited with code {proc.returncode}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"voila did not listen on {host}:{port} within {timeout:.0f} s")


def stop_process(proc: subprocess.Popen, timeout: float = 20.0) -> None:
    """Terminate ``proc``, killing it if it has not stopped within ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def start_voila(
    which: str | Path = "risk",
    port: int | None = None,
    *,
    host: str = "127.0.0.1",
    theme: str = "light",
    preheat: bool = False,
    show_tracebacks: bool = False,
    timeout: float = 60.0,
    log_file=None,
    extra: list[str] | None = None,
) -> tuple[subprocess.Popen, str]:
    """Start Voila for a dashboard (or a notebook or folder given as a ``Path``) and wait
    until it answers; ``(process, url)``.

    The caller stops the process (:func:`stop_process`). ``log_file`` receives Voila's
    output (default: inherited).
    """
    if port is None:
        port = free_port(host)
    cmd, url = voila_command(
        which,
        port,
        host=host,
        theme=theme,
        preheat=preheat,
        show_tracebacks=show_tracebacks,
        extra=extra,
    )
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    extra_path = str(template_root())
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (extra_path, env.get("JUPYTER_PATH")) if p)
    if isinstance(which, Path):
        cwd = which if which.is_dir() else which.parent
    else:
        cwd = dashboards_dir()
    proc = subprocess.Popen(
        cmd,
        cwd=str(cwd),
        stdout=log_file,
        stderr=subprocess.STDOUT if log_file is not None else None,
        env=env,
    )
    try:
        wait_listening(host, port, proc, timeout)
    except BaseException:
        stop_process(proc, 10)
        raise
    return proc, url


def _open_browser(url: str) -> None:
    import webbrowser

    try:
        webbrowser.open(url)
    except Exception:  # no browser here: the printed URL is enough
        pass


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m riskexplore dashboard",
        description="Serve the risk score and checklist builders with Voila.",
    )
    p.add_argument(
        "which",
        nargs="?",
        default="risk",
        choices=["risk", "checklist", "all"],
        help="risk score builder, checklist builder, or both (default: risk)",
    )
    p.add_argument("--port", type=int, default=8866, help="port (default 8866; next free if busy)")
    p.add_argument("--ip", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--no-browser", action="store_true", help="only print the URL")
    p.add_argument("--theme", default="light", choices=["light", "dark"])
    p.add_argument(
        "--preheat", action="store_true", help="keep a kernel ready (faster first page load)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if shutil.which("voila") is None:
        try:
            import voila  # noqa: F401
        except ImportError:
            print(
                "error: voila is not installed; run: pip install -e '.[interface]'",
                file=sys.stderr,
            )
            return 2
    port = args.port
    if not _port_free(port, args.ip):
        port = free_port(args.ip)
    try:
        proc, url = start_voila(
            args.which, port, host=args.ip, theme=args.theme, preheat=args.preheat, timeout=120
        )
    except (RuntimeError, TimeoutError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    names = {"risk": "Risk score builder", "checklist": "Checklist builder"}
    if args.which == "all":
        print(f"Dashboards: {url}", flush=True)
        for key, nb in DASHBOARDS.items():
            print(f"  {names[key]}: {url}voila/render/{nb}", flush=True)
    else:
        print(f"{names[args.which]}: {url}", flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    if not args.no_browser:
        _open_browser(url)
    try:
        return proc.wait() or 0
    except KeyboardInterrupt:
        stop_process(proc, 10)
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
