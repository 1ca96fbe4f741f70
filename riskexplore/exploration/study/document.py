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

This module is the document (:class:`Study`: capturing and writing it, and its entry points
for reading); the format (name, version, fields, :class:`StudyRun`, the checksum) is
:mod:`riskexplore.exploration.study.format`, reading a file back checked field by field
:mod:`riskexplore.exploration.study.reading`, the JSON codec of its parts (constraints,
values, models, settings) :mod:`riskexplore.exploration.study.codec`, its data's identity and
the table a study is opened on (:func:`~riskexplore.exploration.study.data.resolve_data`)
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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from riskexplore.core.jsonio import encode, plain
from riskexplore.core.registry import family_of, get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.near_optimal import NearOptimalSet
from riskexplore.evaluation.paths import SizePath
from riskexplore.exploration.binarization import Binarization
from riskexplore.exploration.study.alternatives import encode_alternatives
from riskexplore.exploration.study.codec import (
    canonical,
    decode_constraint,
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
from riskexplore.exploration.study.format import (
    FORMAT,
    MAX_STUDY_BYTES,
    RUNS,
    VERSION,
    StudyRun,
    checksum,
    saved_by,
)
from riskexplore.exploration.study.reading import decode_study, read_document

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
    saved_by: str = field(default_factory=saved_by)
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
            if record.data_version == state.data_version and run in RUNS
        }
        price = state.current_scale_price() if "unconstrained" in runs else None
        study = cls(
            data=data,
            family=state.family,
            settings=dict(state.settings),
            constraints=list(constraints),
            runs={run: runs[run] for run in RUNS if run in runs},
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
        doc, label = read_document(source, name, MAX_STUDY_BYTES)
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
        return cls(**decode_study(doc, name))

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
