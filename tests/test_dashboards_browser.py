"""The dashboards in a real browser: Voila serves each notebook on a free localhost port and
headless Chromium (Debian ``chromium``, driven by Playwright's Python API; no browser is
downloaded) clicks through a short solve.

Checked for each dashboard: the page shows no code and no traceback; nothing is requested
from outside localhost (every other request is blocked and recorded); the time limit is
set through the page's control; live progress arrives while the solve runs (the status
line changes and the bound line of the plot grows); the final score card / checklist
renders; a rule added with the constraint builder is solved and the comparison appears;
the download links carry the printable HTML and the JSON model; an unusable CSV upload is
answered with a message on the page. A full-page screenshot is
saved to ``artifacts/`` (gitignored) and its path printed.

Needs ``playwright`` (a test dependency in pyproject) and Debian's ``chromium``: when
``/usr/bin/chromium`` is missing and the tests run as root (as on CI), the fixture installs
it with apt-get, so the suite needs nothing installed by hand.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from riskexplore.dashboard_cli import start_voila

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
LOAD_TIMEOUT_MS = 180_000  # kernel start + plotly import + widget scripts on a busy machine
SOLVE_SECONDS = 5

CASES = {
    "risk": {
        "word": "score",
        "rule": "Never use a feature",
        "card": ".rx-card",
        "card_text": "RISK",
    },
    "checklist": {
        "word": "checklist",
        "rule": "Never use an item",
        "card": ".rx-checklist",
        "card_text": "items",
    },
}


def _button(page, text: str):
    """The button whose text is exactly ``text`` (icons ignored)."""
    return page.locator("button", has_text=re.compile(rf"^\W*{re.escape(text)}\s*$")).first


def _ensure_chromium() -> None:
    """Install Debian's chromium package if it is missing (never a downloaded browser)."""
    if Path(CHROMIUM).exists():
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium package (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)


@pytest.fixture(scope="module")
def browser():
    _ensure_chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def served(request, tmp_path):
    which = request.param
    log = open(tmp_path / f"voila-{which}.log", "w")
    proc, url = start_voila(which, timeout=120, log_file=log)
    try:
        yield which, url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def _watch_solve(page, index: int, seconds: float) -> list[tuple[str, int]]:
    """Poll the status line of search ``index`` and the plotted lines until the solve
    ends; returns (status text, total length of the plotted paths) samples."""
    status = page.locator(".rx-status").nth(index)
    plot = page.locator(".js-plotly-plot").first  # both searches draw into one figure
    samples: list[tuple[str, int]] = []
    deadline = time.monotonic() + seconds + 90
    while time.monotonic() < deadline:
        text = status.inner_text()
        paths = plot.locator("path.js-line")
        length = sum(len(paths.nth(i).get_attribute("d") or "") for i in range(paths.count()))
        samples.append((text, length))
        if "optimal" in text or "limit reached" in text or "failed" in text:
            break
        page.wait_for_timeout(250)
    return samples


@pytest.mark.parametrize("served", list(CASES), indirect=True)
def test_dashboard_solves_in_browser(served, browser):
    which, url = served
    case = CASES[which]
    word = case["word"]
    outside: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 1000})

    def only_local(route):
        target = route.request.url
        if target.startswith(("http://127.0.0.1", "http://localhost", "data:", "blob:")):
            return route.continue_()
        outside.append(target)
        return route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    shot = ARTIFACTS / f"dashboard_{which}.png"
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page.goto(url, timeout=LOAD_TIMEOUT_MS)
        solve = _button(page, f"Find the best {word}")
        solve.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)

        # no code, no traceback, plain-language page
        body = page.locator("body").inner_text()
        assert "Traceback" not in body and "import " not in body and "def " not in body
        assert page.locator(".jp-InputArea-editor:visible, .cm-editor:visible").count() == 0
        assert "Explorer(" not in body
        assert f"{word.capitalize()} builder" in body or f"{word} builder" in body.lower()

        # a short time limit through the page's control
        limit = page.get_by_label("Time limit (seconds)")
        limit.fill(str(SOLVE_SECONDS))
        limit.press("Tab")
        page.wait_for_timeout(500)

        # solve without rules; live bounds while it runs
        solve.click()
        samples = _watch_solve(page, 0, SOLVE_SECONDS)
        final = samples[-1][0]
        assert "optimal" in final or "limit reached" in final, samples[-5:]
        running = [(t, n) for t, n in samples if t.startswith("running") and "bound" in t]
        assert len({t for t, _ in running}) >= 2, f"no live progress: {samples[:10]}"
        lengths = [n for _, n in running]
        assert lengths and max(lengths) > min(lengths), "the plotted bounds did not grow"
        card = page.locator(case["card"]).first
        expect(card).to_be_visible(timeout=30_000)
        assert case["card_text"] in card.inner_text()

        # add a rule with the constraint builder, solve with it, compare
        page.get_by_label("constraint", exact=True).select_option(label=case["rule"])
        _button(page, "Add").click()
        expect(page.locator(".rx-message", has_text="Added")).to_be_visible(timeout=60_000)
        _button(page, f"Find the best {word} with my rules").click()
        samples = _watch_solve(page, 1, SOLVE_SECONDS)
        assert "optimal" in samples[-1][0] or "limit reached" in samples[-1][0], samples[-3:]
        lengths = [n for t, n in samples if t.startswith("running")]
        assert len(set(lengths)) >= 2, "the plot did not follow the search with rules"
        expect(page.locator(".rx-price").first).to_be_visible(timeout=60_000)

        # downloads: printable page and JSON model, as data: URIs
        links = page.locator("a.rx-download")
        expect(links).to_have_count(4, timeout=30_000)
        href = links.first.get_attribute("href")
        assert href.startswith("data:text/html;charset=utf-8;base64,")
        printable = base64.b64decode(href.split(",", 1)[1]).decode("utf-8")
        assert case["card"].lstrip(".") in printable and "Certificate" in printable
        assert links.nth(1).get_attribute("href").startswith("data:application/json")

        # an unusable upload gives a message on the page; the data stay
        with page.expect_file_chooser(timeout=30_000) as chooser:
            page.locator("button", has_text="Upload a CSV file").first.click()
        chooser.value.set_files(
            files=[{"name": "notes.csv", "mimeType": "text/csv", "buffer": b"only one\n1\n2\n"}]
        )
        expect(page.locator(".rx-message", has_text="notes.csv has 1 column").first).to_be_visible(
            timeout=30_000
        )

        body = page.locator("body").inner_text()
        assert "Traceback" not in body
        assert not outside, f"requests outside localhost: {outside}"
    finally:
        height = page.evaluate(  # Voila's page scrolls inside a container, not the body
            "Math.max(...Array.from(document.querySelectorAll('*'), e => e.scrollHeight))"
        )
        page.set_viewport_size({"width": 1280, "height": min(max(int(height), 1000), 8000)})
        page.wait_for_timeout(500)
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        context.close()
