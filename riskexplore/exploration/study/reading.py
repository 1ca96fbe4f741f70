"""Reading study files back, checked: the file, text or bytes to its JSON document (strict
JSON only, size-limited), the document's format, version and checksum, then every field
(:func:`decode_study`; every error names its place).

:meth:`Study.read <riskexplore.exploration.study.document.Study.read>` and
:meth:`~riskexplore.exploration.study.document.Study.from_dict` use it; the format itself is
:mod:`riskexplore.exploration.study.format`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from riskexplore.core.jsonio import decode
from riskexplore.core.registry import get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.paths import SizePath
from riskexplore.exploration.binarization import Binarization
from riskexplore.exploration.study.alternatives import decode_alternatives
from riskexplore.exploration.study.codec import canonical, decode_constraint, decode_value
from riskexplore.exploration.study.data import DataIdentity
from riskexplore.exploration.study.format import (
    AUDIT_KEYS,
    FORMAT,
    KEYS,
    MAX_STUDY_BYTES,
    RUNS,
    SOURCES,
    VERSION,
    StudyRun,
    checksum,
)

__all__ = ["decode_study", "read_document"]


def read_document(
    source: str | Path | bytes | Mapping, name: str | None = None, limit: int = MAX_STUDY_BYTES
) -> tuple[Any, str]:
    """The parsed JSON of a study file, its text or bytes (a mapping as it is), and its
    name in messages.

    Parameters
    ----------
    source : str, Path, bytes or mapping
        See :meth:`Study.read <riskexplore.exploration.study.document.Study.read>`.
    name : str, optional
        The file's name in messages (default: the path's name, else ``"the study"``).
    limit : int
        The largest file accepted, in bytes.

    Returns
    -------
    (object, str)
        The document (not checked yet: see :func:`decode_study`) and the name.

    Raises
    ------
    InputError
        For a file that cannot be read, is too large, is not UTF-8 or not strict JSON.
    """
    if isinstance(source, Mapping):
        return source, name or "the study"
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        label = name or "the study"
    else:
        text = str(source)
        if isinstance(source, str) and text.lstrip().startswith(("{", "[")):
            raw, label = text.encode("utf-8"), name or "the study"
        else:
            file = Path(source)
            label = name or file.name
            if not file.is_file():
                raise InputError(f"no study file at {str(file)!r}")
            if file.stat().st_size > limit:
                raise InputError(f"{label} is larger than {limit // 2**20} MB")
            raw = file.read_bytes()
    if len(raw) > limit:
        raise InputError(f"{label} is larger than {limit // 2**20} MB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{label} is not a study file (not UTF-8 text)") from None
    try:
        doc = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{label} is not a study file: not valid JSON ({exc.msg} at line {exc.lineno}, "
            f"column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise InputError(f"{label} is not a study file: {exc}") from None
    return doc, label


def _check_document(doc: Any, name: str) -> None:
    """Raise unless ``doc`` is a study of a format version this riskexplore reads, with its
    checksum intact."""
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise InputError(f'{name} is not a riskexplore study (no "format": {FORMAT!r})')
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(f"{name}: the format version must be a whole number ≥ 1, got {version!r}")
    if version > VERSION:
        raise InputError(
            f"{name} was saved by a newer riskexplore (study format {version}; this one "
            f"reads format {VERSION}): update riskexplore to open it"
        )
    stored = doc.get("checksum")
    if not isinstance(stored, str) or not re.fullmatch(r"sha256:[0-9a-f]{64}", stored):
        raise InputError(f'{name} has no valid checksum ("checksum": "sha256:<64 hex digits>")')
    body = {k: v for k, v in doc.items() if k != "checksum"}
    try:
        actual = checksum(body)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} holds a value that is not JSON data: {exc}") from None
    if actual != stored:
        raise InputError(
            f"{name} was changed after it was saved (its checksum does not match its "
            "content), so it is not opened; save the study again from riskexplore"
        )


def decode_study(doc: Any, name: str = "the study") -> dict[str, Any]:
    """The fields of the study of a document, checked: its format, version and checksum,
    then every field.

    Parameters
    ----------
    doc : object
        The parsed document.
    name : str
        The study in messages.

    Returns
    -------
    dict
        The keyword arguments of :class:`~riskexplore.exploration.study.document.Study`.

    Raises
    ------
    InputError
        For a document that is not a study of a format this riskexplore reads, was
        edited, or holds a malformed field (the message names it).
    """
    _check_document(doc, name)
    return _Decoder(name).fields(doc)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON (numbers must be finite)")


class _Decoder:
    """Reads a checked study document field by field; every error names its place."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, what: str) -> InputError:
        return InputError(f"{self.name}: {where} {what}")

    def get(self, obj: Mapping, key: str, where: str, kinds: tuple, what: str) -> Any:
        if key not in obj:
            raise self.fail(f"{where}.{key}" if where else key, "is missing")
        value = obj[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            place = f"{where}.{key}" if where else key
            raise self.fail(place, f"must be {what}, got {json.dumps(value)[:60]}")
        return value

    def fields(self, doc: Mapping) -> dict[str, Any]:
        """The fields of the study of a checked document, by name."""
        unknown = [k for k in doc if k not in KEYS]
        if unknown:
            raise self.fail(repr(unknown[0]), "is not a field of a study")
        saved_by = self.get(doc, "saved_by", "", (str,), "a string")
        data = self.data(self.get(doc, "data", "", (dict,), "an object"))
        family = self.family(self.get(doc, "family", "", (str,), "a family name"), "family")
        settings = self.settings(self.get(doc, "settings", "", (dict,), "an object"), "settings")
        constraints = self.constraints(
            self.get(doc, "constraints", "", (list,), "a list"), family, "constraints"
        )
        runs_doc = self.get(doc, "runs", "", (dict,), "an object")
        runs = {}
        for run, record in runs_doc.items():
            if run not in RUNS:
                raise self.fail(f"runs.{run}", "is not a run (unconstrained, constrained)")
            runs[run] = self.run(record, f"runs.{run}")
        path_doc = self.get(doc, "size_path", "", (dict, type(None)), "an object or null")
        path, selected = (None, None) if path_doc is None else self.path(path_doc)
        price_doc = self.get(doc, "scale_price", "", (dict, type(None)), "an object or null")
        price = None if price_doc is None else self.run_price(price_doc, runs.get("unconstrained"))
        out: dict[str, Any] = {
            "data": data, "family": family, "settings": settings, "constraints": constraints,
            "runs": runs, "size_path": path, "selected": selected, "scale_price": price,
            "saved_by": saved_by,
        }  # fmt: skip
        out.update(self._optional(doc, family, len(constraints)))
        return out

    def _optional(self, doc: Mapping, family: str, n_constraints: int) -> dict[str, Any]:
        """The fields that later format versions added, those the document has."""
        out: dict[str, Any] = {}
        alt_doc = doc.get("alternatives")  # (format version 1 has none)
        if alt_doc is not None:
            if not isinstance(alt_doc, dict):
                raise self.fail("alternatives", "must be an object or null")
            out["alternatives"], out["alternatives_selected"] = decode_alternatives(
                alt_doc, family, self.model, self.fail
            )
        audit_doc = doc.get("audit")  # (format versions 1 and 2 have none)
        if audit_doc is not None:
            out["audit"] = self.audit(audit_doc)
        if "binarization" in doc:  # (format versions 1 to 3 have none)
            out["binarization"] = self.binarization(doc["binarization"])
        if "rules" in doc:
            out["rules"] = self.rules(doc["rules"], n_constraints)
        return out

    def binarization(self, b: Any) -> Binarization:
        try:
            return Binarization.from_dict(b)
        except InputError as exc:
            raise self.fail("binarization", str(exc)) from None

    def rules(self, rules: Any, n: int) -> list[str]:
        if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
            raise self.fail("rules", "must be a list of sentences")
        if len(rules) != n:
            raise self.fail("rules", f"has {len(rules)} sentences for {n} constraints")
        return list(rules)

    def audit(self, a: Any) -> dict[str, Any]:
        if not isinstance(a, dict):
            raise self.fail("audit", "must be an object or null")
        extra = [k for k in a if k not in AUDIT_KEYS]
        if extra:
            raise self.fail(f"audit.{extra[0]}", "is not a setting of the By group view")
        out = self.settings(a, "audit")
        by = out.get("by", ())
        if not isinstance(by, tuple) or not all(isinstance(c, str) for c in by) or len(by) > 2:
            raise self.fail("audit.by", "must be a list of one or two column names")
        return out

    def family(self, name: str, where: str) -> str:
        try:
            return get_family(name).name
        except InputError as exc:
            raise self.fail(where, f"names {exc}") from None

    def data(self, d: Mapping) -> DataIdentity:
        w = "data"
        extra = [k for k in d if k not in {f.name for f in dataclasses.fields(DataIdentity)}]
        if extra:
            raise self.fail(f"data.{extra[0]}", "is not a field of the data's identity")
        source = self.get(d, "source", w, (str,), "a string")
        if source not in SOURCES:
            raise self.fail("data.source", f"must be 'bundled' or 'upload', got {source!r}")
        columns = self.get(d, "columns", w, (list,), "a list of column names")
        if not columns or not all(isinstance(c, str) for c in columns):
            raise self.fail("data.columns", "must be a non-empty list of column names")
        sha = self.get(d, "sha256", w, (str,), "a string")
        if not re.fullmatch(r"[0-9a-f]{64}", sha):
            raise self.fail("data.sha256", "must be 64 hexadecimal digits")
        rows = self.get(d, "rows", w, (int,), "a whole number")
        if rows < 1:
            raise self.fail("data.rows", f"must be positive, got {rows}")
        outcome = self.get(d, "outcome", w, (str,), "a column name")
        if outcome not in columns:
            raise self.fail("data.outcome", f"{outcome!r} is not one of data.columns")
        return DataIdentity(
            source=source,
            name=self.get(d, "name", w, (str,), "a string"),
            outcome=outcome,
            rows=rows,
            columns=tuple(columns),
            sha256=sha,
            table=self.get(d, "table", w, (str, type(None)), "CSV text or null"),
        )

    def settings(self, s: Mapping, where: str) -> dict[str, Any]:
        out = {}
        for key, value in s.items():
            out[key] = self.setting(value, f"{where}.{key}")
        return out

    def setting(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return tuple(self.setting(v, where) for v in value)
        raise self.fail(
            where, f"must be a number, a string, null or a list, got {json.dumps(value)[:60]}"
        )

    def constraints(self, records: list, family: str, where: str) -> list:
        out = []
        for i, record in enumerate(records):
            try:
                out.append(decode_constraint(record, family, f"{where}[{i}]"))
            except InputError as exc:
                raise InputError(f"{self.name}: {exc}") from None
        return out

    def model(self, record: Any, family: str, where: str) -> Any:
        if not isinstance(record, dict):
            raise self.fail(where, "must be a model document (an object)")
        fam = get_family(family)
        try:
            model = fam.model_type.from_dict(record)
            again = canonical(model.to_dict(include_trace=True))
        except Exception as exc:  # a malformed document: any error of the model's reader
            raise self.fail(
                where, f"is not a valid {fam.label.lower()}: {_one_line(exc)}"
            ) from None
        if again != record:
            raise self.fail(where, f"is not a {fam.label.lower()} as riskexplore writes it")
        return model

    def run(self, record: Any, where: str) -> StudyRun:
        if not isinstance(record, dict):
            raise self.fail(where, "must be an object")
        extra = [k for k in record if k not in ("family", "settings", "constraints", "model")]
        if extra:
            raise self.fail(f"{where}.{extra[0]}", "is not a field of a run")
        family = self.family(
            self.get(record, "family", where, (str,), "a family name"), f"{where}.family"
        )
        settings = self.settings(
            self.get(record, "settings", where, (dict,), "an object"), f"{where}.settings"
        )
        constraints = self.constraints(
            self.get(record, "constraints", where, (list,), "a list"),
            family,
            f"{where}.constraints",
        )
        model = self.model(
            self.get(record, "model", where, (dict,), "an object"), family, f"{where}.model"
        )
        return StudyRun(model, family, settings, constraints)

    def path(self, p: Mapping) -> tuple[SizePath, int | None]:
        w = "size_path"
        extra = [k for k in p if k not in ("family", "rows", "models", "selected")]
        if extra:
            raise self.fail(f"size_path.{extra[0]}", "is not a field of a size path")
        family = self.family(self.get(p, "family", w, (str,), "a family name"), "size_path.family")
        rows = self.get(p, "rows", w, (list,), "a list")
        models = self.get(p, "models", w, (list,), "a list")
        if len(rows) != len(models):
            raise self.fail("size_path", f"has {len(rows)} rows but {len(models)} models")
        decoded_rows = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not isinstance(row.get("size"), int):
                raise self.fail(f"size_path.rows[{i}]", "must be an object with a whole 'size'")
            for key, value in row.items():
                if not (value is None or isinstance(value, (bool, int, float, str))):
                    raise self.fail(
                        f"size_path.rows[{i}].{key}", "must be a number, a string or null"
                    )
            decoded_rows.append(decode(row))
        decoded_models = [
            None if m is None else self.model(m, family, f"size_path.models[{i}]")
            for i, m in enumerate(models)
        ]
        selected = self.get(p, "selected", w, (int, type(None)), "a size or null")
        if selected is not None and selected not in [r["size"] for r in rows]:
            raise self.fail("size_path.selected", f"{selected} is not a size of the path")
        return SizePath(decoded_rows, decoded_models, family), selected

    def run_price(self, p: Mapping, run):
        """The price of a fixed scale of the unconstrained run ``run`` (of its family)."""
        spec = None if run is None else get_family(run.family).scale_price
        if spec is None:
            raise self.fail("scale_price", "does not price the unconstrained run's model")
        price = self.price(p, run.family, spec.result_type)
        sides = [m.to_dict(include_trace=True) for m in (price.fixed, price.learned) if m]
        if run.model.to_dict(include_trace=True) not in sides:
            raise self.fail("scale_price", "does not price the unconstrained run's model")
        return price

    def price(self, p: Mapping, family: str, result_type: type):
        w = "scale_price"
        extra = [k for k in p if k not in ("fixed", "learned", "interval", "multiplier_range")]
        if extra:
            raise self.fail(f"{w}.{extra[0]}", "is not a field of the price of a fixed scale")
        fixed_doc = self.get(p, "fixed", w, (dict, type(None)), "a model or null")
        fixed = None if fixed_doc is None else self.model(fixed_doc, family, f"{w}.fixed")
        learned = self.model(self.get(p, "learned", w, (dict,), "a model"), family, f"{w}.learned")
        pairs = []
        for key in ("interval", "multiplier_range"):
            try:
                value = decode_value(self.get(p, key, w, (list,), "a list"), f"{w}.{key}")
            except InputError as exc:
                raise InputError(f"{self.name}: {exc}") from None
            if len(value) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
            ):
                raise self.fail(f"{w}.{key}", "must be two numbers")
            lo, hi = (float(v) for v in value)
            if not lo <= hi:
                raise self.fail(f"{w}.{key}", f"must be [low, high], got [{lo}, {hi}]")
            pairs.append((lo, hi))
        interval, multipliers = pairs
        if not (math.isfinite(multipliers[0]) and multipliers[0] > 0):
            raise self.fail(f"{w}.multiplier_range", "must be positive and finite")
        return result_type(fixed, learned, interval, multipliers)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if not isinstance(exc, InputError) else first
