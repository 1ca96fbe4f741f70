"""Point labels placed apart (``riskexplore.figures.labels``), on layouts worked out in
pixels: a 400 x 300 plot area showing 0 to 1 on both axes."""

from __future__ import annotations

import numpy as np

from riskexplore.figures.labels import Canvas, label_positions

CANVAS = Canvas(400, 300, (0.0, 1.0), (0.0, 1.0))


def test_points_far_apart_keep_their_label_on_the_right():
    where = label_positions([0.2, 0.5, 0.8], [0.2, 0.5, 0.8], [10, 10, 10], ["1", "2", "3"], CANVAS)
    assert where == ["middle right"] * 3


def test_a_label_that_would_leave_the_plot_goes_left():
    # at x = 392 px a label to the right would end past the 400 px edge
    assert label_positions([0.98], [0.5], [10], ["12"], CANVAS) == ["middle left"]


def test_a_label_never_lands_on_another_marker():
    # point 2 sits 12 px right of point 1: right of point 1 is taken by point 2's marker
    where = label_positions([0.5, 0.53], [0.5, 0.5], [10, 10], ["1", "2"], CANVAS)
    assert where == ["middle left", "middle right"]


def test_crowded_points_drop_the_labels_that_fit_nowhere():
    # five big markers on one spot: beyond them there is room for six labels of
    # one digit, but never two in the same place
    x = np.full(5, 0.5)
    where = label_positions(x, x, [40] * 5, list("12345"), CANVAS, order=[4, 3, 2, 1, 0])
    shown = [w for w in where if w]
    assert len(shown) == len(set(shown)) and where[4] == "middle right"


def test_error_bars_of_other_points_are_kept_clear():
    # point 2's bar (x = 214 px, from 60 to 240 px) stands where point 1's label would go
    where = label_positions(
        [0.5, 0.535], [0.5, 0.5], [8, 8], ["1", "2"], CANVAS, lower=[0.5, 0.2], upper=[0.5, 0.8]
    )
    assert where[0] == "middle left"
