"""``riskexplore fit DATA --time T --event E --horizon H`` and ``riskexplore survival``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _survival_data import survival_data

from riskexplore import SurvivalScore
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


def test_fit_reads_the_bundled_simulated_survival_table(capsys):
    code = main(
        ["fit", "heart_followup", "--time", "days", "--event", "died", "--horizon", "365",
         "--max-size", "1", "--time-limit", "30", "--n-jobs", "1", "--json"]
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["dataset"] == "heart_followup"
    assert report["status"] == "optimal" and report["size"] == 1
    assert report["n_samples"] == 800 and report["n_events"] == 262
