"""The subgroup audit: groups, per-group metrics, gaps, findings, JSON and text."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix, roc_auc_score

import riskexplore
from riskexplore.errors import InputError, RiskExploreError
from riskexplore.evaluation.audit import AuditResult, Finding, audit, make_groups
from riskexplore.evaluation.intervals import newcombe_interval, wilson_interval
from riskexplore.evaluation.metrics import calibration_error


class Toy:
    """A risk model reading its risk from a column (and its predictions at 0.5)."""

    def predict_risk(self, X):
        return X["risk"].to_numpy(float)

    def decision_function(self, X):
        return X["risk"].to_numpy(float)

    def predict(self, X):
        return (X["risk"].to_numpy(float) >= 0.5).astype(int)


class Labels:
    """A classifier with only 0/1 predictions (as a checklist without scores)."""

    def predict(self, X):
        return X["pred"].to_numpy(int)


def _toy(seed=0, n=400):
    rng = np.random.default_rng(seed)
    risk = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < risk).astype(int)
    X = pd.DataFrame(
        {
            "risk": risk,
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(20, 90, n),
            "site": rng.choice(["a", "b", "c"], n),
        }
    )
    return X, pd.Series(y, name="y")


# --- the public names ------------------------------------------------------------------
def test_exported_from_the_package():
    assert riskexplore.audit is audit
    assert riskexplore.AuditResult is AuditResult


# --- groups ----------------------------------------------------------------------------
def test_numeric_bins_at_cut_points_in_plain_words():
    X = pd.DataFrame({"age": [25, 39, 40, 59, 60, 75, 80], "sex": [0, 1, 0, 1, 0, 1, 1]})
    # a list of cut points bins the columns with many values only; a dict forces it
    assert make_groups(X, ["age"], bins=[40, 60]).order[0] == "age = 25"
    assert make_groups(X, ["sex"], bins=[40, 60]).order == ("sex = 0", "sex = 1")
    g = make_groups(X, ["age"], bins={"age": [40, 60]})
    assert g.order == ("age under 40", "age 40 to 59", "age 60 and older")
    assert list(g.labels) == [
        "age under 40",
        "age under 40",
        "age 40 to 59",
        "age 40 to 59",
        "age 60 and older",
        "age 60 and older",
        "age 60 and older",
    ]
    assert g.binned == {"age": [40.0, 60.0]}


def test_quantile_bins_of_a_float_column_and_missing_values():
    values = np.r_[np.linspace(0, 3.9, 40), np.nan]
    g = make_groups(pd.DataFrame({"oldpeak": values}), ["oldpeak"], bins=4)
    assert g.order[0].startswith("oldpeak below ")
    assert g.order[1].startswith("oldpeak ") and " to below " in g.order[1]
    assert g.order[-2].endswith(" and above")
    assert g.order[-1] == "oldpeak missing"
    counts = pd.Series(g.labels).value_counts()
    assert counts[g.order[0]] == 10 and counts["oldpeak missing"] == 1


def test_few_values_are_categories_and_the_cross_of_two():
    X = pd.DataFrame({"sex": [0, 1, 0, 1, 1], "site": ["b", "a", "a", "b", "b"]})
    g = make_groups(X, ["sex", "site"])
    assert g.order == (
        "sex = 0, site = a",
        "sex = 0, site = b",
        "sex = 1, site = a",
        "sex = 1, site = b",
    )
    assert list(g.labels) == [
        "sex = 0, site = b",
        "sex = 1, site = a",
        "sex = 0, site = a",
        "sex = 1, site = b",
        "sex = 1, site = b",
    ]


def test_categorical_columns_keep_their_order():
    col = pd.Categorical(["old", "young", "mid"], categories=["young", "mid", "old"])
    g = make_groups(pd.DataFrame({"age group": col}), ["age group"])
    assert g.order == ("age group = young", "age group = mid", "age group = old")


# --- metrics of each group -------------------------------------------------------------
def test_group_metrics_match_sklearn_and_hand_counts():
    X, y = _toy()
    result = audit(Toy(), X, y, "site", min_size=1)
    pred = (X["risk"] >= 0.5).astype(int)
    for _, row in result.table.iterrows():
        mask = (X["site"] == row["group"].split(" = ")[1]).to_numpy()
        yg, pg, rg = y[mask], pred[mask], X["risk"][mask]
        tn, fp, fn, tp = confusion_matrix(yg, pg, labels=[0, 1]).ravel()
        assert row["n"] == mask.sum() and row["n_pos"] == yg.sum()
        assert row["auc"] == pytest.approx(roc_auc_score(yg, rg))
        assert row["fnr"] == pytest.approx(fn / (fn + tp))
        assert row["fpr"] == pytest.approx(fp / (fp + tn))
        assert row["ppv"] == pytest.approx(tp / (tp + fp))
        assert (row["fnr_low"], row["fnr_high"]) == pytest.approx(wilson_interval(fn, fn + tp))
        assert row["prevalence"] == pytest.approx(yg.mean())
        assert row["observed_risk"] == pytest.approx(yg.mean())
        assert row["predicted_risk"] == pytest.approx(rg.mean())
        assert row["cal"] == pytest.approx(calibration_error(yg, rg))
        assert row["auc_low"] < row["auc"] < row["auc_high"]
        # the gap to the rest, by hand (Newcombe)
        rest = ~mask
        fn_r = int(((y[rest] == 1) & (pred[rest] == 0)).sum())
        gap = newcombe_interval(fn, fn + tp, fn_r, int(y[rest].sum()))
        got = (row["fnr_gap"], row["fnr_gap_low"], row["fnr_gap_high"])
        assert got == pytest.approx(gap)
        assert row["auc_rest"] == pytest.approx(roc_auc_score(y[rest], X["risk"][rest]))


def test_overall_metrics_and_hand_computed_small_case():
    # Group a: y 1,1,0,0 pred 1,0,0,1 -> FNR 1/2, FPR 1/2, PPV 1/2.
    X = pd.DataFrame({"g": list("aaaabbbb"), "pred": [1, 0, 0, 1, 1, 1, 0, 0]})
    y = [1, 1, 0, 0, 1, 1, 0, 0]
    result = audit(Labels(), X, y, "g", min_size=1)
    a = result.table.set_index("group").loc["g = a"]
    assert (a["fnr"], a["fpr"], a["ppv"]) == (0.5, 0.5, 0.5)
    b = result.table.set_index("group").loc["g = b"]
    assert (b["fnr"], b["fpr"], b["ppv"]) == (0.0, 0.0, 1.0)
    assert result.overall["fnr"] == 0.25 and result.overall["n"] == 8
    # Without scores, the AUC is that of the 0/1 predictions.
    assert a["auc"] == pytest.approx(0.5) and b["auc"] == pytest.approx(1.0)
    assert math.isnan(a["cal"]) and math.isnan(a["predicted_risk"])


def test_bootstrap_auc_intervals_are_reproducible():
    X, y = _toy(2)
    one = audit(Toy(), X, y, "sex", n_boot=200, seed=5)
    two = audit(Toy(), X, y, "sex", n_boot=200, seed=5)
    pd.testing.assert_frame_equal(one.table, two.table)
    delong = audit(Toy(), X, y, "sex")
    for a, b in zip(one.table["auc_low"], delong.table["auc_low"], strict=True):
        assert a == pytest.approx(b, abs=0.03)
    assert one.settings["n_boot"] == 200


# --- too few ---------------------------------------------------------------------------
def test_too_few_groups_get_no_numbers_and_no_findings():
    X, y = _toy(3)
    result = audit(Toy(), X, y, ["sex", "site"], min_size=80)
    few = result.table[result.table["too_few"]]
    assert len(few) > 0
    assert (few["n"] < 80).all() and (few["note"] == "too few to judge").all()
    assert few[["auc", "fnr", "fpr", "ppv", "prevalence", "fnr_gap"]].isna().all().all()
    judged = result.table[~result.table["too_few"]]
    assert (judged["n"] >= 80).all() and judged["auc"].notna().all()
    assert not {f.group for f in result.findings} & set(few["group"])
    assert "too few to judge (n < 80)" in result.to_text()


# --- findings --------------------------------------------------------------------------
def test_findings_only_for_the_group_that_does_worse():
    # Group b misses most positives; group a misses none: only b is flagged (fnr), and
    # a's better FNR is no finding although its gap interval excludes zero too.
    rng = np.random.default_rng(0)
    n = 600
    g = np.repeat(["a", "b"], n // 2)
    y = rng.integers(0, 2, n)
    pred = y.copy()
    miss = (g == "b") & (y == 1) & (rng.uniform(size=n) < 0.6)
    pred[miss] = 0
    X = pd.DataFrame({"g": g, "pred": pred})
    result = audit(Labels(), X, y, "g")
    fnr = [f for f in result.findings if f.metric == "fnr"]
    assert [f.group for f in fnr] == ["g = b"]
    a = result.table.set_index("group").loc["g = a"]
    assert a["fnr_gap_high"] < 0  # a real difference, in a's favour: not a finding
    f = fnr[0]
    assert f.gap == pytest.approx(f.value - f.rest_value) and f.low > 0
    assert f.sentence.startswith("for patients with g = b the model misses more")
    assert "against 0% for the rest" in f.sentence


def test_calibration_finding_in_plain_words():
    # The model predicts 30% for everyone; the old have 60% positives, the young 10%.
    rng = np.random.default_rng(1)
    n = 400
    old = np.arange(n) % 2 == 0
    y = np.where(old, rng.uniform(size=n) < 0.6, rng.uniform(size=n) < 0.1).astype(int)
    X = pd.DataFrame({"risk": 0.3, "age": np.where(old, 70, 30), "noise": rng.normal(size=n)})
    result = audit(Toy(), X, y, "age", bins={"age": [60]}, subject="women")
    cal = {f.group: f for f in result.findings if f.metric == "calibration"}
    assert set(cal) == {"age under 60", "age 60 and older"}
    old_f = cal["age 60 and older"]
    observed = y[old].mean()
    assert old_f.value == pytest.approx(observed) and old_f.rest_value == pytest.approx(0.3)
    assert old_f.sentence.startswith(
        f"for women with age 60 and older the model underestimates risk: "
        f"observed {100 * observed:.0f}%, predicted 30%"
    )
    assert "overestimates risk" in cal["age under 60"].sentence
    # the prevalence differs a lot, but that is reported, not a finding
    assert result.table["prevalence_gap_low"].max() > 0
    assert not [f for f in result.findings if f.metric == "prevalence"]


def test_no_findings_for_a_model_that_works_everywhere():
    X, y = _toy(4)
    result = audit(Toy(), X, y, "site")
    assert all(isinstance(f, Finding) for f in result.findings)
    # the risks are the true risks: no group should be miscalibrated beyond chance
    assert not [f for f in result.findings if f.metric == "calibration"]


# --- JSON and text ---------------------------------------------------------------------
def test_to_dict_is_strict_json_and_round_trips():
    X, y = _toy(5)
    result = audit(Toy(), X, y, ["sex", "age"], min_size=50)
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert data["settings"]["by"] == ["sex", "age"] and data["settings"]["min_size"] == 50
    assert data["settings"]["cuts"]["age"]
    assert len(data["groups"]) == len(result.table)
    few = [g for g in data["groups"] if g["too_few"]]
    assert few and all(g["auc"] is None for g in few)
    assert "auc_var" not in data["overall"]
    assert all(set(f) >= {"group", "metric", "sentence"} for f in data["findings"])


def test_to_text_has_a_row_per_group():
    X, y = _toy(6)
    result = audit(Toy(), X, y, "site")
    text = result.to_text()
    assert text.splitlines()[0] == "Audit by site (95% intervals)"
    for label in result.table["group"]:
        assert label in text
    assert "CAL" in text and "PPV" in text
    assert "AuditResult(by='site', groups=3" in repr(result)


# --- the library's models ----------------------------------------------------------------
def test_risk_score_audit_on_held_out_data(mammo_fits):
    model, Xt, yt = mammo_fits["free"], mammo_fits["Xt"], mammo_fits["yt"]
    Xt = Xt.assign(old=np.where(Xt["Age_geq_60"] == 1, "60 and older", "under 60"))
    result = audit(model, Xt, yt, "old", min_size=10)
    assert result.kind == "risk_score"
    assert result.table["n"].sum() == len(yt)
    for _, row in result.table.iterrows():
        mask = (Xt["old"] == row["group"].split(" = ")[1]).to_numpy()
        s = model.decision_function(Xt[mask])
        assert row["auc"] == pytest.approx(roc_auc_score(yt[mask], s))
        risk = model.predict_risk(Xt[mask])
        assert row["cal"] == pytest.approx(calibration_error(yt[mask], risk, s))


def test_checklist_audit_uses_the_count_of_checked_items(heart_fit):
    model, X, y = heart_fit["model"], heart_fit["X"], heart_fit["y"]
    result = audit(model, X, y, "sex")
    assert result.kind == "checklist"
    assert result.table["cal"].isna().all()
    male = (X["sex"] == 1).to_numpy()
    row = result.table.set_index("group").loc["sex = 1"]
    assert row["auc"] == pytest.approx(roc_auc_score(y[male], model.count_checked(X[male])))
    rates = model.metrics(X[male], y[male])
    assert row["fnr"] == pytest.approx(rates["fnr"]) and row["fpr"] == pytest.approx(rates["fpr"])
    assert "the checklist" in result.to_text() or not result.findings


def test_estimators_with_extra_group_columns(heart_fit):
    from riskexplore import ChecklistClassifier

    X, y = heart_fit["X"], heart_fit["y"]
    clf = ChecklistClassifier(max_items=2, time_limit=2).fit(X, y)
    Xg = X.assign(band=np.where(X["age"] >= 55, "55 and older", "under 55"))
    result = audit(clf, Xg, 2 * y - 1, "band")  # any binary coding of the outcome
    assert result.kind == "checklist"
    np.testing.assert_array_equal(result.table["n_pred_pos"].sum(), (clf.predict(X) == 1).sum())


# --- checks ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"by": "nope"}, "unknown group column 'nope'"),
        ({"by": ["sex", "site", "age"]}, "one column or two"),
        ({"by": ["sex", "sex"]}, "twice"),
        ({"by": 3}, "column name"),
        ({"by": "const"}, "puts every row in one group"),
        ({"min_size": 0}, "min_size must be at least 1"),
        ({"min_size": 2.5}, "min_size must be a whole number"),
        ({"confidence": 1.5}, "confidence must lie strictly between 0 and 1"),
        ({"n_boot": -1}, "n_boot must be at least 0"),
        ({"bins": 1, "by": "age"}, "bins for 'age' must be at least 2"),
        ({"bins": [60, 40], "by": "age"}, "must increase"),
    ],
)
def test_bad_settings_are_clear_errors(kwargs, message):
    X, y = _toy(7, n=60)
    X["const"] = 1
    args = {"by": "sex", **kwargs}
    with pytest.raises(RiskExploreError, match=message):
        audit(Toy(), X, y, **args)


def test_bad_data_is_a_clear_error():
    X, y = _toy(8, n=60)
    with pytest.raises(InputError, match="60 rows but y has 59"):
        audit(Toy(), X, y[:59], "sex")
    with pytest.raises(InputError, match="binary"):
        audit(Toy(), X, np.arange(60) % 3, "sex")
    with pytest.raises(InputError, match="one class only"):
        audit(Toy(), X, np.ones(60), "sex")
    with pytest.raises(InputError, match="DataFrame"):
        audit(Toy(), X.to_numpy(), y, "sex")
    with pytest.raises(InputError, match="no predict"):
        audit(object(), X, y, "sex")


def test_risk_score_estimator(mammo_fits):
    from riskexplore import RiskSlimClassifier

    X, y = mammo_fits["X"], mammo_fits["y"]
    clf = RiskSlimClassifier(max_size=2, time_limit=10).fit(X, y)
    Xg = X.assign(old=np.where(X["Age_geq_60"] == 1, "yes", "no"))
    result = audit(clf, Xg, y, "old")
    assert result.kind == "risk_score"
    assert set(result.reliability) == {"old = no", "old = yes"}
    row = result.table.set_index("group").loc["old = yes"]
    mask = (X["Age_geq_60"] == 1).to_numpy()
    assert row["auc"] == pytest.approx(roc_auc_score(y[mask], clf.decision_function(X[mask])))
