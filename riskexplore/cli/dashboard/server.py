"""The Voila server of the dashboards, as a process: its command line, the offline page
template, starting it and waiting until it listens, stopping it, free ports, the core
gate's directory of a server, and the warm-up of the searches' compiled code before it
starts.

:func:`start_voila` starts a server (without the kernel check of the ``dashboard``
command, :mod:`riskexplore.cli.dashboard.command`); the browser tests and benchmarks use it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from riskexplore.cli.dashboard.files import DASHBOARDS, dashboards_dir
from riskexplore.core.core_gate import CORES_VARIABLE, GATE_VARIABLE
from riskexplore.widgets.plotly_bundle import PLOTLY_URL_VARIABLE, plotly_module

__all__ = [
    "IOPUB_TIMEOUT",
    "LOGIN_PAGES",
    "PAGE_KERNELS",
    "PLOTLY_STALE_S",
    "TEMPLATE_NAME",
    "TORNADO_SETTINGS",
    "UNUSED_EXTENSIONS",
    "free_port",
    "gate_directory",
    "plotly_address",
    "port_free",
    "start_voila",
    "stop_process",
    "template_root",
    "voila_command",
    "wait_listening",
    "warm_up",
]

#: The kernel manager of the server (ends the kernels of pages that are gone).
PAGE_KERNELS = "riskexplore.cli.dashboard.kernels.PageKernelManager"

#: The identity provider of the server (its login page under the URL prefix).
LOGIN_PAGES = "riskexplore.cli.dashboard.login.PrefixedIdentityProvider"

#: Websocket keep-alive of the server (milliseconds): a ping every 10 s, and a connection
#: that has not answered for 30 s is closed (Jupyter's defaults, 30 s and 90 s, would let a
#: dropped connection hold its kernel for two minutes before the count even starts).
TORNADO_SETTINGS = {"ws_ping_interval": 10_000, "ws_ping_timeout": 30_000}

#: Seconds Voila waits, after a cell's reply, for the rest of the cell's output (its
#: ``VoilaExecutor.iopub_timeout``; nbclient's default is 4). The reply and the output come
#: on separate channels: on a busy machine (ten pages built at once on two cores) the
#: output lags seconds behind, and when the wait runs out Voila drops the rest of the cell's
#: output: the page opens without the widgets it displays (8 of 10 pages opened together
#: never showed their search button). A kernel that dies meanwhile ends the wait at once.
IOPUB_TIMEOUT = 120

#: JupyterLab extensions the pages do not load: plotly's own renderer (the pages draw every
#: plot with riskexplore's PlotView, which brings plotly.js itself once a plot is drawn);
#: it would make every page download and parse a second plotly.js (4.8 MB) while it opens.
UNUSED_EXTENSIONS = ("jupyterlab-plotly",)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now.

    Parameters
    ----------
    host : str
        The interface.

    Returns
    -------
    int
        The port.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_free(port: int, host: str) -> bool:
    """Whether ``port`` is free on ``host`` right now.

    Parameters
    ----------
    port : int
        The port.
    host : str
        The interface.

    Returns
    -------
    bool
        True when it can be bound.
    """
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
    "{%- block body_header -%}\n{{ super() }}\n"
    "<script>window.voila_process = function (cell, cells) {\n"
    "  var text = document.getElementById('loading_text');\n"
    "  if (text) { text.textContent = 'Step ' + cell + ' of ' + cells; }\n"
    "  var bar = document.getElementById('loading_bar');\n"
    "  if (bar) { bar.style.width = Math.round(100 * cell / cells) + '%'; }\n"
    "};</script>\n"
    "{%- endblock body_header -%}\n"
)
#: The page shown while its kernel runs the notebook: plain words and a bar that moves
#: as the notebook's cells run, instead of Voila's spinning logo and "Executing 3 of 12".
#: The spinner's endless animation cost headless Chromium about 0.07 of a core per page
#: waiting (ten pages opened together on the server's machine: about 40 CPU-seconds).
_LOADING = """{% macro css() %}
<style>
#loading { display: flex; flex-direction: column; align-items: center;
  justify-content: center; height: 75vh; font-family: sans-serif; position: relative;
  z-index: 100; color: var(--jp-content-font-color1); }
#loading_track { width: 320px; height: 6px; border-radius: 3px; background: #dde3ea; }
#loading_bar { width: 4%; height: 6px; border-radius: 3px; background: #268380; }
</style>
{% endmacro %}
{% macro html() %}
<div id="loading" style="display: flex;">
  <h2 id="loading_title">Preparing the dashboard…</h2>
  <div id="loading_track"><div id="loading_bar"></div></div>
  <p id="loading_text">This takes a few seconds.</p>
</div>
{% endmacro %}
"""
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


def _user() -> str:
    """This user's id (or name), for folders of one's own under the temporary directory."""
    return str(os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user"))


def template_root(directory: str | Path | None = None) -> Path:
    """Write the offline Voila template; returns the directory to prepend to JUPYTER_PATH.

    By default one fixed folder per user in the temporary directory, rewritten on each
    start (so launches do not leave a new folder behind every time).

    Parameters
    ----------
    directory : str or Path, optional
        Where to write it (default: a folder per user under the temporary directory).

    Returns
    -------
    Path
        The directory.
    """
    if directory is None:
        directory = Path(tempfile.gettempdir()) / f"riskexplore-voila-{_user()}"
    root = Path(directory)
    folder = root / "voila" / "templates" / TEMPLATE_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conf.json").write_text(json.dumps({"base_template": "lab"}) + "\n")
    (folder / "index.html.j2").write_text(_INDEX)
    (folder / "page.html").write_text(_PAGE)
    (folder / "spinner.macro.html.j2").write_text(_LOADING)
    _write_plotly(folder / "static")
    return root


#: Seconds after which another plotly version's module in the template's static folder is
#: removed: servers of other environments (another plotly) may share the folder, and each
#: start marks its own file as in use.
PLOTLY_STALE_S = 7 * 24 * 3600


def _write_plotly(static: Path) -> str:
    """Write plotly.js as an ES module into the template's static folder (which Voila
    serves under ``voila/static/``) unless it is there already; its file name.

    The folder is the user's own under the temporary directory (:func:`template_root`),
    never the installed package, which may be read-only. Written under a temporary name and
    renamed, so a server starting at the same time never serves half a file; other plotly
    versions' files not used for :data:`PLOTLY_STALE_S` seconds are removed (a server of
    another environment may still serve its own).

    Parameters
    ----------
    static : Path
        The folder.

    Returns
    -------
    str
        The file's name.
    """
    digest, content = plotly_module()
    name = f"plotly-{digest}.js"
    static.mkdir(parents=True, exist_ok=True)
    target = static / name
    if not target.is_file() or target.stat().st_size != len(content):
        partial = static / f".{name}.{os.getpid()}"
        partial.write_bytes(content)
        os.replace(partial, target)
    os.utime(target)  # in use
    for old in static.glob("plotly-*.js"):
        try:
            stale = time.time() - old.stat().st_mtime > PLOTLY_STALE_S
        except OSError:  # removed by another server meanwhile
            continue
        if old.name != name and stale:
            old.unlink(missing_ok=True)
    return name


def plotly_address(base_url: str = "/") -> str:
    """The address where a dashboard server with prefix ``base_url`` serves plotly.js (what
    its kernels' :class:`~riskexplore.widgets.plot_view.PlotlyLibrary` sends the page
    instead of the bundle). The digest in the query makes the browser keep the file.

    Parameters
    ----------
    base_url : str
        The prefix of every page (``/`` or ``/prefix/``).

    Returns
    -------
    str
        The address (a path on the server).
    """
    digest, _content = plotly_module()
    return f"{base_url}voila/static/plotly-{digest}.js?v={digest}"


def voila_command(
    which: str | Path = "risk",
    port: int = 8866,
    *,
    host: str = "127.0.0.1",
    theme: str = "light",
    preheat: bool | int = False,
    show_tracebacks: bool = False,
    token: str | None = None,
    base_url: str = "/",
    extra: list[str] | None = None,
) -> tuple[list[str], str]:
    """The Voila command line for a dashboard (or any notebook or folder given as a
    ``Path``) and the URL it will serve the app at.

    Parameters
    ----------
    which : {"risk", "checklist", "all"} or Path
        The dashboard, or a notebook or folder.
    port : int
        The port.
    host : str
        The interface.
    theme : str
        Voila's theme.
    preheat : bool or int
        Kernels kept ready per notebook, each with the notebook already run (``True``: one;
        ``False`` or 0: none, each page starts its own).
    show_tracebacks : bool
        Show Python tracebacks on the page.
    token : str, optional
        The token every page requires (default: none; see
        :mod:`riskexplore.cli.dashboard.access`).
    base_url : str
        The prefix of every page (``/`` or ``/prefix/``).
    extra : list of str, optional
        Further Voila arguments. One that names an option this command already sets
        (``--Voila.tornado_settings=...``) replaces it: Voila refuses an option given twice
        when its value is a dict.

    Returns
    -------
    tuple
        ``(command, url)``: the URL of the server's first page, without the token.
    """
    url = f"http://{host}:{port}{base_url}"
    if isinstance(which, Path):
        target = str(which)
    elif which == "all":
        target = str(dashboards_dir())
    elif which in DASHBOARDS:
        target = str(dashboards_dir() / DASHBOARDS[which])
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
        # a page's kernel lives while the page is connected (searches run for minutes) and
        # ends soon after the page is gone (riskexplore.cli.dashboard.kernels)
        f"--VoilaConfiguration.multi_kernel_manager_class={PAGE_KERNELS}",
        f"--Voila.tornado_settings={json.dumps(TORNADO_SETTINGS)}",
        f"--Voila.base_url={base_url}",
        f"--Voila.identity_provider_class={LOGIN_PAGES}",
        f"--VoilaConfiguration.extension_denylist={json.dumps(list(UNUSED_EXTENSIONS))}",
        f"--VoilaExecutor.iopub_timeout={IOPUB_TIMEOUT}",
    ]
    if token:
        cmd.append(f"--Voila.token={token}")
    if preheat:
        cmd += ["--preheat_kernel=True", f"--pool_size={int(preheat)}"]
    return _with_overrides(cmd, list(extra or [])), url


def _option_name(argument: str) -> str | None:
    """``--Class.option`` of a ``--Class.option=value`` argument, else None."""
    if not argument.startswith("--") or "=" not in argument:
        return None
    return argument.split("=", 1)[0]


def _with_overrides(cmd: list[str], extra: list[str]) -> list[str]:
    """``cmd`` then ``extra``, without the arguments of ``cmd`` that ``extra`` sets again."""
    replaced = {_option_name(a) for a in extra} - {None}
    return [a for a in cmd if _option_name(a) not in replaced] + extra


def wait_listening(host: str, port: int, proc: subprocess.Popen, timeout: float) -> None:
    """Wait until ``host:port`` accepts connections; fails if ``proc`` exits first.

    Parameters
    ----------
    host : str
        The interface.
    port : int
        The port.
    proc : subprocess.Popen
        The server process.
    timeout : float
        Seconds to wait.

    Raises
    ------
    RuntimeError
        If the process exits first.
    TimeoutError
        If the port does not open in time.
    """
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
    """Terminate ``proc``, killing it if it has not stopped within ``timeout`` seconds.

    Parameters
    ----------
    proc : subprocess.Popen
        The process.
    timeout : float
        Seconds to wait after terminating it.
    """
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def warm_up(timeout: float = 300.0) -> dict[str, float] | None:
    """Compile the searches' numba code before serving (in a child process:
    :mod:`~riskexplore.cli.dashboard.warm_up`); None if that failed (the server still
    starts: its first searches compile the code themselves).

    Parameters
    ----------
    timeout : float
        Seconds to wait for it.

    Returns
    -------
    dict or None
        Seconds per family, or None.
    """
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "riskexplore.cli.dashboard.warm_up"],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return None


def gate_directory(port: int) -> Path:
    """The core gate's directory of the server on ``port`` (one per user and port, under the
    temporary directory; see :mod:`riskexplore.core.core_gate`).

    Parameters
    ----------
    port : int
        The server's port.

    Returns
    -------
    Path
        The directory (not created).
    """
    return Path(tempfile.gettempdir()) / f"riskexplore-cores-{_user()}" / str(port)


def _server_environment(port: int, cores: int | None, base_url: str = "/") -> dict[str, str]:
    """The environment of the server on ``port``: the offline template on ``JUPYTER_PATH``,
    the core gate of its searches and the address of plotly.js for its kernels (see
    :func:`start_voila`).

    Parameters
    ----------
    port : int
        The server's port.
    cores : int or None
        Searches that may run at once (default: one per core).
    base_url : str
        The prefix of every page.

    Returns
    -------
    dict
        The environment.

    Raises
    ------
    ValueError
        If ``cores`` is not a whole number of at least 1.
    """
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    extra_path = str(template_root())
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (extra_path, env.get("JUPYTER_PATH")) if p)
    if cores is not None and (isinstance(cores, bool) or not isinstance(cores, int) or cores < 1):
        raise ValueError(f"cores must be a whole number of at least 1, got {cores!r}")
    env[GATE_VARIABLE] = str(gate_directory(port))
    env[CORES_VARIABLE] = str(cores or os.cpu_count() or 1)
    env[PLOTLY_URL_VARIABLE] = plotly_address(base_url)
    return env


def start_voila(
    which: str | Path = "risk",
    port: int | None = None,
    *,
    host: str = "127.0.0.1",
    theme: str = "light",
    preheat: bool | int = False,
    show_tracebacks: bool = False,
    token: str | None = None,
    base_url: str = "/",
    timeout: float = 60.0,
    log_file=None,
    extra: list[str] | None = None,
    cores: int | None = None,
) -> tuple[subprocess.Popen, str]:
    """Start Voila for a dashboard (or a notebook or folder given as a ``Path``) and wait
    until it answers; ``(process, url)``.

    The caller stops the process (:func:`stop_process`). ``log_file`` receives Voila's
    output (default: inherited).

    Parameters
    ----------
    which : {"risk", "checklist", "all"} or Path
        The dashboard, or a notebook or folder.
    port : int, optional
        The port (default: a free one).
    host, theme, preheat, show_tracebacks, token, base_url, extra
        As for :func:`voila_command`.
    timeout : float
        Seconds to wait for the server.
    log_file : file, optional
        Where Voila's output goes.
    cores : int, optional
        Searches of the pages that may run at once (default: one per core of the
        machine); the others wait in line (:mod:`riskexplore.core.core_gate`).

    Returns
    -------
    tuple
        ``(process, url)``.
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
        token=token,
        base_url=base_url,
        extra=extra,
    )
    env = _server_environment(port, cores, base_url)
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
