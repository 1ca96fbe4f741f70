"""The JSON codec of a study's parts: constraints, values, models and settings.

A constraint is saved as ``{"type": class name, "fields": {...}}`` (:func:`encode_constraint`)
and read back only if its class is one of the family's readable constraint classes
(:attr:`~riskexplore.core.registry.ModelFamily.constraint_types`: a whitelist), every field
fits its annotation and the constraint writes the same record again
(:func:`decode_constraint`). Values are strict JSON: tuples become lists and a non-finite
number ``{"$float": "inf"}`` (settings must be finite). Constraints written as Pyomo models
cannot be saved: a study is data, never code.

Plain Python (no Jupyter); the study document is :mod:`riskexplore.exploration.study.document`.

Examples
--------
>>> from riskexplore import Exclude
>>> from riskexplore.exploration.study.codec import decode_constraint, encode_constraint
>>> record = encode_constraint(Exclude("IrregularShape"), "risk_score")
>>> record["type"]
'Exclude'
>>> decode_constraint(record, "risk_score") == Exclude("IrregularShape")
True
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from collections.abc import Mapping
from typing import Any

import numpy as np

from riskexplore.core.constraints import is_pyomo_model
from riskexplore.core.registry import ModelFamily, family_of, get_family
from riskexplore.errors import InputError

__all__ = [
    "canonical",
    "decode_constraint",
    "decode_value",
    "encode_constraint",
    "encode_model",
    "encode_settings",
    "encode_value",
]

_NONFINITE = ("inf", "-inf", "nan")


def canonical(value: Any) -> Any:
    """``value`` as JSON reads it back (lists for tuples, str keys), strict JSON only.

    Parameters
    ----------
    value : object
        JSON data (tuples and non-str keys allowed).

    Returns
    -------
    object
        The same data after a round trip through JSON text.

    Raises
    ------
    InputError
        For a value that is not strict JSON data.
    """
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InputError(f"the study holds a value that is not JSON data: {exc}") from None


# --- constraints ---------------------------------------------------------------------------
def encode_constraint(constraint: Any, family: str | ModelFamily) -> dict[str, Any]:
    """A readable constraint as ``{"type": class name, "fields": {...}}``.

    Parameters
    ----------
    constraint : ReadableConstraint
        A constraint of ``family`` (one of its
        :attr:`~riskexplore.core.registry.ModelFamily.constraint_types`).
    family : str or ModelFamily
        The model family it constrains.

    Returns
    -------
    dict
        The record; tuples become lists and non-finite numbers ``{"$float": "inf"}``.

    Raises
    ------
    InputError
        For a Pyomo model, a raw row or any other object that is not one of the family's
        readable constraints.
    """
    family = get_family(family)
    if is_pyomo_model(constraint):
        raise InputError(
            "constraints written as Pyomo models cannot be saved in a study (a study is data, "
            "not code); write them as readable constraints (LinearConstraint, say) to save them"
        )
    if type(constraint) not in family.constraint_types:
        raise InputError(
            f"{type(constraint).__name__} is not a readable {family.label.lower()} constraint, "
            "so it cannot be saved in a study"
        )
    fields = {
        f.name: encode_value(getattr(constraint, f.name), f"{type(constraint).__name__}.{f.name}")
        for f in dataclasses.fields(constraint)
        if f.init
    }
    return {"type": type(constraint).__name__, "fields": fields}


def encode_value(value: Any, where: str, finite: bool = False) -> Any:
    """A field's value as JSON: lists for tuples; a non-finite number as
    ``{"$float": "inf"}``, or an error when ``finite`` (settings).

    Parameters
    ----------
    value : None, bool, int, float, str or a list or tuple of them
        The value.
    where : str
        Its place, for messages.
    finite : bool
        Refuse non-finite numbers.

    Returns
    -------
    object
        Strict JSON data.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isfinite(value):
            return value
        if finite:
            raise InputError(f"{where}: {value} cannot be saved (settings are finite)")
        return {"$float": str(value)}
    if isinstance(value, (list, tuple)):
        return [encode_value(v, where, finite) for v in value]
    raise InputError(f"{where}: a {type(value).__name__} cannot be saved in a study")


def decode_constraint(record: Any, family: str | ModelFamily, where: str = "constraint") -> Any:
    """The constraint of a record of :func:`encode_constraint` (whitelisted classes only).

    Parameters
    ----------
    record : dict
        ``{"type": ..., "fields": {...}}``.
    family : str or ModelFamily
        The family whose constraint classes may be named.
    where : str
        The record's place, for messages.

    Returns
    -------
    ReadableConstraint
        The constraint, checked by its own class.

    Raises
    ------
    InputError
        For an unknown type, unknown or missing fields, values the class refuses, or a
        record that the constraint would not write back identically.
    """
    family = get_family(family)
    if not isinstance(record, Mapping) or set(record) != {"type", "fields"}:
        raise InputError(f'{where} must be {{"type": ..., "fields": {{...}}}}')
    name, values = record["type"], record["fields"]
    classes = {c.__name__: c for c in family.constraint_types}
    if name not in classes:
        known = ", ".join(sorted(classes)) or "none"
        raise InputError(
            f"{where}: {name!r} is not a {family.label.lower()} constraint (known: {known})"
        )
    cls = classes[name]
    if not isinstance(values, Mapping):
        raise InputError(f"{where} ({name}): fields must be an object")
    allowed = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = [k for k in values if k not in allowed]
    if unknown:
        raise InputError(
            f"{where} ({name}): unknown field {unknown[0]!r}; {name} has {', '.join(allowed)}"
        )
    hints = typing.get_type_hints(cls)
    decoded = {}
    for key, value in values.items():
        decoded[key] = decode_value(value, f"{where} ({name}).{key}")
        _check_type(decoded[key], hints.get(key, Any), f"{where} ({name}).{key}")
    try:
        constraint = cls(**decoded)
    except InputError:
        raise
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where} ({name}): {exc}") from None
    if canonical(encode_constraint(constraint, family)) != canonical(dict(record)):
        raise InputError(f"{where} ({name}) is not written as riskexplore writes it")
    return constraint


def _check_type(value: Any, hint: Any, where: str) -> None:
    """``value`` (decoded from JSON) fits the field's annotation, or an InputError."""
    if _fits(value, hint):
        return
    shown = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
    raise InputError(f"{where} must be {shown}, got {json.dumps(_plain_value(value))[:60]}")


def _fits(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    if hint is type(None) or hint is None:
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, h) for h in typing.get_args(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(args) == len(value) and all(
            _fits(v, h) for v, h in zip(value, args, strict=True)
        )
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    return False  # a field type a study cannot carry


def _plain_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain_value(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def decode_value(value: Any, where: str) -> Any:
    """A value of :func:`encode_value` back: tuples for lists, ``{"$float": "inf"}`` a float.

    Parameters
    ----------
    value : object
        Parsed JSON.
    where : str
        Its place, for messages.

    Returns
    -------
    object
        The value.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return tuple(decode_value(v, where) for v in value)
    if isinstance(value, Mapping) and set(value) == {"$float"} and value["$float"] in _NONFINITE:
        return float(value["$float"])
    raise InputError(f"{where}: unexpected value {json.dumps(value)[:60]}")


# --- models and settings --------------------------------------------------------------------
def encode_model(model: Any, family: str) -> dict[str, Any]:
    """A fitted model's document, with its certificate and its solve trace.

    Parameters
    ----------
    model : RiskScore or Checklist
        The model.
    family : str
        The family it must belong to.

    Returns
    -------
    dict
        ``model.to_dict(include_trace=True)``.
    """
    expected = get_family(family)
    if family_of(model) is not expected:
        raise InputError(f"a {type(model).__name__} is not a model of the family {family!r}")
    return model.to_dict(include_trace=True)


def encode_settings(settings: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Settings as JSON (finite numbers only; see :func:`encode_value`).

    Parameters
    ----------
    settings : mapping
        Setting name -> value.
    where : str
        Their place, for messages.

    Returns
    -------
    dict
        The settings, str keys.
    """
    out = {}
    for key, value in settings.items():
        out[str(key)] = encode_value(value, f"{where}.{key}", finite=True)
    return out
