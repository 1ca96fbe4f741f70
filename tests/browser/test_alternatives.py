"""The dashboards' "Alternatives" step in a real browser (Voila + headless Debian
``chromium`` through Playwright, as ``tests/browser/test_dashboards.py``): open the set of
near-optimal models, select the second one, edit a point (risk score) or an item
(checklist) and see the distance to the best change together with the card and the
metrics; then the price of each characteristic.

The time from the click of an edit to the page showing the new distance, card and metrics
is measured in the page (``performance.now()`` and mutation observers) and printed, with
the other numbers, to ``artifacts/alternatives_<page>.json``; it is reported, never
asserted (machines differ). Screenshots: ``artifacts/alternatives_<page>.png`` (the step)
and ``artifacts/alternatives_<page>_prices.png``; some of them are the docs' gallery
(``docs/scripts/gallery.py``).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from _browser import (
    block_outside,
    button,
    card_clear_of_certificate,
    open_study_file,
    screenshot,
)
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import start_voila, stop_process

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
LOAD_TIMEOUT_MS = 180_000

CASES = {
    "risk": {"word": "score", "tolerance": ("How close to the best (%)", "0.5")},
    "checklist": {"word": "checklist", "tolerance": ("At most this many more mistakes", "2")},
}

#: Clicks an edit control and resolves, once the distance, the card and the metrics plot
#: have all changed, with the milliseconds each took (null if it did not change in 20 s).
_TIMED_EDIT = """async ([selector, index]) => {
    const watched = {
        distance: document.querySelector(".rx-alternatives .rx-alt-distance"),
        card: document.querySelector(".rx-alternatives .rx-alt-card"),
        metrics: document.querySelector(".rx-alternatives .rx-alt-metrics .js-plotly-plot"),
    };
    const times = {};
    const start = performance.now();
    const done = new Promise(resolve => {
        const check = () => {
            if (Object.keys(watched).every(k => k in times)) resolve();
        };
        for (const [name, el] of Object.entries(watched)) {
            new MutationObserver((_m, obs) => {
                if (!(name in times)) times[name] = performance.now() - start;
                obs.disconnect();
                check();
            }).observe(el, {subtree: true, childList: true, characterData: true,
                            attributes: true});
        }
        setTimeout(resolve, 20000);
    });
    document.querySelectorAll(selector)[index].click();
    await done;
    return times;
}"""


@pytest.fixture
def served(request, tmp_path):
    which = request.param
    log = open(tmp_path / f"voila-{which}.log", "w")
    proc, url = start_voila(which, timeout=120, log_file=log)
    try:
        yield which, url
    finally:
        stop_process(proc)
        log.close()


def _full_height(page) -> None:
    """Make the viewport as tall as the page (Voila's page scrolls inside a container, and
    a screenshot paints only what the viewport shows)."""
    height = page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('*'), e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": 1280, "height": min(max(int(height), 1000), 12000)})
    page.wait_for_timeout(800)


def _distance(page) -> str:
    return page.locator(".rx-alternatives .rx-alt-distance").inner_text().strip()


@pytest.mark.parametrize("served", list(CASES), indirect=True)
def test_alternatives_in_browser(served, browser):
    which, url = served
    case = CASES[which]
    word = case["word"]
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    outside = block_outside(context)
    page = context.new_page()
    ARTIFACTS.mkdir(exist_ok=True)
    report: dict = {"page": which}
    try:
        page.goto(url, timeout=LOAD_TIMEOUT_MS)
        find = button(page, f"Find other good {word}s")
        find.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        # the page that opens the study later, opened now (not waiting for it to load):
        # its kernel starts and builds the page while this one searches, instead of after
        restored = context.new_page()
        restored.goto(url, wait_until="commit", timeout=LOAD_TIMEOUT_MS)
        block = page.locator(".rx-alternatives")
        expect(block.locator(".rx-alt-results")).to_be_hidden()  # folded until a set

        # open the set
        label, value = case["tolerance"]
        field = page.get_by_label(label)
        field.fill(value)
        field.press("Tab")
        began = time.monotonic()
        find.click()
        cards = block.locator(".rx-alt-choice")
        expect(cards.nth(1)).to_be_visible(timeout=240_000)
        report["set_seconds"] = round(time.monotonic() - began, 1)
        summary = block.locator(".rx-alt-summary").inner_text()
        assert f"of the best {word}" in summary or f"than the best {word}" in summary
        assert "The list is complete" in summary or "may be incomplete" in summary
        report["set"] = summary
        report["models"] = cards.count()
        expect(block.locator(".rx-alt-card")).to_contain_text("Model #1")
        assert "best" in cards.nth(0).inner_text()

        # select the second model
        cards.nth(1).click()
        expect(block.locator(".rx-alt-card")).to_contain_text("Model #2", timeout=30_000)
        expect(cards.nth(1)).to_have_class(re.compile("mod-info"), timeout=30_000)
        before = _distance(page)
        assert "best possible" in before, before

        # edit: a point more (the first feature the model uses) or one more item
        if which == "risk":
            rows = block.locator(".rx-alt-row")
            texts = rows.all_inner_texts()
            used = next(i for i, t in enumerate(texts) if "pt" in t)
            selector, index = ".rx-alternatives .rx-alt-plus", used
        else:
            boxes = block.locator(".rx-alt-item input")
            index = next(i for i in range(boxes.count()) if not boxes.nth(i).is_checked())
            selector = ".rx-alternatives .rx-alt-item input"
        times = page.evaluate(_TIMED_EDIT, [selector, index])
        report["edit_ms"] = {k: round(v) for k, v in times.items()}
        assert set(times) == {"distance", "card", "metrics"}, times
        expect(block.locator(".rx-alt-card")).to_contain_text("(edited)", timeout=30_000)
        after = _distance(page)
        assert after != before and ("worse" in after or "mistake" in after), (before, after)
        report["distance_before"], report["distance_after"] = before, after
        metrics = block.locator(".rx-alt-metrics .js-plotly-plot")
        names = metrics.evaluate("el => (el._fullData || []).map(d => d.name)")
        assert "this model train" in names and "best train" in names, names
        assert card_clear_of_certificate(block.locator(".rx-alt-card")), "certificate on the card"
        _full_height(page)
        screenshot(block, ARTIFACTS / f"alternatives_{which}.png")

        # the price of each characteristic (within a shorter time limit)
        field = page.get_by_label("Time limit (seconds)")
        field.fill("15")
        field.press("Tab")
        page.wait_for_timeout(500)
        began = time.monotonic()
        button(page, "What is each characteristic worth?").click()
        table = block.locator(".rx-price-table")
        expect(table).to_be_visible(timeout=120_000)
        expect(block.locator(".rx-alt-prices")).to_contain_text("done in", timeout=180_000)
        report["prices_seconds"] = round(time.monotonic() - began, 1)
        rows = table.locator("tr")
        assert rows.count() >= 3
        assert "leave it out" in table.inner_text() and "force it in" in table.inner_text()
        plot = block.locator(".rx-alt-prices .js-plotly-plot")
        expect(plot).to_be_visible(timeout=30_000)
        _full_height(page)
        screenshot(block.locator(".rx-alt-prices"), ARTIFACTS / f"alternatives_{which}_prices.png")

        # the set travels in a study file: save, download, open on a new page (kernel)
        n = cards.count()
        button(page, "Save the study").click()
        link = page.locator("a.rx-study-download", has_text=f"{n} good {word}")
        expect(link).to_be_visible(timeout=60_000)
        with page.expect_download(timeout=60_000) as download:
            link.click()
        saved = Path(download.value.path()).read_bytes()
        kept = json.loads(saved)["alternatives"]
        assert kept["selected"] == 1 and len(kept["models"]) == n, kept["selected"]
        button(restored, f"Find other good {word}s").wait_for(
            state="visible", timeout=LOAD_TIMEOUT_MS
        )
        open_study_file(restored, f"{which}_study.json", saved)
        again = restored.locator(".rx-alternatives")
        expect(again.locator(".rx-alt-choice")).to_have_count(n, timeout=60_000)
        expect(again.locator(".rx-alt-card")).to_contain_text("Model #2", timeout=30_000)
        expect(again.locator(".rx-alt-choice").nth(1)).to_have_class(
            re.compile("mod-info"), timeout=30_000
        )
        distance = again.locator(".rx-alt-distance")  # the selected model's certified distance
        expect(distance).to_have_text(before, timeout=30_000)
        opened = restored.locator(".rx-study .rx-message", has_text="Opened the study").first
        expect(opened).to_contain_text(f"{n} near-optimal models", timeout=60_000)
        report["restored"] = opened.inner_text()
        label, value = case["tolerance"]  # the set's tolerance, not the default
        assert float(restored.get_by_label(label).input_value()) == float(value)
        _full_height(restored)
        screenshot(again, ARTIFACTS / f"alternatives_{which}_restored.png")

        body = page.locator("body").inner_text()
        assert "Traceback" not in body
        assert "Traceback" not in restored.locator("body").inner_text()
        assert not outside, f"requests outside localhost: {outside}"
    finally:
        (ARTIFACTS / f"alternatives_{which}.json").write_text(json.dumps(report, indent=1))
        print(json.dumps(report))
        context.close()
