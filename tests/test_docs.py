"""The documentation site builds from a checkout, offline, with warnings as errors; every
public name has an API page, every page of the user guide exists, and every link between the
site's pages and every cross-reference resolves.

The build (``python -m sphinx -W -b html docs OUT``, as the README says) runs once for the
module, in a network namespace of its own when ``unshare -n`` works and always with sockets
to other hosts refused (a ``sitecustomize`` on the path), so a page that would fetch anything
(an intersphinx inventory, a notebook executed, a remote image) fails the build.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")

from sphinx.util.inventory import InventoryFile  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: The user guide: one page per task of issue 20.
GUIDE = {
    "risk-scores": "Risk scores and their settings",
    "learned-scale": "The learned scale",
    "constraints": "Constraints and their price",
    "checklists": "Checklists, binarization and fairness limits",
    "size-paths-cv": "Size paths and cross-validation",
    "near-optimal": "Near-optimal sets",
    "edits-and-prices": "Hand edits and feature prices",
    "study-files": "Study files",
    "widgets": "The widgets and the Explorer",
    "dashboards": "The dashboards for clinicians",
    "dashboards-group": "Running the dashboards for a group",
    "cli": "The command line",
    "certificate": "Reading a certificate",
    "validation": "Validating on other patients, and recalibrating",
}

_NO_NETWORK = """\
import socket

_connect = socket.socket.connect


def _local_only(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost", ""):
        raise OSError(f"network use during the docs build: {address!r}")
    return _connect(self, address)


socket.socket.connect = _local_only
"""


def _unshare_works() -> bool:
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built as the README says (into a temporary folder): its HTML folder."""
    tmp = tmp_path_factory.mktemp("docs")
    (tmp / "sitecustomize.py").write_text(_NO_NETWORK)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp), str(ROOT)])}
    out = tmp / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "-b", "html", "-q"]
    command += ["-d", str(tmp / "doctrees"), str(DOCS), str(out)]
    if _unshare_works():
        command = ["unshare", "-n", *command]
    start = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    print(f"docs build: {time.monotonic() - start:.0f} s")
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    assert "WARNING" not in done.stderr, done.stderr[-5000:]
    return out


def public_names() -> dict[str, list[str]]:
    """Each public module (no ``_``-prefixed part in its name) -> its public names: its
    ``__all__``, or the classes and functions it defines when it has none."""
    import riskexplore

    modules = ["riskexplore"] + [
        info.name
        for info in pkgutil.walk_packages(riskexplore.__path__, "riskexplore.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
    ]
    names = {}
    for name in modules:
        module = importlib.import_module(name)
        if hasattr(module, "__all__"):
            names[name] = list(module.__all__)
        else:
            names[name] = [
                n
                for n, obj in vars(module).items()
                if not n.startswith("_")
                and (inspect.isclass(obj) or inspect.isfunction(obj))
                and obj.__module__ == name
            ]
    return names


def _inventory(site: Path) -> dict[str, str]:
    """Python objects of the site's ``objects.inv``: dotted name -> page (without anchor)."""
    with open(site / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", lambda base, uri: uri)
    items = {}
    for kind, entries in (
        inventory.data.items() if hasattr(inventory, "data") else inventory.items()
    ):
        if kind.startswith("py:"):
            for name, item in entries.items():
                uri = item.uri if hasattr(item, "uri") else item[2]
                items[name] = uri.split("#")[0]
    return items


def test_every_public_name_has_an_api_page(site):
    inventory = _inventory(site)
    names = public_names()
    assert len(names) > 100 and sum(map(len, names.values())) > 400  # the walk found them
    missing = []
    for module_name, exported in names.items():
        assert (site / "api" / f"{module_name}.html").is_file(), module_name
        module = importlib.import_module(module_name)
        for name in exported:
            obj = getattr(module, name)
            candidates = [f"{module_name}.{name}"]
            if hasattr(obj, "__module__") and hasattr(obj, "__qualname__"):
                candidates.append(f"{obj.__module__}.{obj.__qualname__}")
            candidates += [  # documented where another public module exports it
                f"{other}.{n}"
                for other, others in names.items()
                for n in others
                if n == name and getattr(importlib.import_module(other), n) is obj
            ]
            found = [inventory[c] for c in candidates if c in inventory]
            if not found or not (site / found[0]).is_file():
                missing.append(f"{module_name}.{name}")
    assert missing == []


def test_a_new_docstring_reference_must_resolve(site):
    """The build is nitpicky: the API pages of objects whose docstrings cross-reference
    others link to them (a spot check that the references became links)."""
    page = site / "api" / "riskexplore.evaluation.near_optimal.near_optimal_risk_scores.html"
    html = page.read_text(encoding="utf-8")
    assert 'href="riskexplore.risk_score.fit.fit_risk_score.html' in html
    assert (DOCS / "conf.py").read_text().count("nitpicky = True") == 1


def test_every_guide_page_exists(site):
    for page, title in GUIDE.items():
        html = site / "guide" / f"{page}.html"
        assert html.is_file(), page
        assert title in html.read_text(encoding="utf-8"), (page, title)
    for page in ["getting-started", "benchmarks", "gallery", "changelog", "tutorials/index"]:
        assert (site / f"{page}.html").is_file(), page
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert len(notebooks) >= 7
    for notebook in notebooks:
        assert (site / "tutorials" / f"{notebook}.html").is_file(), notebook


def test_the_tutorials_show_their_stored_outputs(site):
    html = (site / "tutorials" / "01_quick_start.html").read_text(encoding="utf-8")
    assert "certified optimal" in html  # printed by a cell, stored in the notebook
    assert "OvalShape" in html


def test_benchmarks_and_dashboards_pages_include_their_readmes(site):
    benchmarks = (site / "benchmarks.html").read_text(encoding="utf-8")
    for heading in re.findall(r"^## (.+)$", (ROOT / "benchmarks" / "README.md").read_text(), re.M):
        words = re.sub(r"[`*]", "", heading).split("(")[0].strip()
        assert words.replace("'", "&#8217;")[:20] in benchmarks or words[:20] in benchmarks, words
    dashboards = (site / "guide" / "dashboards.html").read_text(encoding="utf-8")
    assert "Choose the data" in dashboards


def test_the_cli_reference_is_generated_from_the_parsers(site):
    html = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for option in ["--max-size", "--max-items", "--tolerance", "--no-browser", "--version"]:
        assert option in html, option


def test_every_link_between_pages_resolves(site):
    """Every ``href``/``src`` to a page or file of the site points to a file that exists."""
    broken = []
    for page in site.rglob("*.html"):
        if page.relative_to(site).parts[0] == "_static":
            continue  # the theme's template fragments, not pages
        html = page.read_text(encoding="utf-8")
        for link in re.findall(r'(?:href|src)="([^"#?]+)[^"]*"', html):
            if re.match(r"^[a-z]+:", link) or link.startswith("//"):
                continue
            if not (page.parent / link).resolve().exists():
                broken.append(f"{page.relative_to(site)}: {link}")
    assert broken == []


def test_the_gallery_shows_every_captioned_picture(site):
    import json

    captions = json.loads((DOCS / "_static" / "gallery" / "captions.json").read_text())
    html = (site / "gallery.html").read_text(encoding="utf-8")
    assert len(captions) >= 8
    for name, (title, _) in captions.items():
        assert (DOCS / "_static" / "gallery" / name).is_file(), name
        assert name in html and title.split(":")[0] in html, name


def _draws_a_figure(source: str) -> bool:
    """Whether a code cell shows a plotly figure (``fig.show()``, or a ``*_figure(...)``
    call as its last line)."""
    lines = [line for line in source.strip().splitlines() if line.strip()]
    return bool(lines) and bool(
        re.search(r"\.show\(\)\s*$", lines[-1]) or re.match(r"^\w+_figure\(", lines[-1])
    )


def test_the_tutorials_figures_are_stored_for_their_current_cells():
    """Every cell that draws a figure has its figure stored for the docs, drawn from its
    current source (after changing such a cell: ``python docs/scripts/notebook_figures.py
    NOTEBOOK``)."""
    import json

    sys.path.insert(0, str(DOCS / "_ext"))
    from notebook_pages import source_hash

    stale = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        stored_path = DOCS / "_figures" / f"{path.stem}.json"
        stored = json.loads(stored_path.read_text()) if stored_path.exists() else {"cells": {}}
        for index, cell in enumerate(cells):
            if cell["cell_type"] != "code" or not _draws_a_figure("".join(cell["source"])):
                continue
            entry = stored["cells"].get(str(index))
            if (
                entry is None
                or entry["source"] != source_hash(cell["source"])
                or not entry["figures"]
            ):
                stale.append(f"{path.name} cell {index}")
    assert stale == [], "run: python docs/scripts/notebook_figures.py"


def test_the_tutorials_draw_their_figures_offline(site):
    html = (site / "tutorials" / "01_quick_start.html").read_text(encoding="utf-8")
    assert html.count("Plotly.newPlot(") >= 2
    assert "_static/plotly.min.js" in html and (site / "_static" / "plotly.min.js").is_file()
    assert "NBVAL_CHECK_OUTPUT" not in html  # test markers are not shown
