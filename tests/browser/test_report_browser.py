"""The HTML report opens offline in Chromium: no request leaves the page, no console error,
every figure is drawn and nothing needs to scroll sideways at a printed page's width. The
page is saved to ``artifacts/report.png``."""

from __future__ import annotations

from pathlib import Path

from _browser import watched_page
from _validation_contract import contract_dict

from riskexplore.core.certificate import Certificate
from riskexplore.report import report_html
from riskexplore.risk_score.model import RiskScore

ROOT = Path(__file__).resolve().parents[2]

#: Elements wider than their box (a clipped table or figure), as "tag.class" strings.
_WIDER = """() => Array.from(document.querySelectorAll("section, section *"))
    .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "visible")
    .map((e) => e.tagName + "." + e.className)"""


def test_the_report_opens_offline_without_errors(browser):
    model = RiskScore(["age_geq_60", "smoker"], {"age_geq_60": 2, "smoker": 1}, -2,
                      Certificate.from_bounds("optimal", 0.5, 0.5))  # fmt: skip
    page_html = report_html(
        model, development=contract_dict(600, 1), validation=contract_dict(361, 2)
    )
    context, page, errors, outside = watched_page(browser, 800, 1000)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    try:
        page.set_content(page_html, timeout=60_000)
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4", timeout=60_000
        )
        drawn = page.locator(".js-plotly-plot").count()
        titles = page.locator(".js-plotly-plot .gtitle").all_text_contents()
        wider = page.evaluate(_WIDER)
        (ROOT / "artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "artifacts" / "report.png"), full_page=True)
    finally:
        context.close()
    assert drawn == 4
    assert any("calibration slope 0.934" in t for t in titles), titles
    assert wider == []
    assert errors == [] and console == [] and outside == []
