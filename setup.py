"""Build hook: the dashboards are package data of the wheel, from one source.

People find and edit the dashboards in the top-level ``dashboards/`` folder; the package has
no copy of them in git. When a wheel is built (from the checkout or from the sdist, which
carries ``dashboards/`` through ``MANIFEST.in``), ``build_py`` copies the notebooks and their
README into ``riskexplore/dashboards/`` of the build, where
``riskexplore.cli.dashboard.files.dashboards_dir`` finds them in an installed package. Everything
else about the package is in ``pyproject.toml``.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: What of ``dashboards/`` goes into the package.
DASHBOARD_FILES = ("*.ipynb", "README.md")


class BuildWithDashboards(build_py):
    """``build_py`` that also copies ``dashboards/`` into the built package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install uses the checkout
            return
        source = Path(__file__).resolve().parent / "dashboards"
        target = Path(self.build_lib) / "riskexplore" / "dashboards"
        target.mkdir(parents=True, exist_ok=True)
        for pattern in DASHBOARD_FILES:
            for path in sorted(source.glob(pattern)):
                shutil.copyfile(path, target / path.name)


setup(cmdclass={"build_py": BuildWithDashboards})
