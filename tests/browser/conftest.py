"""Every test here drives Debian's headless Chromium (marker ``browser``: ``-m "not browser"``
leaves them out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _browser import settle_gallery

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A gallery picture counts only from a test that passed (``_browser.screenshot``)."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        settle_gallery(passed=report.passed)
