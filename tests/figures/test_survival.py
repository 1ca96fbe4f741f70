"""The survival validation's figures: Kaplan-Meier curves by score group and calibration at
the horizon, drawn from the validation and from its saved JSON document."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from riskexplore.errors import InputError
from riskexplore.evaluation.survival.validation import validate_survival
from riskexplore.figures.survival import (
    km_figure,
    survival_calibration_figure,
    survival_validation_dict,
)


@pytest.fixture(scope="module")
def validation():
    rng = np.random.default_rng(5)
    score = rng.integers(-2, 5, 240).astype(float)
    time = np.ceil(rng.exponential(40 * np.exp(-0.4 * score)))
    event = rng.random(240) < 0.7
    risk = -np.expm1(-0.01 * 30 * np.exp(0.4 * score))
    return validate_survival(score, risk, time, event, 30.0, n_boot=10, min_group_rows=40)


def test_km_curves_step_from_one_with_bands_and_plain_legend(validation):
    doc = json.loads(json.dumps(validation.to_dict()))  # the saved document draws the same
    fig = km_figure(doc, time_label="days")
    curves = doc["km_curves"]
    assert len(fig.data) == 3 * len(curves)
    for k, curve in enumerate(curves):
        upper, lower, line = fig.data[3 * k : 3 * k + 3]
        assert line.line.shape == upper.line.shape == lower.line.shape == "hv"
        assert line.x[0] == 0 and line.y[0] == 1
        assert list(line.x[1:]) == curve["time"] and list(line.y[1:]) == curve["survival"]
        assert list(upper.y[1:]) == curve["upper"] and list(lower.y[1:]) == curve["lower"]
        assert lower.fill == "tonexty" and not upper.showlegend and not lower.showlegend
        assert line.name == f"{curve['label']} ({curve['patients']} patients)"
        assert re.fullmatch(r"score −?\d+( to −?\d+)? \(\d+ patients\)", line.name)
        assert (np.array(lower.y) <= np.array(line.y) + 1e-12).all()
        assert (np.array(line.y) <= np.array(upper.y) + 1e-12).all()
    assert [s.x0 for s in fig.layout.shapes] == [30.0]  # the horizon
    assert fig.layout.legend.yref == "container" and fig.layout.legend.orientation == "h"
    assert "Survival by score group on 240 patients" in fig.layout.title.text
    texts = fig.layout.title.text + "".join("".join(t.hovertext or ()) for t in fig.data)
    assert not re.search(r"\de[-+]\d", texts)  # never scientific notation
    assert km_figure(validation, time_label="days").to_dict() == fig.to_dict()


@pytest.mark.parametrize("by", ["group", "score"])
def test_calibration_points_are_the_table_with_intervals(validation, by):
    fig = survival_calibration_figure(validation, by=by)
    diagonal, points = fig.data
    assert list(diagonal.x) == [0, 1]
    table = validation.group_calibration if by == "group" else validation.calibration
    table = table.dropna(subset=["observed_risk"])
    assert np.allclose(points.x, table["predicted_risk"])
    assert np.allclose(points.y, table["observed_risk"])
    assert np.allclose(points.error_y.array, table["upper"] - table["observed_risk"])
    assert np.allclose(points.error_y.arrayminus, table["observed_risk"] - table["lower"])
    title = fig.layout.title.text
    assert "Calibration by time 30 on 240 patients" in title
    assert "calibration slope" in title and "observed/expected" in title
    assert fig.layout.xaxis.title.text == "predicted risk by time 30"
    if by == "group":
        assert all(t.startswith("score ") for t in points.hovertext)
        assert not any(t.startswith("score score") for t in points.hovertext)


def test_the_horizon_is_named_with_the_models_unit(validation):
    doc = {**validation.to_dict(), "time_unit": "days"}
    fig = survival_calibration_figure(doc)
    assert "Calibration by 30 days on 240 patients" in fig.layout.title.text
    assert fig.layout.yaxis.title.text == "observed risk by 30 days"
    notes = [a.text for a in km_figure(doc).layout.annotations]
    assert "horizon 30 days" in notes
    assert validation.to_dict()["time_unit"] is None  # no unit given: "by time 30" above


def test_bad_input_is_refused(validation):
    with pytest.raises(InputError, match="survival validation"):
        survival_validation_dict([1, 2])
    with pytest.raises(InputError, match="lacks km_curves"):
        km_figure({"n": 3, "horizon": 1.0, "calibration": [], "group_calibration": []})
    with pytest.raises(InputError, match="by must be"):
        survival_calibration_figure(validation, by="decile")
