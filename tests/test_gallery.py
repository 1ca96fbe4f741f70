"""The docs' gallery shows today's pages: every picture was taken by a browser test from the
page code as it is now (``docs/scripts/gallery.py``: content hashes of the code each picture
shows, recorded when it was taken). Fast: nothing is drawn here."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from _gallery import gallery

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "docs" / "_static" / "gallery"


def test_every_gallery_picture_is_newer_than_the_page_code_it_shows():
    found = gallery.stale(gallery.read_sources())
    assert not found, gallery.stale_message(found)


def test_each_captioned_picture_names_the_browser_test_that_takes_it():
    sources = gallery.read_sources()
    captions = json.loads((GALLERY / "captions.json").read_text(encoding="utf-8"))
    assert list(sources) == list(captions)
    for name, spec in sources.items():
        path, _, test = spec["test"].partition("::")
        assert path.startswith("tests/browser/"), name
        function = re.sub(r"\[.*\]$", "", test)
        assert f"def {function}(" in (ROOT / path).read_text(encoding="utf-8"), spec["test"]
        assert (GALLERY / name).is_file() and spec["made_from"], name


_VIEW = """from riskexplore.core.rules import RULES
from riskexplore.figures.fig import draw


def show():
    from riskexplore.widgets import helper
    return draw(helper.WIDTH)
"""
_MODEL = """class Model:
    def fit(self):
        return 1

    def to_html(self):
        return "<div>card</div>"
"""


def _notebook(code: str, text: str) -> str:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": [text]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": [code]},
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@pytest.fixture
def tree(tmp_path):
    """A small repository: a view, its figure, its script, a helper, a rule (not page
    code), a model and a notebook."""
    files = {
        "riskexplore/widgets/view.py": _VIEW,
        "riskexplore/widgets/view.js": "export default {};\n",
        "riskexplore/widgets/helper.py": "WIDTH = 3\n",
        "riskexplore/widgets/other.py": "UNUSED = 1\n",
        "riskexplore/figures/fig.py": "def draw(width):\n    return width\n",
        "riskexplore/core/rules.py": "RULES = []\n",
        "riskexplore/model.py": _MODEL,
        "dashboards/page.ipynb": _notebook("ex = show()", "# Step 1"),
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


SHOWS = [
    "dashboards/page.ipynb",
    "riskexplore/widgets/view.py",
    "riskexplore/model.py::Model.to_html",
]


def test_the_page_code_of_a_picture_follows_the_imports_of_widgets_and_figures(tree):
    assert gallery.page_code(SHOWS, tree) == sorted(
        [
            *SHOWS,
            "riskexplore/widgets/view.js",
            "riskexplore/widgets/helper.py",
            "riskexplore/figures/fig.py",
        ]
    )


@pytest.mark.parametrize(
    ("path", "old", "new", "changed"),
    [
        ("riskexplore/figures/fig.py", "return width", "return 2 * width", "figures/fig.py"),
        ("riskexplore/widgets/helper.py", "3", "4", "widgets/helper.py"),
        ("riskexplore/widgets/view.js", "{}", "{a: 1}", "widgets/view.js"),
        ("riskexplore/model.py", "card", "the card", "model.py::Model.to_html"),
        ("dashboards/page.ipynb", "ex = show()", "ex = show(); ex.wide = 1", "page.ipynb"),
        ("dashboards/page.ipynb", "# Step 1", "# Step 1: the data", None),
        ("riskexplore/model.py", "return 1", "return 2", None),
        ("riskexplore/core/rules.py", "[]", "[1]", None),
        ("riskexplore/widgets/other.py", "1", "2", None),
    ],
)
def test_a_picture_is_stale_when_the_code_that_draws_it_changes(tree, path, old, new, changed):
    sources = {"page.png": {"shows": SHOWS, "made_from": gallery.fingerprint(SHOWS, tree)}}
    assert gallery.stale(sources, tree) == {}
    os.utime(tree / path, (1, 1))  # a checkout's file times count for nothing
    assert gallery.stale(sources, tree) == {}
    file = tree / path
    file.write_text(file.read_text().replace(old, new))
    found = gallery.stale(sources, tree)
    if changed is None:
        assert found == {}
    else:
        assert list(found) == ["page.png"] and found["page.png"][0].endswith(changed), found
        message = gallery.stale_message(found)
        assert "page.png" in message and changed in message
        assert "python docs/scripts/gallery.py" in message


def test_a_picture_made_from_other_files_is_stale(tree):
    made = gallery.fingerprint(SHOWS, tree)
    (tree / "riskexplore/widgets/view.js").unlink()
    sources = {"page.png": {"shows": SHOWS, "made_from": made}}
    assert gallery.stale(sources, tree) == {"page.png": ["riskexplore/widgets/view.js"]}
    never = gallery.stale({"page.png": {"shows": SHOWS}}, tree)
    assert never == {"page.png": []} and "page.png: never taken" in gallery.stale_message(never)


def test_an_entry_naming_no_function_is_an_error(tree):
    with pytest.raises(LookupError, match="Model.to_text names nothing"):
        gallery.fingerprint(["riskexplore/model.py::Model.to_text"], tree)


def test_copy_takes_only_pictures_of_passing_tests_made_from_todays_code(tmp_path):
    shown = tmp_path / "gallery"
    shown.mkdir()
    shutil.copy(GALLERY / gallery.SOURCES, shown)
    (shown / "old.png").write_bytes(b"old")
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    sources = gallery.read_sources(shown)
    taken = {name: gallery.fingerprint(spec["shows"]) for name, spec in sources.items()}
    for name in sources:
        (artifacts / name).write_bytes(name.encode())
    first = next(iter(sources))
    gallery.keep(artifacts, {**taken, first: None})  # its test failed
    with pytest.raises(FileNotFoundError, match=re.escape(first)):
        gallery.copy(artifacts, shown)
    gallery.keep(artifacts, {first: {"riskexplore/widgets/cards.py": "0" * 12}})
    with pytest.raises(FileNotFoundError, match="changed after"):
        gallery.copy(artifacts, shown)
    gallery.keep(artifacts, taken)
    assert gallery.copy(artifacts, shown) == list(sources)
    assert (shown / first).read_bytes() == first.encode() and not (shown / "old.png").exists()
    assert gallery.stale(gallery.read_sources(shown)) == {}
