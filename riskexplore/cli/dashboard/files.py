"""Where the dashboards are, and the command that installs what they need.

The notebooks are edited in the top-level ``dashboards/`` folder of the source checkout;
a wheel carries a copy in ``riskexplore/dashboards`` (``setup.py`` makes it at build time).
:func:`dashboards_dir` finds them either way, and :func:`install_command` names the
command that installs the ``interface`` extra for how this package was installed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["DASHBOARDS", "dashboards_dir", "install_command"]

#: Dashboard name -> notebook file in ``dashboards/``.
DASHBOARDS = {
    "risk": "risk_score_builder.ipynb",
    "checklist": "checklist_builder.ipynb",
}


#: The source checkout this package runs from (``riskexplore/cli/`` is two levels down), if
#: it is one.
_SOURCE_ROOT = Path(__file__).resolve().parents[3]

#: Where an installed package (a wheel) keeps the dashboards (copied by ``setup.py``).
_PACKAGED = Path(__file__).resolve().parents[2] / "dashboards"


def _from_checkout() -> bool:
    """Whether the package runs from a source checkout (an editable install)."""
    return (_SOURCE_ROOT / "pyproject.toml").is_file() and (_SOURCE_ROOT / "dashboards").is_dir()


def dashboards_dir() -> Path:
    """The dashboards: ``dashboards/`` of the source checkout the package runs from (where
    people edit them), else the copy inside an installed package (``riskexplore/dashboards``
    of a wheel).

    Returns
    -------
    Path
        The directory.

    Raises
    ------
    FileNotFoundError
        When neither is there (a package built without them).
    """
    if _from_checkout():
        return _SOURCE_ROOT / "dashboards"
    if any(_PACKAGED.glob("*.ipynb")):
        return _PACKAGED
    raise FileNotFoundError(
        f"the dashboards are missing from {_PACKAGED}; reinstall riskexplore from a wheel or "
        "an sdist built by `python -m build`, or from a source checkout "
        "(pip install -e '.[interface]')"
    )


def _shown(path: Path, *, source: bool = False) -> str:
    """``path`` as the user would type it here: relative to the current directory when it
    lies inside it, else absolute (a ``source`` folder keeps a ``./`` so that pip reads it
    as a path, not as a package name)."""
    path = Path(os.path.abspath(path))  # absolute, without ".." parts
    try:
        rel = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    if str(rel) == ".":
        return "."
    return f"./{rel}" if source else str(rel)


def install_command(python: str | Path | None = None) -> str:
    """The command that installs what the dashboards need (the ``interface`` extra of this
    source tree) into the environment of ``python`` (default: the running one).

    Parameters
    ----------
    python : str or Path, optional
        The Python of the environment.

    Returns
    -------
    str
        The command.
    """
    python = Path(python or sys.executable)
    pip = python.with_name("pip")
    if os.path.abspath(python) == os.path.abspath(sys.executable) and pip.is_file():
        head = _shown(pip)
    else:
        head = f"{_shown(python)} -m pip"
    if not _from_checkout():  # an installed package: its extra, by name
        return f'{head} install "riskexplore[interface]"'
    source = _shown(_SOURCE_ROOT, source=True)
    return f'{head} install -e "{source}[interface]"'
