"""Study files: an exploration kept as data (JSON), to open again later or to share.

A study holds what an :class:`~riskexplore.widgets.explorer.widget.Explorer` shows:

* the data's **identity** — the bundled dataset's name, or the name of an uploaded file —
  with the outcome, the number of rows, the columns and a SHA-256 hash of the table
  (:func:`~riskexplore.exploration.study.data.table_digest`); the patients' rows themselves
  only when asked (``include_data=True``);
* the model family and the **settings**;
* how the raw table became items (the **binarization** of step 2: the user's cut points,
  the columns read as categories or kept as numbers;
  :class:`~riskexplore.exploration.binarization.Binarization`); each model keeps its own
  fitted binarizer in its document;
* the active **constraints**, each as ``{"type": class name, "fields": {...}}`` over a
  whitelist: the readable constraint classes of the registered families
  (:attr:`~riskexplore.core.registry.ModelFamily.constraint_types`), and the same
  **rules** in plain words ("Do not use age", "Use age only as age ≥ 65"; for people
  reading the file, never read back as rules). Constraints written as Pyomo models (or
  raw rows) cannot be saved: :func:`~riskexplore.exploration.study.codec.encode_constraint`
  says so;
* every **run** on the current data: its model with its certificate and its solve trace,
  the settings and the constraints it was solved with;
* the **size path**, if one was computed: its rows, its models and the size selected;
* for a risk score, the certified **price of a fixed scale** of the unconstrained run, if
  it was worked out: both models and the interval (opening the study does not solve it
  again);
* the **near-optimal set** of the "Alternatives" step, if one was found: every model with
  its certified distance to the best one, the set's certificate of completeness and the
  model selected (:mod:`riskexplore.exploration.study.alternatives`; hand edits are not kept);
* the settings of the **"By group"** view (the group column or two, the run, training or
  held-out rows, the metric shown, the least group size), if a column was chosen: the
  audit itself is not kept, it is computed again on opening.

A study is data, never code: it is read with :func:`json.loads` only (no pickle, no
``eval``), every field is checked, constraint classes come from the whitelist alone, and a
model is accepted only if writing it again gives the same document. A SHA-256 checksum of
the canonical JSON (sorted keys, no spaces) of everything but the checksum detects edits
and damage (it is not a signature: whoever edits a file can recompute it, but the edited
file is still only data, checked as above). Bad files are refused with a one-line
:class:`~riskexplore.errors.InputError`.

This module is the document (:class:`Study`: writing it, and reading it back checked);
the JSON codec of its parts (constraints, values, models, settings) is
:mod:`riskexplore.exploration.study.codec`, its data's identity and the table a study is opened
on (:func:`~riskexplore.exploration.study.data.resolve_data`) are
:mod:`riskexplore.exploration.study.data`; their public names are importable from here too.

Plain Python (no Jupyter): :meth:`ExplorerState.to_study
<riskexplore.exploration.explorer.ExplorerState.to_study>` and
:meth:`~riskexplore.exploration.explorer.ExplorerState.from_study` use it, and
:meth:`Explorer.save_study <riskexplore.widgets.explorer.widget.Explorer.save_study>` /
:meth:`~riskexplore.widgets.explorer.widget.Explorer.open_study` on top of them.

Examples
--------
>>> from riskexplore.exploration.study.document import Study
>>> study = Study.read("mammo_study.json")  # doctest: +SKIP
>>> study.data.name, sorted(study.runs)  # doctest: +SKIP
('mammo', ['constrained', 'unconstrained'])
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from riskexplore import __version__
from riskexplore.core.jsonio import decode, encode, plain
from riskexplore.core.registry import family_of, get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.near_optimal import NearOptimalSet
from riskexplore.evaluation.paths import SizePath
from riskexplore.exploration.binarization import Binarization
from riskexplore.exploration.study.alternatives import decode_alternatives, encode_alternatives
from riskexplore.exploration.study.codec import (
    canonical,
    decode_constraint,
    decode_value,
    encode_constraint,
    encode_model,
    encode_settings,
    encode_value,
)
from riskexplore.exploration.study.data import (
    DataIdentity,
    ResolvedData,
    StudyWarning,
    resolve_data,
    table_digest,
)

__all__ = [
    "FORMAT",
    "MAX_STUDY_BYTES",
    "VERSION",
    "DataIdentity",
    "ResolvedData",
    "Study",
    "StudyRun",
    "StudyWarning",
    "checksum",
    "decode_constraint",
    "encode_constraint",
    "resolve_data",
    "table_digest",
]

#: The ``format`` field of every study file.
FORMAT = "riskexplore-study"
#: The format version this riskexplore writes (it reads every version up to it; version 2
#: added the near-optimal set, version 3 the settings of the "By group" view, version 4
#: the binarization of the raw table and the rules in plain words).
VERSION = 4
#: Largest study file accepted (100 MB: a 20 MB upload saved with its rows fits easily).
MAX_STUDY_BYTES = 100 * 2**20

_RUNS = ("unconstrained", "constrained")
_SOURCES = ("bundled", "upload")
_KEYS = (
    "format",
    "version",
    "saved_by",
    "data",
    "family",
    "settings",
    "constraints",
    "runs",
    "size_path",
    "scale_price",
    "alternatives",
    "audit",
    "binarization",
    "rules",
    "checksum",
)

#: The keys of the "By group" view's settings in a study.
_AUDIT_KEYS = ("by", "run", "data", "metric", "min_size")


@dataclass
class StudyRun:
    """One saved run: its model (with certificate and trace) and what it was solved with.

    Attributes
    ----------
    model : RiskScore or Checklist
        The fitted model.
    family : str
        Its model family.
    settings : dict
        The settings of the run.
    constraints : list
        Its constraints.
    """

    model: Any
    family: str
    settings: dict[str, Any]
    constraints: list


@dataclass
class Study:
    """An exploration as data: what :meth:`to_dict` writes and :meth:`from_dict` checks.

    Attributes
    ----------
    data : DataIdentity
        The data it was made on.
    family : str
        The model family chosen.
    settings : dict
        The settings (``time_limit``, ``test_fraction``, ``seed``, ``group_columns`` and
        each family's own).
    constraints : list
        The active constraints (of ``family``).
    runs : dict
        ``"unconstrained"`` / ``"constrained"`` -> :class:`StudyRun`.
    size_path : SizePath or None
        The size path, if one was computed.
    selected : int or None
        The size whose model the size path showed.
    scale_price : ScalePrice or None
        The certified price of a fixed scale of the unconstrained run (risk scores: a
        :class:`~riskexplore.risk_score.scale_price.ScalePrice`), if it was worked out.
    saved_by : str
        The riskexplore that wrote it (``"riskexplore 0.1.0"``).
    alternatives : NearOptimalSet or None
        The near-optimal set of the "Alternatives" step (of ``family``, its settings
        and constraints), if one was found.
    alternatives_selected : int or None
        The index of the model selected in it.
    audit : dict or None
        The settings of the "By group" view (``by``, ``run``, ``data``, ``metric``,
        ``min_size``), if a column was chosen.
    binarization : Binarization
        How the raw table became items (the user's choices of step 2).
    rules : list of str or None
        The constraints in plain words (None: their own ``describe()``).

    Examples
    --------
    >>> from riskexplore.widgets import ExplorerState
    >>> from riskexplore.exploration.study.document import Study
    >>> state = ExplorerState()
    >>> state.load_dataset("mammo")
    >>> study = state.to_study()
    >>> study.summary()
    "the bundled dataset 'mammo', outcome 'Malignant': 0 runs, 0 constraints"
    >>> Study.read(study.to_json()) == study  # exactly what was saved
    True
    >>> study.to_json("mammo_study.json")  # doctest: +SKIP
    """

    data: DataIdentity
    family: str
    settings: dict[str, Any]
    constraints: list = field(default_factory=list)
    runs: dict[str, StudyRun] = field(default_factory=dict)
    size_path: SizePath | None = None
    selected: int | None = None
    scale_price: Any = None
    saved_by: str = field(default_factory=lambda: _saved_by())
    alternatives: NearOptimalSet | None = None
    alternatives_selected: int | None = None
    audit: dict[str, Any] | None = None
    binarization: Binarization = field(default_factory=Binarization)
    rules: list[str] | None = None

    # --- writing ----------------------------------------------------------------------
    @classmethod
    def capture(
        cls,
        state: Any,
        constraints: Sequence = (),
        *,
        size_path: SizePath | None = None,
        selected: int | None = None,
        alternatives: tuple[NearOptimalSet, int | None] | None = None,
        audit: dict[str, Any] | None = None,
        include_data: bool = False,
    ) -> Study:
        """The study of an :class:`~riskexplore.exploration.explorer.ExplorerState`.

        Only the runs on the current data are kept (earlier data's runs are not shown
        either).

        Parameters
        ----------
        state : ExplorerState
            Data, outcome, settings and runs.
        constraints : sequence
            The active constraints.
        size_path : SizePath, optional
            The size path shown.
        selected : int, optional
            The size selected on the path.
        alternatives : (NearOptimalSet, int or None), optional
            The near-optimal set found for the current settings and constraints, and
            the index of the model selected in it.
        audit : dict, optional
            The settings of the "By group" view.
        include_data : bool
            Keep the patients' rows in the study (never by default).

        Returns
        -------
        Study
            The study (see :meth:`to_json` to write it).

        Raises
        ------
        InputError
            Without data and outcome, or for a constraint that cannot be saved.
        """
        if state.frame is None or state.outcome is None:
            raise InputError("nothing to save yet: load data and choose the outcome first")
        data = DataIdentity.of(
            state.frame, state.dataset, state.source, state.outcome, include_data
        )
        runs = {
            run: StudyRun(
                record.model, record.family, dict(record.settings), list(record.constraints)
            )
            for run, record in state.runs.items()
            if record.data_version == state.data_version and run in _RUNS
        }
        price = state.current_scale_price() if "unconstrained" in runs else None
        study = cls(
            data=data,
            family=state.family,
            settings=dict(state.settings),
            constraints=list(constraints),
            runs={run: runs[run] for run in _RUNS if run in runs},
            size_path=size_path,
            selected=None if selected is None else int(selected),
            scale_price=price,
        )
        if alternatives is not None and alternatives[0].family == study.family:
            study.alternatives, study.alternatives_selected = alternatives
        study.audit = None if audit is None else dict(audit)
        study.binarization = state.binarization.copy()
        study.rules = [state.describe_rule(c) for c in constraints]
        study.to_dict()  # refuses what cannot be saved (a Pyomo model, say) now
        return study

    def to_dict(self) -> dict[str, Any]:
        """The study document (strict JSON types), with its checksum.

        Returns
        -------
        dict
            ``format``, ``version``, ``saved_by``, ``data``, ``family``, ``settings``,
            ``constraints``, ``runs``, ``size_path``, ``scale_price``, ``alternatives``,
            ``audit``, ``binarization``, ``rules`` and ``checksum``.

        Raises
        ------
        InputError
            For a constraint or setting that cannot be saved.
        """
        d = self.data
        doc: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "saved_by": self.saved_by,
            "data": {
                "source": d.source,
                "name": d.name,
                "outcome": d.outcome,
                "rows": d.rows,
                "columns": list(d.columns),
                "sha256": d.sha256,
                "table": d.table,
            },
            "family": self.family,
            "settings": encode_settings(self.settings, "settings"),
            "constraints": [encode_constraint(c, self.family) for c in self.constraints],
            "runs": {
                run: {
                    "family": r.family,
                    "settings": encode_settings(r.settings, f"runs.{run}.settings"),
                    "constraints": [encode_constraint(c, r.family) for c in r.constraints],
                    "model": encode_model(r.model, r.family),
                }
                for run, r in self.runs.items()
            },
            "size_path": None if self.size_path is None else self._encode_path(),
            "scale_price": None if self.scale_price is None else self._encode_price(),
            "alternatives": None
            if self.alternatives is None
            else encode_alternatives(self.alternatives, self.alternatives_selected),
            "audit": None if self.audit is None else encode_settings(self.audit, "audit"),
            "binarization": self.binarization.to_dict(),
            "rules": self._rules(),
        }
        doc = canonical(doc)
        doc["checksum"] = checksum(doc)
        return doc

    def _rules(self) -> list[str]:
        """The constraints in plain words (their own ``describe()`` unless given)."""
        rules = self.rules
        if rules is None or len(rules) != len(self.constraints):
            rules = [c.describe() for c in self.constraints]
        return [str(r) for r in rules]

    def _encode_path(self) -> dict[str, Any]:
        path = self.size_path
        family = get_family(path.kind).name
        return {
            "family": family,
            "rows": [
                encode(plain({k: v for k, v in row.items() if k != "model"})) for row in path.rows
            ],
            "models": [None if m is None else encode_model(m, family) for m in path.models],
            "selected": self.selected,
        }

    def _encode_price(self) -> dict[str, Any]:
        price = self.scale_price
        family = family_of(price.learned).name
        fixed = None if price.fixed is None else encode_model(price.fixed, family)
        return {
            "fixed": fixed,
            "learned": encode_model(price.learned, family),
            "interval": encode_value(list(price.interval), "scale_price.interval"),
            "multiplier_range": encode_value(
                list(price.multiplier_range), "scale_price.multiplier_range", finite=True
            ),
        }

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 1) -> str:
        """The study as JSON text; also written to ``path`` when given.

        Parameters
        ----------
        path : str or Path, optional
            The file to write (``.json``).
        indent : int or None
            Indentation (None: one line).

        Returns
        -------
        str
            The JSON text.
        """
        text = json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    # --- reading ----------------------------------------------------------------------
    @classmethod
    def read(cls, source: str | Path | bytes | Mapping, name: str | None = None) -> Study:
        """A study from a file, its JSON text or bytes, or its parsed document.

        Parameters
        ----------
        source : str, Path, bytes or mapping
            The path of a study file, its content (text starting with ``{``, or bytes),
            or the dict of :meth:`to_dict`.
        name : str, optional
            The file's name in messages (default: the path's name, else ``"the study"``).

        Returns
        -------
        Study
            The study, checked.

        Raises
        ------
        InputError
            For a file that cannot be read, is not JSON, is not a study, was made by a
            newer riskexplore, fails its checksum or holds a malformed field.
        """
        if isinstance(source, Mapping):
            return cls.from_dict(source, name=name or "the study")
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
                if file.stat().st_size > MAX_STUDY_BYTES:
                    raise InputError(f"{label} is larger than {MAX_STUDY_BYTES // 2**20} MB")
                raw = file.read_bytes()
        if len(raw) > MAX_STUDY_BYTES:
            raise InputError(f"{label} is larger than {MAX_STUDY_BYTES // 2**20} MB")
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
        return cls.from_dict(doc, name=label)

    @classmethod
    def from_dict(cls, doc: Any, name: str = "the study") -> Study:
        """Check a study document and decode it.

        Parameters
        ----------
        doc : dict
            A document of :meth:`to_dict` (as parsed from JSON).
        name : str
            The study in messages.

        Returns
        -------
        Study
            The study.

        Raises
        ------
        InputError
            See :meth:`read`.
        """
        if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
            raise InputError(f'{name} is not a riskexplore study (no "format": {FORMAT!r})')
        version = doc.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise InputError(
                f"{name}: the format version must be a whole number ≥ 1, got {version!r}"
            )
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
        return _Decoder(name).study(doc)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Study):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def summary(self) -> str:
        """The study in one line: data, outcome, runs, constraints, size path.

        Returns
        -------
        str
            ``"the bundled dataset 'mammo', outcome 'Malignant': 2 runs, 1 constraint"``.
        """
        parts = [f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''}"]
        n = len(self.constraints)
        parts.append(f"{n} constraint{'s' if n != 1 else ''}")
        if self.size_path is not None:
            parts.append(f"a size path of {len(self.size_path.rows)} sizes")
        if self.alternatives is not None:
            n = len(self.alternatives)
            parts.append(f"{n} near-optimal model{'s' if n != 1 else ''}")
        return f"{self.data.describe()}, outcome {self.data.outcome!r}: " + ", ".join(parts)


def checksum(doc: Mapping[str, Any]) -> str:
    """``"sha256:<hex>"`` of the canonical JSON of ``doc`` (sorted keys, no spaces).

    Parameters
    ----------
    doc : mapping
        The study document without its ``checksum``.

    Returns
    -------
    str
        The checksum.
    """
    text = json.dumps(
        doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _saved_by() -> str:
    return f"riskexplore {__version__}"


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

    def study(self, doc: Mapping) -> Study:
        unknown = [k for k in doc if k not in _KEYS]
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
            if run not in _RUNS:
                raise self.fail(f"runs.{run}", "is not a run (unconstrained, constrained)")
            runs[run] = self.run(record, f"runs.{run}")
        path_doc = self.get(doc, "size_path", "", (dict, type(None)), "an object or null")
        path, selected = (None, None) if path_doc is None else self.path(path_doc)
        price_doc = self.get(doc, "scale_price", "", (dict, type(None)), "an object or null")
        price = None if price_doc is None else self.run_price(price_doc, runs.get("unconstrained"))
        study = Study(data, family, settings, constraints, runs, path, selected, price, saved_by)
        alt_doc = doc.get("alternatives")  # (format version 1 has none)
        if alt_doc is not None:
            if not isinstance(alt_doc, dict):
                raise self.fail("alternatives", "must be an object or null")
            study.alternatives, study.alternatives_selected = decode_alternatives(
                alt_doc, family, self.model, self.fail
            )
        audit_doc = doc.get("audit")  # (format versions 1 and 2 have none)
        if audit_doc is not None:
            study.audit = self.audit(audit_doc)
        if "binarization" in doc:  # (format versions 1 to 3 have none)
            study.binarization = self.binarization(doc["binarization"])
        if "rules" in doc:
            study.rules = self.rules(doc["rules"], len(constraints))
        return study

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
        extra = [k for k in a if k not in _AUDIT_KEYS]
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
        if source not in _SOURCES:
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
