import math

import numpy as np
import pytest

from riskexplore.errors import ConstraintError
from riskexplore.risk_score.constraints import (
    AtLeastKOf,
    AtMostKOf,
    Exclude,
    Exclusive,
    Implies,
    Include,
    LinearConstraint,
    MaxFeatures,
    MinFeatures,
    NotTogether,
    PointsBetween,
    PredictedRisk,
    Sign,
    constraints_to_rows,
)
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.rows import INTERCEPT, LinearRow, compile_rows

NAMES = ["male", "hypertension", "bmi>=30", "age<30", "age<45", "age<60"]


def points(intercept=0, **kw):
    """Model ``lambda`` over NAMES from keyword points (bmi30 -> 'bmi>=30', age_30 -> ...)."""
    lam = np.zeros(len(NAMES) + 1)
    lam[0] = intercept
    alias = {"bmi30": "bmi>=30", "age30": "age<30", "age45": "age<45", "age60": "age<60"}
    for key, value in kw.items():
        lam[1 + NAMES.index(alias.get(key, key))] = value
    return lam


def ok(constraint, lam) -> bool:
    """Does the model ``lam`` satisfy every row of ``constraint``?"""
    rows = constraints_to_rows([constraint], NAMES)
    rm = compile_rows(rows, NAMES)
    x = np.concatenate([lam, (lam[1:] != 0).astype(float)])
    return rm.violations(x) == []


def test_max_min_features():
    assert ok(MaxFeatures(2), points(male=1, age30=-2))
    assert not ok(MaxFeatures(2), points(male=1, age30=-2, bmi30=3))
    assert ok(MinFeatures(2), points(male=1, age30=-2))
    assert not ok(MinFeatures(2), points(male=1))
    assert MaxFeatures(1).describe() == "Use at most 1 feature"
    assert MinFeatures(3).describe() == "Use at least 3 features"
    with pytest.raises(ConstraintError, match="k must be >= 0"):
        MaxFeatures(-1)
    with pytest.raises(ConstraintError, match="whole number"):
        MaxFeatures(1.5)


def test_group_sparsity():
    c = AtMostKOf(["age<30", "age<45", "age<60"])
    assert c.describe() == "Use at most 1 of: age<30, age<45, age<60"
    assert ok(c, points(age30=2, male=1, hypertension=1))
    assert not ok(c, points(age30=2, age60=1))
    c2 = AtMostKOf(["age<30", "age<45", "age<60"], k=2)
    assert ok(c2, points(age30=2, age60=1))
    assert not ok(c2, points(age30=2, age45=1, age60=1))
    at_least = AtLeastKOf(["male", "hypertension"], k=1)
    assert ok(at_least, points(hypertension=-1))
    assert not ok(at_least, points(age30=1))
    with pytest.raises(ConstraintError, match="list of feature names"):
        AtMostKOf("age<30")
    with pytest.raises(ConstraintError, match="empty"):
        AtMostKOf([])


def test_implies():
    c = Implies("male", then_any=["hypertension", "bmi>=30"])
    assert c.describe() == "If male is used then hypertension or bmi>=30 is used"
    assert ok(c, points())
    assert ok(c, points(male=2, bmi30=1))
    assert ok(c, points(hypertension=1))
    assert not ok(c, points(male=2, age30=1))
    single = Implies("male", then_any="hypertension")
    assert single.then_any == ("hypertension",)
    with pytest.raises(ConstraintError, match="imply itself"):
        Implies("male", ["male"])


def test_not_together():
    c = NotTogether("male", "hypertension")
    assert Exclusive is NotTogether
    assert ok(c, points(male=1))
    assert not ok(c, points(male=1, hypertension=-3))


def test_predicted_risk_integer_rounding():
    c = PredictedRisk(when={"male": 1, "hypertension": 1}, at_least=0.9)
    assert "male=1 and hypertension=1" in c.describe()
    assert "all other features 0" in c.describe()
    (row,) = c.to_rows(NAMES)
    # logit(0.9) = 2.197 -> integer scores must reach 3
    assert row.lower == 3.0 and row.upper == math.inf
    assert row.points == {INTERCEPT: 1.0, "male": 1.0, "hypertension": 1.0}
    assert ok(c, points(intercept=-1, male=2, hypertension=2))  # score 3: risk 0.95
    assert not ok(c, points(intercept=-1, male=2, hypertension=1))  # score 2: risk 0.88
    # other features do not count
    assert not ok(c, points(intercept=-1, male=2, hypertension=1, age30=5))


def test_predicted_risk_at_most_and_both():
    c = PredictedRisk(when={"male": 1}, at_most=0.3)
    (row,) = c.to_rows(NAMES)
    assert row.upper == math.floor(math.log(0.3 / 0.7)) == -1
    both = PredictedRisk(when={"male": 1}, at_least=0.2, at_most=0.8)
    lo_row, hi_row = both.to_rows(NAMES)
    assert lo_row.lower == -1 and hi_row.upper == 1
    # p = 0.5 gives a threshold of exactly 0 (no rounding past it)
    (half,) = PredictedRisk(when={}, at_least=0.5).to_rows(NAMES)
    assert half.lower == 0.0 and half.points == {INTERCEPT: 1.0}


def test_predicted_risk_fractional_values_use_exact_logit():
    c = PredictedRisk(when={"male": 0.5}, at_least=0.9)
    (row,) = c.to_rows(NAMES)
    assert row.lower == pytest.approx(math.log(9))


def test_predicted_risk_others():
    c = PredictedRisk(when={"male": 0}, at_least=0.5, others=1)
    (row,) = c.to_rows(NAMES)
    assert "male" not in row.points
    assert all(row.points[n] == 1.0 for n in NAMES if n != "male")
    assert row.points[INTERCEPT] == 1.0


@pytest.mark.parametrize("p", [0, 1, -0.1, 1.5, float("nan")])
def test_predicted_risk_rejects_bad_probability(p):
    with pytest.raises(ConstraintError):
        PredictedRisk(when={"male": 1}, at_least=p)


def test_predicted_risk_needs_a_bound_and_consistent_bounds():
    with pytest.raises(ConstraintError, match="at_least"):
        PredictedRisk(when={"male": 1})
    with pytest.raises(ConstraintError, match="exceeds"):
        PredictedRisk(when={"male": 1}, at_least=0.8, at_most=0.2)


def test_single_feature_constraints():
    assert ok(Sign("male", 1), points(male=2))
    assert not ok(Sign("male", 1), points(male=-1))
    assert ok(Sign("male", -1), points(male=-1))
    assert not ok(Sign("male", -1), points(male=1))
    with pytest.raises(ConstraintError):
        Sign("male", 2)
    assert ok(Include("male"), points(male=-1))
    assert not ok(Include("male"), points())
    assert ok(Exclude("male"), points(hypertension=1))
    assert not ok(Exclude("male"), points(male=1))
    assert len(Exclude("male").to_rows(NAMES)) == 2
    between = PointsBetween("male", -1, 2)
    assert ok(between, points(male=2)) and ok(between, points(male=-1))
    assert not ok(between, points(male=3))
    assert ok(PointsBetween("male", lo=1), points(male=5))
    assert not ok(PointsBetween("male", hi=-1), points())
    with pytest.raises(ConstraintError, match="exceeds"):
        PointsBetween("male", 2, 1)


def test_linear_constraint():
    c = LinearConstraint(points={"male": 1, "hypertension": -1}, included={"bmi>=30": 2}, upper=1)
    assert "points[male]" in c.describe()
    assert ok(c, points(male=1, hypertension=1, bmi30=1)) is False  # 0 + 2 = 2 > 1
    assert ok(c, points(male=1, hypertension=2, bmi30=1))  # -1 + 2 = 1
    named = LinearConstraint(points={INTERCEPT: 1}, lower=-2, name="intercept at least -2")
    assert named.describe() == "intercept at least -2"
    assert ok(named, points(intercept=-2)) and not ok(named, points(intercept=-3))
    with pytest.raises(ConstraintError, match="lower and/or upper"):
        LinearConstraint(points={"male": 1})
    with pytest.raises(ConstraintError, match="at least one variable"):
        LinearConstraint(upper=1)


@pytest.mark.parametrize(
    "constraint",
    [
        AtMostKOf(["age<30", "age<45", "age<66"]),
        Implies("mail", ["hypertension"]),
        PredictedRisk(when={"hypertention": 1}, at_least=0.5),
        Include("bmi>30"),
        Exclude("bmi>30"),
        Sign("bmi>30", 1),
        PointsBetween("bmi>30", 0, 1),
        LinearConstraint(points={"agee<30": 1}, upper=1),
        NotTogether("male", "bmi>30"),
    ],
)
def test_unknown_feature_names_suggest_close_matches(constraint):
    with pytest.raises(ConstraintError, match="did you mean") as info:
        constraints_to_rows([constraint], NAMES)
    message = str(info.value)
    assert constraint.describe() in message
    assert "unknown feature" in message


def test_unknown_feature_without_close_match():
    with pytest.raises(ConstraintError, match="unknown feature 'zzz'") as info:
        constraints_to_rows([Include("zzz")], NAMES)
    assert "did you mean" not in str(info.value)


def test_constraints_to_rows_accepts_rows_and_nested_lists():
    raw = LinearRow("raw", points={"male": 1.0}, upper=2.0)
    rows = constraints_to_rows(
        [raw, [MaxFeatures(2), (Include("male"), [Exclude("age<30")])]], NAMES
    )
    assert [r.name for r in rows] == [
        "raw",
        "Use at most 2 features",
        "Use male",
        "Do not use age<30",
        "Do not use age<30",
    ]
    assert constraints_to_rows((c for c in [MaxFeatures(1)]), NAMES)[0].upper == 1


@pytest.mark.parametrize("bad", [["male <= 2"], [{"male": 1}], [3], [None], [MaxFeatures]])
def test_constraints_to_rows_rejects_other_objects(bad):
    with pytest.raises(ConstraintError, match="cannot use"):
        constraints_to_rows(bad, NAMES)


def test_constraints_are_hashable_and_frozen():
    c = AtMostKOf(["age<30", "age<45"], k=1)
    assert hash(c) == hash(AtMostKOf(("age<30", "age<45"), 1))
    assert hash(PredictedRisk(when={"male": 1}, at_least=0.9))
    with pytest.raises(AttributeError):
        c.k = 2


def test_problem_collects_readable_constraints():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, len(NAMES)))
    y = rng.integers(0, 2, size=40)
    problem = RiskScoreProblem(
        X,
        y,
        feature_names=NAMES,
        constraints=[AtMostKOf(["age<30", "age<45", "age<60"]), Include("male")],
    )
    assert problem.violations(points(male=1)) == []
    assert problem.violations(points(age30=1, age45=1)) == [
        "Use at most 1 of: age<30, age<45, age<60",
        "Use male",
    ]
