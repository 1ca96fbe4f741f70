"""The tutorial pages: the notebooks of ``notebooks/``, shown with their stored outputs.

At every build ``notebooks/*.ipynb`` are copied to ``docs/tutorials/`` (MyST-NB renders them
without running them) and ``notebooks/README.md`` becomes the tutorials' index page, its
table of notebooks followed by their table of contents. The notebooks in git keep only
their text outputs; their figures are kept in ``docs/_figures/<notebook>.json`` by
``docs/scripts/notebook_figures.py`` and put back under their cells here (only while the
cell's source is the one they were drawn from), drawn by plotly.js from the plotly package
(copied into the site: nothing is loaded from the network).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from sphinx.application import Sphinx

PLOTLY_JS = "plotly.min.js"


def source_hash(source: str | list[str]) -> str:
    """The hash that ties a stored figure to its cell's source (as the script's)."""
    text = "".join(source) if isinstance(source, list) else source
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _figure_html(element_id: str, figure: dict) -> str:
    """A ``<div>`` and the script that draws the figure in it once the page is laid out
    (drawn earlier, it would take the width the page had before its sidebars)."""
    data = json.dumps(figure, separators=(",", ":")).replace("</", "<\\/")
    return (
        f'<div id="{element_id}" class="rx-plotly"></div>\n<script>'
        f"document.addEventListener('DOMContentLoaded', function () {{ var f = {data};"
        " f.layout = f.layout || {}; delete f.layout.width; f.layout.autosize = true;"
        f" Plotly.newPlot({json.dumps(element_id)}, f.data, f.layout,"
        " {responsive: true, displaylogo: false}); });</script>"
    )


def with_figures(notebook: dict, stored: dict, stem: str) -> tuple[dict, int]:
    """The notebook with the stored figures of unchanged cells appended to their outputs;
    and how many figures were put back."""
    count = 0
    for index, entry in stored.get("cells", {}).items():
        cell = notebook["cells"][int(index)] if int(index) < len(notebook["cells"]) else None
        if cell is None or cell["cell_type"] != "code":
            continue
        if source_hash(cell["source"]) != entry["source"]:
            continue  # the cell changed: its figure would not be the one it draws
        for k, figure in enumerate(entry["figures"]):
            html = _figure_html(f"rx-fig-{stem}-{index}-{k}", figure)
            cell.setdefault("outputs", []).append(
                {"output_type": "display_data", "metadata": {}, "data": {"text/html": html}}
            )
            count += 1
    return notebook, count


def _hide_test_markers(notebook: dict) -> None:
    """Drop the lines that only tell nbval what to compare (``# NBVAL_CHECK_OUTPUT``)."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            lines = "".join(cell["source"]).splitlines(keepends=True)
            cell["source"] = "".join(line for line in lines if not line.startswith("# NBVAL_"))


def _write_if_changed(text: str, path: Path) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_pages(notebooks: Path, figures: Path, out: Path) -> dict[str, int]:
    """Copy the notebooks (with their figures) into ``out`` and write its ``index.md``;
    returns each notebook's number of figures."""
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.stem for p in notebooks.glob("*.ipynb"))
    for stale in out.glob("*.ipynb"):
        if stale.stem not in names:
            stale.unlink()
    counts = {}
    for name in names:
        notebook = json.loads((notebooks / f"{name}.ipynb").read_text(encoding="utf-8"))
        stored_path = figures / f"{name}.json"
        stored = json.loads(stored_path.read_text(encoding="utf-8")) if stored_path.exists() else {}
        notebook, counts[name] = with_figures(notebook, stored, name)
        _hide_test_markers(notebook)
        _write_if_changed(json.dumps(notebook, indent=1) + "\n", out / f"{name}.ipynb")
    readme = (notebooks / "README.md").read_text(encoding="utf-8")
    toc = "\n".join(["", "```{toctree}", ":hidden:", ":maxdepth: 1", "", *names, "```", ""])
    _write_if_changed(readme.rstrip() + "\n" + toc, out / "index.md")
    return counts


def _generate(app: Sphinx) -> None:
    src = Path(app.srcdir)
    app.env.riskexplore_figures = write_pages(  # type: ignore[attr-defined]
        src.parent / "notebooks", src / "_figures", src / "tutorials"
    )


def _add_plotly(app: Sphinx, pagename: str, templatename, context, doctree) -> None:  # noqa: ANN001
    counts = getattr(app.env, "riskexplore_figures", {})
    if pagename.startswith("tutorials/") and counts.get(pagename.split("/", 1)[1]):
        app.add_js_file(PLOTLY_JS)


def _copy_plotly(app: Sphinx, exception) -> None:  # noqa: ANN001
    if exception is None and app.builder.format == "html":
        import plotly

        source = Path(plotly.__file__).parent / "package_data" / PLOTLY_JS
        shutil.copyfile(source, Path(app.outdir) / "_static" / PLOTLY_JS)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _generate)
    app.connect("html-page-context", _add_plotly)
    app.connect("build-finished", _copy_plotly)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
