"""The Explorer's "Validate on another file" in plain Python: the file read as an upload,
the development data's outcome and the model's columns, plain-word refusals, the
validation kept for its run, and the report's arguments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _survival_data import survival_table

from riskexplore import validate
from riskexplore.errors import InputError
from riskexplore.evaluation.survival.result import SurvivalValidation
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.validation import ValidationState, outcome_codes, used_columns


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


@pytest.fixture(scope="module")
def heart():
    """heart (a raw table: categories and numbers), a risk score of at most 3 items fitted
    by the Explorer's own solve on the training rows; the held-out rows as a file."""
    state = ExplorerState()
    state.load_dataset("heart")
    # certifies in seconds; room for a busy machine (a stopped model may read no column)
    state.update_settings(max_size=3, time_limit=300)
    model = state.solve_function([])(callbacks=[], stop=None)
    assert model.certificate.is_optimal, model.certificate  # the tests assume the optimum
    state.record("unconstrained", model, state.family, state.settings, [], state.data_version)
    other = pd.concat([state.X_test, state.y_test], axis=1)
    return state, model, other


def test_validates_the_run_on_the_file_as_validate_does(heart):
    state, model, other = heart
    checks = ValidationState()
    checks.load_file(_csv(other), "other.csv")
    result = checks.validate(state, "unconstrained")
    expected = validate(model, state.X_test, state.y_test).to_dict()
    assert result.to_dict() == expected and result.n == len(other)
    assert checks.current(state, "unconstrained") is result
    assert checks.current(state, "constrained") is None
    # a new run on the same data makes the validation stale
    state.record("unconstrained", model, state.family, state.settings, [], state.data_version)
    assert checks.current(state, "unconstrained") is None


def test_columns_the_model_does_not_read_may_be_missing(heart):
    state, model, other = heart
    used = used_columns(state, state.runs["unconstrained"])
    assert used and set(used) < set(state.feature_names)
    unused = [c for c in state.feature_names if c not in used]
    checks = ValidationState()
    checks.load_file(_csv(other.drop(columns=unused[:2])), "other.csv")
    result = checks.validate(state, "unconstrained")
    assert checks.filled == tuple(unused[:2])
    assert result.to_dict()["auc"] == validate(model, state.X_test, state.y_test).to_dict()["auc"]


def test_refusals_name_what_is_wrong(heart):
    state, _model, other = heart
    checks = ValidationState()
    with pytest.raises(InputError, match="upload the file"):
        checks.validate(state, "unconstrained")
    with pytest.raises(InputError, match="no score with your rules on these data yet"):
        checks.validate(state, "constrained")
    used = used_columns(state, state.runs["unconstrained"])
    cases = [
        (other.drop(columns=["target"]), "has no column 'target', the outcome of the dev"),
        (other.drop(columns=used[:1]), f"lacks the column '{used[0]}' that the score uses"),
        (other.assign(target=other["target"] * 2), "must be 0 or 1, as in the development"),
        (other.assign(target=np.where(other.index % 3, other["target"], None)), "missing"),
    ]
    for frame, words in cases:
        checks.load_file(_csv(frame), "bad.csv")
        with pytest.raises(InputError, match=words):
            checks.validate(state, "unconstrained")
        assert checks.validation is None
    with pytest.raises(InputError, match="MB; files up to 20 MB"):
        checks.load_file(b"a,b\n" + b"1,0\n" * (11 * 2**20 // 4 * 2), "huge.csv")
    assert checks.file_name == "bad.csv"  # the previous file stays


def test_outcome_labels_read_as_the_development_data():
    assert outcome_codes(pd.Series(["yes", "no", "yes"])) == {"yes": 1, "no": 0}
    assert outcome_codes(pd.Series([1, 0])) == {1: 1, 0: 0}


def test_report_arguments(heart):
    state, model, other = heart
    checks = ValidationState()
    with pytest.raises(InputError, match="no score with your rules"):
        checks.report_arguments(state, "constrained")
    args = checks.report_arguments(state, "unconstrained")
    assert args["model"] is model and args["validation"] is None and args["rules"] == []
    X, y = args["development"]
    assert X is state.X and y is state.y
    assert args["settings"]["max_size"] == 3 and args["settings"]["data"] == "heart"
    assert "max_items" not in args["settings"]  # the other family's settings are left out
    checks.load_file(_csv(other), "other.csv")
    result = checks.validate(state, "unconstrained")
    assert checks.report_arguments(state, "unconstrained")["validation"] is result


@pytest.fixture(scope="module")
def followup():
    """A survival score (time to event) fitted by the Explorer's own solve; the held-out
    rows as a file, with the event and follow-up time columns of the development data."""
    state = ExplorerState()
    state.load_csv(_csv(survival_table(n=160)), "followup.csv")
    state.set_family("survival_score")
    state.set_outcome("died")
    state.set_time_column("days")
    state.update_settings(max_size=2, time_limit=120, horizon=365)
    model = state.solve_function([])(callbacks=[], stop=None)
    assert model.certificate.is_optimal, model.certificate
    state.record("unconstrained", model, state.family, state.settings, [], state.data_version)
    return state, model, state.frame.loc[state.y_test.index]


def test_a_survival_score_is_validated_on_the_files_times_and_events(followup):
    state, model, other = followup
    checks = ValidationState()
    checks.load_file(_csv(other), "other.csv")
    result = checks.validate(state, "unconstrained")
    expected = validate(model, state.X_test, time=other["days"], event=other["died"])
    assert isinstance(result, SurvivalValidation) and result.horizon == 365.0
    assert result.to_dict() == expected.to_dict() and result.n == len(other)
    cases = [
        (other.drop(columns=["days"]), "has no column 'days', the follow-up time of the dev"),
        (other.assign(days=-other["days"]), "follow-up time 'days' of bad.csv must hold num"),
        (other.assign(died=other["died"] + 1), "must be 0 or 1, as in the development"),
    ]
    for frame, words in cases:
        checks.load_file(_csv(frame), "bad.csv")
        with pytest.raises(InputError, match=words):
            checks.validate(state, "unconstrained")
    X, y = checks.report_arguments(state, "unconstrained")["development"]
    assert y.dtype.names == ("event", "time") and len(y) == len(X) == len(state.X)
    assert np.array_equal(y["time"], state.frame.loc[state.y.index, "days"])
