"""Load: clinicians open the risk dashboard at the same moment (headless Chromium), and every
page works.

Four pages open together on a server started as the launcher starts it on two cores (a pool
of 2 ready kernels, the launcher's smallest default there; numba kernels warmed, the core
gate over every core). That is the concurrency the claim is about, at its smallest: more
pages than ready kernels (two pages take a pooled kernel while two wait for kernels started
for them alongside: a kernel for every page, counted) and more searches than cores, sharing
them through the core gate (whether one waits for a core depends on timing: reported as
``waited_for_core``, tested in ``tests/exploration/test_gated_search.py``). Every page must
show its search button, answer its click (its status line leaves "ready"), certify mammo,
and show no error; the certified card's SCORE/RISK table must not be clipped (it sticks out
of its box by 0 pixels), and the first page's card is saved to
``artifacts/load_score_card.png``.

How fast is not asserted here (a timed test fails on a busy machine, not on slow code):
the issue's targets for ten pages at once (each button within 30 s, each click answered
within 5 s, mammo certified within 150 s) are measured by ``benchmarks/dashboard_load.py
--pages 10 --pool 10``, which reports each against the run (``targets``). The logic is
``tests/_load.py``, shared with that benchmark; this test's numbers are printed and saved
to ``artifacts/load_browser.json``. (It opened ten pages on a pool of ten until December
2026: about 190 s, 115 of them filling the pool.)
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from _browser import ensure_chromium
from _load import failure_record, message_kind, milestones, run_load

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
POOL = 2  # fewer ready kernels than pages (the launcher's default where memory is short)
CORES = 2  # searches at once: the others wait for a core
PAGES = max(POOL, CORES) + 2  # pooled pages and cold-started ones, searches in line


def test_pages_opened_together_all_certify(tmp_path):
    ensure_chromium()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "load_score_card.png"
    with open(tmp_path / "voila.log", "w") as log:
        results, summary = run_load(
            PAGES, pool=POOL, cores=CORES, log_file=log, screenshot=shot, wait_after=False
        )
    report = json.dumps({"summary": summary, "pages": results}, indent=1)
    (ARTIFACTS / "load_browser.json").write_text(report)
    print(report)
    print(f"screenshot: {shot}")
    assert summary["pool_filled_s"] is not None, report  # the pool was ready first
    assert summary["peak_kernels"] >= PAGES, report  # a kernel of its own for every page
    assert not summary["errors"], report
    assert len([r for r in results if "button_s" in r]) == PAGES, report
    assert len([r for r in results if "click_s" in r]) == PAGES, report  # each click answered
    assert summary["certified"] == PAGES, report
    overflow = [r.get("risk_overflow") for r in results]
    assert all(o is not None and o <= 0 for o in overflow), overflow


def _frame(parts: list[bytes], with_end: bool) -> bytes:
    """A message in Jupyter's binary websocket protocol: the offsets, then the parts."""
    count = len(parts) + with_end
    offsets, at = [], 8 * (1 + count)
    for part in parts:
        offsets.append(at)
        at += len(part)
    if with_end:
        offsets.append(at)
    return struct.pack(f"<Q{count}Q", count, *offsets) + b"".join(parts)


def test_a_stuck_page_reports_its_kernel_messages_by_kind():
    header = json.dumps({"msg_type": "comm_msg"}).encode()
    content = json.dumps({"comm_id": "c", "data": {"method": "request_states"}}).encode()
    parts = [b"shell", header, b"{}", b"{}", content]
    for with_end in (True, False):
        assert message_kind(_frame(parts, with_end)) == "shell:comm_msg:request_states"
    text = json.dumps({"channel": "iopub", "header": {"msg_type": "status"}, "content": {}})
    assert message_kind(text) == "iopub:status"
    assert message_kind(b"\x01") == "unreadable (1 bytes)"
    seen = {
        "frames": [(1.0, "sent", "shell:kernel_info_request")]
        + [(2.0 + i, "received", "iopub:status") for i in range(45)],
        "console": ["uncaught: boom"],
    }
    record = failure_record(seen)
    assert record["kernel_messages"] == {
        "sent shell:kernel_info_request": 1,
        "received iopub:status": 45,
    }
    assert len(record["last_messages"]) == 40 and record["last_messages"][-1][0] == 46.0
    assert record["console_errors"] == ["uncaught: boom"]


def test_a_page_notes_its_steps_before_the_button():
    seen = {
        "frames": [
            (0.5, "open", "ws://x/api/kernels/k/channels"),
            (0.6, "sent", "shell:kernel_info_request"),
            (1.5, "received", "shell:kernel_info_reply"),
            (4.0, "received", "iopub:comm_msg:update"),
            (9.0, "received", "iopub:status"),  # after the button: not a step before it
        ],
        "console": [],
    }
    assert milestones(seen, until=5.0) == {
        "socket_s": 0.5,
        "first_message_s": 1.5,
        "last_message_s": 4.0,
        "messages": 2,
    }
    empty = milestones({"frames": [], "console": []}, until=5.0)
    assert empty == {
        "socket_s": None,
        "first_message_s": None,
        "last_message_s": None,
        "messages": 0,
    }
