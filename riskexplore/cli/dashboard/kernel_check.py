"""Whether the dashboards can run: a Python kernel that Voila finds, and their imports.

Before the launcher (:mod:`riskexplore.cli.dashboard.command`) prints a URL, it checks that Voila
will find a Python kernel and that the dashboard's top-level imports work in that kernel
(:func:`kernel_problem`); what is missing becomes one ``error:`` line with the command
that installs it, instead of a page that answers "500: Internal Server Error".
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from riskexplore import widgets
from riskexplore.cli.dashboard.files import DASHBOARDS, dashboards_dir, install_command
from riskexplore.core.lazy import export_map

__all__ = ["kernel_problem", "notebook_imports"]


def _notebooks(which: str | Path) -> list[Path]:
    if isinstance(which, Path):
        return sorted(which.glob("*.ipynb")) if which.is_dir() else [which]
    if which == "all":
        return [dashboards_dir() / nb for nb in DASHBOARDS.values()]
    if which in DASHBOARDS:
        return [dashboards_dir() / DASHBOARDS[which]]
    raise ValueError(f"unknown dashboard {which!r}; use risk, checklist or all")


def notebook_imports(notebook: str | Path) -> list[str]:
    """The top-level ``import`` statements of a notebook's code cells, in order, each once
    (cells that are not plain Python, such as IPython magics, are skipped).

    Parameters
    ----------
    notebook : str or Path
        The notebook.

    Returns
    -------
    list of str
        The statements.
    """
    cells = json.loads(Path(notebook).read_text(encoding="utf-8")).get("cells", [])
    out: list[str] = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom) and ast.unparse(node) not in out:
                out.append(ast.unparse(node))
    return out


def _kernel_for(notebook: Path, specs: dict) -> str | None:
    """The kernel Voila starts for ``notebook`` (as ``voila.notebook_renderer`` picks it:
    the notebook's kernel name, else the first kernel of its language by display name)."""
    meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    wanted = meta.get("kernelspec", {})
    name = wanted.get("name", "python3")
    if name in specs:
        return name
    language = wanted.get("language", meta.get("language_info", {}).get("name", "")).lower()
    matches = [n for n, s in specs.items() if s["spec"]["language"].lower() == language]
    return min(matches, key=lambda n: specs[n]["spec"]["display_name"]) if matches else None


def _kernel_python(argv: list[str]) -> str:
    """The Python a kernel command runs (``python``/``python3`` mean the server's own
    interpreter, as jupyter_client starts them)."""
    first = argv[0]
    if first in {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info)}:
        return sys.executable
    return shutil.which(first) or first


#: Run by the kernel's Python: can it find ``modules`` and run ``statements``? Prints the
#: first failure as JSON and exits 1.
_CHECK = """\
import importlib.util, json, sys
modules, statements = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for name in modules:
    if importlib.util.find_spec(name) is None:
        print(json.dumps({"module": name, "statement": "import " + name, "error": ""}))
        sys.exit(1)
for statement in statements:
    try:
        exec(statement, {})
    except Exception as exc:
        error = type(exc).__name__ + ": " + " ".join(str(exc).split())
        name = exc.name if isinstance(exc, ModuleNotFoundError) else None
        print(json.dumps({"module": name, "statement": statement, "error": error}))
        sys.exit(1)
"""


def _kernel_imports(notebooks: list[Path]) -> list[str]:
    """The import lines of ``notebooks``, each once, followed, when they use riskexplore,
    by the widget modules a dashboard loads later (``riskexplore.widgets`` imports its
    views, and with them ipywidgets, anywidget and plotly, on first use)."""
    statements = list(dict.fromkeys(s for nb in notebooks for s in notebook_imports(nb)))
    if any(re.match(r"(from|import) riskexplore\b", s) for s in statements):
        modules = {module for module, _ in export_map(widgets.__file__).values()}
        statements += [f"import {m}" for m in sorted(modules)]
    return statements


def kernel_problem(
    which: str | Path = "risk", *, manager=None, timeout: float = 120.0
) -> str | None:
    """Why Voila could not run the dashboard ``which`` (``risk``, ``checklist``, ``all``
    or a notebook ``Path``), as one line naming what is missing and the command that
    installs it; ``None`` when it can.

    Finds the kernel Voila would start, with jupyter_client's ``KernelSpecManager``
    (``manager``; default: the one Voila uses), and runs the notebook's import lines
    (and the widget modules they load later) with that kernel's Python, in the
    notebook's folder, in a short subprocess.

    Parameters
    ----------
    which : {"risk", "checklist", "all"} or Path
        The dashboard.
    manager : KernelSpecManager, optional
        The kernel specs to look in (default: Jupyter's).
    timeout : float
        Seconds for the check in the kernel's Python.

    Returns
    -------
    str or None
        The problem in one line, or None when the kernel can run the dashboard.
    """
    if manager is None:
        from jupyter_client.kernelspec import KernelSpecManager

        manager = KernelSpecManager()
    specs = manager.get_all_specs()
    wanted: dict[str, list[Path]] = {}
    for notebook in _notebooks(which):
        name = _kernel_for(notebook, specs)
        if name is None:
            why = (
                "ipykernel is not installed"
                if importlib.util.find_spec("ipykernel") is None
                else "none is registered"
            )
            return f"no Jupyter kernel for Python ({why}); run: {install_command()}"
        wanted.setdefault(name, []).append(notebook)
    for name, notebooks in wanted.items():
        spec = specs[name]["spec"]
        argv = list(spec.get("argv") or ["?"])
        python = _kernel_python(argv)
        modules = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == "-m"]
        statements = _kernel_imports(notebooks)
        ours = os.path.abspath(python) == os.path.abspath(sys.executable)
        where = (
            "the dashboards' Python kernel"
            if ours
            else f"the Jupyter kernel {name!r} (running {python})"
        )
        fix = install_command(python) + (
            "" if ours else f" (or remove that kernel: jupyter kernelspec remove {name})"
        )
        try:
            done = subprocess.run(
                [
                    python,
                    "-c",
                    _CHECK,
                    json.dumps(modules),
                    json.dumps(statements),
                ],
                cwd=str(notebooks[0].parent),
                env={**os.environ, **spec.get("env", {})},
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except OSError as exc:
            return f"{where} cannot start: {exc.strerror or exc}: {python}; run: {fix}"
        except subprocess.TimeoutExpired:
            return f"{where} did not finish the dashboard's imports within {timeout:.0f} s"
        if done.returncode == 0:
            continue
        lines = done.stdout.strip().splitlines()
        try:
            failed = json.loads(lines[-1])
        except (IndexError, ValueError):
            last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            return f"{where} failed to start: {last}; run: {fix}"
        if failed["module"]:
            what = f"cannot import {failed['module']}"
        else:
            what = f"fails on `{failed['statement']}` ({failed['error']})"
        return f"{where} {what}; run: {fix}"
    return None
