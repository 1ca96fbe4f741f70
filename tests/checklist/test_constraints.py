"""Readable checklist constraints, the checklist problem and its Pyomo bridge."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.constraints import (
    AtMostKItems,
    ExcludeItem,
    FNRLimit,
    FPRLimit,
    GroupRateGap,
    Implies,
    IncludeItem,
    MaxItems,
    MinItems,
    MRange,
    OneItemPerGroup,
    PredictNegativeWhen,
    PredictPositiveWhen,
    WorstGroupRate,
)
from riskexplore.checklist.mip import solve_checklist
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.pyomo import checklist_model, rows_from_pyomo
from riskexplore.checklist.rows import ALL, ChecklistRow, ErrorRow
from riskexplore.errors import ConstraintError, InputError

X = pd.DataFrame(
    {
        "fever": [1, 1, 0, 0, 1, 0, 1, 0],
        "cough": [1, 0, 1, 0, 1, 0, 0, 1],
        "age>=60": [0, 1, 1, 0, 1, 0, 0, 0],
        "age>=75": [0, 0, 1, 0, 1, 0, 0, 0],
    }
)
Y = np.array([1, 1, 1, 0, 1, 0, 0, 0])
GROUPS = pd.DataFrame({"sex": list("FFMMFFMM"), "race": list("ABABABAB")})
ITEM_GROUPS = {"age>=60": "age", "age>=75": "age", "fever": "fever", "cough": "cough"}


def _problem(**kwargs):
    return ChecklistProblem(X, Y, item_groups=ITEM_GROUPS, groups=GROUPS, **kwargs)


def test_problem_attributes_and_evaluation():
    p = _problem()
    assert p.item_names == list(X.columns)
    assert p.X.dtype == np.uint8 and p.X.shape == (8, 4)
    assert set(np.unique(p.y)) == {0, 1}
    assert p.weights.tolist() == [1.0] * 8
    np.testing.assert_array_equal(p.predict(["fever", "cough"], 1), [1, 1, 1, 0, 1, 0, 1, 1])
    err = p.errors(["fever", "cough"], 1)
    assert (err["fn"], err["fp"], err["n_pos"], err["n_neg"]) == (0, 2, 4, 4)
    assert err["error"] == pytest.approx(2 / 8) and err["fpr"] == 0.5 and err["fnr"] == 0
    assert p.objective(["fever", "cough"], 1) == pytest.approx(2 + 2 * p.eps_n + p.eps_m)
    mask = np.array([1, 1, 0, 0], dtype=bool)
    assert p.objective(mask, 1) == p.objective(["fever", "cough"], 1)
    assert p.violations(["fever"], 2) == ["Threshold M at most the number of items N"]


def test_input_validation():
    bad = X.copy()
    bad.loc[2, "cough"] = 2
    with pytest.raises(InputError, match="'cough'"):
        ChecklistProblem(bad, Y)
    nan = X.astype(float)
    nan.loc[1, "fever"] = np.nan
    with pytest.raises(InputError, match="'fever'"):
        ChecklistProblem(nan, Y)
    yes_no = np.where(Y == 1, "yes", "no")
    assert ChecklistProblem(X, yes_no).y.tolist() == Y.tolist()
    with pytest.raises(InputError):
        ChecklistProblem(X, Y, min_items=3, max_items=2)
    with pytest.raises(InputError):
        ChecklistProblem(X, Y, fp_weight=0)
    with pytest.raises(InputError, match="groups"):
        ChecklistProblem(X, Y, groups=GROUPS.iloc[:3])


def test_describe_and_rows():
    names = list(X.columns)
    cases = [
        (MaxItems(2), "Use at most 2 items"),
        (MinItems(1), "Use at least 1 item"),
        (MRange(1, 2), "Threshold M between 1 and 2"),
        (AtMostKItems(["fever", "cough"], 1), "Use at most 1 of: fever, cough"),
        (Implies("cough", then_any=["fever"]), "If cough is used then fever is used"),
        (PredictPositiveWhen(["fever", "cough"]), "Predict positive when fever and cough"),
        (PredictNegativeWhen(["cough"]), "Predict negative when only cough"),
        (IncludeItem("fever"), "Use fever"),
        (ExcludeItem("cough"), "Do not use cough"),
    ]
    for constraint, text in cases:
        assert constraint.describe().startswith(text)
        rows = constraint.to_rows(names)
        assert rows and all(isinstance(r, ChecklistRow) for r in rows)
    row = PredictPositiveWhen(["fever", "cough"]).to_rows(names)[0]
    assert row.items == {"fever": 1.0, "cough": 1.0} and row.M == -1.0 and row.lower == 0.0


def test_unknown_items_suggest_close_matches():
    with pytest.raises(ConstraintError, match="did you mean 'fever'"):
        _problem(constraints=[Implies("cough", then_any=["fevr"])])
    with pytest.raises(ConstraintError, match="unknown feature group"):
        _problem(constraints=[OneItemPerGroup(groups=["agee"])])
    with pytest.raises(ConstraintError, match="groups="):
        ChecklistProblem(X, Y, constraints=[GroupRateGap("fpr", 0.1)])
    with pytest.raises(ConstraintError, match="item_groups"):
        ChecklistProblem(X, Y, constraints=[OneItemPerGroup()])
    with pytest.raises(ConstraintError):
        GroupRateGap("auc", 0.1)
    with pytest.raises(ConstraintError):
        FNRLimit(1.5)


def test_one_item_per_group_rows():
    p = _problem(constraints=[OneItemPerGroup()])
    assert [r.name for r in p.rows] == ["Use at most one item per feature group (age)"]
    assert p.violations(["age>=60", "age>=75"], 1) == [p.rows[0].name]
    assert p.violations(["age>=60", "fever"], 1) == []


def test_rate_constraints_use_class_denominators():
    p = _problem(constraints=[FNRLimit(0.25), FPRLimit(0.5)])
    fnr, fpr = p.error_rows
    assert fnr.fn == {ALL: 1.0} and fnr.upper == pytest.approx(0.25 * 4)
    assert fpr.fp == {ALL: 1.0} and fpr.upper == pytest.approx(0.5 * 4)
    # fever alone: FN = 1 (row 2), FP = 1 (row 6)
    assert p.violations(["fever"], 1) == []
    assert p.violations(["cough"], 1) == []  # FN 1/4, FP 1/4
    assert p.violations(["age>=75"], 1) == [fnr.name]  # FN 2/4


def test_group_constraints_and_skipped_groups():
    p = _problem(constraints=[GroupRateGap("fpr", 0.0, by="sex"), WorstGroupRate("fnr", 0.5)])
    labels = p.group_labels(["sex"])
    assert labels == ["sex=F", "sex=M"]
    gap_rows = [r for r in p.error_rows if r.name.startswith("FPR gap")]
    assert len(gap_rows) == 2
    # FPR of a group: FP_g / negatives of g (sex=F has 1 negative: row 5)
    assert gap_rows[0].fp == {"sex=F": 1.0, "sex=M": -1 / 3}
    # intersectional groups without positives are skipped with a note
    assert any("no positive examples" in note for note in p.notes)
    worst = [r for r in p.error_rows if r.name.startswith("FNR of every group")]
    assert all(set(r.fn) <= set(p.group_labels()) for r in worst)


def test_group_gap_is_exact_in_the_ip():
    rng = np.random.default_rng(0)
    n, d = 300, 6
    Xr = pd.DataFrame((rng.random((n, d)) < 0.4).astype(int), columns=[f"i{j}" for j in range(d)])
    yr = (Xr.to_numpy() @ rng.normal(0.5, 1, d) + rng.normal(size=n) > 1).astype(int)
    groups = pd.Series(rng.choice(["a", "b", "c"], n), name="g")
    p = ChecklistProblem(Xr, yr, groups=groups, constraints=[GroupRateGap("fnr", 0.05)])
    result = solve_checklist(p)
    if result.has_model:
        assert p.violations(*result.solution) == []


def test_weights_and_fp_weight_objective():
    w = np.array([1, 2, 1, 1, 1, 3, 1, 1], dtype=float)
    p = ChecklistProblem(X, Y, sample_weight=w, fp_weight=2.5)
    err = p.errors(["fever"], 1)
    assert err["n_neg"] == 6 and err["fp"] == 1 and err["fn"] == 1
    assert err["loss"] == 1 + 2.5 * 1
    assert p.error_unit == 0.5 and p.lexicographic_exact
    assert p.eps_n * p.n_items + p.eps_m * p.n_items < p.error_unit


def test_pyomo_bridge():
    from pyomo.environ import Constraint

    m = checklist_model(list(X.columns))
    m.imp = Constraint(expr=m.use["cough"] <= m.use["fever"])
    m.pos = Constraint(expr=m.use["fever"] + m.use["cough"] >= m.M)
    m.size = Constraint(expr=m.N <= 2)
    rows = rows_from_pyomo(m, list(X.columns))
    assert len(rows) == 3
    sign = rows[1].items["fever"]  # Pyomo may write a >= b as b - a <= 0
    assert rows[1].items == {"fever": sign, "cough": sign} and rows[1].M == -sign
    p = ChecklistProblem(X, Y, constraints=[m])
    assert p.violations(["cough"], 1) and not p.violations(["fever", "cough"], 2)
    result = solve_checklist(p)
    assert result.status == "optimal"
    assert p.violations(*result.solution) == []

    other = checklist_model(["fever", "nope"])
    with pytest.raises(ConstraintError, match="nope"):
        ChecklistProblem(X, Y, constraints=[other])
    bad = checklist_model(list(X.columns))
    bad.c = Constraint(expr=m.use["fever"] * bad.use["cough"] <= 1)
    with pytest.raises(ConstraintError):
        ChecklistProblem(X, Y, constraints=[bad])


def test_raw_rows_accepted():
    rows = [
        ChecklistRow("at most two of fever/cough/age", {"fever": 1, "cough": 1}, upper=1),
        ErrorRow("no more than 1 false negative", fn={ALL: 1.0}, upper=1.0),
    ]
    p = ChecklistProblem(X, Y, constraints=rows)
    assert len(p.rows) == 1 and len(p.error_rows) == 1
    result = solve_checklist(p)
    assert result.has_model and p.violations(*result.solution) == []
    assert result.stats["train_fn"] <= 1
    assert math.isfinite(result.lower_bound)
