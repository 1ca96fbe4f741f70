"""The README's Python example runs as written (with a shorter time limit)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs(tmp_path, monkeypatch):
    text = README.read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    code = code.replace("time_limit=60", "time_limit=10")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    model = namespace["model"]
    assert model.size <= 5
    assert "IrregularShape" not in model.points or "SpiculatedMargin" in model.points
    assert (tmp_path / "model.json").exists()
    from riskexplore import RiskScore

    assert RiskScore.from_json(tmp_path / "model.json") == model


def test_readme_starts_with_the_two_commands():
    commands = [
        line for line in README.read_text().splitlines() if line.startswith("python3 -m venv")
    ]
    assert len(commands) >= 2
    assert "riskexplore dashboard" in commands[0]
    assert "pytest" in commands[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1] in ci
