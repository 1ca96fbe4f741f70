"""The Explorer's "Validation" tab without a browser: the upload validates the model
chosen, the results in plain words, both figures drawn, the report offered as a link, and
plain-word messages when something is missing."""

from __future__ import annotations

import base64
import datetime
import html
import re

import pandas as pd
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore.figures.validation import interval_words  # noqa: E402
from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402


def _upload(view, name: str, frame: pd.DataFrame) -> None:
    """Choose a file in the view's upload button, as the FileUpload widget does."""
    content = frame.to_csv(index=False).encode()
    view.upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(content),
            "content": memoryview(content),
            "last_modified": datetime.datetime(2026, 1, 1),
        },
    )


def _text(value: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", value).split()))


@pytest.fixture(scope="module")
def heart():
    ex = Explorer("heart", max_size=3, time_limit=10, auto_refresh=False)
    other = pd.concat([ex.state.X_test, ex.state.y_test], axis=1)
    return ex, other


def test_the_tab_is_an_empty_box_until_chosen(heart):
    ex, _other = heart
    view = ex.validation
    assert not view.built and view.widget.children == ()  # what a page opens with
    assert not view.refresh() and not view.built  # no model yet: nothing to show
    tabs = ex.results_tabs
    last = len(tabs.children) - 1
    assert tabs.get_title(last) == "Validation" and tabs.children[last] is view.widget
    assert not view.built
    tabs.selected_index = last  # choosing the tab makes its controls
    assert view.built and len(view.widget.children) == 5
    assert view.calibration is None and view.figures.children == ()  # made when first used


def test_no_model_yet_then_validated_after_the_search(heart):
    ex, other = heart
    view = ex.validation
    _upload(view, "other.csv", other)
    assert "no score without rules on these data yet" in _text(view.message.value)
    assert view.summary.value == "" and view.upload.value == ()
    assert view.calibration is None and view.figures.children == ()
    assert not view.prepare_report() and "no score without rules" in _text(view.message.value)
    # the search ends: the file kept is validated at once
    assert ex.solve(wait=True).status in ("optimal", "time_limit")
    assert view.message.value == ""
    words = _text(view.summary.value)
    v = view.validation_state.validation.to_dict()
    assert f"{v['n']} patients of other.csv" in words
    for label in ("Telling patients apart (AUC)", "Calibration slope", "Observed / expected"):
        assert label in words
    assert interval_words(v["auc"]) in words and interval_words(v["calibration_slope"]) in words
    assert not re.search(r"\de[-+]\d", words)  # no scientific notation
    assert len(view.calibration.data) == 2 and len(view.decision.data) == 3
    # the report, with the validation, as a link that saves it
    assert view.prepare_report()
    link = view.report_link.value
    assert 'download="report.html"' in link and "validated on other.csv" in link
    page = base64.b64decode(re.search(r"base64,([^\"]+)", link).group(1)).decode()
    assert "calibration slope" in page.lower()
    assert page.count('id="calibration"') == 1


def test_the_report_has_the_audit_of_its_model(heart):
    ex, other = heart
    view = ex.validation
    ex.audit.choose("sex")  # "By group": the model without rules, training patients
    assert ex.audit.state.result is not None
    view.run.value = "unconstrained"
    assert view.prepare_report()
    page = base64.b64decode(re.search(r"base64,([^\"]+)", view.report_link.value).group(1)).decode()
    audit = page[page.index('id="audit"') :]
    assert "By sex (training patients)" in audit and "Not covered" not in audit
    ex.audit.choose("sex", run="constrained")  # another model: not in this report
    assert view.prepare_report()
    page = base64.b64decode(re.search(r"base64,([^\"]+)", view.report_link.value).group(1)).decode()
    assert "By sex" not in page and "no subgroup audit was run" in page


def test_bad_files_are_named_and_new_data_clear_the_view(heart):
    ex, other = heart
    view = ex.validation
    _upload(view, "bad.csv", other.drop(columns=["target"]))
    assert "bad.csv has no column 'target'" in _text(view.message.value)
    assert view.summary.value == "" and (view.calibration is None or not view.calibration.data)
    _upload(view, "other.csv", other)
    assert view.summary.value and view.prepare_report()
    view.run.value = "constrained"  # no search with rules yet
    assert "no score with your rules" in _text(view.message.value) and view.report_link.value == ""
    view.run.value = "unconstrained"
    assert view.summary.value
    ex.set_outcome("sex")  # new data: the results go, the file stays
    assert view.summary.value == "" and view.report_link.value == ""
    assert view.validation_state.frame is not None


def test_the_first_search_that_ends_makes_the_controls():
    ex = Explorer("heart", max_size=2, time_limit=5, auto_refresh=False)
    view = ex.validation
    view.run_options = [("Best score (no rules)", "unconstrained"), ("With rules", "constrained")]
    assert not view.built
    assert ex.solve(wait=True).status in ("optimal", "time_limit")
    assert view.built and view.run.options[0][0] == "Best score (no rules)"
    assert view.message.value == "" and view.summary.value == ""  # no file yet
