"""Figures of the subgroup audit: the forest plot and the per-group reliability diagrams."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from riskexplore.evaluation.audit import audit
from riskexplore.figures import forest_figure, group_reliability_figure


@pytest.fixture(scope="module")
def mammo_audit(mammo_fits):
    X = mammo_fits["X"].assign(
        band=np.where(mammo_fits["X"]["Age_geq_60"] == 1, "60 and older", "under 60")
    )
    return audit(mammo_fits["free"], X, mammo_fits["y"], ["band", "Density"], min_size=30)


def test_forest_figure_has_a_point_per_judged_group_and_text_for_the_rest(mammo_audit):
    table = mammo_audit.table
    fig = forest_figure(mammo_audit, "fnr")
    traces = {t.name: t for t in fig.data}
    judged = table[~table["too_few"]]
    assert list(traces["group"].y) == list(judged["group"])
    np.testing.assert_allclose(traces["group"].x, judged["fnr"])
    np.testing.assert_allclose(traces["rest"].x, judged["fnr_rest"])
    few = table[table["too_few"]]
    assert len(few) > 0
    assert list(traces["too few"].y) == list(few["group"])
    assert all(t.startswith("too few to judge (n = ") for t in traces["too few"].text)
    assert fig.layout.shapes[0].x0 == pytest.approx(mammo_audit.overall["fnr"])
    assert list(fig.layout.yaxis.categoryarray) == list(table["group"])[::-1]


def test_forest_figure_colours_flagged_groups_and_centres_calibration_on_zero():
    rng = np.random.default_rng(0)
    n = 400
    old = np.arange(n) % 2 == 0
    y = np.where(old, rng.uniform(size=n) < 0.6, rng.uniform(size=n) < 0.1).astype(int)
    X = pd.DataFrame({"risk": 0.3, "age": np.where(old, 70, 30)})

    class Flat:
        def predict_proba(self, X):
            return np.column_stack([1 - X["risk"], X["risk"]])

        def predict(self, X):
            return np.zeros(len(X), int)

    result = audit(Flat(), X, y, "age", bins={"age": [60]})
    fig = forest_figure(result, "calibration")
    assert fig.layout.shapes[0].x0 == 0.0
    assert set(fig.data[0].marker.color) == {"#d62728"}
    assert "rest" not in {t.name for t in fig.data}
    with pytest.raises(ValueError, match="unknown metric"):
        forest_figure(result, "brier")


def test_group_reliability_figure_has_a_panel_per_group(mammo_audit):
    fig = group_reliability_figure(mammo_audit)
    groups = list(mammo_audit.reliability)
    markers = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in markers] == groups
    table = mammo_audit.reliability[groups[0]]
    np.testing.assert_allclose(markers[0].x, table["predicted_risk"])
    np.testing.assert_allclose(markers[0].y, table["observed_risk"])
    assert "too few to judge" in fig.layout.title.text


def test_group_reliability_figure_of_a_checklist_says_there_is_no_risk(heart_fit):
    result = audit(heart_fit["model"], heart_fit["X"], heart_fit["y"], "sex")
    fig = group_reliability_figure(result)
    assert "predicts no risk" in fig.layout.annotations[0].text
