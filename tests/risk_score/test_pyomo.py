import numpy as np
import pytest
from pyomo.environ import ConcreteModel, Constraint, ConstraintList, Var, exp

from riskexplore.errors import ConstraintError
from riskexplore.risk_score.constraints import Implies, constraints_to_rows
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.pyomo import pyomo_model_for, risk_score_model, rows_from_pyomo
from riskexplore.risk_score.rows import INTERCEPT, compile_rows

NAMES = ["male", "hypertension", "bmi>=30", "age"]


def test_model_variables():
    m = risk_score_model(NAMES)
    assert list(m.points.keys()) == NAMES
    assert m.included["bmi>=30"].is_binary()
    assert m.points["age"].is_integer() and m.intercept.is_integer()
    assert rows_from_pyomo(m, NAMES) == []


def test_implies_round_trip_matches_readable_api():
    m = risk_score_model(NAMES)
    m.c = Constraint(expr=m.included["male"] <= m.included["hypertension"] + m.included["bmi>=30"])
    from_pyomo = compile_rows(constraints_to_rows([m], NAMES), NAMES)
    readable = compile_rows(
        constraints_to_rows([Implies("male", ["hypertension", "bmi>=30"])], NAMES), NAMES
    )
    np.testing.assert_array_equal(from_pyomo.A, readable.A)
    np.testing.assert_array_equal(from_pyomo.lower, readable.lower)
    np.testing.assert_array_equal(from_pyomo.upper, readable.upper)
    assert from_pyomo.names[0].startswith("c:")


def test_constants_move_into_bounds_and_lists_and_indexed_constraints():
    m = risk_score_model(NAMES)
    m.cl = ConstraintList()
    m.cl.add(m.points["age"] + 3 >= 2 * m.intercept - 1)  # 2*b0 - age <= 4
    m.cl.add((-1, m.points["age"] - m.points["male"], 4))
    m.cl.add(m.points["male"] == 2)
    m.idx = Constraint(["a", "b"], rule=lambda m, i: m.points["age"] <= (2 if i == "a" else 3))
    m.off = Constraint(expr=m.points["age"] >= 5)
    m.off.deactivate()
    rows = rows_from_pyomo(m, NAMES)
    by_name = {r.name.split(":")[0]: r for r in rows}
    assert set(by_name) == {"cl[1]", "cl[2]", "cl[3]", "idx[a]", "idx[b]"}
    r1 = by_name["cl[1]"]
    sign = 1 if r1.points[INTERCEPT] > 0 else -1
    assert r1.points == {INTERCEPT: 2.0 * sign, "age": -1.0 * sign}
    assert (r1.lower, r1.upper) == ((-np.inf, 4.0) if sign > 0 else (-4.0, np.inf))
    r2 = by_name["cl[2]"]
    assert r2.points == {"age": 1.0, "male": -1.0} and (r2.lower, r2.upper) == (-1.0, 4.0)
    assert (by_name["cl[3]"].lower, by_name["cl[3]"].upper) == (2.0, 2.0)
    assert by_name["idx[b]"].upper == 3.0


def test_nested_blocks_are_read():
    m = risk_score_model(NAMES)
    from pyomo.environ import Block

    m.sub = Block()
    m.sub.c = Constraint(expr=m.included["age"] >= 1)
    (row,) = rows_from_pyomo(m, NAMES)
    assert row.included == {"age": 1.0} and row.lower == 1.0


def test_bounds_tightened_in_pyomo_become_rows():
    m = risk_score_model(NAMES)
    m.points["male"].setlb(0)
    m.included["age"].setub(0)
    rows = rows_from_pyomo(m, NAMES)
    assert {(tuple(r.points), tuple(r.included), r.lower, r.upper) for r in rows} == {
        (("male",), (), 0.0, np.inf),
        ((), ("age",), 0.0, 0.0),
    }


def test_nonlinear_constraint_rejected_with_its_name():
    m = risk_score_model(NAMES)
    m.bad = Constraint(expr=m.points["age"] * m.points["male"] <= 3)
    with pytest.raises(ConstraintError, match="'bad' is not linear"):
        rows_from_pyomo(m, NAMES)
    m2 = risk_score_model(NAMES)
    m2.bad2 = Constraint(expr=exp(m2.points["age"]) <= 3)
    with pytest.raises(ConstraintError, match="'bad2' is not linear"):
        constraints_to_rows([m2], NAMES)


def test_foreign_variables_rejected():
    m = risk_score_model(NAMES)
    m.z = Var()
    m.c = Constraint(expr=m.points["age"] + m.z <= 3)
    with pytest.raises(ConstraintError, match="'c' uses variable 'z'"):
        rows_from_pyomo(m, NAMES)


def test_constraint_without_variables_rejected():
    m = risk_score_model(NAMES)
    m.c = Constraint(expr=m.points["age"] - m.points["age"] <= 3)
    with pytest.raises(ConstraintError, match="no variables"):
        rows_from_pyomo(m, NAMES)


def test_fixed_variables_rejected():
    m = risk_score_model(NAMES)
    m.points["age"].fix(1)
    with pytest.raises(ConstraintError, match="fixed"):
        rows_from_pyomo(m, NAMES)


def test_foreign_model_and_unknown_features_rejected():
    with pytest.raises(ConstraintError, match="risk_score_model"):
        rows_from_pyomo(ConcreteModel(), NAMES)
    m = risk_score_model(NAMES + ["bmi"])
    with pytest.raises(ConstraintError, match="unknown feature 'bmi'"):
        rows_from_pyomo(m, NAMES)


def test_pyomo_model_for_problem_and_problem_accepts_model():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(30, len(NAMES)))
    y = rng.integers(0, 2, size=30)
    base = RiskScoreProblem(X, y, feature_names=NAMES, coef_min=-3, coef_max=3)
    m = pyomo_model_for(base)
    assert m.points["age"].bounds == (-3, 3)
    assert m.intercept.bounds == (-100, 100)
    assert rows_from_pyomo(m, NAMES) == []  # the problem's own bounds are not rows
    m.c = Constraint(expr=m.included["male"] <= m.included["hypertension"] + m.included["bmi>=30"])
    problem = RiskScoreProblem(X, y, feature_names=NAMES, coef_min=-3, coef_max=3, constraints=[m])
    lam = np.array([0, 1, 0, 0, 0], dtype=float)
    assert problem.violations(lam) == [problem.rows[0].name]
    assert problem.violations(np.array([0, 1, 0, 2, 0], dtype=float)) == []
