"""plotly.js for the pages: the bundle shipped with the installed plotly package, the same
bundle as an ES module for a server to serve as a static file, and the environment variable
by which the dashboard server tells its kernels the module's address.

No third-party import: the dashboard launcher writes the module before any kernel starts
(:mod:`riskexplore.cli.dashboard.server`), and
:class:`~riskexplore.widgets.plot_view.PlotlyLibrary` sends a page either that address or
the bundle itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

__all__ = ["PLOTLY_URL_VARIABLE", "plotly_js_path", "plotly_module"]

#: The environment variable naming the address where the server serves plotly.js as an ES
#: module (:func:`plotly_module`); kernels started without it send the bundle in the state.
PLOTLY_URL_VARIABLE = "RISKEXPLORE_PLOTLY_URL"

#: What makes plotly.min.js (a UMD bundle) an ES module: a ``module`` for it to fill, and
#: that module's exports re-exported (``plot_view.js`` wraps the bundle alike in a blob).
_MODULE_HEAD = b"const module = { exports: {} };\n"
_MODULE_TAIL = b"\nexport default module.exports;\n"


def plotly_js_path() -> Path:
    """The plotly.js bundle shipped with the installed plotly package.

    Returns
    -------
    Path
        The file.

    Raises
    ------
    FileNotFoundError
        When plotly is not installed, or is broken.
    """
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("plotly is not installed; install riskexplore[interface]")
    package = Path(next(iter(spec.submodule_search_locations))).resolve()
    path = package / "package_data" / "plotly.min.js"
    if not path.is_file():  # pragma: no cover - a broken plotly installation
        raise FileNotFoundError(f"plotly.js not found at {path}; reinstall plotly")
    return path


def plotly_module() -> tuple[str, bytes]:
    """plotly.js as an ES module, to serve as a static file: ``(digest, content)``.

    The digest (of the bundle) belongs in the file's address, so that a browser may keep
    the file for good: another plotly gets another address.

    Returns
    -------
    tuple
        ``(digest, content)``: 12 hexadecimal digits, and the module's bytes.
    """
    source = plotly_js_path().read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:12]
    return digest, _MODULE_HEAD + source + _MODULE_TAIL
