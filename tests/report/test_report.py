"""The HTML report (``riskexplore.report``) of a risk score and a checklist, from
contract-shaped validation dicts (built by hand) and hand-made models (no solve)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from _validation_contract import contract_dict

from riskexplore.checklist.model import Checklist
from riskexplore.core.certificate import Certificate
from riskexplore.errors import InputError
from riskexplore.evaluation.audit.run import audit
from riskexplore.evaluation.validation import validate
from riskexplore.report import report_html, write_report
from riskexplore.report.cohorts import cohort, data_summary
from riskexplore.report.markup import number, percent
from riskexplore.report.performance import NET_BENEFIT_THRESHOLDS, metric_number
from riskexplore.risk_score.model import RiskScore


@pytest.fixture(scope="module")
def score():
    cert = Certificate.from_bounds("time_limit", 0.52, 0.5)
    return RiskScore(["age_geq_60", "smoker"], {"age_geq_60": 2, "smoker": 1}, -2, cert)


def _text(html: str) -> str:
    """The page's words: no scripts, no tags."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<script>.*?</script>", "", html, flags=re.S))


def test_the_report_is_self_contained_and_has_every_section(score, tmp_path):
    path = write_report(
        score,
        tmp_path / "r.html",
        development=contract_dict(600, 1),
        validation=contract_dict(361, 2),
        settings={"max-size": 2},
        rules=["smoker gets at most 1 point"],
    )
    page = path.read_text(encoding="utf-8")
    for tag in re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page):
        assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", tag), tag
    assert page.count("<script>") == 1 + 4  # plotly's JS once, then four figures
    text = _text(page)
    for anchor in ("model", "settings", "data", "performance", "calibration", "net-benefit"):
        assert f'id="{anchor}"' in page
    assert "calibration slope" in text and "0.934 (0.78 to 1.09)" in text
    assert "Clinical usefulness: net benefit" in text
    assert "at most 3.8% worse than the best score" in text  # gap 0.02 / 0.52
    assert "smoker gets at most 1 point" in text
    assert "not covered: no date column was named" in text  # TRIPOD 5b without dates
    assert "not covered: no subgroup audit was run" in text
    assert not re.search(r"\de[-+]\d", text)  # never scientific notation
    assert "@media print" in page and "break-inside: avoid" in page


def test_a_checklist_report_with_an_audit_and_rows(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 2, 300), "b": rng.integers(0, 2, 300)})
    X["sex"] = rng.integers(0, 2, 300)
    y = pd.Series((X["a"] | X["b"]).to_numpy() ^ (rng.random(300) < 0.1), name="sick")
    model = Checklist(["a", "b"], 1, certificate=Certificate.from_bounds("optimal", 30, 30))
    result = audit(model, X, y, ["sex"])
    page = report_html(model, validation=contract_dict(300, 3, "checklist"), audit=result)
    text = _text(page)
    assert "The checklist" in text and "This checklist is proven optimal" in text
    assert "By sex" in text and "sex = 1" in text
    assert "Subgroup audit" in text and "not covered: no subgroup audit was run" not in text


def test_the_data_summary_counts_missing_values_and_the_period():
    X = pd.DataFrame(
        {
            "age": [50, None, 70, None],
            "bp": [1.0, 2.0, None, 4.0],
            "seen": ["2019-03-01", "2020-01-05", "2018-12-31", "bad"],
        }
    )
    d = data_summary(X, pd.Series([0, 1, 1, 0], name="died"), "seen")
    assert (d.rows, d.events, d.outcome, d.columns) == (4, 2, "died", 3)
    assert d.missing == (("age", 2), ("bp", 1))
    assert d.period == ("2018-12-31", "2020-01-05")
    with pytest.raises(InputError, match="'when' is not a column"):
        data_summary(X, [0, 1, 1, 0], "when")
    with pytest.raises(InputError, match="holds no dates"):
        data_summary(X.assign(seen="x"), [0, 1, 1, 0], "seen")


def test_a_report_needs_data(score):
    with pytest.raises(InputError, match="needs data"):
        report_html(score)
    assert cohort("validation", score, None) is None
    with pytest.raises(InputError, match=r"must be \(X, y\)"):
        cohort("validation", score, (1, 2, 3, 4))
    X = pd.DataFrame({"age_geq_60": [0, 1, 1], "smoker": [1, 0, 1]})
    with pytest.raises(InputError, match="counts 600 rows but X has 3"):
        cohort("validation", score, (X, [0, 1, 1], contract_dict(600, 1)))


def test_the_page_shows_the_numbers_of_the_validation_and_the_period(score):
    rng = np.random.default_rng(4)
    n = 400
    X = pd.DataFrame({"age_geq_60": rng.integers(0, 2, n), "smoker": rng.integers(0, 2, n)})
    X["seen"] = pd.Timestamp("2017-02-03") + pd.to_timedelta(rng.integers(0, 900, n), "D")
    risk = score.predict_risk(X[["age_geq_60", "smoker"]])
    y = pd.Series((rng.random(n) < 0.8 * risk).astype(int), name="died")
    v = validate(score, X, y).to_dict()
    text = _text(report_html(score, development=(X, y), date_column="seen"))
    seen = X["seen"]
    assert f"{seen.min():%Y-%m-%d} to {seen.max():%Y-%m-%d}" in text
    assert f"{n:,} ({int(y.sum()):,})" in text
    for key in ("auc", "calibration_intercept", "calibration_slope", "observed_expected"):
        assert metric_number(v[key]) in text, key
    assert v["observed_expected"]["estimate"] < 0.9  # the outcome is rarer than predicted
    by_t = {round(r["threshold"], 2): r for r in v["net_benefit"]}
    for t in NET_BENEFIT_THRESHOLDS:
        cells = [number(by_t[t][k], 3) for k in ("model", "treat_all", "treat_none")]
        assert f"development {percent(t, 0)} {' '.join(cells)}" in " ".join(text.split())
    for r in v["score_table"]:
        row = [number(r["score"], 4), f"{r['patients']:,}", f"{r['events']:,}"]
        row += [percent(r["observed_rate"]), percent(r["predicted_risk"])]
        assert re.search(r"\s+".join(map(re.escape, row[:4])), text), row
        assert percent(r["sensitivity"]) in text and percent(r["predicted_risk"]) in text


def test_settings_are_written_without_scientific_notation():
    from riskexplore.report.markup import setting

    assert setting(1e-06) == "0.000001"
    assert setting(0.25) == "0.25" and setting(5) == "5" and setting("fixed") == "fixed"
    assert "e-0" not in setting(3e-7)
