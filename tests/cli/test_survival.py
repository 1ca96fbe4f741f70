"""``riskexplore fit DATA --time T --event E --horizon H`` and ``riskexplore survival``."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from _survival_data import survival_data

from riskexplore import SurvivalScore, validate
from riskexplore.cli import main


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    X, time, event, _ = survival_data(n=200, d=2, seed=6)
    rng = np.random.default_rng(6)
    frame = pd.DataFrame(
        {
            "age": 50 + 30 * X[:, 0] + rng.integers(0, 10, 200),
            "stage": np.where(X[:, 1] > 0, "III", rng.choice(["I", "II"], 200)),
            "months": time,
            "died": event.astype(int),
        }
    )
    path = tmp_path_factory.mktemp("survival") / "cohort.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_fit_with_a_time_and_an_event_certifies_a_survival_score(table, capsys):
    path, frame = table
    code = main(
        ["fit", str(path), "--time", "months", "--event", "died", "--horizon", "0.5", "1",
         "--max-size", "2", "--c0", "0.001", "--time-limit", "30", "--n-jobs", "1", "--json"]
    )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "optimal" and report["horizons"] == [0.5, 1.0]
    assert 0 < report["size"] <= 2 and report["binarizer"] is not None
    model = SurvivalScore.from_dict(report["model"])
    assert model.points == report["points"]
    risks = [row["risk_percent_at_1"] for row in report["risk_table"]]
    assert risks == sorted(risks) and 0 <= risks[0] and risks[-1] <= 100
    X = frame.drop(columns=["months", "died"])
    assert np.all(np.diff(model.predict_risk(X, horizon=[0.5, 1]), axis=1) >= 0)


def test_the_survival_command_prints_the_card(table, capsys):
    path, _ = table
    code = main(
        ["survival", str(path), "--time", "months", "--event", "died", "--horizon", "1",
         "--max-size", "1", "--c0", "0.001", "--time-limit", "30", "--n-jobs", "1"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "risk by 1" in out and "certified optimal" in out


@pytest.mark.parametrize(
    "extra,words",
    [
        (["--time", "months"], "both --time COL and --event COL"),
        (["--time", "months", "--event", "dead"], "unknown event column 'dead'"),
        (["--time", "months", "--event", "died", "--scale", "learned"], "--scale"),
        (["--time", "weeks", "--event", "died"], "weeks"),
    ],
)
def test_bad_survival_arguments_give_one_error_line(table, capsys, extra, words):
    path, _ = table
    assert main(["fit", str(path), *extra, "--time-limit", "5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err


def test_validate_and_report_a_survival_score_from_the_command_line(table, tmp_path, capsys):
    path, frame = table
    model_file, report_file = tmp_path / "m.json", tmp_path / "r.html"
    assert main(
        ["fit", str(path), "--time", "months", "--event", "died", "--horizon", "0.5", "1",
         "--max-size", "2", "--c0", "0.001", "--time-limit", "30", "--n-jobs", "1", "--json"]
    ) == 0  # fmt: skip
    model_file.write_text(capsys.readouterr().out)
    code = main(
        ["validate", str(model_file), str(path), "--time", "months", "--event", "died",
         "--horizon", "1", "--json", "--report", str(report_file)]
    )  # fmt: skip
    assert code == 0
    v = json.loads(capsys.readouterr().out)
    model = SurvivalScore.from_dict(json.loads(model_file.read_text())["model"])
    X, time, event = frame.drop(columns=["months", "died"]), frame["months"], frame["died"]
    want = validate(model, X, time=time, event=event, horizon=1.0)
    assert (
        v["horizon"] == 1 and v["n"] == len(frame) and v == json.loads(json.dumps(want.to_dict()))
    )
    page = report_file.read_text(encoding="utf-8")
    for tag in re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page):
        assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", tag), tag
    assert page.count("<script>") == 1 + 2  # plotly's JS once, then KM and calibration
    for anchor in ("model", "settings", "data", "performance", "survival-curves", "tripod"):
        assert f'id="{anchor}"' in page
    assert "Harrell&#x27;s C" in page and "risk by 0.5" in page and "proven optimal" in page
    assert main(["validate", str(model_file), str(path), "--target", "died"]) == 2
    assert "--time COL --event COL" in capsys.readouterr().err


def test_fit_validates_on_other_rows_and_writes_the_report(table, tmp_path, capsys):
    path, _ = table
    report_file = tmp_path / "fit.html"
    code = main(
        ["survival", str(path), "--time", "months", "--event", "died", "--horizon", "0.5",
         "--max-size", "1", "--time-limit", "30", "--n-jobs", "1", "--json",
         "--validate-data", str(path), "--report", str(report_file)]
    )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["validation"]["horizon"] == 0.5 and report["validation"]["n"] == 200
    page = report_file.read_text(encoding="utf-8")
    assert page.count("<script>") == 1 + 4  # development and validation: KM, calibration
    assert "max-size" in page and "development" in page and "validation" in page


def test_fit_reads_the_bundled_simulated_survival_table(capsys):
    code = main(
        ["fit", "heart_followup", "--time", "days", "--event", "died", "--horizon", "365",
         "--max-size", "1", "--time-limit", "30", "--n-jobs", "1", "--json"]
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["dataset"] == "heart_followup"
    assert report["status"] == "optimal" and report["size"] == 1
    assert report["n_samples"] == 800 and report["n_events"] == 262


def test_near_optimal_lists_survival_scores_and_fit_audits_them(table, capsys):
    path, _ = table
    code = main(
        ["near-optimal", str(path), "--family", "survival_score", "--time", "months", "--event",
         "died", "--horizon", "1", "--max-size", "2", "--coef-min", "-2", "--coef-max", "2",
         "--tolerance", "0.02", "--time-limit", "30", "--json"]
    )  # fmt: skip
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["complete"] and found["family"] == "survival_score"
    objectives = [m["objective"] for m in found["models"]]
    assert len(objectives) > 1 and objectives == sorted(objectives)
    assert objectives[-1] <= found["optimum"] * 1.02 + 1e-9
    assert all(0 < len(m["points"]) <= 2 and "train_c_index" in m for m in found["models"])
    code = main(
        ["fit", str(path), "--time", "months", "--event", "died", "--horizon", "1",
         "--max-size", "1", "--time-limit", "30", "--n-jobs", "1", "--audit", "stage",
         "--audit-min-size", "20"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "Audit of the train data by stage" in out and "C-index" in out


def test_fit_audits_other_rows_and_puts_the_audits_in_the_report(table, tmp_path, capsys):
    path, frame = table
    no_time = tmp_path / "no_time.csv"
    frame.drop(columns=["months"]).to_csv(no_time, index=False)
    base = ["fit", str(path), "--time", "months", "--event", "died", "--horizon", "1",
            "--audit", "stage", "--audit-min-size", "20"]  # fmt: skip
    assert main([*base, "--audit-data", str(no_time)]) == 2  # refused before the fit
    assert "months" in capsys.readouterr().err
    other = tmp_path / "other.csv"
    frame.iloc[::2].to_csv(other, index=False)
    report_file = tmp_path / "audited.html"
    code = main(
        [*base, "--max-size", "1", "--time-limit", "30", "--n-jobs", "1",
         "--audit-data", str(other), "--report", str(report_file)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "Audit of the train data by stage" in out
    assert "Audit of the data of other.csv by stage" in out and "observed by 1" in out
    page = report_file.read_text(encoding="utf-8")
    assert '<a href="#audit">Subgroup audit</a>' in page
    assert "<h3>By stage (train)</h3>" in page and "<h3>By stage (audit_data)</h3>" in page
    assert page.count("stage = III") >= 2 and "no subgroup audit was run" not in page


@pytest.mark.parametrize(
    "extra,words",
    [
        (["--time", "months"], "both --time COL and --event COL"),
        (["--time", "months", "--event", "died", "--intercept-min", "-2"], "--intercept-min"),
    ],
)
def test_near_optimal_refuses_what_survival_scores_do_not_take(table, capsys, extra, words):
    path, _ = table
    code = main(["near-optimal", str(path), "--family", "survival_score", *extra])
    assert code == 2 and words in capsys.readouterr().err
