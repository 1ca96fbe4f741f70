"""The ``near-optimal`` subcommand: one JSON object with the certified set (checked
against the library call), the text listing, refused options of the other family, one
``error:`` line for bad input, and Ctrl-C printing an incomplete set."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from riskexplore import near_optimal_checklists, near_optimal_risk_scores
from riskexplore.cli import main


def _run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "riskexplore", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(4)
    n = 150
    X = rng.integers(0, 2, (n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ [1.5, -1.0, 0.6] - 0.4)))).astype(int)
    frame = pd.DataFrame({"outcome": y, "a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    path = tmp_path_factory.mktemp("near") / "small.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_risk_scores_as_json_match_the_library(table):
    path, frame = table
    out = _run(
        "near-optimal", str(path), "--target", "outcome", "--tolerance", "0.05",
        "--max-size", "2", "--coef-min", "-2", "--coef-max", "2", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["complete"] is True and report["family"] == "risk_score"
    expected = near_optimal_risk_scores(
        frame[["a", "b", "c"]], frame.outcome, tolerance=0.05, max_size=2, coef_min=-2,
        coef_max=2,
    )  # fmt: skip
    assert report["optimum"] == pytest.approx(expected.optimum)
    got = [(m["intercept"], m["coefficients"]) for m in report["models"]]
    assert got == [(m.intercept, m.points) for m in expected.models]
    for m in report["models"]:
        assert set(m) >= {"objective", "intercept", "coefficients", "distance", "train_auc"}
        assert all(v != 0 for v in m["coefficients"].values())


def test_checklists_as_json_and_text():
    out = _run(
        "near-optimal", "heart", "--family", "checklist", "--max-items", "4",
        "--tolerance", "1", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["complete"] is True and report["tolerance_unit"] == "mistakes"
    best = report["models"][0]
    assert {"items", "M", "train_errors", "objective"} <= set(best)
    assert report["optimum"] == best["train_errors"] == report["lower_bound"]
    assert all(m["train_errors"] <= report["optimum"] + 1 for m in report["models"])
    from riskexplore.datasets import load_dataset

    heart = load_dataset("heart")
    expected = near_optimal_checklists(
        heart.X, heart.y, max_items=4, tolerance=1,
        categorical=["cp", "thal", "ca", "slope", "restecg"],
    )  # fmt: skip
    assert [m["items"] for m in report["models"]] == [list(m.items) for m in expected.models]
    text = _run("near-optimal", "heart", "--family", "checklist", "--max-items", "3")
    assert text.returncode == 0, text.stderr
    assert "within 2 weighted mistakes of the best" in text.stdout and "complete" in text.stdout
    assert "features (models using them): " in text.stdout


def test_options_of_the_other_family_and_bad_input_are_one_line(capsys):
    cases = [
        (["heart", "--family", "checklist", "--max-size", "3"], "--max-size is an option of"),
        (["mammo", "--max-items", "3"], "--max-items is an option of --family checklist"),
        (["mammo", "--coef-min", "3", "--coef-max", "1"], "--coef-min 3 exceeds --coef-max 1"),
        (["mammo", "--tolerance", "-1"], "expected a non-negative number"),
        (["mammo", "--max-models", "0"], "expected a positive integer"),
        (["nothere"], "no such file or bundled dataset"),
        (["mammo", "--scale", "learned"], "--scale learned: near-optimal sets are certified"),
        (["heart", "--family", "checklist", "--scale", "fixed"], "--scale is an option of"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) if "expected" in message else contextlib.nullcontext():
            code = main(["near-optimal", *argv])
            assert code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err


def test_ctrl_c_prints_an_incomplete_set():
    proc = subprocess.Popen(
        [sys.executable, "-m", "riskexplore", "near-optimal", "mammo", "--max-size", "6",
         "--tolerance", "0.05", "--max-models", "10000", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(8)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    report = json.loads(stdout)
    assert report["complete"] is False and report["reason"] in (
        "stopped",
        "optimum_not_certified",
    )
