"""The tutorial pages: the notebooks of ``notebooks/``, shown with their stored outputs.

At every build ``notebooks/*.ipynb`` are copied to ``docs/tutorials/`` (MyST-NB renders them
without running them) and ``notebooks/README.md`` becomes the tutorials' index page, its
table of notebooks followed by their table of contents.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx


def _copy_if_changed(text: str | bytes, path: Path) -> None:
    data = text.encode() if isinstance(text, str) else text
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def write_pages(notebooks: Path, out: Path) -> list[str]:
    """Copy the notebooks into ``out`` and write its ``index.md``; returns their names."""
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.stem for p in notebooks.glob("*.ipynb"))
    for stale in out.glob("*.ipynb"):
        if stale.stem not in names:
            stale.unlink()
    for name in names:
        _copy_if_changed((notebooks / f"{name}.ipynb").read_bytes(), out / f"{name}.ipynb")
    readme = (notebooks / "README.md").read_text(encoding="utf-8")
    toc = "\n".join(["", "```{toctree}", ":hidden:", ":maxdepth: 1", "", *names, "```", ""])
    _copy_if_changed(readme.rstrip() + "\n" + toc, out / "index.md")
    return names


def _generate(app: Sphinx) -> None:
    write_pages(Path(app.srcdir).parent / "notebooks", Path(app.srcdir) / "tutorials")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
