"""Run the tutorial notebooks and keep their figures for the docs (the notebooks in git keep
only their text outputs).

Usage::

    python docs/scripts/notebook_figures.py [NOTEBOOK ...]

Each notebook of ``notebooks/`` (or those named) is run in a kernel from its own folder,
with plotly's figures sent as data; the figures of each code cell are written to
``docs/_figures/<notebook>.json`` with a hash of the cell's source. The docs build shows a
stored figure under its cell only while the cell's source is unchanged, and
``tests/test_docs.py`` fails when a cell that draws a figure has none stored: run this
script again after changing such a cell.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "docs" / "_figures"
PLOTLY = "application/vnd.plotly.v1+json"


def source_hash(source: str | list[str]) -> str:
    """The hash that ties a stored figure to its cell's source."""
    text = "".join(source) if isinstance(source, list) else source
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def run(path: Path) -> dict:
    """Run the notebook; returns ``{"cells": {index: {"source": hash, "figures": [...]}}}``."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    os.environ["PLOTLY_RENDERER"] = "plotly_mimetype"  # the kernel inherits it
    NotebookClient(nb, timeout=900, resources={"metadata": {"path": str(path.parent)}}).execute()
    cells = {}
    for index, cell in enumerate(nb.cells):
        figures = [
            output["data"][PLOTLY]
            for output in cell.get("outputs", [])
            if PLOTLY in output.get("data", {})
        ]
        if cell.cell_type == "code" and figures:
            cells[str(index)] = {"source": source_hash(cell.source), "figures": figures}
    return {"notebook": path.name, "cells": cells}


def main(argv: list[str]) -> int:
    paths = [NOTEBOOKS / f"{Path(a).stem}.ipynb" for a in argv] or sorted(NOTEBOOKS.glob("*.ipynb"))
    FIGURES.mkdir(exist_ok=True)
    for path in paths:
        stored = run(path)
        out = FIGURES / f"{path.stem}.json"
        out.write_text(json.dumps(stored, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{out.relative_to(ROOT)}: {len(stored['cells'])} cells with figures")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
