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


# --- small fits shared by the figure and view tests (one per session) -------------------
@pytest.fixture(scope="session")
def mammo_fits():
    """Mammo risk scores (max_size 3) with and without ``Exclude("IrregularShape")``, on
    the first 700 rows; the remaining rows are the test split."""
    from riskexplore import fit_risk_score, load_dataset
    from riskexplore.risk_score.constraints import Exclude

    d = load_dataset("mammo")
    X, y = d.X.iloc[:700], d.y.iloc[:700]
    Xt, yt = d.X.iloc[700:], d.y.iloc[700:]
    free = fit_risk_score(X, y, max_size=3, time_limit=3)
    bound = fit_risk_score(X, y, max_size=3, time_limit=3, constraints=[Exclude("IrregularShape")])
    return {"X": X, "y": y, "Xt": Xt, "yt": yt, "free": free, "bound": bound}


@pytest.fixture(scope="session")
def heart_fit():
    """A heart checklist of at most 3 items."""
    from riskexplore import fit_checklist, load_dataset

    d = load_dataset("heart")
    model = fit_checklist(d.X, d.y, max_items=3, time_limit=2)
    return {"X": d.X, "y": d.y, "model": model}


@pytest.fixture(scope="session")
def mammo_path(mammo_fits):
    """Mammo's best risk scores of sizes 1, 2 and 3, with test metrics."""
    from riskexplore.evaluation.paths import risk_score_size_path

    return risk_score_size_path(
        mammo_fits["X"],
        mammo_fits["y"],
        sizes=3,
        time_limit_per_size=2,
        X_test=mammo_fits["Xt"],
        y_test=mammo_fits["yt"],
    )


@pytest.fixture
def small_batches(monkeypatch):
    """Screens in batches (and Dask tasks) of a few hundred supports, so that a small
    problem still spreads over several."""
    from riskexplore.risk_score.support import screen

    monkeypatch.setattr(screen, "_BATCH", 512)
    monkeypatch.setattr(screen, "_STRETCH", 2048)
    return 512
