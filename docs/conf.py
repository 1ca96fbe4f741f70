"""Sphinx configuration of the riskexplore documentation.

Build (offline, warnings are errors)::

    python -m sphinx -W -b html docs docs/_build/html

The API reference (``api/``), the command-line reference (``reference/cli.rst``), the
tutorials (``tutorials/``, copied from ``notebooks/``) and the gallery page are generated
at every build by the extensions in ``_ext/``; those folders are not kept in git.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import riskexplore  # noqa: E402

project = "riskexplore"
author = "the riskexplore developers"
copyright = "the riskexplore developers"
release = riskexplore.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "myst_nb",
    "sphinx_design",
    "api_pages",
    "cli_pages",
    "notebook_pages",
    "gallery_page",
]

exclude_patterns = ["_build", "scripts", "_ext", "**.ipynb_checkpoints"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"

# every cross-reference must resolve (broken ones are warnings, -W makes them errors);
# names of other libraries are not linked (no network: no intersphinx)
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(?!riskexplore\b).*"),  # numpy, pandas, plotly, ... and builtins
]

# autodoc: signatures without annotations (numpydoc's Parameters give the types in words)
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"exclude-members": "__init__, __new__, __weakref__"}
autodoc_inherit_docstrings = False
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

# MyST-NB: the notebooks are shown with their stored outputs, never executed here
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = f"riskexplore {release}"
html_static_path = ["_static"]
html_css_files = ["riskexplore.css"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
# pages without sections of their own get no left sidebar (it would be empty)
html_sidebars = {
    page: []
    for page in [
        "index",
        "getting-started",
        "gallery",
        "benchmarks",
        "datasets",
        "architecture",
        "development",
        "changelog",
        "api/**",
        "reference/**",
    ]
}
