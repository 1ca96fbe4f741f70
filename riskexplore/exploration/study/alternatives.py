"""The near-optimal set of a study file: written as data, read back checked.

A study keeps the "Alternatives" step's set (:class:`NearOptimalSet
<riskexplore.evaluation.near_optimal.NearOptimalSet>`) as::

    {"family": "risk_score",
     "optimum": ..., "lower_bound": ..., "tolerance": ..., "tolerance_unit": "relative",
     "complete": true, "reason": null, "time": ..., "nodes": ..., "certified": true,
     "models": [{"rank": 1, "features": [...], "metrics": {...}, "model": {...}}, ...],
     "selected": 0}

Each model is the family's model document (:func:`encode_model
<riskexplore.exploration.study.codec.encode_model>`: points or items with the certificate,
hence the model's certified distance to the best one). Hand edits are not kept: they are
one click away from the selected model.
:class:`~riskexplore.exploration.study.document.Study` writes and reads this part; the whole file's
checks (checksum, whitelists, round trip of every model) apply to it too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from riskexplore.core.jsonio import decode, encode, encode_float, plain
from riskexplore.errors import InputError
from riskexplore.evaluation.near_optimal import REASONS, Alternative, NearOptimalSet
from riskexplore.exploration.study.codec import encode_model

__all__ = ["decode_alternatives", "encode_alternatives"]

_FIELDS = (
    "family",
    "optimum",
    "lower_bound",
    "tolerance",
    "tolerance_unit",
    "complete",
    "reason",
    "time",
    "nodes",
    "certified",
    "models",
    "selected",
)
_MODEL_FIELDS = ("rank", "features", "metrics", "model")
_UNITS = ("relative", "mistakes")
_WHERE = "alternatives"


def encode_alternatives(found: NearOptimalSet, selected: int | None) -> dict[str, Any]:
    """A near-optimal set and the index of the model selected in it, as JSON data.

    Parameters
    ----------
    found : NearOptimalSet
        The set.
    selected : int or None
        The index of the selected model.

    Returns
    -------
    dict
        The part ``"alternatives"`` of a study document.
    """
    return {
        "family": found.family,
        "optimum": encode_float(found.optimum),
        "lower_bound": encode_float(found.lower_bound),
        "tolerance": encode_float(found.tolerance),
        "tolerance_unit": found.tolerance_unit,
        "complete": bool(found.complete),
        "reason": found.reason,
        "time": encode_float(found.time),
        "nodes": int(found.nodes),
        "certified": bool(found.certified),
        "models": [
            {
                "rank": int(a.rank),
                "features": [str(f) for f in a.features],
                "metrics": encode(plain(dict(a.metrics))),
                "model": encode_model(a.model, found.family),
            }
            for a in found.alternatives
        ],
        "selected": None if selected is None else int(selected),
    }


def decode_alternatives(
    doc: Mapping[str, Any],
    family: str,
    read_model: Callable[[Any, str, str], Any],
    fail: Callable[[str, str], InputError],
) -> tuple[NearOptimalSet, int | None]:
    """Check the part ``"alternatives"`` of a study document and decode it.

    Parameters
    ----------
    doc : mapping
        What :func:`encode_alternatives` wrote (parsed JSON).
    family : str
        The study's model family (the set must be of it).
    read_model : callable
        ``read_model(record, family, where)``: a model document checked and decoded.
    fail : callable
        ``fail(where, what)``: the error to raise.

    Returns
    -------
    NearOptimalSet, int or None
        The set and the index of the selected model.

    Raises
    ------
    InputError
        For a missing, unknown or malformed field.
    """
    w = _WHERE
    extra = [k for k in doc if k not in _FIELDS]
    if extra:
        raise fail(f"{w}.{extra[0]}", "is not a field of a near-optimal set")
    missing = [k for k in _FIELDS if k not in doc]
    if missing:
        raise fail(f"{w}.{missing[0]}", "is missing")
    if doc["family"] != family:
        raise fail(f"{w}.family", f"must be the study's family {family!r}, got {doc['family']!r}")
    numbers = {}
    for key in ("optimum", "lower_bound", "tolerance", "time"):
        value = decode(doc[key])
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise fail(f"{w}.{key}", f"must be a number, got {str(doc[key])[:60]}")
        numbers[key] = float(value)
    if numbers["tolerance"] < 0 or numbers["time"] < 0:
        raise fail(w, "has a negative tolerance or time")
    if doc["tolerance_unit"] not in _UNITS:
        raise fail(f"{w}.tolerance_unit", f"must be one of {list(_UNITS)}")
    for key in ("complete", "certified"):
        if not isinstance(doc[key], bool):
            raise fail(f"{w}.{key}", "must be true or false")
    if doc["reason"] is not None and doc["reason"] not in REASONS:
        raise fail(f"{w}.reason", f"must be null or one of {sorted(REASONS)}")
    nodes = doc["nodes"]
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 0:
        raise fail(f"{w}.nodes", "must be a whole number ≥ 0")
    if not isinstance(doc["models"], list) or not doc["models"]:
        raise fail(f"{w}.models", "must be a non-empty list")
    alternatives = [
        _alternative(record, i, family, read_model, fail) for i, record in enumerate(doc["models"])
    ]
    selected = doc["selected"]
    if selected is not None and (
        isinstance(selected, bool)
        or not isinstance(selected, int)
        or not 0 <= selected < len(alternatives)
    ):
        raise fail(f"{w}.selected", f"must be null or an index below {len(alternatives)}")
    found = NearOptimalSet(
        family=family,
        alternatives=alternatives,
        tolerance_unit=doc["tolerance_unit"],
        complete=doc["complete"],
        reason=doc["reason"],
        nodes=nodes,
        certified=doc["certified"],
        **numbers,
    )
    return found, selected


def _alternative(record: Any, i: int, family: str, read_model, fail) -> Alternative:
    where = f"{_WHERE}.models[{i}]"
    if not isinstance(record, dict) or set(record) != set(_MODEL_FIELDS):
        raise fail(where, f"must be an object with the fields {list(_MODEL_FIELDS)}")
    if record["rank"] != i + 1 or isinstance(record["rank"], bool):
        raise fail(f"{where}.rank", f"must be {i + 1} (the models are saved best first)")
    features = record["features"]
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise fail(f"{where}.features", "must be a list of feature names")
    metrics = record["metrics"]
    if not isinstance(metrics, dict):
        raise fail(f"{where}.metrics", "must be an object")
    decoded = {}
    for key, value in metrics.items():
        value = decode(value)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise fail(f"{where}.metrics.{key}", "must be a number or null")
        decoded[key] = value
    model = read_model(record["model"], family, f"{where}.model")
    return Alternative(i + 1, model, tuple(features), decoded)
