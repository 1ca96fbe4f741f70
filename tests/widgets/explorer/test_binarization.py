"""The Explorer's step 2 on an uploaded raw table: the table of columns (kind, cut points,
items, skipped and why), the editor of a column's cut points and use, and the rules that
name a variable in both families' builders, in plain words."""

from __future__ import annotations

import pytest
from _raw_tables import raw_csv

pytest.importorskip("ipywidgets")

from riskexplore.widgets import Explorer  # noqa: E402


def level(ex):
    return ex.last_message[0] if ex.last_message else None


@pytest.fixture
def ex():
    explorer = Explorer(time_limit=5, max_size=2, auto_refresh=False)
    assert explorer.load_csv(raw_csv(), "clinic.csv")
    assert explorer.set_outcome("sick"), explorer.last_message
    return explorer


def test_the_columns_of_step_2_and_their_cut_points(ex):
    view = ex.binarization
    table = view.table.value
    assert "5 columns give" in table and "skipped (site)" in table
    assert "A score uses at most one item of each column." in table
    for words in ("<b>age</b>", "numbers", "categories", "grade = III", "creatinine missing"):
        assert words in table, words
    assert "constant" in table  # why site was skipped
    assert view.column.options == ("age", "sex", "grade", "creatinine", "site")
    assert [v for _l, v in view.use.options] == ["items", "categories", "number"]
    view.column.value = "age"  # the editor shows the column's cut points
    age = next(v for v in ex.state.column_views() if v.name == "age")
    assert view.cuts.value == age.cut_text and not view.cuts.disabled
    view.column.value = "grade"  # categories: no cut points to type
    assert view.cuts.value == "" and view.cuts.disabled
    # cut points typed and applied
    version = ex.state.data_version
    view.column.value = "age"
    view.cuts.value = "60, 70"
    view.apply_button.click()
    assert ex.state.binarization.cut_points == {"age": ((">=", 60), (">=", 70))}
    assert "age now gives: age ≥ 60, age ≥ 70" in view.message.value
    assert "60, 70 (yours)" in view.table.value
    assert ex.state.data_version == version + 1
    # the rules are rebuilt on the new items
    assert "age ≥ 60" in ex.constraint_builder.feature_names
    # refused: a message, nothing changes
    view.cuts.value = "sixty"
    view.apply_button.click()
    assert "rx-error" in view.message.value and "&#x27;sixty&#x27; is not a number" in (
        view.message.value
    )
    assert ex.state.binarization.cut_points == {"age": ((">=", 60), (">=", 70))}
    # a number that counts points per unit
    view.use.value = "number"
    view.apply_button.click()
    assert ex.state.binarization.linear == ("age",)
    assert "age now counts points per unit" in view.message.value
    assert "a number: points per unit" in view.table.value
    # nothing to change
    view.apply_button.click()
    assert "Nothing to change for age" in view.message.value


def test_rules_naming_a_variable_in_plain_words(ex):
    assert ex.binarization.set_cut_points("age", "50, 65, 80")
    builder = ex.constraint_builder
    builder.kind.value = "Do not use a variable"
    assert builder.variable.layout.display is None
    assert builder.variable_item.layout.display == "none"
    builder.variable.value = "grade"
    builder.add_button.click()
    builder.kind.value = "Use a variable only as one of its items"
    builder.variable.value = "age"
    assert builder.variable_item.options == ("age ≥ 50", "age ≥ 65", "age ≥ 80")
    builder.variable_item.value = "age ≥ 80"
    builder.add_button.click()
    assert builder.describe() == ["Do not use grade", "Use age only as age ≥ 80"]
    assert "Use age only as age ≥ 80" in builder.active_html.value
    assert "Added: Use age only as age ≥ 80" in builder.message.value
    ex.solve(constrained=True, wait=True)
    model = ex.results["constrained"]
    assert not {"age ≥ 50", "age ≥ 65"} & set(model.points)
    assert not any(f.startswith("grade") for f in model.points)
    study = ex.save_study()
    assert study.to_dict()["rules"] == ["Do not use grade", "Use age only as age ≥ 80"]
    # the checklist's builder offers them too, on its own items
    assert ex.set_family("checklist")
    assert [v for _l, v in ex.binarization.use.options] == ["items", "categories"]
    checklist = ex.constraint_builder
    checklist.select_kind("OnlyItem")
    checklist.variable.value = "age"
    checklist.variable_item.value = "age ≥ 80"
    checklist.add_button.click()
    assert checklist.describe()[-1] == "Use age only as age ≥ 80", checklist.message.value
