"""The printed score card of a wide model fits its box on the risk dashboard (Chromium).

Breast cancer (features with values 1-10) gives a certified score with a SCORE/RISK table of
dozens of scores; before the fix its one long row was clipped at the card's box. The page
searches it and the test asserts that the table is laid out in blocks of at most 7 scores
and that neither the table nor any box around it needs to scroll sideways (``scrollWidth <=
clientWidth``). The card is saved to ``artifacts/score_card_wide.png``.
"""

from __future__ import annotations

from pathlib import Path

from _browser import button, watched_page
from _load import _OVERFLOW

from riskexplore.cli.dashboard.server import start_voila, stop_process
from riskexplore.datasets import dataset_info

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
LOAD_MS = 180_000

#: Scores per row block of the SCORE/RISK table, as the page shows it.
_BLOCKS = """() => {
    const table = document.querySelector(".rx-search-unconstrained .rx-risk");
    const rows = Array.from(table.querySelectorAll("tr")).filter(
        (r) => r.querySelector("th") && r.querySelector("th").innerText.trim() === "SCORE");
    return rows.map((r) => r.querySelectorAll("td").length);
}"""


def test_wide_score_card_is_not_clipped(browser, tmp_path):
    log = open(tmp_path / "voila.log", "w")
    proc, url = start_voila("risk", timeout=120, log_file=log)
    context, page, errors, outside = watched_page(browser, 1280, 1000)
    try:
        page.goto(url, timeout=LOAD_MS)
        solve = button(page, "Find the best score")
        solve.wait_for(state="visible", timeout=LOAD_MS)
        label = f"breastcancer — {dataset_info('breastcancer')['outcome']}"
        page.locator("select", has=page.locator("option", has_text=label)).first.select_option(
            label=label
        )
        # the kernel loaded the data: the summary names it
        page.locator("b", has_text="breastcancer").first.wait_for(timeout=60_000)
        solve.click()
        status = page.locator(".rx-search-unconstrained .rx-status")
        status.filter(has_text="certified optimal").wait_for(timeout=LOAD_MS)
        card = page.locator(".rx-search-unconstrained .rx-model-card").first
        card.wait_for(state="visible", timeout=60_000)
        page.wait_for_timeout(500)
        blocks = page.evaluate(_BLOCKS)
        overflow = page.evaluate(_OVERFLOW)
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "score_card_wide.png"
        card.screenshot(path=str(shot))
        print(f"screenshot: {shot}; blocks of scores: {blocks}; overflow: {overflow} px")
        assert "ClumpThickness" in card.inner_text()  # the breast cancer model
        assert sum(blocks) > 7 and all(1 <= n <= 7 for n in blocks), blocks
        assert overflow == 0, overflow
        assert not errors and not outside, (errors, outside)
    finally:
        context.close()
        stop_process(proc)
        log.close()
