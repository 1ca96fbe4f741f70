"""Size paths of survival scores: each row's objective is a separate fit's at that size, the
certified intervals hold, Harrell's C is added."""

from __future__ import annotations

import pytest
from _survival_data import structured, survival_data

from riskexplore import fit_survival_score, survival_score_size_path
from riskexplore.core.registry import get_family


def test_each_row_is_the_separate_fit_of_its_size_with_valid_bounds():
    X, time, event, _ = survival_data(n=150, d=4, seed=3)
    y = structured(time, event)
    X_test, t_test, e_test, _ = survival_data(n=60, d=4, seed=3)
    settings = {"coef_min": -3, "coef_max": 3, "c0": 0.001, "n_jobs": 1}
    path = survival_score_size_path(
        X, y, sizes=3, X_test=X_test, y_test=structured(t_test, e_test), horizon=1.0,
        **settings,
    )  # fmt: skip
    frame = path.to_frame()
    assert list(frame["size"]) == [1, 2, 3] and path.kind == "survival_score"
    for row, model in zip(path.rows, path.models, strict=True):
        alone = fit_survival_score(X, time, event, max_size=row["size"], **settings)
        assert row["status"] == "optimal"
        assert row["objective"] == pytest.approx(alone.objective, abs=1e-9)
        assert row["lower_bound"] <= row["objective"] + 1e-12
        assert row["loss_lower"] <= row["cox_loss"] <= row["loss_upper"] + 1e-12
        assert row["objective_lower"] <= row["objective"] <= row["objective_upper"] + 1e-12
        assert 0.5 < row["train_c_index"] <= 1 and 0 <= row["test_c_index"] <= 1
        assert model.size <= row["size"] and model.horizons == (1.0,)
    assert list(frame["objective"]) == sorted(frame["objective"], reverse=True)
    assert "Cox loss" in path.summary() and "C-index" in path.summary()
    assert get_family("survival_score").path_metric in path.pareto().columns
