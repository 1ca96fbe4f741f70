"""The calibration and decision-curve figures of a validation dict
(``riskexplore.figures.validation``), on a contract-shaped dict built by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _validation_contract import CROWDED, contract_dict, crowded_dict

from riskexplore.errors import InputError
from riskexplore.figures.validation import (
    NET_BENEFIT_FLOOR,
    calibration_figure,
    decision_curve_figure,
    interval_words,
    validation_dict,
)


def test_calibration_points_bars_and_title_in_plain_words():
    v = contract_dict()
    fig = calibration_figure(v)
    diagonal, points = fig.data
    assert list(diagonal.x) == [0, 1] and list(diagonal.y) == [0, 1]
    rows = v["reliability"]
    assert np.allclose(points.x, [r["predicted"] for r in rows])
    assert np.allclose(points.y, [r["observed"] for r in rows])
    assert np.allclose(points.error_y.array, [r["upper"] - r["observed"] for r in rows])
    assert np.allclose(points.error_y.arrayminus, [r["observed"] - r["lower"] for r in rows])
    biggest = max(range(len(rows)), key=lambda i: rows[i]["n"])
    assert points.marker.size[biggest] == max(points.marker.size)  # area by patients
    title = fig.layout.title.text
    assert "Calibration on 400 patients" in title
    assert "calibration slope 0.934 (0.78 to 1.09), ideal 1" in title
    assert "calibration-in-the-large (intercept) −0.042 (−0.251 to 0.167), ideal 0" in title
    assert not re.search(r"\de[-+]\d", title)  # never scientific notation


def _drawn(fig):
    """Each point's marker (centre, radius) and label box in pixels of the plot area, by
    plotly's placement (text ``radius / 0.8 + 1`` px from the centre; a digit or minus is
    at most 0.6 font sizes wide, a line 1.2 high)."""
    layout, points = fig.layout, fig.data[1]
    width = layout.width - layout.margin.l - layout.margin.r
    height = layout.height - layout.margin.t - layout.margin.b
    (x0, x1), (y0, y1) = layout.xaxis.range, layout.yaxis.range
    font, where_all = points.textfont.size, points.textposition
    if isinstance(where_all, str):  # one position for all
        where_all = [where_all] * len(points.x)
    drawn = []
    for x, y, size, text, where in zip(
        points.x, points.y, points.marker.size, points.text, where_all, strict=True
    ):
        cx, cy, r = (x - x0) / (x1 - x0) * width, (y1 - y) / (y1 - y0) * height, size / 2
        w, h, off = 0.6 * font * len(text), 1.2 * font, r / 0.8 + 1
        left = cx + off if "right" in where else cx - off - w
        top = cy - h / 2 if "middle" in where else (cy - off - h if "top" in where else cy + off)
        box = (left, top, left + w, top + h) if text else None
        drawn.append(((cx, cy, r), box))
    return drawn, width, height


def test_crowded_scores_keep_their_labels_apart_and_nothing_is_clipped():
    fig = calibration_figure(crowded_dict(), width=680, height=430)
    drawn, width, height = _drawn(fig)
    boxes = [box for _, box in drawn if box]
    assert 7 <= len(boxes) < len(drawn)  # most scores written, the crowded ones only on hover
    for i, a in enumerate(boxes):
        assert 0 <= a[0] and a[2] <= width and 0 <= a[1] and a[3] <= height
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    for (cx, cy, r), _ in drawn:
        assert r <= cx <= width - r and r <= cy <= height - r  # the whole marker shows
    for i, (_, box) in enumerate(drawn):
        for j, ((cx, cy, r), _) in enumerate(drawn):
            if box and i != j:
                nx, ny = min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3])
                assert (nx - cx) ** 2 + (ny - cy) ** 2 >= r * r, (i, j)
    hover = fig.data[1].hovertext
    assert all(f"score {row[0]}:" in hover[k] for k, row in enumerate(CROWDED))


def test_a_checklist_without_risks_per_count_draws_no_points():
    v = contract_dict(kind="checklist")
    for r in v["reliability"]:
        r["predicted"] = None
    v["calibration_slope"] = {"estimate": None, "lower": None, "upper": None}
    fig = calibration_figure(v)
    assert len(fig.data[1].x) == 0
    assert "calibration slope —" in fig.layout.title.text


def test_decision_curve_has_the_three_curves_and_a_clipped_axis():
    v = contract_dict()
    fig = decision_curve_figure(v)
    assert [t.name for t in fig.data] == ["the model", "treat all", "treat none"]
    rows = v["net_benefit"]
    assert np.allclose(fig.data[0].y, [r["model"] for r in rows])
    assert np.allclose(fig.data[1].y, [r["treat_all"] for r in rows])
    low, high = fig.layout.yaxis.range
    assert low == NET_BENEFIT_FLOOR and min(r["treat_all"] for r in rows) < low
    assert high > max(max(r["model"], r["treat_all"]) for r in rows)
    assert "net benefit" in fig.layout.title.text


def test_interval_words_and_bad_input():
    assert interval_words({"estimate": 0.5, "lower": None, "upper": None}) == "0.5"
    assert interval_words({"estimate": 0.25, "lower": 0.2, "upper": 0.3}, "pct") == (
        "25.0% (20.0% to 30.0%)"
    )
    with pytest.raises(InputError, match="riskexplore.validate"):
        validation_dict([1, 2])
    with pytest.raises(InputError, match="lacks net_benefit"):
        validation_dict({"n": 3, "reliability": []})
