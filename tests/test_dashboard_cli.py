"""The dashboard launcher's pieces that need no browser: the Voila command line and the
offline template (the served pages are checked in ``test_dashboards_browser.py``)."""

from __future__ import annotations

import sys

import pytest

from riskexplore.dashboard_cli import TEMPLATE_NAME, template_root, voila_command


def test_default_template_folder_is_reused():
    first, second = template_root(), template_root()
    assert first == second  # no new temporary folder per launch
    folder = first / "voila" / "templates" / TEMPLATE_NAME
    index = (folder / "index.html.j2").read_text()
    assert "cdn.jsdelivr" in index  # only inside the replace(...) that removes the links
    assert "replace(" in index and (folder / "conf.json").is_file()


def test_template_in_a_given_folder(tmp_path):
    root = template_root(tmp_path / "t")
    assert root == tmp_path / "t"
    assert (root / "voila" / "templates" / TEMPLATE_NAME / "page.html").is_file()


def test_voila_command_hides_code_and_tracebacks():
    cmd, url = voila_command("risk", 8123)
    assert cmd[:3] == [sys.executable, "-m", "voila"] and cmd[3].endswith(
        "risk_score_builder.ipynb"
    )
    assert "--strip_sources=True" in cmd and "--show_tracebacks=False" in cmd
    assert f"--template={TEMPLATE_NAME}" in cmd and url == "http://127.0.0.1:8123/"
    cmd, url = voila_command("all", 8124)
    assert cmd[3].endswith("dashboards") and url == "http://127.0.0.1:8124/"
    with pytest.raises(ValueError, match="unknown dashboard"):
        voila_command("nope")
