"""The Explorer's binarization of a raw table, in plain Python (no widgets): each column's
kind and cut points, the user's cut points and uses, both families fitted on the same
items, rules that name a variable, the size path and near-optimal sets of a raw table,
and study files that keep it all."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _raw_tables import raw_csv

from riskexplore.core.registry import get_family
from riskexplore.data.binarize import Binarizer
from riskexplore.datasets import load_dataset
from riskexplore.errors import InputError
from riskexplore.exploration.binarization import (
    Binarization,
    cut_points_text,
    parse_cut_points,
)
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.study.document import Study
from riskexplore.exploration.variable_rules import describe_rule, variable_rule


@pytest.fixture
def state():
    st = ExplorerState()
    st.load_csv(raw_csv(), "clinic.csv")
    st.set_outcome("sick")
    st.update_settings(max_size=2, time_limit=10, test_fraction=0.25)
    return st


def views(st) -> dict:
    return {v.name: v for v in st.column_views()}


def solve(st, constraints=()):
    return st.solve_function(list(constraints))(callbacks=[], stop=None)


def test_cut_points_are_read_as_typed_and_written_back():
    assert parse_cut_points("65, 75") == ((">=", 65), (">=", 75))
    assert parse_cut_points("> 0; 1.5 1.5") == ((">", 0), (">=", 1.5))
    assert parse_cut_points("≥ 65 ≤7.29") == ((">=", 65), ("<=", 7.29))
    assert parse_cut_points([60, (">", 3)]) == ((">=", 60), (">", 3))
    assert cut_points_text(parse_cut_points("> 0, 0.5, 70")) == "> 0, 0.5, 70"
    for bad, words in (
        ("65, abc", "'abc' is not a number"),
        (" ", "at least one"),
        ("inf", "finite"),
    ):
        with pytest.raises(InputError, match=words):
            parse_cut_points(bad)
    choices = Binarization({"age": "65, 75"}, linear=["bmi"], categorical=["cp"])
    assert Binarization.from_dict(json.loads(json.dumps(choices.to_dict()))).key() == choices.key()
    with pytest.raises(InputError, match="exactly"):
        Binarization.from_dict({"cut_points": {}})


def test_each_column_shows_its_kind_cut_points_items_or_why_it_is_skipped(state):
    shown = views(state)
    assert list(shown) == ["age", "sex", "grade", "creatinine", "site"]
    assert shown["age"].kind == "numeric" and shown["age"].cuts and shown["age"].editable
    assert all(i.startswith("age ") for i in shown["age"].items)
    assert shown["grade"].kind == "categorical" and "grade = III" in shown["grade"].items
    assert shown["sex"].kind in ("categorical", "binary") and not shown["sex"].editable
    assert "creatinine missing" in shown["creatinine"].items  # no row is left out
    assert shown["site"].kind == "skipped" and "constant" in shown["site"].reason
    assert shown["site"].items == ()
    # the risk score's fit gets the fitted binarizer that gave these items
    kwargs = state.fit_kwargs()
    assert isinstance(kwargs["binarize"], Binarizer) and kwargs["linear"] == []
    assert list(state.features().columns) == [i for v in shown.values() for i in v.items]


def test_user_cut_points_and_uses_change_the_items_and_start_new_data(state):
    version = state.data_version
    state.set_cut_points("age", "60, 70")
    age = views(state)["age"]
    assert age.items == ("age ≥ 60", "age ≥ 70") and age.edited and age.cut_text == "60, 70"
    assert state.data_version == version + 1  # the runs so far are of other items
    # refused: nothing changes, and the message names the column and the fix
    for column, cuts, words in (
        ("age", "sixty", "'sixty' is not a number"),
        ("grade", "2", "'grade' holds categories, not numbers"),
        ("outcome?", "1", "no feature column 'outcome\\?'"),
    ):
        with pytest.raises(InputError, match=words):
            state.set_cut_points(column, cuts)
    assert views(state)["age"].items == ("age ≥ 60", "age ≥ 70")
    assert state.data_version == version + 1
    state.set_cut_points("age", "")  # back to the data's own
    assert not views(state)["age"].edited
    # a number counting points per unit (risk scores), categories
    state.set_column_use("age", "number")
    assert views(state)["age"].linear and state.fit_kwargs()["linear"] == ["age"]
    assert "age" in state.features().columns
    state.set_column_use("age", "categories")
    assert views(state)["age"].kind == "categorical" and "age" not in state.fit_kwargs()["linear"]
    with pytest.raises(InputError, match="not numbers"):
        state.set_column_use("sex", "number")
    state.set_family("checklist")
    with pytest.raises(InputError, match="a checklist cannot use 'age' as a number"):
        state.set_column_use("age", "number")


def test_a_raw_table_gives_a_score_and_a_checklist_on_the_same_cut_points(state):
    state.set_cut_points("age", "65")
    model = solve(state)
    assert model.certificate.status == "optimal"
    assert model.binarizer is not None
    columns = [model.binarizer.item_groups_.get(f, f) for f in model.points]
    assert len(columns) == len(set(columns))  # at most one item of each column
    assert "age ≥ 65" in model.points  # the cut point that matters
    assert "age ≥ 65" in str(model)  # the card reads the item
    risk = model.predict_proba(state.X_test)  # raw rows, missing values included
    assert np.isfinite(risk).all() and len(risk) == len(state.X_test)
    state.set_family("checklist")
    state.update_settings(max_items=2)
    kwargs = state.fit_kwargs()
    assert kwargs["binarize"].thresholds == {"age": [(">=", 65)]}
    checklist = solve(state)
    assert set(checklist.items) <= set(state.features().columns)
    assert {"age ≥ 65", "age < 65"} <= set(state.features().columns)


def test_an_all_yes_no_table_is_fitted_as_before():
    st = ExplorerState()
    yes_no = load_dataset("mammo").frame.drop(columns=["Density"])
    st.load_csv(yes_no.to_csv(index=False).encode(), "mammo_yes_no.csv")
    st.set_outcome("Malignant")
    st.update_settings(max_size=2, time_limit=10)
    assert st.fit_kwargs()["binarize"] is None and "linear" not in st.fit_kwargs()
    assert st.features() is st.X
    assert {v.kind for v in st.column_views()} == {"binary"}
    assert solve(st).binarizer is None


def test_rules_naming_a_variable(state):
    family = state.model_family
    groups = state.item_groups()
    assert set(groups.values()) == {"age", "sex", "grade", "creatinine"}
    never = state.variable_rule("age")
    assert describe_rule(never, family, groups) == "Do not use age"
    assert state.describe_rule(never) == "Do not use age"
    free = solve(state, [never])
    assert not any(f.startswith("age") for f in free.points), free.points
    state.set_cut_points("age", "50, 65, 80")
    only = state.variable_rule("age", keep="age ≥ 80")
    assert state.describe_rule(only) == "Use age only as age ≥ 80"
    assert set(family.raw_table.excluded(only)) == {"age ≥ 50", "age ≥ 65"}
    used = solve(state, [only])
    assert not {"age ≥ 50", "age ≥ 65"} & set(used.points)
    other = family.raw_table.exclude(("age ≥ 50", "grade = I"))
    assert state.describe_rule(other) == other.describe()  # two columns: its own words
    with pytest.raises(InputError, match="'sex = F' is not an item of 'age'"):
        state.variable_rule("age", keep="sex = F")
    with pytest.raises(InputError, match="'site' gives no item"):
        state.variable_rule("site")
    checklist = get_family("checklist")
    items = {"age ≥ 65": "age", "age < 65": "age"}
    rule = variable_rule(checklist, items, "age", keep="age < 65")
    assert describe_rule(rule, checklist, items) == "Use age only as age < 65"


def test_size_path_and_near_optimal_scores_of_a_raw_table(state):
    from riskexplore.evaluation.paths import size_path

    kwargs = state.fit_kwargs()
    kwargs.pop("time_limit")
    kwargs.pop("max_size")
    path = size_path(
        state.X, state.y, family="risk_score", sizes=[1, 2], time_limit_per_size=5, **kwargs
    )
    assert [r["size"] for r in path.rows] == [1, 2]
    assert all(m is not None and m.binarizer is not None for m in path.models)
    spec = state.model_family.alternatives
    kwargs["max_size"] = 2
    found = spec.near_optimal(
        state.X, state.y, tolerance=0.02, max_models=5, time_limit=10, stop=None, **kwargs
    )
    assert found.models and all(r.model.binarizer is not None for r in found.models)
    for record in found.models:  # each keeps one item per column
        columns = [record.model.binarizer.item_groups_[f] for f in record.model.points]
        assert len(columns) == len(set(columns))
    problem = spec.training_problem(state.X, state.y, kwargs, [])
    assert problem.n_features == state.features().shape[1]


def test_a_study_keeps_the_binarization_the_rules_in_words_and_the_binarizers(state):
    state.set_cut_points("age", "60, 70")
    state.set_column_use("creatinine", "categories")
    rule = state.variable_rule("age", keep="age ≥ 70")
    state.record("constrained", solve(state, [rule]), state.family, state.settings, [rule],
                 state.data_version)  # fmt: skip
    study = state.to_study([rule])
    doc = json.loads(study.to_json())
    assert doc["version"] == 4
    assert doc["binarization"]["cut_points"] == {"age": [[">=", 60], [">=", 70]]}
    assert doc["binarization"]["categorical"] == ["creatinine"]
    assert doc["rules"] == ["Use age only as age ≥ 70"]
    assert "binarizer" in doc["runs"]["constrained"]["model"]
    read = Study.read(study.to_json())
    assert read == study and read.binarization.key() == state.binarization.key()
    opened = ExplorerState.from_study(read, data=raw_csv(), data_name="clinic.csv")
    assert opened.binarization.key() == state.binarization.key()
    assert views(opened)["age"].items == ("age ≥ 60", "age ≥ 70")
    model = opened.runs["constrained"].model
    assert model.binarizer is not None and "age ≥ 60" not in model.points
    np.testing.assert_allclose(
        model.predict_proba(opened.X_test),
        state.runs["constrained"].model.predict_proba(state.X_test),
    )
    edited = json.loads(study.to_json())
    edited["binarization"]["linear"] = ["no such column"]
    from riskexplore.exploration.study.document import checksum

    edited.pop("checksum")
    edited["checksum"] = checksum(edited)
    with pytest.raises(InputError, match="binarization cannot be used: no feature column"):
        ExplorerState.from_study(Study.read(edited), data=raw_csv(), data_name="clinic.csv")
