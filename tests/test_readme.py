"""The README's Python example runs as written (with a shorter time limit), and so do the
examples of the documentation pages that took over the README's longer sections; every name
of the package that the README or a page names exists."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"
GUIDE = README.parent / "docs" / "guide"


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_readme_python_example_runs(tmp_path, monkeypatch):
    """The README's example: a risk score from heart's raw table, certified, saved, and
    reading raw rows again after its JSON round trip."""
    text = README.read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert 'binarize="auto"' in code
    code = code.replace("time_limit=60", "time_limit=10")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    model = namespace["model"]
    assert model.size <= 5 and model.binarizer is not None
    names = [item.name for item in model.binarizer.items_]
    assert {"age ≥ 55", "age ≥ 65"} <= set(names)  # the cut points asked for
    columns = [item.column for item in model.binarizer.items_ if item.name in model.points]
    assert len(columns) == len(set(columns))  # at most one item per column
    assert model.certificate.status in ("optimal", "time_limit")
    from riskexplore import RiskScore, load_dataset

    saved = RiskScore.from_json(tmp_path / "model.json")
    assert saved == model
    raw = load_dataset("heart").X.head(20)  # raw rows, as a clinic's table has them
    assert np.allclose(saved.predict_proba(raw), model.predict_proba(raw))


def test_dashboards_guide_starts_from_a_raw_csv(tmp_path, monkeypatch):
    """The dashboards guide's first session writes heart's raw table (outcome first) as the
    CSV it uploads, and reading it back gives the same table."""
    import pandas as pd

    from riskexplore import load_dataset

    page = GUIDE / "dashboards.md"
    monkeypatch.chdir(tmp_path)
    exec(compile(python_blocks(page)[0], str(page), "exec"), {})
    table = pd.read_csv(tmp_path / "heart.csv")
    pd.testing.assert_frame_equal(table, load_dataset("heart").frame, check_dtype=False)
    text = page.read_text(encoding="utf-8")
    assert "heart.csv" in text and 'binarize="auto"' in text and "`target`" in text


def test_near_optimal_and_edits_examples_run():
    """The near-optimal page's example and the edits page's, which continues it, run as
    written, on smaller settings (fewer features and items, shorter limits)."""
    code = (
        python_blocks(GUIDE / "near-optimal.md")[0]
        + python_blocks(GUIDE / "edits-and-prices.md")[0]
    )
    for old, new in [
        ("max_size=5", "max_size=3"),
        ("max_items=5", "max_items=4"),
        ("time_limit=120", "time_limit=60"),
        ("time_limit=60)", "time_limit=30)"),
    ]:
        assert old in code, old
        code = code.replace(old, new)
    namespace: dict = {}
    exec(compile(code, str(GUIDE / "near-optimal.md"), "exec"), namespace)
    found, edited, prices = namespace["found"], namespace["edited"], namespace["prices"]
    assert found.complete and found.best.objective <= edited.objective
    assert edited.points["Age_geq_60"] == 2 and edited.distance.absolute > 0
    assert len(prices) == len(found.best.feature_names)
    assert "not exang" in namespace["chosen"].items


def test_constraints_example_runs():
    """The constraints page's example (the README's former one) runs as written, with a
    shorter time limit, and its rules hold."""
    code = python_blocks(GUIDE / "constraints.md")[0].replace("time_limit=60", "time_limit=10")
    namespace: dict = {}
    exec(compile(code, str(GUIDE / "constraints.md"), "exec"), namespace)
    model = namespace["model"]
    assert model.size <= 5
    assert "IrregularShape" not in model.points or "SpiculatedMargin" in model.points


def test_readme_links_and_pictures_exist():
    """Every file the README links to or shows (the dashboard picture) is in the checkout."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)\)", text)
    assert any(t.endswith(".png") for t in targets)
    for target in targets:
        if not re.match(r"^[a-z]+:", target):
            assert (README.parent / target).exists(), target
    assert len(text) <= 6000, len(text)


def test_readme_starts_with_the_two_commands():
    commands = [
        line for line in README.read_text().splitlines() if line.startswith("python3 -m venv")
    ]
    assert len(commands) >= 2
    assert "riskexplore dashboard" in commands[0]
    assert "pytest" in commands[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1] in ci


DOCS = [
    "README.md",
    "ARCHITECTURE.md",
    "CHANGELOG.md",
    "dashboards/README.md",
    "benchmarks/README.md",
    "riskexplore/datasets/README.md",
    *sorted(
        str(p.relative_to(README.parent))
        for p in (README.parent / "docs").rglob("*.md")
        if "_build" not in p.parts and p.parent.name not in ("api", "tutorials")
    ),
]


def _resolves(dotted: str) -> bool:
    """Whether ``riskexplore.a.b.c`` is a module, or an attribute of one."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_module_names_in_the_docs_exist():
    """Every ``riskexplore.x.y`` the documentation names (modules moved in a reshape, say)
    can be imported, and every ``riskexplore/x/`` folder and every test, benchmark or
    notebook file it names exists."""
    root = README.parent
    missing = []
    for doc in DOCS:
        text = (root / doc).read_text()
        for dotted in sorted(set(re.findall(r"\briskexplore(?:\.[A-Za-z_]\w*)+", text))):
            if not _resolves(dotted.rstrip(".")):
                missing.append(f"{doc}: {dotted}")
        for folder in sorted(set(re.findall(r"`riskexplore/([\w/]+?)/?`", text))):
            if not (root / "riskexplore" / folder).exists():
                missing.append(f"{doc}: riskexplore/{folder}")
        for path in sorted(
            set(re.findall(r"\b((?:tests|benchmarks|notebooks)/[\w/.-]+\.\w+)", text))
        ):
            if not (root / path).exists():
                missing.append(f"{doc}: {path}")
    assert missing == []


def test_audit_example_runs():
    """The subgroup audit page's example runs as written (with shorter time limits)."""
    code = python_blocks(GUIDE / "audit.md")[0].replace("time_limit=60", "time_limit=20")
    namespace: dict = {}
    exec(compile(code, str(GUIDE / "audit.md"), "exec"), namespace)
    result = namespace["result"]
    assert list(result.table["group"]) == [
        "age_group = under 45",
        "age_group = 45 to 59",
        "age_group = 60 and older",
    ]
    crossed = namespace["by_sex_and_age"]
    assert crossed.settings["cuts"] == {"age": [50.0, 60.0]}
    assert "sex = 1, age 60 and older" in set(crossed.table["group"])


def test_group_calibration_examples_run():
    """The constraints page's group calibration and finding-to-rule examples run as
    written (with a shorter time limit), and the rule holds on the model found."""
    blocks = python_blocks(GUIDE / "constraints.md")
    code = "\n".join(blocks[1:3]).replace("time_limit=60", "time_limit=20")
    namespace: dict = {}
    exec(compile(code, str(GUIDE / "constraints.md"), "exec"), namespace)
    model, heart = namespace["model"], namespace["heart"]
    women = heart.X["sex"].to_numpy() == 0
    scores = model.decision_function(heart.X)[women]
    observed = heart.y.to_numpy()[women].mean()
    assert scores.mean() >= np.log(observed / (1 - observed)) - 0.25 - 1e-9
    assert all(type(r).__name__ == "GroupCalibration" for r in namespace["rules"])
