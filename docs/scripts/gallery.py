"""Refresh the gallery's pictures from the screenshots the browser tests take.

Usage (after the browser tests have run and left their screenshots in ``artifacts/``)::

    python -m pytest tests/browser/test_dashboards.py tests/browser/test_alternatives.py
    python docs/scripts/gallery.py

Every picture named in ``docs/_static/gallery/captions.json`` is copied from ``artifacts/``
to ``docs/_static/gallery/``; pictures no longer named there are removed. The pictures are
never edited by hand. Exits 1, copying nothing, when a named screenshot is missing.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
GALLERY = ROOT / "docs" / "_static" / "gallery"


def refresh(artifacts: Path = ARTIFACTS, gallery: Path = GALLERY) -> list[str]:
    """Copy the captioned screenshots from ``artifacts`` to ``gallery``.

    Returns
    -------
    list of str
        The pictures copied, in the order of the captions.

    Raises
    ------
    FileNotFoundError
        When a captioned screenshot is not in ``artifacts`` (run the browser tests).
    """
    names = list(json.loads((gallery / "captions.json").read_text(encoding="utf-8")))
    missing = [name for name in names if not (artifacts / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"not in {artifacts}: {', '.join(missing)}; run tests/browser/test_dashboards.py"
            " and tests/browser/test_alternatives.py first"
        )
    for stale in gallery.glob("*.png"):
        if stale.name not in names:
            stale.unlink()
    for name in names:
        shutil.copyfile(artifacts / name, gallery / name)
    return names


def main() -> int:
    try:
        names = refresh()
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for name in names:
        print(f"{GALLERY.relative_to(ROOT) / name}: {(GALLERY / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
