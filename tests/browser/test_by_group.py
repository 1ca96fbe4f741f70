"""The dashboards' "By group" block in a real browser (Voila + headless Debian
``chromium`` through Playwright, as ``tests/browser/test_dashboards.py``): after a search,
choose a group column; the table and the forest plot appear (and, for a risk score, the
reliability diagram of each group), in plain words; the first finding with a rule adds it
to the rules of step 3.

Screenshots: ``artifacts/by_group_<page>.png`` (the block) and
``artifacts/by_group_<page>_page.png`` (the whole page).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from _browser import block_outside, button
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import start_voila, stop_process

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
LOAD_TIMEOUT_MS = 180_000

CASES = {
    "risk": {"word": "score", "column": "Age_geq_60", "group": "Age_geq_60 = 1", "risk": True},
    "checklist": {"word": "checklist", "column": "sex", "group": "sex = 1", "risk": False},
}

_TRACES = """el => ({
    width: el.offsetWidth,
    height: el.offsetHeight,
    traces: (el._fullData || []).map(d => [d.name, d.x ? d.x.length : 0]),
    title: (el._fullLayout && el._fullLayout.title && el._fullLayout.title.text) || "",
})"""


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


def _plot_state(page, block: str, check, timeout: float = 60.0) -> dict:
    plot = page.locator(f".{block} .js-plotly-plot").first
    plot.wait_for(state="visible", timeout=60_000)
    deadline = time.monotonic() + timeout
    shown = plot.evaluate(_TRACES)
    while not check(shown) and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        shown = plot.evaluate(_TRACES)
    return shown


def _full_height(page) -> None:
    height = page.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('*'), e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": 1280, "height": min(max(int(height), 1000), 12000)})
    page.wait_for_timeout(800)


@pytest.mark.parametrize("served", list(CASES), indirect=True)
def test_by_group_in_browser(served, browser):
    which, url = served
    case = CASES[which]
    word = case["word"]
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    outside = block_outside(context)
    page = context.new_page()
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page.goto(url, timeout=LOAD_TIMEOUT_MS)
        solve = button(page, f"Find the best {word}")
        solve.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        block = page.locator(".rx-by-group")
        expect(block).to_be_visible(timeout=60_000)
        assert "Choose a column" in block.inner_text()
        expect(block.locator(".rx-audit-table")).to_be_hidden()

        field = page.get_by_label("Time limit (seconds)")
        field.fill("5")
        field.press("Tab")
        page.wait_for_timeout(500)
        solve.click()
        status = page.locator(".rx-search-unconstrained .rx-status")
        expect(status).to_have_text(re.compile("optimal|limit reached"), timeout=120_000)

        # choose the group column: the table and the figures appear
        block.get_by_label("group patients by").select_option(case["column"])
        table = block.locator(".rx-audit-table table")
        expect(table).to_be_visible(timeout=60_000)
        expect(table).to_contain_text(case["group"])
        text = block.inner_text()
        for words in ("patients", "with the outcome", "missed cases", "false alarms"):
            assert words in text, words
        assert not re.search(r"\de[+-]\d", text), "scientific notation on the page"
        assert "Traceback" not in text and "import " not in text
        groups = len(table.locator("tr").all()) - 1
        assert groups >= 2
        forest = _plot_state(
            page,
            "rx-audit-forest",
            lambda s: any(n == "group" and k >= 2 for n, k in s["traces"]),
        )
        assert any(n == "group" and k >= 2 for n, k in forest["traces"]), forest
        assert forest["width"] > 300 and forest["height"] > 150, forest
        assert case["column"] in forest["title"], forest
        if case["risk"]:
            diagrams = _plot_state(
                page,
                "rx-audit-reliability",
                lambda s: sum(n == case["group"] for n, _k in s["traces"]) == 1,
            )
            names = [n for n, _k in diagrams["traces"]]
            assert case["group"] in names, diagrams
        else:
            expect(block.locator(".rx-audit-reliability")).to_be_hidden()

        _full_height(page)
        block.screenshot(path=str(ARTIFACTS / f"by_group_{which}.png"))
        page.screenshot(path=str(ARTIFACTS / f"by_group_{which}_page.png"), full_page=True)
        print(f"screenshot: {ARTIFACTS / f'by_group_{which}.png'}")

        # a finding with a rule: one click adds it to the rules of step 3
        rules = block.locator(".rx-audit-rule button:enabled, button.rx-audit-rule:enabled")
        if rules.count():
            rules.first.click()
            expect(block.locator(".rx-message", has_text="Added the rule")).to_be_visible(
                timeout=60_000
            )
        assert not outside, outside
    finally:
        context.close()


@pytest.mark.parametrize("served", ["checklist"], indirect=True)
def test_a_rule_on_age_ranges_in_browser(served, browser):
    """The checklist page: age is cut into ranges; its finding's button adds the rule over
    those ranges to step 3, the search with it runs and step 6 prices it. Screenshot:
    ``artifacts/by_group_age_ranges.png`` (the block after the search with the rule)."""
    _which, url = served
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    outside = block_outside(context)
    page = context.new_page()
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page.goto(url, timeout=LOAD_TIMEOUT_MS)
        solve = button(page, "Find the best checklist")
        solve.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        field = page.get_by_label("Time limit (seconds)")
        field.fill("5")
        field.press("Tab")
        page.wait_for_timeout(500)
        solve.click()
        status = page.locator(".rx-search-unconstrained .rx-status")
        expect(status).to_have_text(re.compile("optimal|limit reached"), timeout=120_000)

        block = page.locator(".rx-by-group")
        block.get_by_label("group patients by").select_option("age")
        table = block.locator(".rx-audit-table table")
        expect(table).to_contain_text("age", timeout=60_000)
        findings = block.locator(".rx-audit-findings")
        rules = block.locator("button.rx-audit-rule:enabled")
        expect(rules.first).to_be_visible(timeout=60_000)
        assert "into ranges" not in findings.inner_text()  # (the old "no rule" reason)
        rules.first.click()
        added = block.locator(".rx-message", has_text="Added the rule")
        expect(added).to_be_visible(timeout=60_000)
        said = added.inner_text()
        assert re.search(r"gap between groups by age \(ranges at [\d., ]+\) at most", said), said
        rule = said.split("Added the rule: ")[1].split(". Run the search")[0]
        # the rule is among the rules of step 3, and the search with it is priced
        listed = page.locator("div", has_text="1 active constraint").last
        expect(listed).to_contain_text(rule, timeout=30_000)
        listed.screenshot(path=str(ARTIFACTS / "by_group_age_ranges_rules.png"))
        button(page, "Find the best checklist with my rules").click()
        status = page.locator(".rx-search-constrained .rx-status")
        expect(status).to_have_text(re.compile("optimal|limit reached"), timeout=120_000)
        price = page.locator(".rx-price").first
        expect(price).to_be_visible(timeout=60_000)
        assert "certified price" in price.inner_text(), price.inner_text()
        price.screenshot(path=str(ARTIFACTS / "by_group_age_ranges_price.png"))
        # the groups with the rule: the same ranges
        block.get_by_role("button", name="with your rules").click()
        expect(table).to_contain_text("age", timeout=60_000)
        page.wait_for_timeout(1000)
        text = block.inner_text()
        assert "Traceback" not in text and not re.search(r"\de[+-]\d", text)
        _full_height(page)
        block.screenshot(path=str(ARTIFACTS / "by_group_age_ranges.png"))
        page.screenshot(path=str(ARTIFACTS / "by_group_age_ranges_page.png"), full_page=True)
        print(f"screenshot: {ARTIFACTS / 'by_group_age_ranges.png'}")
        assert not outside, outside
    finally:
        context.close()
