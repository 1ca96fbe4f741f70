"""The architecture rules (ARCHITECTURE.md): the import-linter contracts of pyproject.toml,
and the rules import-linter cannot state -- no import cycle between modules, imports inside
functions only for optional extras, no private name used from another package, and no
family named above the families (they ask the registry)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "riskexplore"

#: Modules a function may import (the optional extras: Jupyter, plotly, Pyomo, Dask, joblib),
#: and our own plot widget, which imports them.
OPTIONAL = (
    "ipywidgets",
    "anywidget",
    "traitlets",
    "IPython",
    "plotly",
    "pyomo",
    "dask",
    "distributed",
    "joblib",
    "jupyter_client",
    "kaleido",
    "riskexplore.widgets.plot_view",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    """``riskexplore.core.events`` -> ``riskexplore.core``; top-level modules are their own."""
    parts = module.split(".")
    return ".".join(parts[:2])


def rule_violations(source: str, module: str) -> list[str]:
    """Imports inside functions of modules that are not optional extras, and private
    names imported from another package, in ``source`` (the text of ``module``)."""
    out = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                names = []
                if isinstance(sub, ast.Import):
                    names = [a.name for a in sub.names]
                elif isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                    names = [sub.module]
                for name in names:
                    if not any(name == o or name.startswith(o + ".") for o in OPTIONAL):
                        out.append(f"{module}:{sub.lineno} imports {name} inside a function")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("riskexplore."):
            if _package(node.module) != _package(module):
                for alias in node.names:
                    if alias.name.startswith("_"):
                        out.append(
                            f"{module}:{node.lineno} uses {node.module}.{alias.name}, a private "
                            "name of another package"
                        )
    return out


def module_imports(source: str, module: str, known: set[str]) -> set[str]:
    """The package's modules that ``module`` imports when it is imported (module level,
    outside ``if TYPE_CHECKING:``), among ``known``."""
    out: set[str] = set()

    def visit(body):
        for node in body:
            if isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name in known)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    out.add(sub if sub in known else node.module)

    visit(ast.parse(source).body)
    return out & known - {module}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return cycles


def test_no_import_cycle_between_modules():
    sources = {_module_name(p): p.read_text() for p in PACKAGE.rglob("*.py")}
    known = set(sources)
    graph = {m: module_imports(s, m, known) for m, s in sources.items()}
    assert graph["riskexplore.risk_score.fit"] >= {"riskexplore.risk_score.lcpa.search"}
    assert import_cycles(graph) == []
    # the finder finds one
    graph["riskexplore.core.events"] = {"riskexplore.risk_score.fit"}
    found = import_cycles(graph)
    assert any({"riskexplore.core.events", "riskexplore.risk_score.fit"} <= set(c) for c in found)


def test_the_rules_hold_in_the_package():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        problems += rule_violations(path.read_text(), _module_name(path))
    assert problems == []


def test_the_rule_checker_finds_what_it_should():
    source = (
        "from riskexplore.risk_score.lcpa.search import _Node\n"
        "from riskexplore.core.events import _FLOAT_FIELDS\n"
        "def f():\n"
        "    import numpy\n"
        "    import plotly.graph_objects as go\n"
        "    from riskexplore.evaluation.metrics import auc\n"
    )
    found = rule_violations(source, "riskexplore.risk_score.lcpa.cpa")
    assert found == [
        "riskexplore.risk_score.lcpa.cpa:2 uses riskexplore.core.events._FLOAT_FIELDS, a private "
        "name of another package",
        "riskexplore.risk_score.lcpa.cpa:4 imports numpy inside a function",
        "riskexplore.risk_score.lcpa.cpa:6 imports riskexplore.evaluation.metrics inside a "
        "function",
    ]


def test_import_linter_contracts_are_kept():
    pytest.importorskip("importlinter")
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 kept, 0 broken" in done.stdout


def test_import_linter_finds_a_broken_layer(tmp_path):
    """The layers contract breaks when core imports a family (a copy of the package)."""
    pytest.importorskip("importlinter")
    copy = tmp_path / "riskexplore"
    subprocess.run(["cp", "-r", str(PACKAGE), str(copy)], check=True)
    events = copy / "core" / "events.py"
    events.write_text(events.read_text() + "\nimport riskexplore.risk_score.fit  # noqa\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode != 0
    assert "riskexplore.core.events -> riskexplore.risk_score.fit" in done.stdout


# --- no family named above the families --------------------------------------------------
#: The packages above the families.
UPPER = ("evaluation", "figures", "exploration", "widgets", "report", "cli")

#: Functions that name their family by design: the public shortcuts of one family.
SHORTCUTS = {
    "riskexplore.evaluation.cv": ("risk_score_recipe",),
    "riskexplore.evaluation.near_optimal": (
        "near_optimal_risk_scores",
        "near_optimal_checklists",
        "near_optimal_survival_scores",
    ),
    "riskexplore.evaluation.paths": (
        "risk_score_size_path",
        "checklist_size_path",
        "survival_score_size_path",
    ),
}

#: Modules whose strings equal to a family's name mean something else (their imports are
#: still checked), and why.
OTHER_MEANINGS = {
    "riskexplore.cli.dashboard.command": "the dashboards are called 'risk' and 'checklist'",
    "riskexplore.cli.dashboard.files": "the dashboards are called 'risk' and 'checklist'",
}


def _docstrings(tree: ast.AST) -> set[int]:
    """The string statements (docstrings, attribute docstrings) of ``tree``."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _public_lists(tree: ast.Module) -> set[int]:
    """The imports of a package's public-name list (its ``if TYPE_CHECKING:`` block, read
    by :func:`riskexplore.core.lazy.lazy_exports`)."""
    out: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            out.update(id(n) for n in ast.walk(node))
    return out


def family_names_used(
    source: str,
    module: str,
    names: set[str],
    packages: set[str],
    *,
    package_init: bool = False,
    shortcuts: tuple[str, ...] = (),
    strings: bool = True,
) -> list[str]:
    """Strings equal to a family's name (outside docstrings and the ``shortcuts``
    functions) and imports of a family's package in ``source`` (the text of ``module``;
    a ``package_init``'s public-name list may re-export family names)."""
    tree = ast.parse(source)
    skip = _docstrings(tree) | (_public_lists(tree) if package_init else set())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in shortcuts:
            skip.update(id(n) for n in ast.walk(node))
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if strings and isinstance(node, ast.Constant) and node.value in names:
            out.append((node.lineno, f"names the family {node.value!r}"))
        imported = []
        if isinstance(node, ast.Import):
            imported = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in imported:
            if any(name == p or name.startswith(p + ".") for p in packages):
                out.append((node.lineno, f"imports {name}, a family's package"))
                break
    return [f"{module}:{line} {what}" for line, what in sorted(out)]


def _families() -> tuple[set[str], set[str], set[str]]:
    """The built-in families' names, their packages and the modules of their plug-ins."""
    from riskexplore.core.registry import BUILTIN_FAMILIES, get_family

    names = set(BUILTIN_FAMILIES)
    packages = {".".join(m.split(".")[:2]) for m in BUILTIN_FAMILIES.values()}
    plugins = {m for n in names for m in get_family(n).plugins.modules()}
    return names, packages, plugins


def test_no_family_is_named_above_the_families():
    names, packages, plugins = _families()
    assert "riskexplore.cli.fit" in plugins and "riskexplore.widgets.builders.checklist" in plugins
    problems = []
    for part in UPPER:
        for path in sorted((PACKAGE / part).rglob("*.py")):
            module = _module_name(path)
            if module in plugins:  # a family's own widgets and command
                continue
            problems += family_names_used(
                path.read_text(),
                module,
                names,
                packages,
                package_init=path.name == "__init__.py",
                shortcuts=SHORTCUTS.get(module, ()),
                strings=module not in OTHER_MEANINGS,
            )
    assert problems == []


def test_the_family_checker_finds_what_it_should():
    source = (
        '"""Uses ``"checklist"`` in words only."""\n'
        "from typing import TYPE_CHECKING\n"
        "from riskexplore.checklist.model import Checklist\n"
        "import riskexplore.risk_score.fit\n"
        "from riskexplore import checklist\n"
        "if TYPE_CHECKING:\n"
        "    from riskexplore.risk_score.model import RiskScore\n"
        "def f(family='risk_score'):\n"
        '    """The default is ``"risk_score"``."""\n'
        "    return family == 'checklist'\n"
        "def risk_scores():\n"
        "    return 'risk_score'\n"
    )
    names, packages = (
        {"risk_score", "checklist"},
        {"riskexplore.risk_score", "riskexplore.checklist"},
    )
    found = family_names_used(source, "m", names, packages, shortcuts=("risk_scores",))
    assert found == [
        "m:3 imports riskexplore.checklist.model, a family's package",
        "m:4 imports riskexplore.risk_score.fit, a family's package",
        "m:5 imports riskexplore.checklist, a family's package",
        "m:7 imports riskexplore.risk_score.model, a family's package",
        "m:8 names the family 'risk_score'",
        "m:10 names the family 'checklist'",
    ]
    public = family_names_used(source, "m", names, packages, package_init=True, strings=False)
    assert [f.split()[0] for f in public] == ["m:3", "m:4", "m:5"]


# --- sizes: short functions, classes of one concept ------------------------------------
#: Longest function or method (lines, its docstring excluded); numba kernels are exempt.
MAX_FUNCTION_LINES = 100
#: Longest class (code lines: docstrings, comments and blank lines excluded).
MAX_CLASS_LINES = 400


def _docstring_lines(node: ast.AST) -> set[int]:
    """Line numbers of the docstrings of ``node`` and of everything defined in it."""
    lines: set[int] = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = sub.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def _is_kernel(node: ast.AST) -> bool:
    """A numba-compiled function (``@njit`` or ``@numba.njit(...)``, ``@jit``)."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit"):
            return True
    return False


def size_violations(source: str, module: str) -> list[str]:
    """Functions longer than :data:`MAX_FUNCTION_LINES` and classes longer than
    :data:`MAX_CLASS_LINES` in ``source`` (the text of ``module``)."""
    out = []
    text = source.splitlines()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_kernel(node):
            doc = _docstring_lines(node) & set(
                range(node.body[0].lineno, node.body[0].end_lineno + 1)
            )
            length = node.end_lineno - node.lineno + 1 - len(doc)
            if length > MAX_FUNCTION_LINES:
                out.append(f"{module}:{node.lineno} {node.name} has {length} lines")
        elif isinstance(node, ast.ClassDef):
            doc = _docstring_lines(node)
            code = [
                i
                for i in range(node.lineno, node.end_lineno + 1)
                if i not in doc and text[i - 1].strip() and not text[i - 1].strip().startswith("#")
            ]
            if len(code) > MAX_CLASS_LINES:
                out.append(f"{module}:{node.lineno} class {node.name} has {len(code)} code lines")
    return out


def test_functions_and_classes_stay_short():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += size_violations(path.read_text(), _module_name(path))
    assert not found, "\n".join(found)


def test_the_size_checker_finds_what_it_should():
    long_body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES + 1))
    doc = '    """' + "\n" * 200 + '    """\n'
    assert size_violations(f"def f():\n{long_body}\n", "m") == [
        f"m:1 f has {MAX_FUNCTION_LINES + 2} lines"
    ]
    # a long docstring does not count, nor does a numba kernel
    assert size_violations(f"def f():\n{doc}    return 1\n", "m") == []
    assert size_violations(f"@njit(cache=True)\ndef f():\n{long_body}\n", "m") == []
    methods = "\n".join(
        f"    def m{i}(self):\n        return {i}\n" for i in range(MAX_CLASS_LINES // 2 + 1)
    )
    assert size_violations(f"class C:\n{methods}", "m")[0].startswith("m:1 class C has")


# --- the map: ARCHITECTURE.md lists every module ----------------------------------------
def _listed_paths() -> set[str]:
    """Every ``riskexplore/...`` path (a module ``.py`` or a package ``/``) named in
    ARCHITECTURE.md."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    return set(re.findall(r"`(riskexplore/(?:[\w/]*(?:\.py|/))?)`", text))


def _tree_paths() -> set[str]:
    """The package's modules (``__init__.py`` files stand for their package's folder)."""
    out = set()
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(ROOT).as_posix()
        out.add(relative.removesuffix("__init__.py") if path.name == "__init__.py" else relative)
    return out


def test_the_architecture_map_lists_every_module():
    tree, listed = _tree_paths(), _listed_paths()
    assert not tree - listed, f"missing from ARCHITECTURE.md's map: {sorted(tree - listed)}"
    assert not listed - tree, f"in ARCHITECTURE.md but not in the tree: {sorted(listed - tree)}"
