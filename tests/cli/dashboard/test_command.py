"""The dashboard launcher's pieces that need no browser: the Voila command line, the
offline template, the check that a kernel can run the dashboards before a URL is printed,
and stopping by SIGTERM (the served pages are checked in ``tests/browser/test_dashboards.py``,
and from a fresh install in ``test_fresh_install.py``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from jupyter_client.kernelspec import KernelSpecManager

import riskexplore
from riskexplore.cli.dashboard.files import DASHBOARDS, dashboards_dir, install_command
from riskexplore.cli.dashboard.kernel_check import kernel_problem, notebook_imports
from riskexplore.cli.dashboard.server import (
    IOPUB_TIMEOUT,
    PLOTLY_STALE_S,
    TEMPLATE_NAME,
    _server_environment,
    free_port,
    plotly_address,
    stop_process,
    template_root,
    voila_command,
)
from riskexplore.widgets.plotly_bundle import PLOTLY_URL_VARIABLE, plotly_module


def test_default_template_folder_is_reused():
    first, second = template_root(), template_root()
    assert first == second  # no new temporary folder per launch
    folder = first / "voila" / "templates" / TEMPLATE_NAME
    index = (folder / "index.html.j2").read_text()
    assert "cdn.jsdelivr" in index  # only inside the replace(...) that removes the links
    assert "replace(" in index and (folder / "conf.json").is_file()


def test_template_in_a_given_folder(tmp_path):
    root = template_root(tmp_path / "t")
    assert root == tmp_path / "t"
    assert (root / "voila" / "templates" / TEMPLATE_NAME / "page.html").is_file()


def test_the_template_serves_plotly_and_the_kernels_are_told_where(tmp_path):
    static = template_root(tmp_path / "t") / "voila" / "templates" / TEMPLATE_NAME / "static"
    digest, content = plotly_module()
    (served,) = static.glob("plotly-*.js")  # Voila serves the folder under voila/static/
    assert served.name == f"plotly-{digest}.js" and served.read_bytes() == content
    (static / "plotly-0ld.js").write_text("x")  # another plotly's file, unused for long, goes
    stale = time.time() - PLOTLY_STALE_S - 60
    os.utime(static / "plotly-0ld.js", (stale, stale))
    (static / "plotly-0th3r.js").write_text("x")  # another environment's server uses it
    template_root(tmp_path / "t")
    assert sorted(p.name for p in static.glob("plotly-*.js")) == sorted(
        [served.name, "plotly-0th3r.js"]
    )
    address = plotly_address("/prefix/")
    assert address == f"/prefix/voila/static/{served.name}?v={digest}"
    env = _server_environment(8125, None, "/prefix/")
    assert env[PLOTLY_URL_VARIABLE] == address


def test_the_launcher_writes_nothing_into_the_package():
    # a wheel in a root-owned site-packages is read-only: the template and plotly.js go to
    # a folder of the user's under the temporary directory
    package = Path(riskexplore.__file__).resolve().parent

    def files():
        found = [*package.rglob("*"), *dashboards_dir().rglob("*")]
        return {p: p.stat().st_mtime_ns for p in found if "__pycache__" not in p.parts}

    before = files()
    root = template_root()
    _server_environment(8126, None)
    assert files() == before
    (served,) = (root / "voila" / "templates" / TEMPLATE_NAME / "static").glob("plotly-*.js")
    assert Path(tempfile.gettempdir()).resolve() in served.resolve().parents
    assert package not in served.resolve().parents


def test_voila_command_hides_code_and_tracebacks():
    cmd, url = voila_command("risk", 8123)
    assert cmd[:3] == [sys.executable, "-m", "voila"] and cmd[3].endswith(
        "risk_score_builder.ipynb"
    )
    assert "--strip_sources=True" in cmd and "--show_tracebacks=False" in cmd
    assert f"--template={TEMPLATE_NAME}" in cmd and url == "http://127.0.0.1:8123/"
    cmd, url = voila_command("all", 8124)
    assert cmd[3].endswith("dashboards") and url == "http://127.0.0.1:8124/"
    with pytest.raises(ValueError, match="unknown dashboard"):
        voila_command("nope")


def test_voila_waits_for_a_cells_whole_output_on_a_busy_machine():
    # nbclient waits 4 s after a cell's reply for the rest of its output, then drops it:
    # ten pages built at once on two cores opened without their search button. Read the
    # way Voila reads its command line, into the executor that runs a page's notebook.
    from voila.app import Voila
    from voila.execute import VoilaExecutor

    cmd, _url = voila_command("risk", 8123)
    app = Voila()
    app.parse_command_line(cmd[3:])
    assert VoilaExecutor(None, config=app.config).iopub_timeout == IOPUB_TIMEOUT >= 60


def test_voila_command_leaves_plotlys_own_renderer_out():
    # the pages draw with PlotView: plotly's JupyterLab extension would make each page
    # download and parse a second plotly.js (4.8 MB) while it opens
    cmd, _url = voila_command("risk", 8123)
    assert '--VoilaConfiguration.extension_denylist=["jupyterlab-plotly"]' in cmd


# --- the kernel check: the launcher refuses to serve a page its kernel cannot run ---------
def _notebook(path: Path, *cells: str, kernel: str = "python3") -> Path:
    """A notebook file with one code cell per string."""
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": c,
                "outputs": [],
                "execution_count": None,
            }
            for c in cells
        ],
        "metadata": {
            "kernelspec": {"name": kernel, "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))
    return path


def _kernels(root: Path, **argvs: list[str]) -> KernelSpecManager:
    """A kernel spec manager that sees only the kernels ``name=argv`` written under
    ``root`` (no native kernel, no user or system kernels)."""
    for name, argv in argvs.items():
        folder = root / "kernels" / name
        folder.mkdir(parents=True)
        spec = {"argv": argv, "display_name": name, "language": "python"}
        (folder / "kernel.json").write_text(json.dumps(spec))
    return KernelSpecManager(kernel_dirs=[str(root / "kernels")], ensure_native_kernel=False)


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> str:
    """The interpreter of a new virtual environment with nothing installed."""
    folder = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    return str(folder / "bin" / "python")


def test_notebook_imports_are_the_top_level_import_lines(tmp_path):
    nb = _notebook(
        tmp_path / "n.ipynb",
        "%matplotlib inline\nimport skipped_because_magic",
        "import json\nfrom pathlib import Path as P\n\ndef f():\n    import not_top_level\n",
        "import json\nx = 1",
    )
    assert notebook_imports(nb) == ["import json", "from pathlib import Path as P"]
    dashboard = notebook_imports(dashboards_dir() / DASHBOARDS["risk"])
    assert "from riskexplore.widgets.explorer.widget import Explorer" in dashboard
    assert "import ipywidgets as w" in dashboard


def test_kernel_problem_none_when_the_kernel_runs_the_dashboards():
    assert kernel_problem("all") is None


def test_missing_module_in_the_kernel_is_named_with_the_install_command(tmp_path):
    manager = _kernels(tmp_path, python3=[sys.executable, "-m", "ipykernel_launcher"])
    nb = _notebook(tmp_path / "n.ipynb", "import json\nimport riskexplore_no_such_module as m")
    problem = kernel_problem(nb, manager=manager)
    assert problem is not None and "\n" not in problem
    assert problem.startswith("the dashboards' Python kernel cannot import riskexplore_no_such")
    assert problem.endswith(f"run: {install_command()}")
    assert 'install -e "' in install_command() and install_command().endswith('[interface]"')


def test_a_failing_import_that_is_not_a_missing_module_is_quoted(tmp_path):
    manager = _kernels(tmp_path, python3=[sys.executable, "-m", "ipykernel_launcher"])
    nb = _notebook(tmp_path / "n.ipynb", "from json import no_such_name")
    problem = kernel_problem(nb, manager=manager)
    assert "fails on `from json import no_such_name` (ImportError: cannot import name" in problem


def test_kernel_without_its_launcher_module(tmp_path):
    manager = _kernels(tmp_path, python3=["python", "-m", "no_such_kernel_launcher"])
    problem = kernel_problem(_notebook(tmp_path / "n.ipynb", "import json"), manager=manager)
    assert "cannot import no_such_kernel_launcher" in problem  # "python" is this interpreter


def test_no_python_kernel_at_all(tmp_path):
    (tmp_path / "kernels").mkdir()
    manager = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")], ensure_native_kernel=False)
    problem = kernel_problem("risk", manager=manager)
    assert problem == f"no Jupyter kernel for Python (none is registered); run: {install_command()}"


def test_kernel_of_another_python_that_lacks_the_dashboards(tmp_path, bare_python):
    """A registered kernel runs another interpreter (a stale user kernel, say): the
    message names that interpreter and both ways out."""
    manager = _kernels(tmp_path, python3=[bare_python, "-m", "ipykernel_launcher", "-f", "{c}"])
    problem = kernel_problem("risk", manager=manager)
    assert problem.startswith(
        f"the Jupyter kernel 'python3' (running {bare_python}) cannot import ipykernel_launcher"
    )
    assert f"{bare_python} -m pip install -e" in problem
    assert problem.endswith("(or remove that kernel: jupyter kernelspec remove python3)")
    missing = tmp_path / "gone"
    manager = _kernels(missing, python3=[str(missing / "python"), "-m", "ipykernel_launcher"])
    problem = kernel_problem("checklist", manager=manager)
    assert f"(running {missing / 'python'}) cannot start: No such file or directory" in problem


def test_voila_picks_a_kernel_by_language_when_the_name_is_unknown(tmp_path):
    """As Voila does: the notebook's kernel name, else the first kernel of its language
    by display name (here "a-broken" sorts first and is the one checked)."""
    manager = _kernels(
        tmp_path,
        **{"z-fine": [sys.executable, "-m", "json.tool"], "a-broken": ["python", "-m", "nope_x"]},
    )
    nb = _notebook(tmp_path / "n.ipynb", "import json", kernel="python3")
    assert "cannot import nope_x" in kernel_problem(nb, manager=manager)
    nb = _notebook(tmp_path / "m.ipynb", "import json", kernel="z-fine")
    assert kernel_problem(nb, manager=manager) is None


def test_launcher_exits_2_with_one_line_and_no_url_when_the_kernel_cannot_run(
    tmp_path, bare_python
):
    """End to end, as a user runs it: the only Python kernel Voila would find is an
    interpreter without ipykernel or the dashboards' packages."""
    _kernels(tmp_path, python3=[bare_python, "-m", "ipykernel_launcher", "-f", "{c}"])
    env = {**os.environ, "JUPYTER_PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "riskexplore", "dashboard", "risk", "--no-browser"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""  # no URL: nothing is served
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the Jupyter kernel 'python3'"), lines
    assert "cannot import ipykernel_launcher" in lines[0] and "pip install -e" in lines[0]


def test_sigterm_stops_the_launcher_and_its_voila_server():
    port = free_port()
    launcher = subprocess.Popen(
        [sys.executable, "-m", "riskexplore", "dashboard", "risk", "--no-browser"]
        + ["--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = []
        for line in launcher.stdout:  # Voila's own lines go to stderr here
            lines.append(line)
            if "builder:" in line:
                break
        assert f"Risk score builder: http://127.0.0.1:{port}/" in "".join(lines), lines
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(30) == 0
        with pytest.raises(OSError):  # Voila has stopped too: nobody listens any more
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        stop_process(launcher)


def test_cores_option_and_the_gate_of_the_server(monkeypatch):
    from riskexplore.cli.dashboard import command, server

    assert command.build_parser().parse_args(["risk", "--cores", "3"]).cores == 3
    assert command.build_parser().parse_args(["risk"]).cores is None
    assert server.gate_directory(8866).name == "8866"
    assert server.gate_directory(8866) != server.gate_directory(8867)
    seen = {}

    class Started(Exception):
        pass

    def fake_popen(cmd, env=None, **kwargs):
        seen.update(env)
        raise Started

    monkeypatch.setattr(server.subprocess, "Popen", fake_popen)
    with pytest.raises(Started):
        server.start_voila("risk", 8870, cores=3)
    assert seen["RISKEXPLORE_CORES"] == "3"
    assert seen["RISKEXPLORE_CORE_GATE"] == str(server.gate_directory(8870))
    with pytest.raises(Started):
        server.start_voila("risk", 8870)
    assert seen["RISKEXPLORE_CORES"] == str(os.cpu_count())
    with pytest.raises(ValueError, match="cores"):
        server.start_voila("risk", 8870, cores=0)


def test_the_default_pool_serves_a_burst_where_memory_allows(monkeypatch):
    from riskexplore.cli.dashboard import command

    floor = min(4, os.cpu_count() or 1)
    monkeypatch.setattr(command, "available_memory_mb", lambda: 100_000.0)
    assert command.default_pool() == command.BURST == 10
    assert command.default_pool(notebooks=2) == 10
    monkeypatch.setattr(command, "available_memory_mb", lambda: 6_000.0)  # 1,500 MB to give
    assert command.default_pool() == max(floor, 5)
    assert command.default_pool(notebooks=2) == max(floor, 2)
    for unknown in (None, 0.0):
        monkeypatch.setattr(command, "available_memory_mb", lambda m=unknown: m)
        assert command.default_pool() == floor  # never fewer than a kernel per core
    args = command.build_parser().parse_args(["all"])
    monkeypatch.setattr(command, "available_memory_mb", lambda: 6_000.0)
    assert args.pool is None and command._pool(args) == max(floor, 2)
    assert command._pool(command.build_parser().parse_args(["risk", "--pool", "0"])) == 0


def test_the_loading_page_speaks_plainly_and_does_not_spin(tmp_path):
    # Voila's spinning logo cost headless Chromium about 0.07 of a core per waiting page
    # and said "Executing 3 of 12"; ours shows plain words and a bar the cells move
    import jinja2

    folder = template_root(tmp_path / "t") / "voila" / "templates" / TEMPLATE_NAME
    macros = (folder / "spinner.macro.html.j2").read_text()
    page = jinja2.Environment().from_string(macros + "{{ css() }}{{ html() }}").render()
    assert "Preparing the dashboard" in page and 'id="loading_text"' in page
    assert "animation" not in page and "@keyframes" not in page
    index = (folder / "index.html.j2").read_text()
    assert "window.voila_process" in index and "'Step ' + cell + ' of ' + cells" in index
