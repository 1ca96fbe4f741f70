"""The version is written in one place, ``riskexplore.__version__``: the package metadata,
``python -m riskexplore --version``, the docs and the changelog's latest release follow it."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import riskexplore

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_a_release_number():
    assert re.fullmatch(r"\d+\.\d+\.\d+", riskexplore.__version__), riskexplore.__version__


def test_pyproject_reads_the_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "riskexplore.__version__"}
    assert metadata.version("riskexplore") == riskexplore.__version__


def test_version_option_prints_it():
    done = subprocess.run(
        [sys.executable, "-m", "riskexplore", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"riskexplore {riskexplore.__version__}"


def test_the_changelog_names_the_version_first():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert releases, "no '## [X.Y.Z] - YYYY-MM-DD' heading"
    assert releases[0][0] == riskexplore.__version__
    assert [r[0] for r in releases] == sorted(
        (r[0] for r in releases), key=lambda v: tuple(map(int, v.split("."))), reverse=True
    )
    for section in ("### Added", "### Changed"):
        assert section in text


def test_the_docs_take_the_version_from_the_package():
    conf = (ROOT / "docs" / "conf.py").read_text()
    assert "release = riskexplore.__version__" in conf
    assert not re.search(r"release = [\"']", conf)
