"""``docs/scripts/gallery.py`` (a script, not a package) as a module for the tests: the
fingerprints of the page code each gallery picture shows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "scripts" / "gallery.py"
_spec = importlib.util.spec_from_file_location("riskexplore_docs_gallery", _SCRIPT)
gallery = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gallery)
