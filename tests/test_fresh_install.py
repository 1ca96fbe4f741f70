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

Select it alone with ``pytest -m fresh_install``; ``.ci/run`` runs it with the suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _browser import block_outside, button, upload_csv
from playwright.sync_api import expect

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


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A copy of the checkout set up by the READMEs' setup commands: (folder, env)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the files a clone has)")
    base = tmp_path_factory.mktemp("fresh")
    folder = base / "riskexplore"
    _copy_checkout(folder)
    env = _newcomer_env(base)
    setups = dict.fromkeys(
        setup_and_launch(first_command(r))[0] for r in (README, DASHBOARDS_README)
    )
    for setup in setups:  # one command today: both READMEs install the same extra
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


@contextmanager
def launched(command: str, folder: Path, env: dict[str, str]) -> Iterator[str]:
    """Run a launch command as written (bash, in ``folder``) until it prints the URL of a
    dashboard; yields that URL. On exit SIGTERM must stop it (exit 0) and its server."""
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
                found = re.match(r"(Risk score builder|Checklist builder): (http://\S+)", line)
                if found:
                    url = found.group(2)
            time.sleep(0.2)
        assert url, f"{command!r} printed no dashboard URL (exit {proc.poll()}):\n{''.join(lines)}"
        yield url
        proc.send_signal(signal.SIGTERM)  # as `kill` would: the launcher stops Voila
        assert proc.wait(30) == 0, "".join(lines[-20:])
        address = urlsplit(url)
        with pytest.raises(OSError):  # Voila stopped with the launcher
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
    with launched(command, folder, env) as url:
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
