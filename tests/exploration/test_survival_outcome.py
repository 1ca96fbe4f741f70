"""The Explorer's survival mode without widgets: columns, horizon, a certified search."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _survival_data import survival_table

from riskexplore.core.registry import family_of
from riskexplore.errors import InputError
from riskexplore.evaluation.audit.run import audit
from riskexplore.exploration.audit import AuditState
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.runner import SolveRunner
from riskexplore.exploration.survival_outcome import format_time, median_follow_up


def _state(frame: pd.DataFrame) -> ExplorerState:
    state = ExplorerState()
    state.load_csv(frame.to_csv(index=False).encode(), "followup.csv")
    return state


def test_survival_is_offered_only_with_a_time_and_an_event_column():
    state = _state(survival_table())
    assert state.time_column_options == ["age", "days"]
    assert state.event_column_options == ["chf", "sex", "died"]
    assert "survival" in [f.outcome for f in state.family_options]
    no_time = _state(survival_table().assign(days=1.0, age=1.0))
    assert [f.outcome for f in no_time.family_options] == ["binary", "binary"]


def test_the_time_column_is_no_feature_in_survival_mode_only():
    state = _state(survival_table())
    state.set_family("survival_score")
    state.set_outcome("died")
    with pytest.raises(InputError, match="choose the time column"):
        state.check_ready()
    for bad, match in (
        ("nope", "unknown time column"),
        ("died", "is the event column"),
        ("chf", "follow-up times"),
    ):
        with pytest.raises(InputError, match=match):
            state.set_time_column(bad)
    state.set_time_column("days")
    assert state.feature_names == ["age", "chf", "sex"] and "days" not in state.X
    y = state.training_outcome(test=True)
    assert y.dtype.names == ("event", "time") and len(y) == len(state.X_test)
    assert np.array_equal(y["time"], state.frame.loc[state.y_test.index, "days"])
    state.set_family("risk_score")
    assert "days" in state.feature_names and "days" in state.X


def test_the_horizon_defaults_to_the_median_follow_up_in_plain_words():
    state = _state(survival_table())
    state.set_family("survival")
    state.set_outcome("died")
    state.set_time_column("days")
    middle = float(np.median(state.training_outcome()["time"]))
    assert state.horizon() == middle == median_follow_up(state.training_outcome()["time"])
    assert f"by {format_time(middle)} days (the median follow-up)" in state.describe_horizon()
    assert state.fit_kwargs()["horizon"] == middle
    state.update_settings(horizon=365)
    assert state.describe_horizon() == "risk of the event by 365 days"
    assert [format_time(v) for v in (12000.0, 2.5, 0.125)] == ["12,000", "2.5", "0.12"]
    with pytest.raises(InputError, match="horizon"):
        state.update_settings(horizon=0)


def test_a_search_through_the_runner_streams_bounds_and_certifies_a_score():
    state = _state(survival_table())
    state.set_family("survival_score")
    state.set_outcome("died")
    state.set_time_column("days")
    state.update_settings(max_size=2, time_limit=20, horizon=365)
    runner = SolveRunner(state.solve_function()).start()
    assert runner.join(timeout=60)
    events = runner.drain()
    model = runner.result
    assert family_of(model).outcome == "survival" and model.horizons == (365.0,)
    assert model.certificate.status == "optimal" and 1 <= len(model.points) <= 2
    bounds = [e.lower_bound for e in events if getattr(e, "lower_bound", None) is not None]
    assert bounds and max(bounds) <= model.objective + 1e-9
    # step 2's items, as for risk scores: age is cut into yes/no items, the card reads them
    assert any(name.startswith("age ≥") for name in state.features().columns)
    assert set(model.points) <= set(state.features().columns)
    assert model.binarizer is not None and len(model.total_points(state.X_test)) == len(
        state.X_test
    )
    risk = model.risk_table()["risk_percent_at_365"].to_numpy()
    assert np.all(np.diff(risk) >= 0) and 0 <= risk.min() and risk.max() <= 100
    _audits_by_group(state, model)


def _audits_by_group(state: ExplorerState, model) -> None:
    """The By group state audits a survival score on its time and event (training or
    held-out rows), with the survival metrics of the forest plot."""
    audit_state = AuditState(by=("sex",), min_size=10)
    models = {"unconstrained": model}
    rows = {"X": state.X, "y": state.training_outcome()}
    held_out = {"X_test": state.X_test, "y_test": state.training_outcome(test=True)}
    result = audit_state.compute(models, **rows, **held_out)
    assert result is not None and audit_state.message == ""
    want = audit(model, state.X, state.training_outcome(), "sex", min_size=10)
    pd.testing.assert_frame_equal(result.table, want.table)
    assert result.settings["outcome"] == "survival" and result.settings["horizon"] == 365
    assert result.table["n"].sum() == len(state.X)
    assert [v for _label, v in audit_state.metric_options()] == ["observed_expected", "c_index"]
    assert audit_state.metric() == "observed_expected"
    audit_state.update(data="test")
    test = audit_state.compute(models, **rows, **held_out)
    assert test.table["n"].sum() == len(state.X_test) < len(state.X)
    assert test.table["events"].sum() == state.y_test.sum()
