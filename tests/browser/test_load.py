"""Load: ten clinicians open the risk dashboard at the same moment (headless Chromium).

The issue's targets on this 2-core machine: each of the ten pages shows its search button
within 30 s and certifies mammo within 150 s, and no page is unresponsive (each answers its
click within 5 s: its status line leaves "ready"). All three are asserted as written
(measured 19.9 s for the slowest button, from 36 / 38 s median / slowest before the pages
stopped parsing plotly.js while they open: ``benchmarks/profile_page_load.py`` shows where
a page's time goes; the machine is shared, so another job's load can still push a page
over). The server is started as the launcher starts it for a group of ten (``--pool 10``:
ten kernels ready, about 3 GB; numba kernels warmed, the core gate over every core); the
logic is ``tests/_load.py``, shared with ``benchmarks/dashboard_load.py``, which reports
the same figures as JSON lines.

The certified card of every page is also checked for the SCORE/RISK table being clipped (it
sticks out of its box by 0 pixels), and the first page's card is saved to
``artifacts/load_score_card.png``.
"""

from __future__ import annotations

import json
from pathlib import Path

from _browser import ensure_chromium
from _load import BUTTON_TARGET_S, CERTIFIED_TARGET_S, CLICK_TARGET_S, run_load

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
PAGES = 10
POOL = 10  # sized for ten visitors at once (dashboards/README: run it for your group)


def test_ten_pages_at_once(tmp_path):
    ensure_chromium()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "load_score_card.png"
    with open(tmp_path / "voila.log", "w") as log:
        results, summary = run_load(
            PAGES, pool=POOL, log_file=log, screenshot=shot, wait_after=False
        )
    report = json.dumps({"summary": summary, "pages": results}, indent=1)
    (ARTIFACTS / "load_browser.json").write_text(report)
    print(report)
    print(f"screenshot: {shot}")
    assert not summary["errors"], report
    assert len([r for r in results if "button_s" in r]) == PAGES, report
    assert summary["button_max_s"] <= BUTTON_TARGET_S, report
    assert summary["click_max_s"] <= CLICK_TARGET_S, report
    assert summary["certified"] == PAGES, report
    assert summary["certified_max_s"] <= CERTIFIED_TARGET_S, report
    overflow = [r.get("risk_overflow") for r in results]
    assert all(o is not None and o <= 0 for o in overflow), overflow
