"""RiskScore and Certificate: prediction, score table, card rendering, exact JSON."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from riskexplore.core.certificate import Certificate
from riskexplore.core.events import SolveEvent, Trace
from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.problem import RiskScoreProblem

NAMES = ["age >= 75", "diabetes", "stroke <b>", "unused"]


@pytest.fixture
def model() -> RiskScore:
    cert = Certificate.from_bounds("time_limit", 0.5, 0.484)
    stats = {"time": 60.4, "loss": 0.1 + 0.2, "nodes": 12, "cuts": 3, "c0": 1e-6}
    return RiskScore(NAMES, {"age >= 75": 1, "diabetes": 1, "stroke <b>": 2}, -4, cert, stats)


def _problem() -> RiskScoreProblem:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(40, 3)), columns=["a", "b", "c"])
    X["c"] = X["c"] * 3  # an integer, non-binary feature in 0..3
    y = (X["a"] + rng.random(40) > 0.8).astype(int)
    return RiskScoreProblem(X, y, coef_min=-4, coef_max=4, c0=1e-3, max_size=2)


def _result(coefficients, status="optimal", upper=0.4, lower=0.4) -> SolveResult:
    trace = Trace()
    trace(SolveEvent(0.1, "search", upper, lower, 0.0, 5, 2, {"intercept": -1}, "incumbent"))
    return SolveResult(
        status=status,
        solution=None if coefficients is None else np.array(coefficients),
        upper_bound=upper,
        lower_bound=lower,
        nodes=7,
        cuts=4,
        time=1.25,
        trace=trace,
        stats={"root_lower_bound": np.float64(0.3), "rounds": np.int64(2)},
    )


# --- certificate ------------------------------------------------------------------------
def test_certificate_lines():
    opt = Certificate.from_bounds("optimal", 0.25, 0.25)
    assert opt.is_optimal and opt.gap == 0.0
    assert opt.describe(3.0) == "certified optimal (gap 0.0%)"
    cut = Certificate.from_bounds("time_limit", 1.0, 0.968)
    assert not cut.is_optimal
    assert cut.gap == pytest.approx(0.032)
    assert cut.describe(60.0) == "gap 3.2% after 60 s (time limit)"
    assert Certificate.from_bounds("stopped", 1.0, 0.5).describe() == "gap 50.0% (stopped)"
    assert Certificate.from_dict(cut.to_dict()) == cut
    none = Certificate.from_bounds("stopped", math.inf, 0.1)
    assert Certificate.from_dict(json.loads(json.dumps(none.to_dict()))) == none


# --- model basics -----------------------------------------------------------------------
def test_points_and_vector(model):
    assert model.points == {"age >= 75": 1, "diabetes": 1, "stroke <b>": 2}
    assert model.all_points["unused"] == 0
    assert model.size == 3
    assert model.coefficients.tolist() == [-4, 1, 1, 2, 0]
    assert RiskScore(NAMES, [1, 0, 0, 2], 3).points == {"age >= 75": 1, "unused": 2}


def test_bad_construction():
    with pytest.raises(InputError, match="nope"):
        RiskScore(["a"], {"nope": 1}, 0)
    with pytest.raises(InputError, match="integer"):
        RiskScore(["a"], {"a": 1.5}, 0)
    with pytest.raises(InputError, match="2 points for 1"):
        RiskScore(["a"], [1, 2], 0)


def test_predictions_dataframe_and_array(model):
    X = pd.DataFrame(
        {"stroke <b>": [0, 1, 1], "extra": [9, 9, 9], "age >= 75": [0, 1, 0], "diabetes": [0, 1, 1]}
    )
    scores = model.decision_function(X)
    assert scores.dtype.kind == "i"
    assert scores.tolist() == [-4, 0, -1]
    assert model.total_points(X).tolist() == [0, 4, 3]
    risk = model.predict_risk(X)
    np.testing.assert_allclose(risk, expit([-4, 0, -1]))
    proba = model.predict_proba(X)
    assert proba.shape == (3, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[:, 1], risk)
    assert model.predict(X).tolist() == [0, 1, 0]
    assert model.predict(X, threshold=0.2).tolist() == [0, 1, 1]
    arr = np.array([[0, 0, 0, 5], [1, 1, 1, 5], [0, 1, 1, 5]])
    np.testing.assert_array_equal(model.decision_function(arr), scores)
    assert model.decision_function(np.array([1, 1, 1, 0])).tolist() == [0]


def test_prediction_input_errors(model):
    with pytest.raises(InputError, match="diabetes"):
        model.predict_risk(pd.DataFrame({"age >= 75": [1], "stroke <b>": [0]}))
    with pytest.raises(InputError, match="4 columns"):
        model.predict_risk(np.zeros((2, 3)))
    with pytest.raises(InputError, match="missing"):
        model.predict_risk(np.array([[np.nan, 0, 0, 0]]))
    bad = pd.DataFrame({"age >= 75": ["x"], "diabetes": [1], "stroke <b>": [0]})
    with pytest.raises(InputError, match="numeric"):
        model.predict_risk(bad)


# --- score table and card ---------------------------------------------------------------
def test_score_table_binary(model):
    table = model.score_table()
    assert table["score"].tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(table["risk_percent"], 100 * expit(np.arange(5) - 4))
    neg = RiskScore(["a", "b"], {"a": -2, "b": 3}, 1)
    assert neg.score_table()["score"].tolist() == list(range(-2, 4))
    assert neg.risk_of_score(0) == pytest.approx(expit(1))


def test_text_card(model):
    text = model.to_text()
    lines = text.splitlines()
    assert lines[0].startswith("1. age >= 75") and "1 point" in lines[0]
    assert lines[2].startswith("3. stroke <b>") and "2 points" in lines[2] and "+ ..." in lines[2]
    assert "unused" not in text
    assert "SCORE  = ..." in text
    score_row = next(line for line in lines if line.startswith("SCORE "))
    risk_row = next(line for line in lines if line.startswith("RISK "))
    assert score_row.split()[1:] == ["0", "1", "2", "3", "4"]
    assert risk_row.split()[1:] == ["1.8%", "4.7%", "11.9%", "26.9%", "50.0%"]
    assert lines[-1] == "gap 3.2% after 60 s (time limit)"
    assert "loss 0.3" in model.summary()


def test_text_card_optimal_and_wrapping():
    m = RiskScore(
        [f"f{j}" for j in range(8)],
        [3, 3, 3, 3, -3, -3, 0, 1],
        -2,
        Certificate.from_bounds("optimal", 0.2, 0.2),
    )
    text = m.to_text(width=10)
    assert text.splitlines()[-1] == "certified optimal (gap 0.0%)"
    rows = [line for line in text.splitlines() if line.startswith("SCORE ")]
    scores = [int(s) for line in rows for s in line.split()[1:]]
    assert scores == list(range(-6, 14)) and len(rows) == 2


def test_html_card_is_escaped_and_static(model):
    page = model.to_html()
    assert page == model._repr_html_()
    assert "stroke &lt;b&gt;" in page and "stroke <b>" not in page
    assert "<script" not in page.lower()
    assert "SCORE" in page and "RISK" in page and "50.0%" in page
    assert "gap 3.2%" in page


# --- from_result ------------------------------------------------------------------------
def test_from_result_stats_and_ranges():
    problem = _problem()
    result = _result([-2, 3, 0, 1])
    m = RiskScore.from_result(problem, result)
    assert m.intercept == -2 and m.points == {"a": 3, "c": 1}
    assert m.certificate == Certificate("optimal", 0.4, 0.4, 0.0)
    s = m.stats
    assert (s["nodes"], s["cuts"], s["time"]) == (7, 4, 1.25)
    assert s["loss"] == problem.loss_of(np.array([-2, 3, 0, 1]))  # the loss of the solution
    assert s["c0"] == 1e-3 and s["coef_min"] == -4 and s["coef_max"] == 4
    assert s["max_size"] == 2 and s["size"] == 2 and s["n_samples"] == 40
    assert s["intercept_min"] == -100 and s["coef_bounds"]["b"] == [-4, 4]
    assert s["solver"] == {"root_lower_bound": 0.3, "rounds": 2}
    assert m.feature_info["c"] == {"min": 0.0, "max": 3.0, "integer": True}
    # points . x ranges over 0..6 and the table covers all of it
    assert m.score_table()["score"].tolist() == list(range(0, 7))
    assert "1 point per unit" in m.to_text()
    assert len(m.trace) == 1
    expected = problem.X @ np.array([3, 0, 1])
    assert m.observed_score_range == (expected.min(), expected.max())


def test_from_result_without_model():
    with pytest.raises(InfeasibleError):
        RiskScore.from_result(_problem(), _result(None, "infeasible", math.inf, math.inf))


# --- JSON -------------------------------------------------------------------------------
def _fields(m: RiskScore) -> tuple:
    return (
        m.feature_names,
        m.all_points,
        m.intercept,
        m.certificate,
        m.stats,
        m.feature_info,
        m.observed_score_range,
    )


def test_json_round_trip_exact(tmp_path: Path):
    problem = _problem()
    m = RiskScore.from_result(problem, _result([-2, 3, 0, 1], "time_limit", 0.1 + 0.2, 1 / 3))
    m.stats["odd"] = [math.inf, -0.0, 1e-300, 2**60]
    m = RiskScore.from_dict(m.to_dict(include_trace=True))  # normalise the added stats
    assert len(m.trace) == 1
    text = m.to_json()
    back = RiskScore.from_json(text)
    assert back == m
    assert _fields(back) == _fields(m)
    assert back.certificate.upper_bound == 0.1 + 0.2  # exact, not rounded
    assert back.certificate.lower_bound == 1 / 3
    assert back.stats["odd"][0] == math.inf and back.stats["odd"][3] == 2**60
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    path = tmp_path / "model.json"
    m.to_json(path)
    assert RiskScore.from_json(path) == m
    assert RiskScore.from_json(str(path)) == m
    assert back.trace is None
    with_trace = RiskScore.from_json(m.to_json(include_trace=True))
    assert with_trace.trace.events == m.trace.events


def test_json_round_trip_hand_made(model):
    back = RiskScore.from_json(model.to_json(indent=None))
    assert _fields(back) == _fields(model)
    assert back.to_text() == model.to_text()
    bare = RiskScore(["x"], {"x": 2}, -1)
    again = RiskScore.from_json(bare.to_json())
    assert again == bare and again.certificate is None
    assert again != RiskScore(["x"], {"x": 1}, -1)


def test_from_json_rejects_other_documents():
    with pytest.raises(InputError, match="format"):
        RiskScore.from_dict({"format": "something.else"})
    with pytest.raises(InputError, match="JSON"):
        RiskScore.from_json("{not json")


def test_html_risk_table_wraps_in_blocks_of_seven():
    """A wide score range is printed as blocks of at most 7 scores (the page's card and
    the printed sheet stay narrow), every score once, in order, each with its risk."""
    wide = RiskScore(
        [f"f{j}" for j in range(6)],
        [5, 5, 5, -5, -5, 4],
        -3,
        Certificate.from_bounds("optimal", 0.2, 0.2),
    )
    page = wide.to_html()
    risk = page[page.index('class="rx-risk"') :]
    risk = risk[: risk.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", risk)
    score_rows = [r for r in rows if ">SCORE<" in r]
    risk_rows = [r for r in rows if ">RISK<" in r]
    cells = [re.findall(r"<td [^>]*>([^<]*)</td>", r) for r in score_rows]
    assert all(1 <= len(c) <= 7 for c in cells) and len(score_rows) == len(risk_rows) > 2
    scores = [int(s) for c in cells for s in c]
    assert scores == wide.score_table()["score"].tolist()
    risks = [re.findall(r"<td [^>]*>([^<]*)</td>", r) for r in risk_rows]
    assert [len(r) for r in risks] == [len(c) for c in cells]
    assert wide.to_html(width=100).count(">SCORE<") == 2  # the points table's and one row
    eight = RiskScore(["a", "b"], {"a": 4, "b": 3}, -3)  # scores 0..7: two blocks of 4
    rows = re.findall(r"<tr><th [^>]*>SCORE</th>(.*?)</tr>", eight.to_html())
    assert [len(re.findall(r"<td ", r)) for r in rows] == [4, 4]
    with pytest.raises(InputError, match="width"):
        wide.to_html(width=0)
