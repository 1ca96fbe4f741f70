"""``--audit COLUMN`` of the ``fit`` and ``checklist`` commands (run through ``cli.main``)."""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest

from riskexplore.cli import main
from riskexplore.datasets import load_dataset


def _run(*argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse errors
            code = exc.code
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def checklist_json():
    return _run(
        "checklist", "heart", "--max-items", "3", "--time-limit", "20", "--audit", "sex", "--json"
    )


@pytest.fixture(scope="module")
def fit_json():
    return _run(
        "fit", "mammo", "--max-size", "3", "--time-limit", "20",
        "--audit", "Age_geq_60", "--audit", "Density", "--audit-min-size", "40", "--json",
    )  # fmt: skip


def test_checklist_json_has_the_audit_of_the_training_data(checklist_json):
    code, out, err = checklist_json
    assert code == 0, err
    report = json.loads(out)
    train = report["audit"]["train"]
    assert train["settings"]["by"] == ["sex"] and train["settings"]["kind"] == "checklist"
    groups = {g["group"]: g for g in train["groups"]}
    assert set(groups) == {"sex = 0", "sex = 1"}
    d = load_dataset("heart")
    assert groups["sex = 1"]["n"] == int((d.X["sex"] == 1).sum())
    assert groups["sex = 1"]["n_pos"] == int(d.y[d.X["sex"] == 1].sum())
    assert sum(g["fn"] for g in groups.values()) == report["fn"]
    assert sum(g["fp"] for g in groups.values()) == report["fp"]
    assert groups["sex = 0"]["cal"] is None  # a checklist predicts no risk
    assert train["reliability"] == {}


def test_fit_json_has_the_cross_and_too_few_groups(fit_json):
    code, out, err = fit_json
    assert code == 0, err
    train = json.loads(out)["audit"]["train"]
    assert train["settings"]["by"] == ["Age_geq_60", "Density"]
    assert train["settings"]["min_size"] == 40
    groups = train["groups"]
    assert sum(g["n"] for g in groups) == len(load_dataset("mammo").y)
    few = [g for g in groups if g["too_few"]]
    assert few and all(g["n"] < 40 and g["auc"] is None for g in few)
    judged = [g for g in groups if not g["too_few"]]
    assert all(0 <= g["auc"] <= 1 and not math.isnan(g["cal"]) for g in judged)
    assert set(train["reliability"]) == {g["group"] for g in judged}
    for f in train["findings"]:
        assert f["sentence"].startswith(f"for patients with {f['group']} the score")


def test_text_output_ends_with_the_audit_table():
    code, out, err = _run(
        "checklist", "heart", "--max-items", "2", "--time-limit", "20", "--audit", "sex"
    )
    assert code == 0, err
    tail = out[out.index("Audit of the train data by sex") :]
    assert "sex = 0" in tail and "sex = 1" in tail and "FNR" in tail


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fit", "mammo", "--audit", "nope"], "unknown group column 'nope'"),
        (["checklist", "heart", "--audit", "sex", "--audit", "age", "--audit", "cp"], "3 times"),
        (["checklist", "heart", "--audit", "sex", "--audit", "sex"], "twice"),
        (["checklist", "heart", "--audit", "sex", "--audit-min-size", "0"], "positive integer"),
    ],
)
def test_bad_audit_is_one_line_and_exit_2_before_the_fit(argv, message):
    code, out, err = _run(*argv, "--time-limit", "600", "--json")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


# --- --audit-data FILE: the audit of other rows (e.g. patients kept aside) -----------------
@pytest.fixture(scope="module")
def heart_split(tmp_path_factory):
    """Heart shuffled: 200 training rows and 103 kept aside, as two CSV files."""
    folder = tmp_path_factory.mktemp("heart")
    frame = load_dataset("heart").frame.sample(frac=1, random_state=0)
    train, held = folder / "train.csv", folder / "held.csv"
    frame.iloc[:200].to_csv(train, index=False)
    frame.iloc[200:].to_csv(held, index=False)
    return train, held, frame.iloc[200:]


def test_audit_data_adds_the_audit_of_those_rows(heart_split):
    train, held, rows = heart_split
    common = ("--target", "target", "--time-limit", "20", "--audit", "sex")
    code, out, err = _run(
        "checklist", str(train), "--max-items", "3", *common, "--audit-data", str(held), "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert set(report["audit"]) == {"train", "audit_data"}
    assert sum(g["n"] for g in report["audit"]["train"]["groups"]) == 200
    kept = {g["group"]: g for g in report["audit"]["audit_data"]["groups"]}
    for value in (0, 1):
        mask = rows["sex"] == value
        assert kept[f"sex = {value}"]["n"] == int(mask.sum())
        assert kept[f"sex = {value}"]["n_pos"] == int(rows.loc[mask, "target"].sum())
    for g in kept.values():  # the checklist's mistakes on those rows
        assert g["fnr"] == pytest.approx(g["fn"] / g["n_pos"])
        assert g["fpr"] == pytest.approx(g["fp"] / (g["n"] - g["n_pos"]))
    train_groups = {g["group"]: g for g in report["audit"]["train"]["groups"]}
    assert sum(g["fn"] for g in train_groups.values()) == report["fn"]  # training rows
    # the text output names the file
    code, out, err = _run("fit", str(train), *common, "--max-size", "2", "--audit-data", str(held))
    assert code == 0, err
    assert "Audit of the train data by sex" in out
    tail = out[out.index(f"Audit of the data of {held.name} by sex") :]
    assert "sex = 0" in tail and "sex = 1" in tail


def test_audit_data_errors_name_what_is_missing(heart_split, tmp_path):
    train, held, rows = heart_split
    bad = tmp_path / "bad.csv"
    rows.drop(columns=["chol", "target"]).to_csv(bad, index=False)
    cases = [
        (["--audit", "sex", "--audit-data", str(bad)], "lacks the columns 'target', 'chol'"),
        (["--audit-data", str(held)], "--audit-data needs --audit COLUMN"),
        (["--audit", "sex", "--audit-data", str(tmp_path / "nope.csv")], "no such file"),
    ]
    for extra, message in cases:
        code, out, err = _run(
            "checklist", str(train), "--target", "target", "--time-limit", "600", *extra, "--json"
        )
        assert code == 2 and out == ""  # before the fit (600 s would time the test out)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err
