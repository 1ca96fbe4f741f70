"""The gallery page: the dashboards' screenshots kept in ``_static/gallery/``.

The pictures are those the browser tests take, copied by ``docs/scripts/gallery.py``
(never by hand), which also records the page code each one shows
(``_static/gallery/sources.json``; ``tests/test_gallery.py`` fails once a picture is
older than its page code); ``_static/gallery/captions.json`` gives each picture's title
and caption, in the order of the page. A caption without its picture, or a
picture without a caption, is a build warning (an error under ``-W``).
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)


def page(gallery: Path) -> str:
    """The gallery page (MyST markdown) from the captions and the pictures present."""
    captions = json.loads((gallery / "captions.json").read_text(encoding="utf-8"))
    pictures = {p.name for p in gallery.glob("*.png")}
    for missing in sorted(set(captions) - pictures):
        logger.warning(
            "gallery: %s has a caption but no picture (run docs/scripts/gallery.py)", missing
        )
    for extra in sorted(pictures - set(captions)):
        logger.warning("gallery: %s has no caption in captions.json", extra)
    lines = [
        "# Gallery",
        "",
        "The dashboards' pages as the browser tests see them: each picture is a screenshot "
        "taken by `tests/browser/test_dashboards.py` or "
        "`tests/browser/test_alternatives.py` from the pages' code as it is now "
        "(`python docs/scripts/gallery.py` takes them again). "
        "How to run the dashboards: {doc}`/guide/dashboards`.",
        "",
    ]
    for name, (title, caption) in captions.items():
        if name in pictures:
            lines += [
                f"## {title}",
                "",
                caption,
                "",
                f"```{{image}} /_static/gallery/{name}",
                f":alt: {title}",
                "```",
                "",
            ]
    return "\n".join(lines)


def _generate(app: Sphinx) -> None:
    text = page(Path(app.srcdir) / "_static" / "gallery")
    path = Path(app.srcdir) / "gallery.md"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
