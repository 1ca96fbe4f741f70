"""The ``checklist`` subcommand, run as ``python -m riskexplore checklist`` in subprocesses."""

from __future__ import annotations

import contextlib
import io
import json
import signal
import subprocess
import sys
import time

import pytest

from riskexplore.cli import main
from riskexplore.datasets import load_dataset


def _popen(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "riskexplore", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen, timeout: float = 120) -> subprocess.CompletedProcess:
    stdout, stderr = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """The successful runs, started together so that they solve in parallel."""
    tmp = tmp_path_factory.mktemp("checklist")
    data = load_dataset("heart")
    frame = data.X[["age", "sex", "chol", "thalach", "oldpeak"]].copy()
    frame.insert(2, "disease", data.y.to_numpy())
    frame.to_csv(tmp / "heart_small.csv", index=False)
    procs = {
        "json": _popen("checklist", "heart", "--max-items", "3", "--time-limit", "20", "--json"),
        "fnr": _popen(
            "checklist",
            "heart",
            "--max-items",
            "3",
            "--fnr-max",
            "0.1",
            "--time-limit",
            "8",
            "--json",
        ),  # fmt: skip
        "text": _popen(
            "checklist",
            str(tmp / "heart_small.csv"),
            "--target",
            "disease",
            "--binarize",
            "fixed",
            "--max-items",
            "3",
            "--time-limit",
            "8",
            "--ascii",
        ),  # fmt: skip
    }
    # Ctrl-C: once the solve reports progress (its handler is installed), interrupt it
    interrupted = _popen("checklist", "heart", "--max-items", "8")
    seen = []
    while not (line := interrupted.stderr.readline()).startswith("["):
        seen.append(line)
        assert line, f"no progress before exit: {''.join(seen)}"
    time.sleep(0.5)
    interrupted.send_signal(signal.SIGINT)
    procs["ctrl_c"] = interrupted
    return {name: _finish(proc) for name, proc in procs.items()}


REQUIRED = {
    "status", "objective", "lower_bound", "upper_bound", "gap", "train_errors", "M", "N",
    "items", "fnr", "fpr", "time", "n_items", "n_samples", "dataset",
}  # fmt: skip


def _check_report(report: dict, max_items: int) -> None:
    assert REQUIRED <= set(report)
    assert report["status"] in ("optimal", "time_limit")
    assert report["dataset"] == "heart" and report["n_samples"] == 303
    assert 1 <= report["M"] <= report["N"] == len(report["items"]) <= max_items
    assert len(set(report["items"])) == len(report["items"])
    assert 0 <= report["fnr"] <= 1 and 0 <= report["fpr"] <= 1
    assert report["lower_bound"] <= report["upper_bound"] + 1e-9
    assert report["objective"] == report["upper_bound"]
    assert 0 <= report["gap"] <= 1
    assert report["status"] != "optimal" or report["gap"] < 1e-6
    # the objective is the number of mistakes plus tiny tie-breaking penalties
    assert report["train_errors"] == pytest.approx(report["objective"], abs=0.5)
    assert report["n_items"] > 13  # binarized: more items than raw columns


def test_json_report(runs):
    proc = runs["json"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1  # one JSON object, nothing else on stdout
    report = json.loads(proc.stdout)
    _check_report(report, 3)
    assert 0 < report["time"] < 30


def test_json_report_matches_data(runs):
    """The reported checklist, re-evaluated on the binarized data, has the reported errors."""
    from riskexplore.data.binarize import Binarizer

    report = json.loads(runs["json"].stdout)
    data = load_dataset("heart")
    Z = Binarizer(categorical=["cp", "restecg", "slope", "ca", "thal"]).fit_transform(data.X)
    pred = (Z[report["items"]].sum(axis=1) >= report["M"]).astype(int).to_numpy()
    y = data.y.to_numpy()
    fp, fn = int(((pred == 1) & (y == 0)).sum()), int(((pred == 0) & (y == 1)).sum())
    assert (fp + fn) == report["train_errors"]
    assert report["fnr"] == pytest.approx(fn / (y == 1).sum())
    assert report["fpr"] == pytest.approx(fp / (y == 0).sum())


def test_fnr_limit_honoured(runs):
    proc = runs["fnr"]
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    _check_report(report, 3)
    assert report["fnr"] <= 0.1 + 1e-12


def test_text_checklist_from_csv(runs):
    proc = runs["text"]
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert proc.stdout.isascii()
    assert lines[0].startswith("Predict disease = 1 if ") and lines[0].endswith(
        "+ items are checked"
    )
    boxes = [line for line in lines if line.startswith("[ ] ")]
    assert 1 <= len(boxes) <= 3
    assert not any("disease" in line for line in boxes)  # the target is not an item
    assert "certified optimal" in lines[-1] or "gap" in lines[-1]
    assert "nodes" in proc.stderr  # progress lines go to stderr


BAD_CSVS = {
    "three_classes.csv": "y,a,b\n1,0,1\n0,1,0\n2,1,1\n",
    "constant.csv": "y,a,b\n1,0,1\n1,1,0\n1,1,1\n",
    "broken.csv": 'y,a\n1,"0\n',
    "empty.csv": "",
    "repeated_header.csv": "y,a,a,b\n1,0,1,0\n0,1,0,0\n1,1,1,1\n0,0,0,1\n",
}

BAD_ARGS = {
    "missing file": ["{tmp}/does_not_exist.csv"],
    "repeated column name": ["{tmp}/repeated_header.csv"],
    "unknown column": ["heart", "--target", "NoSuchColumn"],
    "non-binary outcome": ["{tmp}/three_classes.csv"],
    "constant outcome": ["{tmp}/constant.csv"],
    "unparsable csv": ["{tmp}/broken.csv"],
    "empty csv": ["{tmp}/empty.csv"],
    "m range crossed": ["heart", "--min-m", "3", "--max-m", "2"],
    "m above items": ["heart", "--min-m", "4", "--max-items", "3"],
    "fnr out of range": ["heart", "--fnr-max", "1.5"],
    "zero items": ["heart", "--max-items", "0"],
    "unknown binarize": ["heart", "--binarize", "quantum"],
    "negative time limit": ["heart", "--time-limit", "-1"],
    "items not binary": ["heart", "--binarize", "none"],
    "directory": ["{tmp}"],
}


@pytest.fixture(scope="module")
def bad_runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every bad-input case, run in this process through ``cli.main`` (fast)."""
    tmp = tmp_path_factory.mktemp("bad_checklist")
    for name, text in BAD_CSVS.items():
        (tmp / name).write_text(text)
    out = {}
    for case, args in BAD_ARGS.items():
        argv = ["checklist", *(a.format(tmp=tmp) for a in args), "--json"]
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse errors
                code = exc.code
        out[case] = subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())
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
    assert "--min-m 3 exceeds --max-m 2" in bad_runs["m range crossed"].stderr
    assert "--min-m 4 exceeds --max-items 3" in bad_runs["m above items"].stderr
    assert "0/1" in bad_runs["items not binary"].stderr
    assert (
        "repeats the column name 'a' (columns 2 and 3)" in bad_runs["repeated column name"].stderr
    )


def test_ctrl_c_prints_best_checklist(runs):
    proc = runs["ctrl_c"]
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "stopping" in proc.stderr, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith("Predict heart disease if "), proc.stdout
    assert any(line.startswith("\u2610 ") for line in lines), proc.stdout
    assert "(stopped)" in lines[-1] or "certified optimal" in lines[-1], (proc.stdout, proc.stderr)
