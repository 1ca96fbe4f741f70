"""Raw tables on the command line (issue 32): ``fit`` binarizes a raw CSV by default (a
0/1 table stays as it was), ``--cuts``, ``--linear``, ``--no-binarize``,
``--any-items-per-variable`` (also for ``checklist``), the binarization summary, the
``--json`` model and binarizer, ``--audit-data`` on raw rows, and one-line errors naming the
flag and the value. Run through ``cli.main`` on small tables (fast)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from riskexplore import RiskScore, fit_risk_score
from riskexplore.cli import main
from riskexplore.cli.errors import plain_warnings
from riskexplore.datasets import load_dataset


def _run(*argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse errors
            code = exc.code
    return code, stdout.getvalue(), stderr.getvalue()


def _raw_table(n: int = 240, seed: int = 3) -> pd.DataFrame:
    """Numbers, yes/no strings, a grade I/II/III, missing lab values and a constant."""
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 90, n)
    grade = rng.choice(["I", "II", "III"], n)
    therapy = rng.choice(["no", "yes"], n)
    creatinine = np.round(rng.normal(1.0, 0.3, n), 2)
    smoker = rng.integers(0, 2, n)
    logit = 0.08 * (age - 60) + 1.2 * (grade == "III") - 0.9 * (therapy == "yes")
    outcome = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    creatinine[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame(
        {
            "age": age,
            "grade": grade,
            "therapy": therapy,
            "creatinine": creatinine,
            "site": "A",
            "smoker": smoker,
            "outcome": outcome,
        }
    )


@pytest.fixture(scope="module")
def raw_csv(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    frame = _raw_table()
    path = tmp_path_factory.mktemp("raw") / "patients.csv"
    frame.to_csv(path, index=False)
    return path, frame


FIT = ("--max-size", "3", "--time-limit", "20")


def test_raw_csv_card_and_summary(raw_csv):
    path, frame = raw_csv
    code, out, err = _run("fit", path, "--target", "outcome", *FIT)
    assert code == 0, err
    summary, card = out.split("\n\n", 1)
    lines = summary.splitlines()
    assert lines[0].endswith("raw columns (at most one per column):")
    assert lines[-1] == "  0/1 columns, one item each: smoker"
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert set(rows) == {"age", "grade", "therapy", "creatinine", "site"}
    assert "numeric" in rows["age"] and "≥" in rows["age"]
    assert "categorical" in rows["grade"] and "I, II, III" in rows["grade"]
    assert "'creatinine missing'" in rows["creatinine"]
    assert "skipped" in rows["site"] and "constant" in rows["site"]
    assert "per unit" not in card and "SCORE" in card and "RISK" in card
    used = [line.split(". ", 1)[1].split("  ")[0] for line in card.splitlines() if ". " in line]
    columns = [name.split(" ")[0] for name in used]  # "age ≥ 58", "grade = III", ...
    assert 1 <= len(used) <= 3 and len(set(columns)) == len(columns)
    assert "loss" in card.strip().splitlines()[-1]


def test_raw_csv_json_matches_python_api_and_predicts_raw_rows(raw_csv):
    path, frame = raw_csv
    code, out, err = _run("fit", path, "--target", "outcome", *FIT, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["binarizer"]["column_kinds"]["grade"] == "categorical"
    assert "site" in report["binarizer"]["dropped_columns"]
    model = RiskScore.from_dict(report["model"])
    assert model.binarizer is not None and model.points == report["coefficients"]
    X, y = frame.drop(columns="outcome"), frame["outcome"]
    python = fit_risk_score(X, y, binarize="auto", max_size=3, time_limit=20)
    assert (model.intercept, model.points) == (python.intercept, python.points)
    rows = X.copy()
    rows.loc[0, "grade"] = "IV"  # a category not seen at fit
    rows.loc[1, ["age", "creatinine"]] = np.nan
    risk = model.predict_proba(rows)[:, 1]
    assert np.isfinite(risk).all() and risk.shape == (len(rows),)
    np.testing.assert_allclose(risk[2:], python.predict_proba(X)[2:, 1])


def test_binary_table_is_used_as_it_is(tmp_path: Path):
    data = load_dataset("income")
    frame = data.X.iloc[:300, :8].copy()
    frame["y"] = data.y.to_numpy()[:300]
    path = tmp_path / "binary.csv"
    frame.to_csv(path, index=False)
    args = ("fit", path, "--target", "y", "--max-size", "2", "--time-limit", "20")
    runs = [_run(*args, *more) for more in ((), ("--no-binarize",))]
    assert runs[0][0] == runs[1][0] == 0, runs[0][2] + runs[1][2]
    assert runs[0][1].splitlines()[:-1] == runs[1][1].splitlines()[:-1]  # the card
    assert runs[0][1].startswith("1. ")  # no binarization summary
    default, old = (
        json.loads(_run(*args, *more, "--json")[1]) for more in ((), ("--no-binarize",))
    )
    assert "binarizer" not in default and "binarizer" not in default["model"]
    assert (default["intercept"], default["coefficients"]) == (
        old["intercept"],
        old["coefficients"],
    )


def test_cuts_and_linear(raw_csv):
    path, _ = raw_csv
    args = ["fit", path, "--target", "outcome", *FIT, "--json"]
    code, out, err = _run(*args, "--cuts", "age=65,75", "--cuts", "creatinine<=0.8,1.5")
    assert code == 0, err
    binarizer = json.loads(out)["binarizer"]
    assert binarizer["thresholds"]["age"] == [[">=", 65], [">=", 75]]
    assert binarizer["thresholds"]["creatinine"] == [["<=", 0.8], ["<=", 1.5]]
    assert binarizer["column_kinds"]["age"] == "thresholds"
    code, out, err = _run(*args[:-1], "--linear", "age", "--max-size", "5")
    assert code == 0, err
    rows = {line.split()[0]: line.split()[1:] for line in out.split("\n\n")[0].splitlines()}
    assert rows["age"] == ["per", "unit", "--linear"]
    model = json.loads(_run(*args, "--linear", "age")[1])["model"]
    assert "age" in model["feature_names"] and "age" not in model["binarizer"]["columns"]


def _two_sided(path: Path, n: int = 200) -> None:
    """``y`` is mostly 1 for 3 <= x < 7: two thresholds of ``x`` explain it."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 10, n)
    y = ((x >= 3) & (x < 7)).astype(int)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    pd.DataFrame({"x": x, "z": rng.normal(size=n), "y": y}).to_csv(path, index=False)


def test_any_items_per_variable_lifts_the_rule(tmp_path: Path):
    path = tmp_path / "two_sided.csv"
    _two_sided(path)
    fit = ("fit", path, "--target", "y", "--cuts", "x=3,7", "--max-size", "2", "--json")
    for more, most in (((), 1), (("--any-items-per-variable",), 2)):
        code, out, err = _run(*fit, "--time-limit", "10", *more)
        assert code == 0, err
        used = [name for name, points in json.loads(out)["coefficients"].items() if points]
        assert sum(name.startswith("x ") for name in used) == most, used
    checklist = ("checklist", path, "--target", "y", "--cuts", "x>=3", "--cuts", "x<7")
    for more, most in (((), 1), (("--any-items-per-variable",), 2)):
        code, out, err = _run(*checklist, "--max-items", "2", "--time-limit", "10", *more, "--json")
        assert code == 0, err
        report = json.loads(out)
        assert report["binarizer"]["thresholds"]["x"] == [[">=", 3], ["<", 7]]
        assert sum(item.startswith("x ") for item in report["items"]) == most, report["items"]


def test_audit_data_reads_raw_rows(raw_csv, tmp_path: Path):
    path, frame = raw_csv
    holdout = _raw_table(n=120, seed=9)
    holdout.loc[:5, "creatinine"] = np.nan
    holdout.to_csv(tmp_path / "holdout.csv", index=False)
    code, out, err = _run(
        "fit", path, "--target", "outcome", *FIT, "--audit", "therapy",
        "--audit-data", tmp_path / "holdout.csv", "--json",
    )  # fmt: skip
    assert code == 0, err
    audit = json.loads(out)["audit"]
    assert set(audit) == {"train", "audit_data"}
    assert all(math.isfinite(v) for v in _numbers(audit))


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, float):
        yield value


BAD = {
    "unknown cut column": (["--cuts", "weight=70"], "--cuts weight=70: no column 'weight'"),
    "non-numeric cut": (["--cuts", "age=old"], "'old' in 'age=old' is not a number"),
    "cut without operator": (["--cuts", "age"], "expected COL=V1,V2 or COL<=V"),
    "cut of a text column": (["--cuts", "grade=2"], "column 'grade' is not numeric"),
    "unknown linear column": (["--linear", "age,weight"], "--linear age,weight: no column"),
    "linear text column": (["--linear", "therapy"], "column 'therapy' is not numeric"),
    "linear with missing values": (["--linear", "creatinine"], "missing values in"),
    "cuts without binarizing": (
        ["--no-binarize", "--cuts", "age=65"],
        "--cuts cannot be used with --no-binarize",
    ),
    "text column without binarizing": (["--no-binarize"], "'grade'"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_flags_one_line_naming_flag_and_value(raw_csv, case):
    path, _ = raw_csv
    more, message = BAD[case]
    code, out, err = _run("fit", path, "--target", "outcome", *more, "--json")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert message in err, err


def test_checklist_cuts_need_raw_columns():
    code, out, err = _run("checklist", "heart", "--binarize", "none", "--cuts", "age=60")
    assert code == 2 and "--cuts needs items made from raw columns" in err


def test_warnings_print_one_line(capsys):
    with plain_warnings():
        warnings.warn("column 'id' has a different value\n  in every row; left out", stacklevel=1)
    assert capsys.readouterr().err == (
        "warning: column 'id' has a different value in every row; left out\n"
    )
