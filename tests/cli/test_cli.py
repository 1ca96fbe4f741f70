"""The command line, run as ``python -m riskexplore`` in subprocesses."""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from riskexplore import OperatingPoint
from riskexplore.cli.fit import _operating_point, add_arguments
from riskexplore.datasets import list_datasets, load_dataset


def _run(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "riskexplore", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def fit_json() -> tuple[subprocess.CompletedProcess, dict]:
    proc = _run(
        "fit", "breastcancer", "--max-size", "3", "--coef-min", "-4", "--coef-max", "4",
        "--time-limit", "20", "--no-binarize", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(proc.stdout)


def test_fit_json_fields(fit_json):
    proc, report = fit_json
    assert proc.stdout.count("\n") == 1  # one JSON object, nothing else on stdout
    expected = {
        "status", "objective", "loss", "lower_bound", "upper_bound", "gap", "intercept",
        "coefficients", "nodes", "cuts", "time", "size", "n_samples", "dataset",
    }  # fmt: skip
    assert expected <= set(report)
    assert report["status"] in ("optimal", "time_limit")
    assert report["dataset"] == "breastcancer"
    assert report["n_samples"] == len(load_dataset("breastcancer").y)
    assert isinstance(report["intercept"], int)
    assert -100 <= report["intercept"] <= 100
    coefficients = report["coefficients"]
    assert 1 <= len(coefficients) <= 3 and report["size"] == len(coefficients)
    assert set(coefficients) <= set(load_dataset("breastcancer").X.columns)
    assert all(isinstance(v, int) and v != 0 and -4 <= v <= 4 for v in coefficients.values())
    assert report["lower_bound"] <= report["upper_bound"] + 1e-12
    assert report["objective"] == report["upper_bound"]
    assert 0 < report["loss"] <= report["objective"]
    assert 0 <= report["gap"] < 1 and (report["status"] != "optimal" or report["gap"] < 1e-6)
    assert report["nodes"] >= 0 and report["cuts"] >= 1 and 0 < report["time"] < 30


def test_fit_json_matches_python_api(fit_json):
    _, report = fit_json
    from riskexplore.risk_score.problem import RiskScoreProblem

    data = load_dataset("breastcancer")
    problem = RiskScoreProblem(data.X, data.y, coef_min=-4, coef_max=4, max_size=3)
    lam = [report["intercept"], *(report["coefficients"].get(n, 0) for n in problem.feature_names)]
    assert problem.is_feasible(lam)
    assert problem.objective(lam) == pytest.approx(report["objective"], rel=1e-9)


def test_fit_learned_scale_json_and_card():
    args = ["fit", "mammo", "--max-size", "3", "--scale", "learned", "--multiplier-min", "0.5"]
    args += ["--multiplier-max", "5", "--time-limit", "30", "--no-binarize"]
    proc = _run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["scale"] == "learned" and 0.5 <= report["multiplier"] <= 5
    from riskexplore import fit_risk_score

    data = load_dataset("mammo")
    model = fit_risk_score(
        data.X, data.y, max_size=3, scale="learned", multiplier_min=0.5, multiplier_max=5
    )
    assert report["multiplier"] == pytest.approx(model.multiplier, rel=1e-9)
    assert report["coefficients"] == model.points and report["intercept"] == model.intercept
    assert report["loss"] == pytest.approx(model.loss, rel=1e-9)
    card = _run(*args)
    assert card.returncode == 0, card.stderr
    assert f"multiplier m = {model.multiplier:.4g}" in card.stdout
    fixed = _run("fit", "mammo", "--max-size", "1", "--json")
    assert json.loads(fixed.stdout)["multiplier"] == 1.0
    assert json.loads(fixed.stdout)["scale"] == "fixed"


def test_fit_n_jobs_gives_the_same_model_and_refuses_zero():
    args = ["fit", "mammo", "--max-size", "3", "--json"]
    one, two = _run(*args, "--n-jobs", "1"), _run(*args, "--n-jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    first, second = json.loads(one.stdout), json.loads(two.stdout)
    assert first["status"] == second["status"] == "optimal"
    assert first["coefficients"] == second["coefficients"]
    assert first["intercept"] == second["intercept"]
    bad = _run(*args, "--n-jobs", "0")
    assert bad.returncode != 0 and "--n-jobs" in bad.stderr


def test_fit_text_card_from_csv(tmp_path: Path):
    data = load_dataset("breastcancer")
    frame = data.X.iloc[:, :4].copy()
    frame.insert(2, "outcome", data.y.to_numpy())
    path = tmp_path / "cancer.csv"
    frame.to_csv(path, index=False)
    proc = _run("fit", str(path), "--target", "outcome", "--max-size", "2", "--time-limit", "10")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "1. " in out and "SCORE" in out and "RISK" in out
    assert "outcome" not in out  # the target is not a feature
    summary = out.strip().splitlines()[-1]
    assert "loss" in summary and ("certified optimal" in summary or "gap" in summary)
    assert "nodes" in proc.stderr  # progress lines go to stderr
    assert len(proc.stderr.splitlines()) < 20


def test_datasets_command():
    proc = _run("datasets")
    assert proc.returncode == 0, proc.stderr
    for name in list_datasets():
        assert name in proc.stdout
    proc = _run("datasets", "--json")
    assert [d["name"] for d in json.loads(proc.stdout)] == list_datasets()


BAD_CSVS = {
    "three_classes.csv": "y,a,b\n1,0,1\n0,1,0\n2,1,1\n",
    "nan.csv": "y,a,b\n1,0,1\n0,,0\n1,1,1\n",
    "strings.csv": "y,a,b\n1,x,1\n0,y,0\n1,1,1\n",
    "constant.csv": "y,a,b\n1,0,1\n1,1,0\n1,1,1\n",
    "broken.csv": 'y,a\n1,"0\n',
    "empty.csv": "",
    "repeated_header.csv": "y,a,b,a\n1,0,1,0\n0,1,0,0\n1,1,1,1\n0,0,0,1\n",
}

BAD_ARGS = {
    "missing file": ["fit", "{tmp}/does_not_exist.csv"],
    "repeated column name": ["fit", "{tmp}/repeated_header.csv"],
    "unknown column": ["fit", "breastcancer", "--target", "NoSuchColumn"],
    "non-binary outcome": ["fit", "{tmp}/three_classes.csv"],
    "NaN feature": ["fit", "{tmp}/nan.csv", "--no-binarize"],
    "string feature": ["fit", "{tmp}/strings.csv", "--no-binarize"],
    "constant outcome": ["fit", "{tmp}/constant.csv"],
    "unparsable csv": ["fit", "{tmp}/broken.csv"],
    "empty csv": ["fit", "{tmp}/empty.csv"],
    "coef bounds crossed": ["fit", "breastcancer", "--coef-min", "3", "--coef-max", "1"],
    "intercept crossed": ["fit", "breastcancer",
        "--intercept-min", "2", "--intercept-max", "1"],
    "negative time limit": ["fit", "breastcancer", "--time-limit", "-1"],
    "non-numeric option": ["fit", "breastcancer", "--max-size", "three"],
    "directory": ["fit", "{tmp}"],
    "unknown option": ["fit", "breastcancer", "--frobnicate"],
    "unknown scale": ["fit", "breastcancer", "--scale", "sometimes"],
    "multiplier without learned scale": ["fit", "breastcancer", "--multiplier-max", "4"],
    "multiplier bounds crossed": ["fit", "breastcancer", "--scale", "learned",
        "--multiplier-min", "5", "--multiplier-max", "2"],
    "negative multiplier": ["fit", "breastcancer", "--scale", "learned",
        "--multiplier-min", "-1"],
    "rate without score": ["fit", "breastcancer", "--min-sensitivity", "0.9"],
    "score without rate": ["fit", "breastcancer", "--at-score", "2"],
}  # fmt: skip

#: Raw tables that used to be refused: a raw CSV is binarized by default (issue 32).
RAW_ARGS = {
    "raw NaN feature": ["fit", "{tmp}/nan.csv"],
    "raw string feature": ["fit", "{tmp}/strings.csv"],
}


@pytest.fixture(scope="module")
def bad_runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Run every bad-input case at once (in parallel) and collect the results."""
    tmp = tmp_path_factory.mktemp("bad")
    for name, text in BAD_CSVS.items():
        (tmp / name).write_text(text)
    procs = {
        case: subprocess.Popen(
            [sys.executable, "-m", "riskexplore", *(a.format(tmp=tmp) for a in args), "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for case, args in {**BAD_ARGS, **RAW_ARGS}.items()
    }
    out = {}
    for case, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        out[case] = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    return out


@pytest.mark.parametrize("case", list(BAD_ARGS))
def test_bad_input_one_line_exit_2(bad_runs, case):
    proc = bad_runs[case]
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_bad_input_messages_are_specific(bad_runs):
    assert "NoSuchColumn" in bad_runs["unknown column"].stderr
    assert "does_not_exist.csv" in bad_runs["missing file"].stderr
    assert "--coef-min 3 exceeds --coef-max 1" in bad_runs["coef bounds crossed"].stderr
    assert "'sometimes'" in bad_runs["unknown scale"].stderr
    assert (
        "--multiplier-max needs --scale learned"
        in bad_runs["multiplier without learned scale"].stderr
    )
    assert (
        "--multiplier-min 5 must be less than --multiplier-max 2"
        in bad_runs["multiplier bounds crossed"].stderr
    )
    assert "expected a positive number, got '-1'" in bad_runs["negative multiplier"].stderr
    assert "need --at-score S" in bad_runs["rate without score"].stderr
    assert "--at-score needs --min-sensitivity" in bad_runs["score without rate"].stderr
    # pandas would have read the second "a" as "a.1", a feature that is not in the file
    stderr = bad_runs["repeated column name"].stderr  # "error: <the path as typed> repeats..."
    assert stderr.startswith("error: /") and stderr.endswith(
        "/repeated_header.csv repeats the column name 'a' (columns 2 and 4); rename the "
        "repeated columns so that each column has a unique name\n"
    )


def test_raw_csv_with_missing_values_and_text_is_binarized(bad_runs):
    items = {
        "raw NaN feature": {"a", "a missing", "b"},
        "raw string feature": {"a = 1", "a = x", "a = y", "b"},
    }
    for case, names in items.items():
        proc = bad_runs[case]
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["n_samples"] == 3 and set(report["coefficients"]) <= names


def test_ctrl_c_prints_best_model():
    proc = subprocess.Popen(
        [sys.executable, "-m", "riskexplore", "fit", "income", "--max-size", "10"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # wait for the first progress line: the solve (and its Ctrl-C handler) is running
    seen = []
    while not (line := proc.stderr.readline()).startswith("["):
        seen.append(line)
        assert line, f"no progress before exit: {''.join(seen)}"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "stopping" in stderr
    lines = stdout.strip().splitlines()
    assert lines[0].startswith("1. ") or lines[0].startswith("(no features")
    assert "SCORE" in stdout and "RISK" in stdout
    assert "(stopped)" in lines[-1] or "certified optimal" in lines[-1]


def test_fit_operating_point_options_make_the_rule():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["mammo", "--at-score", "2", "--min-sensitivity", "0.9"])
    assert _operating_point(args) == [OperatingPoint(2, min_sensitivity=0.9)]
    args = parser.parse_args(["mammo", "--at-score", "-1", "--max-fpr", "0.2"])
    assert _operating_point(args) == [OperatingPoint(-1, max_false_positive_rate=0.2)]
    assert _operating_point(parser.parse_args(["mammo"])) == []
