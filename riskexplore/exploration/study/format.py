"""The format of study files: its name and version, the fields of a document, a saved
run (:class:`StudyRun`) and the checksum that detects edits.

:mod:`riskexplore.exploration.study.document` writes studies in this format and
:mod:`riskexplore.exploration.study.reading` reads them back checked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from riskexplore import __version__

__all__ = [
    "AUDIT_KEYS",
    "FORMAT",
    "KEYS",
    "MAX_STUDY_BYTES",
    "RUNS",
    "SOURCES",
    "VERSION",
    "StudyRun",
    "checksum",
    "saved_by",
]

#: The ``format`` field of every study file.
FORMAT = "riskexplore-study"
#: The format version this riskexplore writes (it reads every version up to it; version 2
#: added the near-optimal set, version 3 the settings of the "By group" view, version 4
#: the binarization of the raw table and the rules in plain words).
VERSION = 4
#: Largest study file accepted (100 MB: a 20 MB upload saved with its rows fits easily).
MAX_STUDY_BYTES = 100 * 2**20

#: The runs a study keeps, in order.
RUNS = ("unconstrained", "constrained")
#: Where a study's data come from.
SOURCES = ("bundled", "upload")
#: The fields of a study document.
KEYS = (
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
AUDIT_KEYS = ("by", "run", "data", "metric", "min_size")


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


def saved_by() -> str:
    """``"riskexplore <version>"``: the riskexplore that writes a study now."""
    return f"riskexplore {__version__}"
