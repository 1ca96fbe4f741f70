"""``riskexplore validate MODEL.json DATA --target COL`` and the model files it reads
(run through ``cli.main``)."""

from __future__ import annotations

import contextlib
import io
import json
import re

import pandas as pd
import pytest
from _validation_contract import contract_dict

from riskexplore.checklist.model import Checklist
from riskexplore.cli import main
from riskexplore.cli.errors import CLIError
from riskexplore.cli.validate import load_model, validation_text
from riskexplore.core.certificate import Certificate
from riskexplore.evaluation.validation import validate
from riskexplore.report import cohorts
from riskexplore.report.performance import metric_number
from riskexplore.risk_score.model import RiskScore


def _run(*argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse errors
            code = exc.code
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def files(tmp_path):
    score = RiskScore(["a", "b"], {"a": 2, "b": 1}, -2, Certificate.from_bounds("optimal", 1, 1))
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"dataset": "x", "model": score.to_dict()}))  # as fit --json
    data = tmp_path / "data.csv"
    pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 0, 1, 0], "y": [0, 1, 1, 0]}).to_csv(
        data, index=False
    )
    return score, model, data


def test_models_are_read_back_by_their_family(files, tmp_path):
    score, model, _ = files
    assert load_model(str(model)).to_dict() == score.to_dict()
    checklist = Checklist(["a", "b"], 1)
    own = tmp_path / "checklist.json"
    own.write_text(json.dumps({"M": 1, "model": checklist.to_dict()}))  # as checklist --json
    assert load_model(str(own)).to_dict() == checklist.to_dict()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("{not json", "is not a model's JSON"),
        ('{"format": "riskexplore.Other"}', "holds no model riskexplore can read"),
    ],
)
def test_unreadable_model_files_are_named(tmp_path, text, message):
    path = tmp_path / "m.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(CLIError, match=message) as info:
        load_model(str(path))
    assert str(path) in str(info.value)


def test_validate_names_a_missing_target_and_an_unreadable_model(files, tmp_path):
    _, model, data = files
    code, out, err = _run("validate", str(model), str(data), "--target", "died")
    assert code == 2 and "died" in err and err.startswith("error:") and out == ""
    code, _, err = _run("validate", str(tmp_path / "nope.json"), str(data), "--target", "y")
    assert code == 2 and "nope.json: no such file" in err
    code, _, err = _run("validate", str(model), str(data))
    assert code == 2 and "--target" in err


def test_the_metrics_in_plain_words():
    text = validation_text(contract_dict(400, 0), "hospital_b")
    assert text.startswith("Validation on hospital_b: 400 patients")
    assert "calibration slope             0.934 (0.78 to 1.09)  (ideal 1)" in text
    assert "AUC                           0.812 (0.771 to 0.853)" in text
    assert "net benefit at threshold      5%:" in text


# --- end to end, on the raw table of tests/_validation_data.py (fits certify in < 1 s) ---


@pytest.fixture(scope="module")
def raw_files(tmp_path_factory):
    """The development and validation rows as CSV files (outcome ``died``), and the risk
    score fitted on the development rows saved as ``fit --json`` writes it."""
    import _validation_data as data

    folder = tmp_path_factory.mktemp("validate")
    X_dev, y_dev, X_val, y_val = data.split()
    dev, val = folder / "dev.csv", folder / "val.csv"
    X_dev.assign(died=y_dev).to_csv(dev, index=False)
    X_val.assign(died=y_val).to_csv(val, index=False)
    model = data.risk_score()
    path = folder / "model.json"
    path.write_text(json.dumps({"dataset": "dev", "model": model.to_dict()}))
    return model, path, dev, val, pd.read_csv(val)


def _offline(page: str) -> None:
    """No tag of the page loads anything from the network."""
    for tag in re.findall(r"<(?:script|link|img|iframe|source|embed)\b[^>]*>", page):
        assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", tag), tag


def test_validate_json_equals_the_python_validation_and_writes_the_report(
    raw_files, tmp_path, monkeypatch
):
    model, path, _, val, rows = raw_files
    report = tmp_path / "report.html"
    # the report reuses the command's validation: it validates nothing again
    monkeypatch.setattr(cohorts, "validate", lambda *a, **k: pytest.fail("validated twice"))
    code, out, err = _run(
        "validate", str(path), str(val), "--target", "died", "--json", "--report", str(report)
    )
    assert code == 0, err
    expected = validate(model, rows.drop(columns="died"), rows["died"]).to_dict()
    assert json.loads(out) == expected
    page = report.read_text(encoding="utf-8")
    _offline(page)
    assert 'id="calibration"' in page and 'id="net-benefit"' in page
    assert "calibration slope" in page and "Clinical usefulness: net benefit" in page
    assert metric_number(expected["calibration_slope"]) in page  # the numbers of the JSON


def test_validate_names_the_model_column_the_data_lacks(raw_files, tmp_path):
    _, path, _, _, rows = raw_files
    partial = tmp_path / "no_bp.csv"
    rows.drop(columns="bp").to_csv(partial, index=False)
    code, out, err = _run("validate", str(path), str(partial), "--target", "died")
    assert code == 2 and out == ""
    assert err.startswith(f"error: DATA {partial}:") and "'bp'" in err, err
    assert "age" not in err.split("(")[0]  # only the missing column is named as missing


@pytest.mark.parametrize(
    "command",
    [
        ("fit", "--max-size", "3", "--coef-min", "-3", "--coef-max", "3"),
        ("checklist", "--max-items", "3"),
    ],
    ids=["risk score", "checklist"],
)
def test_fit_and_checklist_validate_data_and_report(raw_files, tmp_path, command):
    _, _, dev, val, _ = raw_files
    report = tmp_path / "report.html"
    cuts = ("--cuts", "age=55,65", "--cuts", "bp=140")
    code, out, err = _run(
        command[0], str(dev), "--target", "died", *command[1:], *cuts, "--time-limit", "10",
        "--validate-data", str(val), "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    assert f"Validation on {val}: 250 patients" in out and "calibration slope" in out
    assert f"report written to {report}" in out
    page = report.read_text(encoding="utf-8")
    _offline(page)
    for words in ("calibration slope", "Clinical usefulness: net benefit", "TRIPOD+AI"):
        assert words in page, words
    assert "350 (" in page and "250 (" in page  # both cohorts, side by side
