"""The widgets' public entry points (the classes ``riskexplore.widgets`` exports, and study
files): each is listed in the widget table of the user guide (``docs/guide/widgets.md``) and
has a numpydoc docstring with its parameters and a short example — and the example runs as
written (its outputs compared, as doctest does; only the lines that display a widget are
skipped)."""

from __future__ import annotations

import doctest
import inspect
import re
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")

import riskexplore.widgets as widgets  # noqa: E402
from riskexplore.exploration.study.document import Study  # noqa: E402

WIDGETS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "widgets.md"
ENTRY_POINTS = {
    **{n: getattr(widgets, n) for n in widgets.__all__ if inspect.isclass(getattr(widgets, n))},
    "Study": Study,
}


def _guide_table() -> list[str]:
    """The names in the first column of the widget table of the user guide's page."""
    text = WIDGETS_PAGE.read_text(encoding="utf-8")
    names = []
    for line in text.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([A-Za-z_]\w*)", line.split("|")[1])
    return names


def test_the_guide_lists_every_widget():
    listed = _guide_table()
    assert sorted(set(listed)) == sorted(ENTRY_POINTS), "docs/guide/widgets.md's widget table"


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_each_entry_point_has_a_numpydoc_docstring_and_an_example_that_runs(
    name, tmp_path, monkeypatch
):
    cls = ENTRY_POINTS[name]
    doc = inspect.getdoc(cls) or ""
    parameters = [p for p in inspect.signature(cls).parameters if p != "self"]
    if parameters:  # a dataclass documents its fields as attributes
        section = "Attributes" if hasattr(cls, "__dataclass_fields__") else "Parameters"
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, name
    assert "\nExamples\n--------\n" in doc, name
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    (test,) = doctest.DocTestFinder(recurse=False).find(cls, name, globs={})
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=report.append)
    assert result.attempted >= 3, name
    assert result.failed == 0, "".join(report)
