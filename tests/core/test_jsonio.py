"""Tests for riskexplore.core.jsonio: one strict-JSON encoding of non-finite numbers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from riskexplore.core.events import SolveEvent, Trace
from riskexplore.core.jsonio import decode, dump_json, encode, encode_float, load_json, plain
from riskexplore.errors import InputError


def test_encode_decode_round_trip():
    data = {"a": [1.0, math.inf, -math.inf], "b": {"c": math.nan, "d": "text"}, "e": 3}
    text = json.dumps(encode(data), allow_nan=False)  # strict JSON
    back = decode(json.loads(text))
    assert back["a"] == [1.0, math.inf, -math.inf] and math.isnan(back["b"]["c"])
    assert back["b"]["d"] == "text" and back["e"] == 3
    assert encode_float(np.float64(2.5)) == 2.5 and encode_float(-np.inf) == "-inf"


def test_plain_converts_numpy():
    value = plain({1: [np.int64(2), np.float32(0.5)], "t": (np.bool_(True), None)})
    assert value == {"1": [2, 0.5], "t": [True, None]}
    assert type(value["1"][0]) is int and type(value["t"][0]) is bool


def test_dump_and_load(tmp_path):
    path = tmp_path / "doc.json"
    text = dump_json({"x": 1}, path, indent=None)
    assert path.read_text() == text + "\n"
    assert load_json(path, "model") == {"x": 1} == load_json(text, "model")
    with pytest.raises(ValueError):
        dump_json({"x": math.inf}, None, indent=None)  # encode first
    with pytest.raises(InputError, match="invalid risk score JSON"):
        load_json("{not json", "risk score")


def test_events_use_the_same_encoding():
    event = SolveEvent(
        time=0.5,
        phase="search",
        upper_bound=math.inf,
        lower_bound=-math.inf,
        gap=math.inf,
        nodes=3,
        cuts=0,
        kind="incumbent",
    )
    record = event.to_dict()
    json.dumps(record, allow_nan=False)
    assert record["lower_bound"] == "-inf" and record["upper_bound"] == "inf"
    assert SolveEvent.from_dict(json.loads(json.dumps(record))) == event
    trace = Trace.from_records([record, record])
    assert len(trace) == 2 and trace.to_records() == [record, record]
