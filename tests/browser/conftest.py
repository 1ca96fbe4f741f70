"""Every test here drives Debian's headless Chromium (marker ``browser``: ``-m "not browser"``
leaves them out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _browser import settle_gallery

from riskexplore.cli.dashboard.server import warm_up

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session", autouse=True)
def compiled_searches():
    """The searches' numba code compiled once before any page, as ``riskexplore dashboard``
    does before it serves (these tests start Voila themselves). Without it the first page's
    kernel compiled it inside its search's time limit: on a fresh clone under load the
    Alternatives step then found only the best score."""
    assert warm_up() is not None, "the warm-up of the searches failed"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A gallery picture counts only from a test that passed (``_browser.screenshot``)."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        settle_gallery(passed=report.passed)
