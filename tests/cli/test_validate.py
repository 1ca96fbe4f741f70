"""``riskexplore validate MODEL.json DATA --target COL`` and the model files it reads
(run through ``cli.main``)."""

from __future__ import annotations

import contextlib
import io
import json

import pandas as pd
import pytest
from _validation_contract import contract_dict

from riskexplore.checklist.model import Checklist
from riskexplore.cli import main
from riskexplore.cli.errors import CLIError
from riskexplore.cli.validate import load_model, validation_text
from riskexplore.core.certificate import Certificate
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
