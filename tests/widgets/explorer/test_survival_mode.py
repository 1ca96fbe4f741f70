"""The Explorer's survival mode in widgets: settings, card with its risk table, KM curves."""

from __future__ import annotations

import pytest
from _survival_data import survival_table

pytest.importorskip("ipywidgets")

from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402


def test_survival_mode_shows_the_risk_table_and_km_curves_and_says_what_is_yes_no_only():
    ex = Explorer()
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
    assert "certified optimal" in card and "risk by 365" in card and "e+" not in card
    views = ex.result_views
    assert views.survival.static_figure() is not None
    assert views.survival.widget in ex.reliability.widget.children
    assert "for yes/no outcomes" in views.metrics.message.value
    assert not ex.audit.choose("sex")  # the By group view says why, in words
    assert "is for yes/no outcomes" in ex.audit.message.value
    ex.family_picker.value = "risk_score"  # back: the time is a feature, the curves go
    assert "days" in ex.state.X and views.survival.static_figure() is None
    assert ex.reliability.figure in ex.reliability.widget.children
