"""Fixtures shared by the test modules (helpers of the browser tests: ``_browser.py``)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright (one per test module)."""
    from _browser import CHROMIUM, CHROMIUM_ARGS, ensure_chromium
    from playwright.sync_api import sync_playwright

    ensure_chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=120_000)
        try:
            yield b
        finally:
            b.close()
