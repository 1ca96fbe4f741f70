"""The "By group" view and its state: choose columns, read findings, add their rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")

import _audit_data  # noqa: E402

from riskexplore.checklist.constraints import GroupRateGap  # noqa: E402
from riskexplore.checklist.model import Checklist  # noqa: E402
from riskexplore.errors import InputError  # noqa: E402
from riskexplore.evaluation.audit.groups import make_groups  # noqa: E402
from riskexplore.exploration.audit import AuditState  # noqa: E402
from riskexplore.risk_score.fit import fit_risk_score  # noqa: E402
from riskexplore.risk_score.group_calibration import GroupCalibration  # noqa: E402
from riskexplore.widgets.audit.view import AuditView, audit_table_html  # noqa: E402


def site_data(n=600, seed=0):
    """The audit tests' data (``tests/_audit_data.py``), the outcome as a Series."""
    X, y = _audit_data.site_data(n, seed)
    return X, pd.Series(y)


@pytest.fixture(scope="module")
def fitted():
    X, y = site_data()
    model = fit_risk_score(X[["a", "b"]], y, max_size=2, coef_min=-3, coef_max=3, time_limit=30)
    return X, y, model


def source_of(models, X, y, X_test=None, y_test=None):
    return lambda: {"models": models, "X": X, "y": y, "X_test": X_test, "y_test": y_test}


def test_the_state_checks_its_settings():
    state = AuditState()
    assert state.settings["by"] == () and state.result is None
    with pytest.raises(InputError, match="unknown audit setting 'color'"):
        state.update(color="red")
    with pytest.raises(InputError, match="run must be one of"):
        state.update(run="other")
    with pytest.raises(InputError, match="one column or two"):
        state.update(by=("a", "b", "c"))
    with pytest.raises(InputError, match="min_size must be a whole number"):
        state.update(min_size=0)
    state.update(by="site")
    assert state.settings_dict()["by"] == ["site"]


def test_the_state_says_why_there_is_no_audit(fitted):
    X, y, model = fitted
    state = AuditState()
    assert state.compute({"unconstrained": model}, X, y) is None
    assert "Choose a column" in state.message
    state.update(by=("site",), run="constrained")
    assert state.compute({"unconstrained": model}, X, y) is None
    assert "No model with your rules yet" in state.message
    state.update(run="unconstrained", data="test")
    assert state.compute({"unconstrained": model}, X, y) is None
    assert "No patients were kept aside" in state.message
    state.update(by=("nope",), data="train")
    assert state.compute({"unconstrained": model}, X, y) is None
    assert "no column 'nope'" in state.message


def test_choosing_a_column_shows_table_findings_and_figures(fitted):
    X, y, model = fitted
    added = []
    view = AuditView(
        source_of({"unconstrained": model}, X, y),
        on_rule=lambda rule: (added.append(rule) or True, "added"),
    )
    view.set_columns(list(X.columns))
    assert [v for _l, v in view.column.options] == ["", "a", "b", "site", "age"]  # features too
    assert view.results.layout.display == "none"
    view.column.value = "site"  # as a person does
    result = view.state.result
    assert result is not None and view.results.layout.display is None
    assert "site = 2" in view.table.value and "observed risk" in view.table.value
    assert "e-0" not in view.table.value and "e+0" not in view.table.value
    titles = view.forest.to_figure().layout.title.text
    assert "by site" in titles
    names = {t.name for t in view.reliability.to_figure().data}
    assert {"site = 0", "site = 1", "site = 2"} <= names
    assert view.reliability_box.layout.display is None
    # the calibration findings have their rule; the others say why not
    calibration = [f for f in result.findings if f.metric == "calibration"]
    buttons = view.rule_buttons
    assert calibration and len(buttons) == len(calibration)
    usable = [b for b in buttons if not b.disabled]
    assert usable and all("Rule:" in b.tooltip for b in usable)
    words = " ".join(
        c.value if hasattr(c, "value") else c.children[0].value for c in view.findings.children
    )
    if len(result.findings) > len(calibration):
        assert "No rule can limit this" in words
    assert " CI " not in words and "confidence range" in words
    usable[0].click()
    assert isinstance(added[0].constraint, GroupCalibration)
    assert added[0].constraint.label in {f.group for f in result.findings}
    assert "added" in view.message.value
    # the metric of the forest plot
    view.metric.value = "fnr"
    assert "missed cases" in view.forest.to_figure().layout.title.text


def test_two_columns_and_the_held_out_rows(fitted):
    X, y, model = fitted
    half = len(y) // 2
    view = AuditView(source_of({"unconstrained": model}, X[:half], y[:half], X[half:], y[half:]))
    view.set_columns(list(X.columns))
    assert view.choose("site", "b", data="test")
    assert view.state.result.settings["by"] == ["site", "b"]
    assert len(view.state.result.table) == 6
    assert int(view.state.result.table["n"].sum()) == len(y) - half
    assert "too few to judge" not in view.table.value or "fewer than 30" in view.table.value


def test_a_checklist_audit_and_its_rule():
    X, y = site_data(seed=3)
    model = Checklist(["b"], 1)
    added = []
    view = AuditView(
        source_of({"unconstrained": model}, X, y), on_rule=lambda r: (added.append(r), "ok")
    )
    view.set_columns(list(X.columns))
    assert view.choose("b")
    assert [v for _l, v in view.metric.options][0] == "fnr"  # no calibration for checklists
    assert "predicted risk" not in view.table.value
    assert view.reliability_box.layout.display == "none"
    usable = [b for b in view.rule_buttons if not b.disabled]
    usable[0].click()
    assert isinstance(added[0].constraint, GroupRateGap)
    assert added[0].group_columns == ("b",)


def test_the_table_in_words(fitted):
    X, y, model = fitted
    from riskexplore.evaluation.audit import audit

    result = audit(model, X, y, "age", min_size=200)
    text = audit_table_html(result)
    assert "too few to judge (fewer than 200 patients)" in text
    assert "confidence" in text


def test_a_failing_source_is_a_message():
    def broken():
        raise InputError("load a dataset first")

    view = AuditView(broken)
    view.set_columns(["a"])
    assert not view.choose("a")
    assert "load a dataset first" in view.message.value


# --- in the Explorer -------------------------------------------------------------------
def test_the_explorer_tab_a_rule_and_its_price():
    from riskexplore.widgets import Explorer

    ex = Explorer("mammo", time_limit=20, max_size=3)
    titles = [ex.results_tabs.get_title(i) for i in range(len(ex.results_tabs.children))]
    assert titles[-2:] == ["By group", "Validation"]  # (the Validation tab comes after it)
    assert ex.results_tabs.children[-2] is ex.audit.widget
    assert "Age_geq_60" in [v for _l, v in ex.audit.column.options]
    ex.solve(wait=True)
    assert ex.audit.choose("Age_geq_60")
    rules = [b for b in ex.audit.rule_buttons if not b.disabled]
    assert rules, ex.audit.state.result.to_text()
    rules[0].click()
    (rule,) = ex.constraints
    assert isinstance(rule, GroupCalibration)
    assert "Added the rule" in ex.audit.message.value
    ex.solve(constrained=True, wait=True)
    low, high = ex.comparison.price_of_constraints
    assert 0 <= low <= high  # the certified price of the rule
    ex.audit.run.value = "constrained"
    after = ex.audit.state.result
    assert after is not None
    flagged = {(f.group, f.metric) for f in after.findings}
    assert (rule.label, "calibration") not in flagged  # the rule fixed what it limits
    assert "by_group" in ex.figures()
    # the study keeps the settings; opening it computes the audit again
    study = ex.save_study()
    assert study.audit == {
        "by": ["Age_geq_60"],
        "run": "constrained",
        "data": "train",
        "metric": ex.audit.state.settings["metric"],
        "min_size": 30,
    }
    again = Explorer()
    assert again.open_study(study.to_json())
    assert again.audit.state.settings["by"] == ("Age_geq_60",)
    assert again.audit.column.value == "Age_geq_60"
    assert again.audit.state.result is not None
    assert again.audit.state.result.table.equals(after.table)
    assert again.constraints == [rule]


def test_a_checklist_rule_adds_its_group_column():
    from riskexplore.widgets import Explorer

    ex = Explorer("heart", family="checklist", time_limit=20, max_items=3)
    ex.solve(wait=True)
    assert ex.audit.choose("cp")
    rules = [b for b in ex.audit.rule_buttons if not b.disabled]
    assert rules, ex.audit.state.result.to_text()
    rules[0].click()
    assert ex.settings["group_columns"] == ("cp",)
    (rule,) = ex.constraints
    assert isinstance(rule, GroupRateGap) and rule.by == ("cp",)
    assert ex.solve(constrained=True, wait=True) is not None
    assert ex.comparison is not None


def test_older_studies_open_without_the_tab_settings():
    from riskexplore.exploration.study.document import VERSION, Study, checksum
    from riskexplore.widgets import ExplorerState

    state = ExplorerState()
    state.load_dataset("mammo")
    doc = state.to_study().to_dict()
    assert VERSION == 4 and doc["audit"] is None
    old = {k: v for k, v in doc.items() if k not in ("audit", "binarization", "rules", "checksum")}
    old["version"] = 2
    old["checksum"] = checksum(old)
    assert Study.read(old).audit is None
    bad = {k: v for k, v in doc.items() if k != "checksum"}
    bad["audit"] = {"by": ["a"], "colour": "red"}
    bad["checksum"] = checksum(bad)
    with pytest.raises(InputError, match="audit.colour is not a setting"):
        Study.read(bad)


def test_a_view_not_attached_offers_its_datas_columns(fitted):
    X, y, model = fitted
    view = AuditView(source_of({"unconstrained": model}, X, y))
    assert view.choose("site")  # the columns come from the source's data
    assert "site" in [v for _l, v in view.column.options]
    assert not view.choose("nope")
    assert "unknown group column &#x27;nope&#x27;" in view.message.value


def test_a_rule_on_age_ranges_its_price_and_its_study():
    """A finding on a column the audit cut into ranges: the button adds the rule over the
    binned group column (age stays a feature), the search with it keeps the limit on the
    audit's groups with a certified price, and the study opens with the same groups."""
    from riskexplore.widgets import Explorer

    ex = Explorer("heart", family="checklist", time_limit=20, max_items=3)
    ex.solve(wait=True)
    assert ex.audit.choose("age")
    cuts = ex.audit.state.result.settings["cuts"]["age"]
    items = [i for i in ex.audit.state.findings() if i.finding.metric in ("fnr", "fpr")]
    assert items, ex.audit.state.result.to_text()
    assert all(i.rule is not None for i in items)
    button = next(b for b in ex.audit.rule_buttons if b.tooltip == items[0].rule.sentence)
    button.click()
    name = "age (ranges at " + ", ".join(f"{c:g}" for c in cuts) + ")"
    (rule,) = ex.constraints
    assert isinstance(rule, GroupRateGap) and rule.by == (name,)
    assert "Added the rule" in ex.audit.message.value and name in ex.audit.message.value
    assert ex.settings["group_columns"] == (name,)
    assert name in ex.group_columns.options and ex.group_columns.value == (name,)
    # the problem's groups are the audit's, row for row
    groups = ex.state.groups()
    result = ex.audit.state.result
    expect = make_groups(ex.state.X, ["age"], {"age": cuts}).labels
    assert np.array_equal(groups[name].to_numpy(dtype=object), expect)
    assert set(expect) == set(result.table["group"])
    ex.solve(constrained=True, wait=True)
    low, high = ex.comparison.price_of_constraints  # certified: same problem plus the rule
    assert 0 <= low <= high
    model = ex.state.results["constrained"]
    assert not any("age (ranges" in str(item) for item in model.items)  # never an item
    ex.audit.run.value = "constrained"
    rates = ex.audit.state.result.table.set_index("group")[rule.rate]
    assert list(rates.index) == list(result.table["group"])
    assert rates.max() - rates.min() <= rule.max_gap + 1e-9  # the solve respects it
    # the study keeps the rule and its group column; opening it computes them again
    study = ex.save_study()
    assert study.to_dict()["settings"]["group_columns"] == [name]
    again = Explorer()
    assert again.open_study(study.to_json())
    assert again.constraints == [rule]
    assert again.settings["group_columns"] == (name,)
    assert again.state.groups().equals(groups)
    assert again.comparison.price_of_constraints == ex.comparison.price_of_constraints


def test_the_settings_take_a_numeric_column_cut_into_ranges():
    from riskexplore.widgets import ExplorerState

    X, y = site_data(n=80, seed=5)
    table = X.assign(place=np.where(X["a"] == 1, "north", "south"), outcome=y)
    state = ExplorerState()
    state.load_csv(table.to_csv(index=False).encode(), "sites.csv")
    state.set_outcome("outcome")
    state.update_settings(group_columns=("age (ranges at 50, 70)",))
    assert state.group_column_options[-1] == "age (ranges at 50, 70)"
    expect = make_groups(state.X, ["age"], {"age": [50.0, 70.0]}).labels
    assert np.array_equal(state.groups()["age (ranges at 50, 70)"].to_numpy(object), expect)
    assert set(state.groups(test=True)["age (ranges at 50, 70)"]) <= set(expect)
    with pytest.raises(InputError, match="'place' is not numeric"):
        state.update_settings(group_columns=("place (ranges at 1)",))
    with pytest.raises(InputError, match="unknown group column"):
        state.update_settings(group_columns=("height (ranges at 1)",))
    assert state.settings["group_columns"] == ("age (ranges at 50, 70)",)  # unchanged
    state.update_settings(group_columns=("age (ranges at 50, 70)", "b (ranges at 1)"))
    state.set_outcome("b")  # the column it cuts is the outcome now: it is dropped
    assert state.settings["group_columns"] == ("age (ranges at 50, 70)",)
