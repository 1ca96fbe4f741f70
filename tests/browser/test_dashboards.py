"""The dashboards in a real browser: Voila serves each notebook on a free localhost port and
headless Chromium (Debian ``chromium``, driven by Playwright's Python API; no browser is
downloaded) clicks through a short solve.

Checked for each dashboard: the page shows no code and no traceback; nothing is requested
from outside localhost (every other request is blocked and recorded); the time limit is
set through the page's control; each search has its own live plot, and live progress
arrives while it runs (its status line changes and the lines of its plot grow); the final
score card / checklist renders, its certificate clear of it; the reliability diagram and
the performance panel (ROC curves) are drawn with data after a search, for both searches; a
rule added with the constraint builder is solved and the comparison appears with its figure
drawn; the size path draws its sizes and stops on request; the download links carry the
printable HTML and the JSON model; an unusable CSV upload is answered with a message on the
page. The risk score page switches to the learned scale after its first search (both
searches then use it): the card of the certified model shows its multiplier, and the
comparison the certified price of a fixed scale. The study is saved, downloaded, and
opened on a new page (a new kernel), which shows both searches, the reliability diagram,
the performance panel, the comparison and the size path drawn from the file alone, and
refuses an edited copy of it with a message. Plots are found through the CSS classes the
notebooks give their blocks (``rx-search-unconstrained``, ``rx-search-constrained``,
``rx-reliability``, ``rx-metrics``, ``rx-compare``, ``rx-path``). A full-page screenshot
and one per block are saved to ``artifacts/`` (gitignored) and their paths printed; some
of them are the docs' gallery (``docs/scripts/gallery.py``).

Needs ``playwright`` (a test dependency in pyproject) and Debian's ``chromium``: when
``/usr/bin/chromium`` is missing and the tests run as root (as on CI), the ``browser``
fixture (``conftest.py``, helpers in ``_browser.py``) installs it with apt-get, so the suite
needs nothing installed by hand.
"""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path

import pytest
from _browser import (
    block_outside,
    button,
    card_clear_of_certificate,
    full_page_screenshot,
    open_study_file,
    risk_dashboard,
    screenshot,
    upload_csv,
    watched_page,
)
from playwright.sync_api import expect

from riskexplore.cli.dashboard.files import DASHBOARDS
from riskexplore.cli.dashboard.server import start_voila, stop_process

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
LOAD_TIMEOUT_MS = 180_000  # kernel start + plotly import + widget scripts on a busy machine
SOLVE_SECONDS = 5

CASES = {
    "risk": {
        "word": "score",
        "rule": "Never use a feature",
        "card": ".rx-card",
        "card_text": "RISK",
        "seconds": SOLVE_SECONDS,
        # mammo's best score of at most 5 characteristics is certified in about 0.2 s, too
        # fast to watch; at most 10 take a few seconds (the time limit may end it)
        "size": ("Most characteristics in the score", 10),
        # after the first search: the learned scale, chosen in the page, for both searches,
        # back at 5 characteristics (certified within the time limit)
        "scale": "learned scale: risk = σ(score / m), fits risks better",
        "scale_size": ("Most characteristics in the score", 5),
    },
    # the exact search certifies heart with at most 6 items in about half a second, too
    # fast for a page refreshed every 0.3 s (CI saw a single status); at most 8 items take
    # about 5 s: long enough to watch it run, and time enough for the gap to reach 0%
    "checklist": {
        "word": "checklist",
        "rule": "Never use an item",
        "card": ".rx-checklist",
        "card_text": "items",
        "seconds": 60,
        "size": ("Most items on the checklist", 8),
        "certified": True,
    },
}


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


#: Blocks of a dashboard page (CSS classes set by the notebooks), screenshot one by one.
BLOCKS = (
    "rx-search-unconstrained",
    "rx-search-constrained",
    "rx-reliability",
    "rx-metrics",
    "rx-compare",
    "rx-path",
)

#: What a plot shows in the page: its size, each trace as drawn by plotly (name, type,
#: number of points) and its title, how many lines and markers it has drawn, and whether
#: its legend keeps clear of its title.
_DRAWN = """el => {
    const box = s => { const e = el.querySelector(s); return e && e.getBoundingClientRect(); };
    const t = box(".gtitle"), l = box(".legend");
    return {
        width: el.offsetWidth,
        height: el.offsetHeight,
        traces: (el._fullData || []).map(d => [d.name, d.type, d.x ? d.x.length : 0]),
        title: (el._fullLayout && el._fullLayout.title && el._fullLayout.title.text) || "",
        lines: el.querySelectorAll("path.js-line").length,
        points: el.querySelectorAll("path.point").length,
        legend_clear: !t || !l || t.right <= l.left || l.right <= t.left
            || t.bottom <= l.top || l.bottom <= t.top,
    };
}"""


def _plot(page, block):
    """The (first) plot of a block, by its CSS class; a plot's locator stays as it is."""
    if not isinstance(block, str):
        return block
    return page.locator(f".{block} .js-plotly-plot").first


def _drawn(page, block: str) -> dict:
    """What the plot of ``block`` shows (see ``_DRAWN``); traces as ``{name: points}``."""
    plot = _plot(page, block)
    plot.wait_for(state="visible", timeout=60_000)
    shown = plot.evaluate(_DRAWN)
    shown["points_of"] = {name: n for name, _type, n in shown["traces"] if name}
    return shown


def _wait_drawn(page, block: str, check, timeout: float = 60.0) -> dict:
    """Poll the plot of ``block`` until ``check(shown)`` holds (redraws are asynchronous);
    returns the last state (the caller asserts on it)."""
    deadline = time.monotonic() + timeout
    shown = _drawn(page, block)
    while not check(shown) and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        shown = _drawn(page, block)
    return shown


def _has(shown: dict, *names: str, at_least: int = 2) -> bool:
    """The plot is laid out and each trace in ``names`` has ``at_least`` points."""
    sized = shown["width"] > 300 and shown["height"] > 200
    return sized and all(shown["points_of"].get(n, 0) >= at_least for n in names)


def _watch_solve(page, run: str, seconds: float) -> list[tuple[str, int]]:
    """Poll the status line and the plot of search ``run`` (``"unconstrained"`` or
    ``"constrained"``) until the solve ends; returns (status text, total length of the
    plotted paths) samples."""
    status = page.locator(f".rx-search-{run} .rx-status")
    plot = _plot(page, f"rx-search-{run}")
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
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    outside = block_outside(context)
    page = context.new_page()
    shot = ARTIFACTS / f"dashboard_{which}.png"
    ARTIFACTS.mkdir(exist_ok=True)
    restored = None
    try:
        page.goto(url, timeout=LOAD_TIMEOUT_MS)
        solve = button(page, f"Find the best {word}")
        solve.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        for run in ("unconstrained", "constrained"):  # one live plot per search: until its
            # first point a note in its place, and the page has not loaded plotly.js yet
            note = page.locator(f".rx-search-{run} .rx-plot-placeholder")
            expect(note).to_be_visible(timeout=60_000)
            expect(note).to_contain_text(f"The best {word} found so far")
            assert note.bounding_box()["width"] > 300, "the note does not fill the plot's place"
        assert page.locator(".js-plotly-plot").count() == 0, "a plot was drawn at load"
        for block in ("rx-reliability", "rx-metrics", "rx-compare", "rx-path"):
            expect(page.locator(f".{block}")).to_be_hidden()  # until there is a result
        expect(
            page.get_by_text("Appears when a search in step 4 has finished.").first
        ).to_be_visible()

        # no code, no traceback, plain-language page
        body = page.locator("body").inner_text()
        assert "Traceback" not in body and "import " not in body and "def " not in body
        assert page.locator(".jp-InputArea-editor:visible, .cm-editor:visible").count() == 0
        assert "Explorer(" not in body
        assert f"{word.capitalize()} builder" in body or f"{word} builder" in body.lower()

        # the time limit (and the checklist's size) through the page's controls
        seconds = case["seconds"]
        controls = [("Time limit (seconds)", seconds)]
        if "size" in case:
            controls.append(case["size"])
        for label, value in controls:
            field = page.get_by_label(label)
            field.fill(str(value))
            field.press("Tab")
        page.wait_for_timeout(500)

        # solve without rules; live bounds while it runs
        solve.click()
        samples = _watch_solve(page, "unconstrained", seconds)
        final = samples[-1][0]
        assert "optimal" in final or "limit reached" in final, samples[-5:]
        if case.get("certified"):  # the gap closes on the bundled data
            assert "certified optimal" in final and "gap 0.00%" in final, final
        running = [(t, n) for t, n in samples if t.startswith("running") and "bound" in t]
        assert len({t for t, _ in running}) >= 2, f"no live progress: {samples[:10]}"
        lengths = [n for _, n in running]
        assert lengths and max(lengths) > min(lengths), "the plotted bounds did not grow"
        card = page.locator(f".rx-search-unconstrained {case['card']}").first
        expect(card).to_be_visible(timeout=30_000)
        assert case["card_text"] in card.inner_text()
        search = page.locator(".rx-search-unconstrained")
        assert card_clear_of_certificate(search), "the certificate touches the card"
        # the other search's plot: still its note, nothing drawn
        expect(page.locator(".rx-search-constrained .rx-plot-placeholder")).to_be_visible()
        assert page.locator(".rx-search-constrained .js-plotly-plot").count() == 0

        # does the predicted risk match what happened: train and test, drawn
        shown = _wait_drawn(page, "rx-reliability", lambda d: _has(d, "train", "test"))
        assert _has(shown, "train", "test"), shown
        assert shown["points"] >= shown["points_of"]["train"] + shown["points_of"]["test"]
        assert shown["lines"] >= 1  # the diagonal
        free = ("unconstrained train", "unconstrained test")
        shown = _wait_drawn(page, "rx-metrics", lambda d: _has(d, *free))
        assert _has(shown, *free), shown
        assert shown["lines"] >= 3 and "table" in {t for _n, t, _k in shown["traces"]}

        if "scale" in case:  # a learned scale: search again; a certified card shows m
            label, value = case["scale_size"]
            page.get_by_label(label).fill(str(value))
            page.get_by_label(label).press("Tab")
            page.get_by_label(case["scale"]).check()
            page.wait_for_timeout(500)
            solve.click()
            learned = (
                page.locator(".rx-search-unconstrained .rx-model-card")
                .filter(has_text="multiplier m =")
                .filter(has_text="certified optimal")
            )
            expect(learned.first).to_be_visible(timeout=(seconds + 90) * 1000)
            assert "risk scale: multiplier m" in learned.first.inner_text()

        # add a rule with the constraint builder, solve with it, compare
        page.get_by_label("constraint", exact=True).select_option(label=case["rule"])
        button(page, "Add").click()
        expect(page.locator(".rx-message", has_text="Added")).to_be_visible(timeout=60_000)
        button(page, f"Find the best {word} with my rules").click()
        samples = _watch_solve(page, "constrained", seconds)
        assert "optimal" in samples[-1][0] or "limit reached" in samples[-1][0], samples[-3:]
        # its plot was empty (checked above) and now draws this search; live progress was
        # checked on the first search (this one may end within a single poll)
        assert max(n for _, n in samples) > 0, f"the plot did not follow the search: {samples}"
        expect(page.locator(f".rx-search-constrained {case['card']}").first).to_be_visible(
            timeout=30_000
        )
        expect(page.locator(".rx-price").first).to_be_visible(timeout=60_000)

        # both searches in the performance panel; the diagram now shows the one with rules
        both = (*free, "constrained train", "constrained test")
        shown = _wait_drawn(page, "rx-metrics", lambda d: _has(d, *both))
        assert _has(shown, *both), shown
        assert shown["lines"] >= 5
        picked = page.locator(".rx-reliability button.mod-active")
        expect(picked).to_have_text(re.compile("with your rules"), timeout=30_000)
        shown = _wait_drawn(page, "rx-reliability", lambda d: _has(d, "train", "test"))
        assert _has(shown, "train", "test"), shown

        for run in ("unconstrained", "constrained"):  # both searches stay drawn
            shown = _drawn(page, f"rx-search-{run}")
            assert _has(shown, "upper bound", "lower bound"), shown
            assert shown["legend_clear"], f"the legend covers the title of the {run} search"
        for block in ("rx-reliability", "rx-metrics"):
            assert _drawn(page, block)["legend_clear"], block

        # the comparison: cards, certified price and its figure, drawn
        shown = _wait_drawn(
            page, "rx-compare", lambda d: d["height"] > 500 and d["points"] >= 4, timeout=60
        )
        assert shown["width"] > 300 and shown["height"] > 500, shown
        assert "certified price" in shown["title"], shown["title"]
        reliability = [n for name, _t, n in shown["traces"] if name == "train"]
        assert len(reliability) == 2 and min(reliability) >= 2, shown["traces"]
        assert shown["points"] >= sum(reliability)
        if "scale" in case:  # what a fixed scale costs, worked out in the background
            line = page.locator(".rx-scale-price", has_text="Price of a fixed scale")
            expect(line.first).to_be_visible(timeout=(seconds + 120) * 1000)
            assert "certified" in line.first.inner_text()

        # the size path: its own button, sizes drawn as they finish, Stop ends it
        button(page, "Compare the sizes").click()
        first = "training loss" if which == "risk" else "objective (mistakes)"
        shown = _wait_drawn(page, "rx-path", lambda d: _has(d, first), timeout=120)
        assert _has(shown, first), shown
        assert shown["legend_clear"], "the legend covers the title of the size path"
        # (forced: a path that has already finished has a disabled Stop, and nothing happens)
        page.locator(".rx-path-controls button", has_text="Stop").click(force=True)
        # ("done: 3 sizes" once it has ended; "computing… 2 sizes finished" before)
        done = page.locator(".rx-path-controls", has_text=re.compile(r"done: \d+ sizes?"))
        expect(done).to_be_visible(timeout=60_000)

        # downloads: printable page and JSON model, as data: URIs
        links = page.locator("a.rx-download")
        expect(links).to_have_count(4, timeout=30_000)
        href = links.first.get_attribute("href")
        assert href.startswith("data:text/html;charset=utf-8;base64,")
        printable = base64.b64decode(href.split(",", 1)[1]).decode("utf-8")
        assert case["card"].lstrip(".") in printable and "Certificate" in printable
        assert links.nth(1).get_attribute("href").startswith("data:application/json")

        # an unusable upload gives a message on the page; the data stay
        upload_csv(page, "notes.csv", b"only one\n1\n2\n")
        expect(page.locator(".rx-message", has_text="notes.csv has 1 column").first).to_be_visible(
            timeout=30_000
        )

        body = page.locator("body").inner_text()
        assert "Traceback" not in body

        # save the study and download it (the link made when a search ended names no path:
        # wait for the one made by the click)
        button(page, "Save the study").click()
        link = page.locator("a.rx-study-download", has_text="2 searches and the size path")
        expect(link).to_be_visible(timeout=60_000)
        with page.expect_download(timeout=60_000) as download:
            link.click()
        saved = Path(download.value.path()).read_bytes()
        study = json.loads(saved)
        assert study["format"] == "riskexplore-study" and study["data"]["table"] is None
        assert set(study["runs"]) == {"unconstrained", "constrained"}
        assert study["size_path"] is not None and study["constraints"]
        if "scale" in case:  # the learned scale, its m and the price of a fixed scale
            assert study["settings"]["scale"] == "learned", study["settings"]
            assert "multiplier" in study["runs"]["unconstrained"]["model"]
            assert study["scale_price"] is not None

        # ... and open it on a new page: everything drawn from the file, no search
        restored = context.new_page()
        restored.goto(url, timeout=LOAD_TIMEOUT_MS)
        button(restored, f"Find the best {word}").wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        open_study_file(restored, f"{which}_study.json", saved)
        opened = restored.locator(".rx-study .rx-message", has_text="Opened the study").first
        expect(opened).to_be_visible(timeout=60_000)
        for run in ("unconstrained", "constrained"):
            shown = _wait_drawn(restored, f"rx-search-{run}", lambda d: _has(d, "upper bound"))
            assert _has(shown, "upper bound", "lower bound"), (run, shown)
            card = restored.locator(f".rx-search-{run} {case['card']}").first
            expect(card).to_be_visible(timeout=30_000)
        for block, traces in (
            ("rx-reliability", ("train", "test")),
            ("rx-metrics", both),
            ("rx-path", (first,)),
        ):
            shown = _wait_drawn(restored, block, lambda d, t=traces: _has(d, *t))
            assert _has(shown, *traces), (block, shown)
        shown = _wait_drawn(restored, "rx-compare", lambda d: d["points"] >= 4)
        assert "certified price" in shown["title"], shown["title"]
        expect(restored.locator(".rx-price").first).to_be_visible(timeout=30_000)
        if "scale" in case:  # from the file: the scale chosen, m on the card, the price line
            expect(restored.get_by_label(case["scale"])).to_be_checked(timeout=30_000)
            card = restored.locator(".rx-search-unconstrained .rx-model-card").first
            expect(card).to_contain_text("multiplier m =", timeout=30_000)
            line = restored.locator(".rx-scale-price", has_text="Price of a fixed scale")
            expect(line.first).to_be_visible(timeout=30_000)
        assert restored.locator("a.rx-download").count() == 4  # its downloads are back too
        # an edited copy is refused, and the page stays as it is
        edited = json.loads(saved)
        edited["settings"]["time_limit"] = 1.0
        open_study_file(restored, "edited.json", json.dumps(edited).encode())
        refused = restored.locator(".rx-message", has_text="edited.json was changed after it")
        expect(refused.first).to_be_visible(timeout=60_000)
        assert _has(_drawn(restored, "rx-reliability"), "train", "test")
        assert "Traceback" not in restored.locator("body").inner_text()
        assert not outside, f"requests outside localhost: {outside}"
    finally:
        full_page_screenshot(page, shot)
        for block in BLOCKS:  # one picture per block, to look at the plots closely
            part = page.locator(f".{block}").first
            if part.count() and part.is_visible():
                path = ARTIFACTS / f"dashboard_{which}_{block.removeprefix('rx-')}.png"
                screenshot(part, path)
        if restored is not None:  # the page opened from the study
            full_page_screenshot(restored, ARTIFACTS / f"dashboard_{which}_restored.png")
            part = restored.locator(".rx-study").first
            if part.count() and part.is_visible():
                screenshot(part, ARTIFACTS / f"dashboard_{which}_study.png")
        context.close()


def _heart_raw_csv() -> bytes:
    """The bundled heart data as a clinic would export it: chest pain as words,
    cholesterol missing for about one patient in ten, and the hospital's name (one value,
    so it gives no item)."""
    import numpy as np

    from riskexplore.datasets import load_dataset

    frame = load_dataset("heart").frame.copy()
    words = {0: "typical", 1: "atypical", 2: "non-anginal", 3: "asymptomatic"}
    frame["cp"] = frame["cp"].map(words)
    rng = np.random.default_rng(0)
    frame["chol"] = frame["chol"].astype(float).mask(rng.random(len(frame)) < 0.1)
    frame.insert(0, "hospital", "St Mary")
    return frame.to_csv(index=False).encode()


def test_a_raw_table_on_the_risk_dashboard(browser, tmp_path):
    """An uploaded raw table (words, missing values): step 2 shows each column's kind and
    cut points, a column's cut points typed there become its items, and the score card
    reads items with their points ("age ≥ 60  1 point"), never points per unit."""
    picture = ARTIFACTS / "dashboard_risk_raw.png"
    with risk_dashboard(browser, tmp_path, picture) as (page, outside):
        upload_csv(page, "heart_clinic.csv", _heart_raw_csv())
        expect(page.locator(".rx-message", has_text="Loaded heart_clinic.csv").first).to_be_visible(
            timeout=60_000
        )
        page.get_by_label("Outcome to predict").select_option("target")
        columns = page.locator(".rx-binarization .rx-columns")
        expect(columns).to_contain_text("14 columns give", timeout=60_000)
        for words in ("cp = typical", "categories", "chol missing", "yes/no", "numbers"):
            expect(columns).to_contain_text(words)
        expect(columns).to_contain_text("skipped (hospital)")  # and why: one value
        expect(columns.locator("tr", has_text="hospital")).to_contain_text("constant")
        # the cut points of age, typed in step 2
        page.get_by_label("Column to change").select_option("age")
        page.get_by_label("Its cut points").fill("60, 70")
        button(page, "Apply").click()
        expect(columns).to_contain_text("60, 70 (yours)", timeout=60_000)
        expect(page.locator(".rx-binarization .rx-message")).to_contain_text(
            "age now gives: age ≥ 60, age ≥ 70"
        )
        page.locator(".rx-binarization").first.screenshot(
            path=str(ARTIFACTS / "dashboard_risk_raw_columns.png")
        )
        for label, value in (
            ("Time limit (seconds)", 10),
            ("Most characteristics in the score", 3),
        ):
            page.get_by_label(label).fill(str(value))
            page.get_by_label(label).press("Tab")
        page.wait_for_timeout(500)
        button(page, "Find the best score").click()
        samples = _watch_solve(page, "unconstrained", 10)
        assert "optimal" in samples[-1][0] or "limit reached" in samples[-1][0], samples[-3:]
        card = page.locator(".rx-search-unconstrained .rx-card").first
        expect(card).to_be_visible(timeout=30_000)
        text = card.inner_text()
        # one row per item, grouped by variable: "1.  cp  = typical  -2 points" (the variable
        # is written on the first row of its items only)
        lines = re.findall(r"^\s*\d+\.\s+(.+?)\s+(-?\d+) points?", text, flags=re.M)
        assert len(lines) >= 2, text  # items with their points
        items = [" ".join(item.split()) for item, _ in lines]
        assert all(re.search(r"(^|\w )(≥|>|=) |missing$|^\w+$", item) for item in items), items
        assert "per unit" not in text
        card.screenshot(path=str(ARTIFACTS / "dashboard_risk_raw_card.png"))
        assert "Traceback" not in page.locator("body").inner_text()
        assert not outside, f"requests outside localhost: {outside}"


#: The bundled data of each dashboard (every other row is the "other file" validated on)
#: and a column of it to audit in the By group step.
VALIDATION_DATA = {"risk": ("mammo", "Age_geq_60"), "checklist": ("heart", "sex")}


def _validation_csv(which: str) -> tuple[bytes, int]:
    """Other patients for a dashboard's model (every other row of its data) and how many."""
    from riskexplore import load_dataset

    frame = load_dataset(VALIDATION_DATA[which][0]).frame.iloc[::2]
    return frame.to_csv(index=False).encode(), len(frame)


@pytest.fixture(scope="module")
def both_served(tmp_path_factory):
    """One server of both dashboards for the module (a page is at ``voila/render/NAME``)."""
    path = tmp_path_factory.mktemp("voila") / "voila-all.log"
    with open(path, "w") as log:
        proc, url = start_voila("all", timeout=120, log_file=log)
        try:
            yield url
        finally:
            stop_process(proc)


@pytest.mark.parametrize("which", list(CASES))
def test_validate_on_another_file_and_download_the_report(which, both_served, browser):
    """On each dashboard, after a search: the Validation step (an empty box until then)
    shows its controls; "Validate on another file" takes a CSV file, the results appear
    in plain words with both figures drawn, and "Download report" saves an HTML report
    that shows the calibration slope of the validation and the By group audit."""
    word = CASES[which]["word"]
    context, page, errors, outside = watched_page(browser, 1280, 1000)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page.goto(f"{both_served}voila/render/{DASHBOARDS[which]}", timeout=LOAD_TIMEOUT_MS)
        solve = button(page, f"Find the best {word}")
        solve.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        block = page.locator(".rx-validation").first
        assert block.locator(".jupyter-widgets").count() == 0  # nothing made at load
        field = page.get_by_label("Time limit (seconds)")
        field.fill("5")  # the search's result is enough (certified or not): a short test
        field.press("Tab")
        page.wait_for_timeout(300)
        solve.click()
        samples = _watch_solve(page, "unconstrained", 5)
        assert "optimal" in samples[-1][0] or "limit reached" in samples[-1][0], samples[-3:]
        controls = block.locator(".rx-validation-controls")
        expect(controls).to_be_visible(timeout=30_000)
        screenshot(block, ARTIFACTS / f"dashboard_{which}_validation_before.png")
        # the By group step audits the same model: the report will include it
        column = VALIDATION_DATA[which][1]
        by_group = page.locator(".rx-by-group")
        by_group.get_by_label("group patients by").select_option(column)
        expect(by_group.locator(".rx-audit-table table")).to_be_visible(timeout=60_000)
        content, rows = _validation_csv(which)
        with page.expect_file_chooser(timeout=30_000) as chooser:
            controls.locator("button", has_text="Validate on another file").first.click()
        chooser.value.set_files(
            files=[{"name": "other.csv", "mimeType": "text/csv", "buffer": content}]
        )
        summary = block.locator(".rx-validation-summary")
        expect(summary).to_contain_text(f"{rows} patients of other.csv", timeout=60_000)
        for words in ("Telling patients apart (AUC)", "Calibration slope", "ideal 1"):
            expect(summary).to_contain_text(words)
        assert not re.search(r"\de[-+]\d", summary.inner_text())  # no scientific notation
        for figure, trace in (
            (0, "patients with each score (the number beside the point)"),
            (1, "the model"),
        ):
            plot = block.locator(".rx-validation-figures .js-plotly-plot").nth(figure)
            expect(plot).to_be_visible(timeout=60_000)
            shown = _wait_drawn(page, plot, lambda s, t=trace: _has(s, t))  # drawn async
            assert _has(shown, trace) and shown["legend_clear"], shown
        button(block, "Prepare the report").click()
        link = block.locator("a.rx-report-download")
        expect(link).to_be_visible(timeout=60_000)
        screenshot(block, ARTIFACTS / f"dashboard_{which}_validation.png")
        with page.expect_download(timeout=60_000) as download:
            link.click()
        assert download.value.suggested_filename == "report.html"
        report = Path(download.value.path()).read_text(encoding="utf-8")
        assert 'id="calibration"' in report and "calibration slope" in report.lower()
        assert f"{rows:,}" in report  # the validation's patients
        assert f"By {column} (training patients)" in report  # the By group step's audit
        assert "Traceback" not in page.locator("body").inner_text()
        assert not errors, errors
        assert not outside, f"requests outside localhost: {outside}"
    finally:
        full_page_screenshot(page, ARTIFACTS / f"dashboard_{which}_validation_page.png")
        context.close()
