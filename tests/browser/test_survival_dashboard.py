"""The risk dashboard's survival mode in a browser (issue 36): an uploaded follow-up table,
*Time to event* chosen in step 1, the event and follow-up time columns and a horizon, one
search; the card gives the certificate in plain words and the risk by the horizon (with its
unit) of each total score, step 5 the Kaplan-Meier curves by score group with words about
them, and the panels for yes/no outcomes say so; By group, Compare the sizes and Find other
good scores work; "Validate on another file" gives the
figures at the horizon in words, both plots and the survival report. No scientific
notation, the card clear of its certificate. Screenshots are saved to ``artifacts/``
(gitignored) and their paths printed.
"""

from __future__ import annotations

import re
from pathlib import Path

from _browser import button, card_clear_of_certificate, risk_dashboard, screenshot, upload_csv
from _survival_data import survival_table
from playwright.sync_api import expect

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def test_a_survival_score_on_the_risk_dashboard(browser, tmp_path):
    picture = ARTIFACTS / "dashboard_survival.png"
    with risk_dashboard(browser, tmp_path, picture) as (page, outside):
        button(page, "Time to event: when did it happen?").click()
        event = page.get_by_label("Event column (1: it happened)")
        expect(event).to_be_visible(timeout=30_000)
        # what the page does not offer for survival scores yet is not offered; rules, sizes
        # and other good scores are
        expect(button(page, "What is each characteristic worth?")).to_be_hidden()
        for offered in ("Find the best score with my rules", "Compare the sizes"):
            expect(button(page, offered)).to_be_visible()
        expect(button(page, "Find other good scores")).to_be_visible()
        expect(page.locator("body")).to_contain_text("each curve is a group of patients")
        expect(page.locator("body")).to_contain_text("For a time to event, the score is checked")
        expect(page.locator("body")).not_to_contain_text("(train, blue)")
        table = survival_table(n=240)
        upload_csv(page, "followup.csv", table.to_csv(index=False).encode())
        expect(page.locator(".rx-message", has_text="Loaded followup.csv").first).to_be_visible(
            timeout=60_000
        )
        event.select_option("died")
        page.get_by_label("Follow-up time column").select_option("days")
        expect(page.locator(".rx-horizon")).to_contain_text(
            "days (the median follow-up)", timeout=30_000
        )
        for label, value in (("Risk by this time (0: the median)", 365), ("Time limit", 20)):
            page.get_by_label(label).fill(str(value))
            page.get_by_label(label).press("Tab")
        expect(page.locator(".rx-horizon")).to_have_text(
            "risk of the event by 365 days", timeout=30_000
        )
        button(page, "Find the best score").click()
        search = page.locator(".rx-search-unconstrained")
        expect(search.locator(".rx-status")).to_contain_text("optimal", timeout=60_000)
        card = search.locator(".rx-model-card").first
        expect(card.locator(".rx-risk-table")).to_contain_text("risk by 365 days", timeout=30_000)
        expect(card.locator(".rx-certificate")).to_contain_text("certified optimal")
        rows = card.locator(".rx-risk-table tr").all_inner_texts()[1:]  # total | risk by 365 days
        lines = [re.fullmatch(r"\s*(-?\d+)\s+([\d.]+)%\s*", row) for row in rows]
        risks = [float(line.group(2)) for line in lines if line]
        assert len(risks) == len(rows) >= 2 and risks == sorted(risks), rows
        assert card_clear_of_certificate(search)
        screenshot(card, ARTIFACTS / "dashboard_survival_card.png")
        curves = page.locator(".rx-reliability .rx-survival-results .js-plotly-plot").first
        expect(curves).to_be_visible(timeout=60_000)
        expect(page.locator(".rx-reliability .gtitle").first).to_contain_text("score group")
        legend = page.locator(".rx-reliability .legend .traces", has_text="score")
        assert legend.count() >= 2, "one Kaplan-Meier curve per score group, at least two"
        screenshot(page.locator(".rx-reliability").first, ARTIFACTS / "dashboard_survival_km.png")
        expect(page.locator(".rx-metrics")).to_contain_text("for yes/no outcomes")
        _by_group_sizes_and_other_good_scores(page)
        _validate_on_another_file(page, table.sample(frac=0.5, random_state=2))
        body = page.locator("body").inner_text()
        assert "Traceback" not in body
        assert not re.search(r"\d[eE][+-]\d", body), "scientific notation on the page"
        assert not outside, f"requests outside localhost: {outside}"


def _by_group_sizes_and_other_good_scores(page) -> None:
    """The By group table in plain words, the size path and other good scores, drawn."""
    by_group = page.locator(".rx-by-group")
    by_group.get_by_label("group patients by").select_option("sex")
    audit_table = by_group.locator(".rx-audit-table table")
    expect(audit_table).to_contain_text("had the event by 365 days", timeout=60_000)
    for words in ("telling apart (C-index)", "observed / predicted", "sex = 1"):
        expect(audit_table).to_contain_text(words)
    expect(by_group.locator(".rx-audit-forest .js-plotly-plot")).to_be_visible(timeout=30_000)
    screenshot(by_group, ARTIFACTS / "dashboard_survival_by_group.png")
    button(page, "Compare the sizes").click()
    done = page.locator(".rx-path-controls", has_text=re.compile(r"done: \d+ sizes?"))
    expect(done).to_be_visible(timeout=120_000)
    path = page.locator(".rx-path .js-plotly-plot").first
    expect(path).to_be_visible(timeout=30_000)
    expect(page.locator(".rx-path").first).to_contain_text("Cox loss")
    screenshot(page.locator(".rx-path").first, ARTIFACTS / "dashboard_survival_sizes.png")
    block = page.locator(".rx-alternatives")
    button(block, "Find other good scores").click()
    expect(block.locator(".rx-alt-card")).to_contain_text("Model #1", timeout=60_000)
    bars = block.locator(".rx-alt-frequency .js-plotly-plot .barlayer .trace")
    expect(bars.first).to_be_visible(timeout=30_000)  # how often each item is used
    expect(block.get_by_text("This panel is for yes/no outcomes")).to_have_count(1)
    screenshot(block, ARTIFACTS / "dashboard_survival_alternatives.png")
    frequency = block.locator(".rx-alt-frequency")
    screenshot(frequency, ARTIFACTS / "dashboard_survival_frequency.png")


def _validate_on_another_file(page, other) -> None:
    """Step 5's "Validate on another file" with a survival score: figures at the horizon in
    plain words, the calibration and Kaplan-Meier plots, the survival report."""
    block = page.locator(".rx-validation").first
    controls = block.locator(".rx-validation-controls")
    expect(controls).to_be_visible(timeout=30_000)
    with page.expect_file_chooser(timeout=30_000) as chooser:
        controls.locator("button", has_text="Validate on another file").first.click()
    content = other.to_csv(index=False).encode()
    chooser.value.set_files(
        files=[{"name": "other.csv", "mimeType": "text/csv", "buffer": content}]
    )
    summary = block.locator(".rx-validation-summary")
    expect(summary).to_contain_text(f"{len(other)} patients of other.csv", timeout=60_000)
    for words in ("Harrell's C", "AUC at the horizon", "by 365 days (the horizon)", "ideal 1"):
        expect(summary).to_contain_text(words)
    plots = block.locator(".rx-validation-figures .js-plotly-plot")
    expect(plots.nth(1)).to_be_visible(timeout=60_000)
    expect(block.locator(".rx-validation-figures .gtitle").nth(1)).to_contain_text("score group")
    button(block, "Prepare the report").click()
    link = block.locator("a.rx-report-download")
    expect(link).to_be_visible(timeout=60_000)
    screenshot(block, ARTIFACTS / "dashboard_survival_validation.png")
    with page.expect_download(timeout=60_000) as download:
        link.click()
    report = Path(download.value.path()).read_text(encoding="utf-8")
    assert 'id="survival-curves"' in report and "Harrell" in report
    assert "By sex (training patients)" in report  # the By group step's audit
