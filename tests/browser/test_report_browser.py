"""The HTML report opens offline in Chromium: no request leaves the page, no console error,
every figure is drawn, nothing needs to scroll sideways at a printed page's width, and the
calibration plot of a crowded validation writes no score label over another, over a marker
or over an error bar, and shows every marker whole. The page is saved to
``artifacts/report.png``; a survival score's report, likewise checked, to
``artifacts/survival_report.png``."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pandas as pd
from _browser import watched_page
from _validation_contract import contract_dict, crowded_dict

from riskexplore import SurvivalScore, validate
from riskexplore.core.certificate import Certificate
from riskexplore.report import report_html
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.survival.baseline import breslow_baseline

ROOT = Path(__file__).resolve().parents[2]

#: Elements wider than their box (a clipped table or figure), as "tag.class" strings.
_WIDER = """() => Array.from(document.querySelectorAll("section, section *"))
    .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "visible")
    .map((e) => e.tagName + "." + e.className)"""

#: Per calibration plot, in page pixels: its plot area, then per point its marker, its
#: label (null when it has none) and its error bar.
_DRAWN = """() => Array.from(document.querySelectorAll(".js-plotly-plot"))
    .filter((p) => p.querySelector(".scatterlayer .textpoint"))
    .map((p) => {
        const box = (e) => { const r = e.getBoundingClientRect();
            return [r.left, r.top, r.right, r.bottom]; };
        const all = (css) => Array.from(p.querySelectorAll(".scatterlayer " + css));
        const texts = all(".textpoint text");  // drawn for the points with a label only
        let k = 0;
        return { area: box(p.querySelector(".draglayer .nsewdrag")),
            markers: all("path.point").map(box),
            labels: p.data.find((t) => t.mode === "markers+text").text
                .map((s) => (s ? box(texts[k++]) : null)),
            bars: all(".errorbar path.yerror").map(box) };
    })"""


def _apart(a, b, slack: float = 0.5) -> bool:
    return (
        a[2] <= b[0] + slack or b[2] <= a[0] + slack or a[3] <= b[1] + slack or b[3] <= a[1] + slack
    )


def _inside(box, area, slack: float = 0.5) -> bool:
    return (
        area[0] - slack <= box[0]
        and box[2] <= area[2] + slack
        and area[1] - slack <= box[1]
        and box[3] <= area[3] + slack
    )


def _check_labels(plot) -> None:
    """No score label on another label, another marker (as its circle) or another point's
    error bar; every label and marker inside the plot area."""
    area, markers, labels, bars = plot["area"], plot["markers"], plot["labels"], plot["bars"]
    assert len(markers) == len(labels) == len(bars)
    for i, label in enumerate(labels):
        assert _inside(markers[i], area), ("marker clipped", i)
        if label is None:
            continue
        assert _inside(label, area), ("label outside the plot", i)
        for j in range(len(markers)):
            if j == i:
                continue
            x0, y0, x1, y1 = markers[j]
            cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
            nx, ny = min(max(cx, label[0]), label[2]), min(max(cy, label[1]), label[3])
            assert (nx - cx) ** 2 + (ny - cy) ** 2 >= (r - 0.5) ** 2, ("label on a marker", i, j)
            assert _apart(label, bars[j]), ("label on an error bar", i, j)
            assert labels[j] is None or _apart(label, labels[j]), ("labels overlap", i, j)


@contextlib.contextmanager
def _opened_report(browser, page_html: str, picture: str):
    """A report open offline in a page 800 pixels wide, its four figures drawn.

    Yields the page; on leaving, a full-page screenshot to ``artifacts/<picture>``, the page
    closed, and no uncaught error, console error or request outside asserted.
    """
    context, page, errors, outside = watched_page(browser, 800, 1000)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    try:
        page.set_content(page_html, timeout=60_000)
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4", timeout=60_000
        )
        yield page
        (ROOT / "artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "artifacts" / picture), full_page=True)
    finally:
        context.close()
    assert errors == [] and console == [] and outside == []


def test_the_report_opens_offline_without_errors(browser):
    model = RiskScore(["age_geq_60", "smoker"], {"age_geq_60": 2, "smoker": 1}, -2,
                      Certificate.from_bounds("optimal", 0.5, 0.5))  # fmt: skip
    page_html = report_html(model, development=contract_dict(600, 1), validation=crowded_dict())
    with _opened_report(browser, page_html, "report.png") as page:
        drawn = page.locator(".js-plotly-plot").count()
        titles = page.locator(".js-plotly-plot .gtitle").all_text_contents()
        wider = page.evaluate(_WIDER)
        calibration = page.evaluate(_DRAWN)
    assert drawn == 4
    assert any("calibration slope 0.934" in t for t in titles), titles
    assert wider == []
    assert len(calibration) == 2 and sum(p["labels"].count(None) for p in calibration) > 0
    for plot in calibration:
        _check_labels(plot)


def _survival_rows(n: int, seed: int):
    """Rows whose log hazard is a - b, uniform censoring; the outcome as two arrays."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 2)).astype(float), columns=["a", "b"])
    latent = rng.exponential(np.exp(-(X["a"] - X["b"]).to_numpy()))
    censor = rng.uniform(0, 3, n)
    return X, (np.minimum(latent, censor), latent <= censor)


def test_a_survival_report_opens_offline_without_errors(browser):
    X, (time, event) = _survival_rows(300, 1)
    baseline = breslow_baseline(X["a"] - X["b"], time, event)
    certificate = Certificate.from_bounds("optimal", 1.0, 1.0)
    model = SurvivalScore(["a", "b"], {"a": 1, "b": -1}, baseline, [0.5, 1], certificate,
                          observed_score_range=(-1, 1))  # fmt: skip
    Xv, yv = _survival_rows(250, 2)
    cohorts = {
        name: (rows, y, validate(model, rows, time=y[0], event=y[1], n_boot=20))
        for name, (rows, y) in {"development": (X, (time, event)), "validation": (Xv, yv)}.items()
    }
    page_html = report_html(model, **cohorts)
    with _opened_report(browser, page_html, "survival_report.png") as page:
        titles = page.locator(".js-plotly-plot .gtitle").all_text_contents()
        wider = page.evaluate(_WIDER)
    assert len(titles) == 4 and sum("Survival by score group" in t for t in titles) == 2
    assert wider == []
