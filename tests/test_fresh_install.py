"""The README's first command, proven from scratch as a newcomer runs it.

A copy of this checkout (the files git tracks or would track, as ``git clone`` gives them
plus uncommitted edits) gets a new virtual environment made by the README's own setup
command, read from ``README.md`` (so the test follows the README when it changes): only the
extras that command installs, no packages of the test environment, no user or test
settings of Jupyter. Then each launch command is run exactly as written, in that copy:

* ``README.md``'s first command (the risk score builder);
* the same with ``dashboard checklist`` (the checklist builder, as the README names it);
* ``dashboards/README.md``'s launch command (``python dashboards/launch.py risk``).

For each, headless Chromium (Debian's, through Playwright; ``browser`` fixture in
``conftest.py``) opens the printed URL and must show the "Find the best score" (or
"checklist") button, and a live kernel must answer: a CSV whose header repeats a column
name is uploaded and the page names the repeated column. SIGTERM then stops the launcher
and its Voila server. One environment serves the three launches (module-scoped fixture).

The README's "In Jupyter" command is proven the same way, in a second copy with its own
new environment made by that command's setup part alone (only the ``lab`` extra): its
launch part (``jupyter lab notebooks/00_explore.ipynb``) runs as written; the URL is read
from what JupyterLab prints, and the page JupyterLab asks the browser to open
(``BROWSER`` is a script that records it) must be that server, on the port and with the
token the test chose (``ServerApp.port`` in the test's empty Jupyter configuration,
``JUPYTER_TOKEN``), on the starter notebook. Headless Chromium opens it, runs the
notebook with the menu's Run > Run All Cells, and must see the Explorer's first live plot
drawn and redrawn by the kernel while its search runs. (Tests run as root: that
configuration also sets ``allow_root``, as ``--allow-root`` would.)

Installed from a wheel: ``python -m build`` makes the sdist and, from it, the wheel of a
copy of the checkout; a new environment gets ``<wheel>[interface]`` and the copy is deleted.
Both carry the dashboards (byte for byte the checkout's, ``setup.py`` copies them), and
``riskexplore dashboard all`` and ``dashboard checklist``, run in an empty folder, serve live
pages.

Cost: each environment is one ``pip install`` from the local package index (the
interface extra about 1-2 minutes, the lab extra about as much again on two busy cores);
the three dashboard launches share the first one. The three environments are made side by
side from the module's start (fixture ``environments``), so the wheel's and JupyterLab's
are ready, or nearly, when their tests come.

Select it alone with ``pytest -m fresh_install``; ``.ci/run`` runs it with the suite.
"""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _browser import block_outside, button, explorer_cell, upload_csv, watched_page
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import free_port

pytestmark = pytest.mark.fresh_install

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DASHBOARDS_README = ROOT / "dashboards" / "README.md"
ARTIFACTS = ROOT / "artifacts"
LOAD_TIMEOUT_MS = 180_000  # kernel start + imports on a busy machine
REPEATED = b"sick,age,smoker,age\n1,70,1,1\n0,40,0,0\n1,65,1,1\n0,30,1,0\n"
REPEATED_MESSAGE = "repeated.csv repeats the column name 'age' (columns 2 and 4)"


def first_command(readme: Path) -> str:
    """The first line of ``readme`` that sets up a virtual environment."""
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("python3 -m venv"):
            return line
    raise AssertionError(f"{readme} has no line starting with 'python3 -m venv'")


def section_command(readme: Path, heading: str) -> str:
    """The first line that sets up a virtual environment in the section ``## heading``."""
    inside = False
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() == heading
        elif inside and line.startswith("python3 -m venv"):
            return line
    raise AssertionError(f"{readme} has no section {heading!r} with a 'python3 -m venv' line")


def setup_and_launch(command: str) -> tuple[str, str]:
    """``python3 -m venv .venv && pip install ... && LAUNCH`` -> (setup part, LAUNCH)."""
    *setup, launch = command.split(" && ")
    assert setup and setup[0] == "python3 -m venv .venv", command
    return " && ".join(setup), launch


def launches() -> list[tuple[str, str, str]]:
    """(label, launch command as written, button word) for the three launches."""
    _, risk = setup_and_launch(first_command(README))
    assert " dashboard risk" in risk, risk
    # the README names the checklist builder as "... dashboard checklist"
    assert "`... dashboard checklist`" in README.read_text(encoding="utf-8")
    checklist = risk.replace(" dashboard risk", " dashboard checklist")
    _, launcher = setup_and_launch(first_command(DASHBOARDS_README))
    return [
        ("readme_risk", risk, "score"),
        ("readme_checklist", checklist, "checklist"),
        ("dashboards_readme", launcher, "score"),
    ]


def _copy_checkout(dest: Path) -> None:
    """The files of this checkout that a clone has (tracked, or new and not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # listed but deleted in the work tree: not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _newcomer_env(home: Path) -> dict[str, str]:
    """This environment without the test venv (not on PATH, no VIRTUAL_ENV or PYTHONPATH)
    and with empty Jupyter and IPython settings, so that only what the new environment
    installs can serve the page. ``BROWSER=true``: the launcher's "open a browser" runs
    ``true`` (a test has no screen)."""
    test_bin = Path(sys.prefix) / "bin"
    drop = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "IPYTHONDIR"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("JUPYTER")}
    paths = env.get("PATH", os.defpath).split(os.pathsep)
    env["PATH"] = os.pathsep.join(p for p in paths if Path(p) != test_bin)
    for key, folder in (
        ("JUPYTER_DATA_DIR", "jupyter-data"),
        ("JUPYTER_CONFIG_DIR", "jupyter-config"),
        ("IPYTHONDIR", "ipython"),
    ):
        (home / folder).mkdir()
        env[key] = str(home / folder)
    env["BROWSER"] = "true"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _set_up(setups, base: Path) -> tuple[Path, dict[str, str]]:
    """A new copy of the checkout in ``base`` in which each setup command ran: (folder, env)."""
    folder = base / "riskexplore"
    _copy_checkout(folder)
    env = _newcomer_env(base)
    for setup in dict.fromkeys(setups):
        started = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", setup],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        tail = (done.stdout + done.stderr)[-3000:]
        assert done.returncode == 0, f"{setup!r} failed:\n{tail}"
        print(f"setup {setup!r}: {time.monotonic() - started:.0f} s")
    return folder, env


def _make_fresh(base: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the checkout set up by the READMEs' setup commands: (folder, env)."""
    # one command today: both READMEs install the same extra
    setups = [setup_and_launch(first_command(r))[0] for r in (README, DASHBOARDS_README)]
    return _set_up(setups, base)


@pytest.fixture(scope="module")
def environments(request, tmp_path_factory) -> Iterator[dict[str, Future]]:
    """The module's new environments, made side by side from the start of the module, each
    in a thread of its own: ``{fixture name: future of its value}``, for the fixtures the
    selected tests use. Each is mostly one ``pip install`` (unpacking and compiling files
    on one core), so on two cores the three take about the time of the longest rather than
    their sum, and the later ones are ready when their tests come. The environments are
    independent: each has its own copy, folder and pip process."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the files a clone has)")
    makers = {"fresh": _make_fresh, "from_wheel": _make_wheel, "fresh_lab": _make_lab}
    used = {
        name
        for item in request.session.items
        if item.path == request.path
        for name in item.fixturenames
        if name in makers
    }
    workers = ThreadPoolExecutor(max_workers=max(len(used), 1))
    # folders made here, in order: tmp_path_factory is not shared between threads
    futures = {
        name: workers.submit(make, tmp_path_factory.mktemp(name))
        for name, make in makers.items()
        if name in used
    }
    try:
        yield futures
    finally:
        workers.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def fresh(environments) -> tuple[Path, dict[str, str]]:
    """A copy of the checkout set up by the READMEs' setup commands: (folder, env)."""
    return environments["fresh"].result()


def test_the_new_environment_has_only_what_the_readme_installs(fresh):
    folder, env = fresh
    python = folder / ".venv" / "bin" / "python"
    probe = (
        "import importlib.util, json, sys; print(json.dumps([sys.prefix, sys.path, "
        "[m for m in ('pytest', 'playwright', 'ipykernel', 'voila', 'riskexplore') "
        "if importlib.util.find_spec(m)]]))"
    )
    done = subprocess.run([python, "-c", probe], cwd=folder, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    prefix, path, found = json.loads(done.stdout)
    assert Path(prefix) == folder / ".venv"
    assert not [p for p in path if p.startswith(sys.prefix)], "sees the test venv"
    # test-only packages are absent; the interface extra brings a kernel and Voila
    assert found == ["ipykernel", "voila", "riskexplore"], found
    kernels = subprocess.run(
        [folder / ".venv" / "bin" / "jupyter", "kernelspec", "list", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    specs = json.loads(kernels.stdout)["kernelspecs"]
    assert specs, kernels.stderr
    for name, spec in specs.items():  # the only kernels are the new environment's
        assert spec["resource_dir"].startswith(str(folder / ".venv")), (name, spec)


#: The line a dashboard launcher prints with its URL.
DASHBOARD_URL = re.compile(r"(Risk score builder|Checklist builder): (?P<url>http://\S+)")


@contextmanager
def launched(
    command: str, folder: Path, env: dict[str, str], printed: re.Pattern = DASHBOARD_URL
) -> Iterator[tuple[str, list[str]]]:
    """Run a launch command as written (bash, in ``folder``) until it prints a URL (the
    group ``url`` of ``printed``); yields that URL and the lines printed so far (a list
    that grows). On exit SIGTERM must stop it (exit 0) and its server."""
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, to clean up after a failure
    )
    lines: list[str] = []

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    url = None
    try:
        deadline = time.monotonic() + 240
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            for line in list(lines):
                found = printed.search(line)
                if found:
                    url = found.group("url")
                    break
            time.sleep(0.2)
        assert url, f"{command!r} printed no URL (exit {proc.poll()}):\n{''.join(lines)}"
        yield url, lines
        proc.send_signal(signal.SIGTERM)  # as `kill` would: the launcher stops its server
        assert proc.wait(60) == 0, "".join(lines[-20:])
        address = urlsplit(url)
        with pytest.raises(OSError):  # the server stopped with the launcher
            socket.create_connection((address.hostname, address.port), timeout=2).close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        reader.join(10)


LAUNCHES = launches()


@pytest.mark.parametrize(("label", "command", "word"), LAUNCHES, ids=[c[0] for c in LAUNCHES])
def test_readme_command_serves_a_live_dashboard(fresh, browser, label, command, word):
    folder, env = fresh
    with launched(command, folder, env) as (url, _lines):
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        outside = block_outside(context)
        page = context.new_page()
        try:
            page.goto(url, timeout=LOAD_TIMEOUT_MS)
            solve = button(page, f"Find the best {word}")
            solve.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
            # the kernel is live: an upload goes to it and its verdict comes back
            upload_csv(page, "repeated.csv", REPEATED)
            message = page.locator(".rx-message", has_text=REPEATED_MESSAGE).first
            expect(message).to_be_visible(timeout=60_000)
            body = page.locator("body").inner_text()
            assert "Traceback" not in body and "Internal Server Error" not in body
            assert not outside, f"requests outside localhost: {outside}"
        finally:
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / f"fresh_install_{label}.png"
            page.screenshot(path=str(shot))
            print(f"screenshot: {shot}")
            context.close()


# --- installed from a wheel, without the checkout ------------------------------------------
def _make_wheel(base: Path) -> tuple[Path, Path, dict[str, str], list[str]]:
    """The wheel and the sdist built (``python -m build``: the wheel from the sdist) from a
    copy of the checkout, and a new environment with ``<wheel>[interface]`` installed, in a
    folder that holds no checkout: (environment, folder, env, names in the sdist)."""
    source, dist, home = base / "source", base / "dist", base / "home"
    _copy_checkout(source)
    env = _newcomer_env(base)
    steps = [
        [sys.executable, "-m", "build", "--outdir", str(dist), str(source)],
        ["python3", "-m", "venv", str(base / "venv")],
    ]
    for step in steps:
        started = time.monotonic()
        done = subprocess.run(step, cwd=base, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{step} failed:\n{(done.stdout + done.stderr)[-3000:]}"
        print(f"{' '.join(map(str, step[-3:]))}: {time.monotonic() - started:.0f} s")
    shutil.rmtree(source)  # nothing of the checkout is left to find
    (wheel,) = dist.glob("riskexplore-*.whl")
    (sdist,) = dist.glob("riskexplore-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    started = time.monotonic()
    pip = [str(base / "venv" / "bin" / "pip"), "install", "-q", f"{wheel}[interface]"]
    done = subprocess.run(pip, cwd=base, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"pip install failed:\n{(done.stdout + done.stderr)[-3000:]}"
    print(f"pip install {wheel.name}[interface]: {time.monotonic() - started:.0f} s")
    home.mkdir()
    return base / "venv", home, env, names


@pytest.fixture(scope="module")
def from_wheel(environments) -> tuple[Path, Path, dict[str, str], list[str]]:
    """The environment installed from the wheel (:func:`_make_wheel`)."""
    return environments["from_wheel"].result()


#: Each app's line of ``dashboard all``.
ALL_URLS = re.compile(r"(?P<name>Risk score builder|Checklist builder): (?P<url>http://\S+)")


def test_the_sdist_and_the_wheel_carry_the_dashboards(from_wheel):
    venv, _home, _env, sdist_names = from_wheel
    for notebook in ("risk_score_builder.ipynb", "checklist_builder.ipynb"):
        assert any(n.endswith(f"/dashboards/{notebook}") for n in sdist_names), notebook
        installed = list(venv.glob(f"lib/python*/site-packages/riskexplore/dashboards/{notebook}"))
        assert installed, f"{notebook} not installed"
        # one source: the installed copy is the checkout's notebook, byte for byte
        assert installed[0].read_bytes() == (ROOT / "dashboards" / notebook).read_bytes()


@pytest.mark.parametrize("which", ["all", "checklist"])
def test_an_installed_wheel_serves_the_dashboards(from_wheel, browser, which):
    venv, home, env, _names = from_wheel
    command = f"{venv / 'bin' / 'riskexplore'} dashboard {which} --no-browser --port {free_port()}"
    with launched(command, home, env) as (_url, lines):
        wait = time.monotonic() + 10
        pages = {}
        while time.monotonic() < wait and len(pages) < (2 if which == "all" else 1):
            pages = {m["name"]: m["url"] for m in map(ALL_URLS.search, list(lines)) if m}
            time.sleep(0.2)
        assert len(pages) == (2 if which == "all" else 1), "".join(lines)
        for name, url in pages.items():
            word = "score" if name.startswith("Risk") else "checklist"
            context, page, errors, outside = watched_page(browser, 1280, 1000)
            try:
                page.goto(url, timeout=LOAD_TIMEOUT_MS)
                button(page, f"Find the best {word}").wait_for(
                    state="visible", timeout=LOAD_TIMEOUT_MS
                )
                upload_csv(page, "repeated.csv", REPEATED)  # the kernel answers
                message = page.locator(".rx-message", has_text=REPEATED_MESSAGE).first
                expect(message).to_be_visible(timeout=60_000)
                assert not outside and not errors, (outside, errors)
            finally:
                context.close()


# --- the README's "In Jupyter" command -----------------------------------------------------
JUPYTER_SETUP, JUPYTER_LAUNCH = setup_and_launch(section_command(README, "In Jupyter"))
#: The URL JupyterLab prints (a token given by ``JUPYTER_TOKEN`` is printed as ``...``).
LAB_URL = re.compile(r"(?P<url>http://127\.0\.0\.1:\d+/lab\S*)\?token=\S+")
#: The token the test gives JupyterLab (``JUPYTER_TOKEN``), so that no other server passes.
LAB_TOKEN = secrets.token_hex(16)


def _make_lab(base: Path) -> tuple[Path, dict[str, str]]:
    """Another copy, set up by the "In Jupyter" command's setup part alone."""
    return _set_up([JUPYTER_SETUP], base)


@pytest.fixture(scope="module")
def fresh_lab(environments) -> tuple[Path, dict[str, str]]:
    """The copy set up for JupyterLab (:func:`_make_lab`), with the test's Jupyter settings."""
    folder, env = environments["fresh_lab"].result()
    # the port and the token are the test's (no clash with another JupyterLab on 8888)
    server: dict[str, object] = {"port": free_port(), "port_retries": 0}
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # a newcomer is not root; tests are
        server["allow_root"] = True
    config = Path(env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.json"
    config.write_text(json.dumps({"ServerApp": server}))
    env["JUPYTER_TOKEN"] = LAB_TOKEN
    # the "web browser" JupyterLab starts: records what it is asked to open
    recorder = folder.parent / "browser.sh"
    recorder.write_text(f'#!/bin/sh\necho "$1" >> {folder.parent / "opened.txt"}\n')
    recorder.chmod(0o755)
    env["BROWSER"] = str(recorder)
    return folder, env


def _opened_url(folder: Path) -> str | None:
    """The URL the "web browser" was asked to open (JupyterLab gives a local HTML file that
    redirects to it), or None yet."""
    opened = folder.parent / "opened.txt"
    if not opened.exists() or not opened.read_text().strip():
        return None
    target = opened.read_text().split()[0]
    if not target.startswith("file://"):
        return target
    page = Path(urlsplit(target).path).read_text()
    found = re.search(r'url=([^"]+)"', page)
    return html.unescape(found.group(1)) if found else None


#: Points of the plot whose title starts with the argument (-1 while there is none).
_POINTS_JS = """prefix => {
  const g = Array.from(document.querySelectorAll('.js-plotly-plot')).find(d => {
    const t = d.layout && d.layout.title;
    return ((t && (t.text !== undefined ? t.text : t)) || '').startsWith(prefix);
  });
  return g ? (g._fullData || []).reduce((n, d) => n + ((d.x && d.x.length) || 0), 0) : -1;
}"""


def _run_menu(page, label: str) -> None:
    """Click Run > ``label`` in JupyterLab's menu bar."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(label)}$")).click()


def test_readme_jupyter_command_opens_the_starter_notebook_live(fresh_lab, browser):
    folder, env = fresh_lab
    assert "jupyter lab" in JUPYTER_LAUNCH and "notebooks/00_explore.ipynb" in JUPYTER_LAUNCH
    with launched(JUPYTER_LAUNCH, folder, env, LAB_URL) as (url, lines):
        deadline = time.monotonic() + 60
        while (opened := _opened_url(folder)) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert opened, f"JupyterLab opened no browser page:\n{''.join(lines)}"
        printed, shown = urlsplit(url), urlsplit(opened.replace("localhost", "127.0.0.1"))
        assert shown.netloc == printed.netloc, (url, opened)  # the server it started
        config = Path(env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.json"
        port = json.loads(config.read_text())["ServerApp"]["port"]
        assert (shown.port, shown.query) == (port, f"token={LAB_TOKEN}"), opened
        assert shown.path.endswith("/tree/00_explore.ipynb"), opened  # the starter notebook
        context, page, errors, outside = watched_page(browser, 1400, 2400)
        try:
            page.goto(shown.geturl(), timeout=LOAD_TIMEOUT_MS)
            # the notebook is open and its kernel (the new environment's) is ready
            tab = page.locator(".lm-TabBar-tab", has_text="00_explore.ipynb").first
            expect(tab).to_be_visible(timeout=LOAD_TIMEOUT_MS)
            idle = page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))
            expect(idle).to_be_visible(timeout=LOAD_TIMEOUT_MS)
            # as a person would: run the cells up to the Explorer and look at it (with Run
            # All, its first search may end before the browser has drawn the Explorer)
            starter = folder / "notebooks" / "00_explore.ipynb"
            after_explorer = page.locator(".jp-Notebook .jp-Cell").nth(explorer_cell(starter) + 1)
            after_explorer.click()
            _run_menu(page, "Run All Above Selected Cell")
            page.wait_for_function(  # the Explorer's monitor is on the page
                f"() => ({_POINTS_JS})('Unconstrained solve') >= 0", timeout=LOAD_TIMEOUT_MS
            )
            after_explorer.click()
            _run_menu(page, "Run Selected Cell and All Below")
            # the kernel draws the Explorer's first search, live: its plot grows
            seen: list[int] = []
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and len({n for n in seen if n > 0}) < 2:
                seen.append(page.evaluate(_POINTS_JS, "Unconstrained solve"))
                page.wait_for_timeout(200)
            assert len({n for n in seen if n > 0}) >= 2, f"not drawn live: {seen[-20:]}"
            assert "Traceback" not in page.locator("body").inner_text()
            assert not errors, errors
            assert not outside, f"requests outside localhost: {outside}"
        finally:
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "fresh_install_readme_jupyter.png"
            page.locator(".js-plotly-plot").first.scroll_into_view_if_needed(timeout=10_000)
            page.wait_for_timeout(500)
            page.screenshot(path=str(shot))
            print(f"screenshot: {shot}")
            context.close()
