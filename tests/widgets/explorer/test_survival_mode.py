"""The Explorer's survival mode in widgets: the family offered for a follow-up table only,
settings, card with its risk table, KM curves, validation on another file and its report."""

from __future__ import annotations

import base64
import html
import re

import pytest
from _survival_data import survival_table

pytest.importorskip("ipywidgets")

from riskexplore import Exclude  # noqa: E402
from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402


def test_survival_mode_shows_the_risk_table_and_km_curves_and_says_what_is_yes_no_only():
    ex = Explorer()  # the bundled table has no follow-up time: no survival score offered
    assert "survival_score" not in [v for _label, v in ex.family_picker.options]
    assert ex.load_csv(survival_table().to_csv(index=False).encode(), "followup.csv")
    assert "survival_score" in [v for _label, v in ex.family_picker.options]
    ex.family_picker.value = "survival_score"
    assert ex.outcome_picker.description == "event column"
    assert ex.set_outcome("died")
    controls = ex.settings_controls.family_controls["survival_score"]
    assert [v for _label, v in controls.time_column.options] == ["", "age", "days"]
    controls.time_column.value = "days"
    assert ex.state.settings["time_column"] == "days" and "days" not in ex.state.X
    assert "days (the median follow-up)" in controls.horizon_words.value
    controls.horizon.value = 365
    controls.survival_max_size.value = 2
    ex.time_limit.value = 20
    assert ex.state.settings["horizon"] == 365 and ex.state.settings["max_size"] == 2
    ex.solve(wait=True, timeout=60)
    card = ex.monitors["unconstrained"].card.html.value
    assert "certified optimal" in card and "risk by 365 days" in card and "e+" not in card
    views = ex.result_views
    assert views.survival.static_figure() is not None
    assert views.survival.widget in ex.reliability.widget.children
    assert "for yes/no outcomes" in views.metrics.message.value
    assert views.metrics.figure not in views.metrics.widget.children  # no empty plot below
    _audits_by_group(ex)
    _validates_on_another_file(ex)
    _rules_sizes_and_other_good_scores(ex)
    ex.family_picker.value = "risk_score"  # back: the time is a feature, the curves go
    assert "days" in ex.state.X and views.survival.static_figure() is None
    assert ex.reliability.figure in ex.reliability.widget.children
    assert views.metrics.figure in views.metrics.widget.children


def _text(value: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", value).split()))


def _audits_by_group(ex) -> None:
    """The By group view of a survival score: events, C-index, observed against predicted
    risk by the horizon with its unit, O/E, in plain words; the forest plot on O/E."""
    view = ex.audit
    assert view.choose("sex", min_size=10), view.message.value
    table = _text(view.table.value)
    for words in ("with the event", "telling apart (C-index)", "had the event by 365 days"):
        assert words in table
    assert "sex = 0" in table and "sex = 1" in table and "to" in table  # intervals
    assert not re.search(r"\de[-+]\d|nan", table)  # plain numbers only
    assert [v for _label, v in view.metric.options] == ["observed_expected", "c_index"]
    forest = view.static_figure()
    assert "observed / predicted risk" in forest.layout.xaxis.title.text
    assert len(forest.data[0].y) == 2  # both groups judged
    assert view.reliability_box.layout.display == "none"  # no yes/no reliability
    view.metric.value = "c_index"
    assert view.static_figure().layout.xaxis.title.text == "C-index"


def _validates_on_another_file(ex) -> None:
    """The Validation tab: the held-out rows as a file, figures at the horizon in words,
    the survival curves and calibration drawn, the survival report; a file without the
    follow-up time is refused naming it."""
    view = ex.validation
    other = ex.state.frame.loc[ex.state.y_test.index]
    assert not view.load_file(other.drop(columns=["days"]).to_csv(index=False).encode(), "a.csv")
    assert "a.csv has no column 'days', the follow-up time" in _text(view.message.value)
    assert view.load_file(other.to_csv(index=False).encode(), "other.csv")
    words = _text(view.summary.value)
    assert f"{len(other)} patients of other.csv" in words and "by 365 days (the horizon)" in words
    for label in ("Harrell's C", "Uno's C", "AUC at the horizon", "Observed / expected risk"):
        assert label in words
    assert not re.search(r"\de[-+]\d", words)  # no scientific notation
    assert "score group" in view.decision.figure.layout.title.text  # Kaplan-Meier curves
    assert view.decision.figure.layout.xaxis.title.text == "days"
    assert "Calibration by 365 days" in view.calibration.figure.layout.title.text
    assert view.prepare_report() and "validated on other.csv" in view.report_link.value
    found = re.search(r"base64,([^\"]+)", view.report_link.value)
    page = base64.b64decode(found.group(1)).decode()
    assert 'id="survival-curves"' in page and "Harrell" in page


def _rules_sizes_and_other_good_scores(ex) -> None:
    """Step 3's rules (those on the points only), the search with them, the size path and
    the other good scores work in survival mode; the yes/no panels say so in words."""
    builder = ex.constraint_builder
    assert "Never use a feature" in builder.types
    assert "Predicted risk of an example" not in builder.types  # not linear for survival
    used = next(iter(ex.state.runs["unconstrained"].model.points))
    assert ex.add_constraint(Exclude(used))
    ex.solve(constrained=True, wait=True, timeout=60)
    model = ex.state.runs["constrained"].model
    assert used not in model.points and model.certificate.status == "optimal"
    assert ex.compute_path(sizes=[1, 2], time_limit_per_size=5, wait=True)
    assert list(ex.pareto.path.to_frame()["size"]) == [1, 2]
    alternatives = ex.alternatives
    alternatives.compute(wait=True)
    assert alternatives.state.found and alternatives.state.edit_rows()
    assert "for yes/no outcomes" in alternatives.metrics.message.value
    assert alternatives.metrics.figure not in alternatives.metrics.widget.children
    ex.constraint_builder.clear()
