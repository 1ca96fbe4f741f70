"""ConstraintBuilder driven from tests: choose from lists, press Add/Remove, read messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")

from riskexplore.errors import ConstraintError, InfeasibleError  # noqa: E402
from riskexplore.risk_score import constraints as C  # noqa: E402
from riskexplore.risk_score.group_calibration import GroupCalibration
from riskexplore.widgets.builders.risk_score import (  # noqa: E402
    CONSTRAINT_TYPES,
    ConstraintBuilder,
    check_constraints,
)
from riskexplore.widgets.cards import ModelCardView, certificate_html, model_html  # noqa: E402

NAMES = ["age>60", "male", "hypertension", "bmi>=30", "smoker"]


def choose(builder, label, **values):
    builder.kind.value = label
    for key, value in values.items():
        getattr(builder, key).value = value
    builder.add_button.click()


def test_every_constraint_type_from_the_lists():
    b = ConstraintBuilder(NAMES)
    changes = []
    b.on_change(changes.append)
    assert b.constraints == [] and "No constraints" in b.active_html.value
    choose(b, "Use at most k features", k=3)
    choose(b, "Use at least k features", k=1)
    choose(b, "Use at most k of a group", features=("age>60", "male"), k=1)
    choose(b, "Use at least k of a group", features=("hypertension", "bmi>=30"), k=1)
    choose(b, "If a feature is used, use one of others", feature="male", features=("smoker",))
    choose(b, "Do not use two features together", feature="smoker", other="bmi>=30")
    choose(b, "Predicted risk of an example", features=("age>60", "male"), side="at_least", p=0.2)
    choose(b, "Sign of a feature's points", feature="age>60", sign=1)
    choose(b, "Always use a feature", feature="hypertension")
    choose(b, "Never use a feature", feature="smoker")
    choose(b, "Points of a feature within bounds", feature="male", bound_mode="both", lo=-2, hi=2)
    choose(b, "Points of a feature within bounds", feature="bmi>=30", bound_mode="lo", lo=0)
    expected = [
        C.MaxFeatures(3),
        C.MinFeatures(1),
        C.AtMostKOf(("age>60", "male"), 1),
        C.AtLeastKOf(("hypertension", "bmi>=30"), 1),
        C.Implies("male", then_any=("smoker",)),
        C.NotTogether("smoker", "bmi>=30"),
        C.PredictedRisk(when={"age>60": 1, "male": 1}, at_least=0.2),
        C.Sign("age>60", 1),
        C.Include("hypertension"),
        C.Exclude("smoker"),
        C.PointsBetween("male", -2, 2),
        C.PointsBetween("bmi>=30", lo=0),
    ]
    assert b.constraints == expected, b.message.value
    assert len(CONSTRAINT_TYPES) == 12  # and a group's calibration, with data (below)
    assert len(changes) == 12 and changes[-1] == expected
    # plain words in the active list and in the numbered list
    texts = [label for label, _ in b.active.options]
    assert texts == [c.describe() for c in expected]
    assert "Use at most 3 features" in b.active_html.value
    assert "12 active constraints" in b.active_html.value
    assert "Added: Points of bmi&gt;=30 at least 0" in b.message.value
    # the returned list is a copy
    b.constraints.clear()
    assert len(b.constraints) == 12


def test_inputs_follow_the_constraint_type():
    b = ConstraintBuilder(NAMES)
    b.kind.value = "Use at most k features"
    assert b.k.layout.display is None and b.feature.layout.display == "none"
    b.kind.value = "If a feature is used, use one of others"
    assert b.feature.description == "if used" and b.features.description == "then one of"
    assert b.k.layout.display == "none"
    b.kind.value = "Points of a feature within bounds"
    b.bound_mode.value = "hi"
    assert b.hi.layout.display is None and b.lo.layout.display == "none"


def test_remove_selected_and_clear():
    b = ConstraintBuilder(NAMES, [C.MaxFeatures(3), C.Include("male"), C.Exclude("smoker")])
    assert len(b.constraints) == 3
    b.remove_button.click()
    assert "Select constraints" in b.message.value and len(b.constraints) == 3
    b.active.value = (0, 2)
    b.remove_button.click()
    assert b.constraints == [C.Include("male")]
    assert "Removed: Use at most 3 features; Do not use smoker" in b.message.value
    assert [label for label, _ in b.active.options] == ["Use male"]
    b.remove(C.Include("male"))
    assert b.constraints == []
    b.add(C.MaxFeatures(2))
    b.clear_button.click()
    assert b.constraints == [] and "No constraints" in b.active_html.value


def test_invalid_choices_are_messages_and_the_set_stays():
    b = ConstraintBuilder(NAMES, max_size=4)
    choose(b, "Use at most k of a group", features=(), k=1)
    assert "choose the features" in b.message.value and b.constraints == []
    choose(b, "Do not use two features together", feature="male", other="male")
    assert "two different features" in b.message.value
    assert not b.add(C.Include("diabetes"))
    assert "unknown feature" in b.message.value and "diabetes" in b.message.value
    assert "Traceback" not in b.message.value

    choose(b, "Always use a feature", feature="male")
    choose(b, "Always use a feature", feature="male")
    assert "Already active" in b.message.value and len(b.constraints) == 1
    choose(b, "Use at least k of a group", features=tuple(NAMES[1:]), k=4)
    before = b.constraints
    choose(b, "Never use a feature", feature="smoker")
    assert "infeasible" in b.message.value and "Do not use smoker" in b.message.value
    assert b.constraints == before and "rx-error" in b.message.value
    # the size limit of the problem counts too
    assert not b.add(C.MinFeatures(5))
    assert "Model size at most 4" in b.message.value

    # feasibility checking can be switched off (the solver then reports it)
    lax = ConstraintBuilder(NAMES, check_feasibility=False)
    assert lax.add(C.MinFeatures(3)) and lax.add(C.MaxFeatures(2))
    # invalid starting constraints are left out with a message
    start = ConstraintBuilder(NAMES, [C.Include("male"), C.Include("nope"), "MaxFeatures(2)"])
    assert start.constraints == [C.Include("male")]
    assert "Left out" in start.message.value and "nope" in start.message.value


def test_check_constraints_needs_no_data():
    check_constraints(NAMES, [C.MaxFeatures(2), C.Include("male")])
    with pytest.raises(InfeasibleError):
        check_constraints(NAMES, [C.Include("male"), C.Exclude("male")])
    with pytest.raises(ConstraintError):
        check_constraints(NAMES, [C.Include("nope")])


def test_builder_constraints_reach_the_fit():
    from riskexplore.exploration.runner import SolveRunner, solve_function

    rng = np.random.default_rng(3)
    X = pd.DataFrame((rng.random((300, 4)) < 0.4).astype(int), columns=NAMES[:4])
    y = (rng.random(300) < 1 / (1 + np.exp(-(2 * X["male"] - 1)))).astype(int)
    b = ConstraintBuilder.for_data(X, max_size=2)
    choose(b, "Never use a feature", feature="male")
    choose(b, "Always use a feature", feature="bmi>=30")
    runner = SolveRunner(solve_function("risk_score", X, y, constraints=b, max_size=2)).start()
    assert runner.join(60) and runner.error is None
    model = runner.result
    assert "male" not in model.points and "bmi>=30" in model.points

    view = ModelCardView(model)
    assert "bmi&gt;=30" in view.html.value and "Certificate" in view.html.value
    assert "certified optimal" in certificate_html(model)
    assert model_html(model, "Mine").count("Mine") == 1
    view.clear()
    assert "No model yet" in view.html.value
    view.show_incumbent({"items": ["a", "b"], "M": 1}, 3.0, 1.0, 0.5)
    assert "Best model so far" in view.html.value and "solve running" in view.html.value


def group_data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, (200, len(NAMES))), columns=NAMES)
    X["age>60"] = rng.integers(40, 80, 200)
    y = (rng.random(200) < 0.2 + 0.4 * (X["age>60"] >= 60)).astype(int)
    return X, y


def test_a_groups_calibration_from_the_lists():
    X, y = group_data()
    b = ConstraintBuilder(NAMES, data=(X, y), max_size=3)
    choose(
        b,
        "Calibration of a group of patients",
        feature="age>60",
        group_op="ge",
        group_value=60,
        limit="under",
        max_gap=0.2,
    )
    assert b.constraints == [GroupCalibration({"age>60": (60, None)}, 0.2, "under")], (
        b.message.value
    )
    assert "age&gt;60 at least 60" in b.active_html.value
    choose(b, "Calibration of a group of patients", feature="male", group_op="eq", group_value=7)
    assert "no rows in the training data" in b.message.value
    b.kind.value = "Calibration of a group of patients"
    shown = [k for k, v in b._inputs.items() if v.layout.display != "none"]
    assert shown == ["feature", "group_op", "group_value", "limit", "max_gap"]
    assert b.feature.description == "group column"


def test_a_groups_calibration_needs_the_data():
    b = ConstraintBuilder(NAMES)
    assert not b.add(GroupCalibration({"male": 1}))
    assert "depends on the training data" in b.message.value
    with pytest.raises(ConstraintError, match="depends on the training data"):
        check_constraints(NAMES, [GroupCalibration({"male": 1})])
    X, y = group_data()
    check_constraints(NAMES, [GroupCalibration({"male": 1})], data=(X, y))
    # the check is on the real problem: an impossible band is infeasible
    with pytest.raises(InfeasibleError):
        check_constraints(
            NAMES,
            [GroupCalibration({"male": 1}, max_gap=0.0), C.MaxFeatures(0)],
            data=(X, y),
            intercept_min=-1,
            intercept_max=1,
        )
