"""Checklist: M-of-N prediction, metrics, text/HTML rendering, exact JSON round trip."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.model import Checklist
from riskexplore.checklist.problem import ChecklistSolution
from riskexplore.core.certificate import Certificate
from riskexplore.core.events import SolveEvent, Trace
from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError, InputError

NAMES = ["age \u2265 54", "cp = 2", "stroke <b>", "unused"]


@pytest.fixture
def model() -> Checklist:
    cert = Certificate.from_bounds("time_limit", 41.0, 30.5)
    stats = {
        "time": 12.5,
        "nodes": 40,
        "train_error": 0.1 + 0.2,
        "train_errors": 41,
        "fnr": 0.125,
        "fpr": 1 / 3,
        "settings": {"max_items": 3, "fnr_max": None, "time_limit": math.inf},
    }
    return Checklist(
        NAMES[:3],
        2,
        item_names=NAMES,
        item_groups={"age \u2265 54": "age", "cp = 2": "cp", "stroke <b>": "stroke", "unused": "u"},
        outcome="heart disease",
        certificate=cert,
        stats=stats,
    )


def _items_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age \u2265 54": [1, 0, 1, 1, 0],
            "cp = 2": [1, 0, 0, 1, 0],
            "stroke <b>": [0, 1, 0, 1, 0],
            "unused": [1, 1, 1, 1, 1],
        }
    )


# --- prediction -------------------------------------------------------------------------
def test_counts_and_predictions(model):
    X = _items_frame()
    assert model.N == 3 and model.M == 2
    assert model.count_checked(X).tolist() == [2, 1, 1, 3, 0]
    assert model.predict(X).tolist() == [1, 0, 0, 1, 0]
    score = model.decision_function(X)
    assert ((score > 0).astype(int) == model.predict(X)).all()
    # arrays: all items in training order, or just the checklist's items
    assert model.predict(X.to_numpy()).tolist() == [1, 0, 0, 1, 0]
    assert model.predict(X[NAMES[:3]].to_numpy()).tolist() == [1, 0, 0, 1, 0]
    # column order and extra columns do not matter for frames
    assert model.predict(X[NAMES[::-1]].assign(extra=7)).tolist() == [1, 0, 0, 1, 0]
    assert model.predict(X.astype(bool)).tolist() == [1, 0, 0, 1, 0]


def test_m_extremes():
    X = _items_frame()
    assert Checklist(NAMES[:2], 0, item_names=NAMES).predict(X).tolist() == [1] * 5
    assert Checklist(NAMES[:2], 3, item_names=NAMES).predict(X).tolist() == [0] * 5
    with pytest.raises(InputError, match="exceeds"):
        Checklist(NAMES[:2], 4)


def test_bad_inputs(model):
    with pytest.raises(InputError, match="lacks the checklist's item column"):
        model.predict(pd.DataFrame({"age \u2265 54": [1]}))
    with pytest.raises(InputError, match="must be 0/1"):
        model.predict(_items_frame().assign(**{"cp = 2": [2, 0, 0, 0, 0]}))
    with pytest.raises(InputError, match="columns"):
        model.predict(np.zeros((2, 7)))
    with pytest.raises(InputError, match="unique"):
        Checklist(["a", "a"], 1)
    with pytest.raises(InputError, match="not among"):
        Checklist(["a", "z"], 1, item_names=["a", "b"])
    with pytest.raises(InputError, match="non-negative integer"):
        Checklist(["a"], 0.5)
    with pytest.raises(InputError, match="0/1 outcome"):
        model.metrics(_items_frame(), [0, 1, 2, 0, 1])


def test_metrics_overall_and_per_group(model):
    X = _items_frame()
    y = [1, 1, 0, 0, 1]  # predictions 1 0 0 1 0: fn at rows 1 and 4, fp at row 3
    m = model.metrics(X, y, groups=["a", "a", "b", "b", "b"])
    assert (m["fp"], m["fn"], m["errors"]) == (1, 2, 3)
    assert m["error"] == pytest.approx(0.6)
    assert m["fnr"] == pytest.approx(2 / 3) and m["fpr"] == pytest.approx(0.5)
    a, b = m["groups"]["a"], m["groups"]["b"]
    assert a["fnr"] == pytest.approx(0.5) and math.isnan(a["fpr"])  # no negatives in a
    assert b["fnr"] == pytest.approx(1.0) and b["fpr"] == pytest.approx(0.5)
    assert m["worst_group_fnr"] == pytest.approx(1.0)
    assert m["max_fnr_gap"] == pytest.approx(0.5)
    assert m["max_fpr_gap"] == pytest.approx(0.0)
    assert model.score(X, y) == pytest.approx(0.4)
    # groups from a frame of several attributes are intersected
    g = pd.DataFrame({"sex": list("MMFFF"), "race": list("ABABB")})
    assert set(model.metrics(X, y, groups=g)["groups"]) == {
        "sex=M & race=A",
        "sex=M & race=B",
        "sex=F & race=A",
        "sex=F & race=B",
    }


# --- rendering --------------------------------------------------------------------------
def test_text(model):
    text = model.to_text()
    lines = text.splitlines()
    assert lines[0] == "Predict heart disease if 2+ items are checked"
    assert lines[1:4] == ["\u2610 age \u2265 54", "\u2610 cp = 2", "\u2610 stroke <b>"]
    assert "unused" not in text
    assert "gap 25.6% after 12 s (time limit)" in text
    assert "train error 30.0%" in text and "FNR 12.5%" in text
    ascii_text = model.to_text(ascii=True)
    assert ascii_text.isascii()
    assert "[ ] age >= 54" in ascii_text.splitlines()
    assert str(model) == text
    assert "Checklist(M=2" in repr(model)


def test_text_certified_and_no_certificate():
    cert = Certificate.from_bounds("optimal", 3.0, 3.0)
    assert Checklist(["a"], 1, certificate=cert).to_text().endswith("certified optimal (gap 0.0%)")
    plain = Checklist(["a"], 1)
    assert plain.to_text().splitlines()[0] == "Predict positive outcome if 1+ items are checked"
    assert plain.to_text().endswith("no optimality certificate")


def test_html(model):
    page = model.to_html()
    assert page == model._repr_html_()
    assert page.count('type="checkbox"') == 3
    assert "stroke &lt;b&gt;" in page and "stroke <b>" not in page
    assert "<script" not in page.lower() and "onclick" not in page.lower()
    assert "Predict heart disease if 2+ items are checked" in page


# --- serialisation ----------------------------------------------------------------------
def test_json_round_trip_exact(model, tmp_path: Path):
    text = model.to_json()
    json.loads(text)  # strict JSON (no NaN/Infinity)
    back = Checklist.from_json(text)
    assert back == model
    assert back.to_dict() == model.to_dict()
    assert back.stats["train_error"] == 0.1 + 0.2  # bit-exact float
    assert back.stats["settings"]["time_limit"] == math.inf
    assert back.certificate == model.certificate
    path = tmp_path / "checklist.json"
    model.to_json(path)
    assert Checklist.from_json(path) == model
    assert Checklist.from_json(str(path)) == model


def test_json_with_trace_and_binarizer_dict():
    trace = Trace()
    trace(SolveEvent(0.5, "search", 10.0, 4.0, 0.6, 3, 0, {"items": ["a"], "M": 1}, "incumbent"))
    c = Checklist(
        ["a"],
        1,
        item_names=["a", "b"],
        binarizer={"method": "fixed", "thresholds": {"u": [1.5, math.inf]}},
        trace=trace,
    )
    data = json.loads(c.to_json(include_trace=True))
    back = Checklist.from_dict(data)
    assert back == c and back.binarizer["thresholds"]["u"][1] == math.inf
    assert len(back.trace) == 1 and back.trace.events[0].incumbent == {"items": ["a"], "M": 1}
    assert "trace" not in c.to_dict()


def test_json_errors():
    with pytest.raises(InputError, match="invalid checklist JSON"):
        Checklist.from_json("{not json")
    with pytest.raises(InputError, match="not a checklist"):
        Checklist.from_dict({"format": "riskexplore.RiskScore", "items": [], "M": 0})
    with pytest.raises(InputError, match="lacks"):
        Checklist.from_dict({"items": ["a"]})


# --- from a solve -----------------------------------------------------------------------
def _problem():
    X = _items_frame()
    return SimpleNamespace(
        X_items=X,
        item_names=list(X.columns),
        y=np.array([1, 1, 0, 0, 1]),
        sample_weight=None,
        item_groups={n: n.split()[0] for n in X.columns},
        groups=np.array(["a", "a", "b", "b", "b"]),
    )


def _result(items, M=2, status="optimal", upper=3.0, lower=3.0):
    trace = Trace()
    trace(SolveEvent(0.1, "search", upper, lower, 0.0, 5, 0, None, "final"))
    return SolveResult(
        status=status,
        solution=None if items is None else ChecklistSolution(items, M),
        upper_bound=upper,
        lower_bound=lower,
        nodes=7,
        time=1.25,
        trace=trace,
        stats={"fp": 1, "fn": 2, "lp_solves": np.int64(3)},
    )


@pytest.mark.parametrize(
    "items",
    [
        [0, 1, 2],
        ["age \u2265 54", "cp = 2", "stroke <b>"],
        np.array([True, True, True, False]),
    ],
)
def test_from_result(items):
    c = Checklist.from_result(_problem(), _result(items), outcome_name="disease")
    assert c.items == NAMES[:3] and c.M == 2 and c.item_names == NAMES
    assert c.certificate.is_optimal and c.certificate.upper_bound == 3.0
    s = c.stats
    assert (s["fp"], s["fn"], s["train_errors"]) == (1, 2, 3)
    assert s["train_error"] == pytest.approx(0.6)
    assert s["nodes"] == 7 and s["time"] == 1.25
    assert s["solver"] == {"fp": 1, "fn": 2, "lp_solves": 3}
    assert s["max_fnr_gap"] == pytest.approx(0.5)
    assert c.item_groups["cp = 2"] == "cp"
    assert len(c.trace) == 1
    assert Checklist.from_json(c.to_json()) == c
    assert c.title() == "Predict disease if 2+ items are checked"


def test_from_result_without_model():
    with pytest.raises(InfeasibleError, match="infeasible"):
        Checklist.from_result(
            _problem(), _result(None, M=None, status="infeasible", upper=math.inf)
        )


# --- raw data through the stored binarizer ----------------------------------------------
def test_predict_raw_and_binarized_agree():
    from riskexplore.data.binarize import Binarizer
    from riskexplore.datasets import load_dataset

    data = load_dataset("heart")
    binarizer = Binarizer(categorical=["cp", "thal", "ca", "slope", "restecg"]).fit(data.X)
    Z = binarizer.transform(data.X)
    items = [n for n in Z.columns if n.startswith(("cp ", "ca ", "thal "))][:3]
    c = Checklist(
        items,
        2,
        item_names=list(Z.columns),
        item_groups=binarizer.item_groups_,
        binarizer=binarizer.to_dict(),
        outcome="heart disease",
    )
    expected = (Z[items].sum(axis=1) >= 2).astype(int).to_numpy()
    assert c.predict(Z).tolist() == expected.tolist()  # item frame
    assert c.predict(data.X).tolist() == expected.tolist()  # raw frame, binarized inside
    assert c.predict(data.X.to_numpy()).tolist() == expected.tolist()  # raw array
    assert c.predict(Z.to_numpy()).tolist() == expected.tolist()  # item array
    back = Checklist.from_json(c.to_json())
    assert back == c
    assert back.predict(data.X).tolist() == expected.tolist()
    assert back.count_checked(data.X.head(3)).tolist() == Z[items].head(3).sum(axis=1).tolist()
    with pytest.raises(InputError, match="missing"):
        back.predict(data.X.drop(columns=["cp"]))
