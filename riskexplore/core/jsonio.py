"""JSON helpers: the one place where non-finite floats are encoded for strict JSON.

Floats are kept exactly by JSON; non-finite ones are written as the strings ``"inf"``,
``"-inf"`` and ``"nan"`` (:func:`encode_float`, and :func:`encode` for nested values)
and read back as floats (:func:`decode_float`, :func:`decode`). Solve events, traces,
certificates and the model documents (:class:`RiskScore`, :class:`Checklist`) all use
these functions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from riskexplore.errors import InputError

__all__ = [
    "JsonDocument",
    "decode",
    "decode_float",
    "dump_json",
    "encode",
    "encode_float",
    "load_json",
    "plain",
]

_NONFINITE = ("inf", "-inf", "nan")


def plain(value: Any) -> Any:
    """Numpy scalars/arrays and tuples to plain Python (so JSON round-trips are exact).

    Parameters
    ----------
    value : Any
        A scalar, mapping or sequence, nested in any way.

    Returns
    -------
    Any
        The same structure of dicts (string keys), lists, bools, ints, floats, strings
        and ``None``; anything else as its ``repr``.
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    return repr(value)


def encode_float(value: float) -> float | str:
    """A float for strict JSON: itself when finite, else ``"inf"``, ``"-inf"`` or ``"nan"``.

    Parameters
    ----------
    value : float
        The number.

    Returns
    -------
    float or str
        ``float(value)``, or its string when it is not finite.
    """
    value = float(value)
    return value if math.isfinite(value) else str(value)


def decode_float(value: float | str) -> float:
    """The inverse of :func:`encode_float`.

    Parameters
    ----------
    value : float or str
        A number, or ``"inf"``, ``"-inf"`` or ``"nan"``.

    Returns
    -------
    float
        The number.
    """
    return float(value)


def encode(value: Any) -> Any:
    """Non-finite floats (nested in dicts and lists) as strings, for strict JSON.

    Parameters
    ----------
    value : Any
        A plain value (see :func:`plain`).

    Returns
    -------
    Any
        ``value`` with ``inf``, ``-inf`` and ``nan`` replaced by their strings.
    """
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, float):
        return encode_float(value)
    return value


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`.

    Parameters
    ----------
    value : Any
        A value read from JSON.

    Returns
    -------
    Any
        ``value`` with the strings ``"inf"``, ``"-inf"`` and ``"nan"`` as floats.
    """
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, str) and value in _NONFINITE:
        return decode_float(value)
    return value


def dump_json(data: Mapping[str, Any], path: str | Path | None, indent: int | None) -> str:
    """Strict JSON text of ``data``; also written (with a final newline) to ``path``.

    Parameters
    ----------
    data : dict
        A JSON-ready document.
    path : str, Path or None
        Where to write the text, if anywhere.
    indent : int or None
        Indentation of :func:`json.dumps`.

    Returns
    -------
    str
        The JSON text.
    """
    text = json.dumps(data, indent=indent, allow_nan=False)
    if path is not None:
        Path(path).write_text(text + "\n")
    return text


def load_json(source: str | Path, what: str) -> Any:
    """Parse JSON text, or the file at ``source`` when it is a path.

    Parameters
    ----------
    source : str or Path
        JSON text (a string starting with ``{``) or the path of a JSON file.
    what : str
        The kind of document, for the error message (``"risk score"``).

    Returns
    -------
    Any
        The parsed document.

    Raises
    ------
    InputError
        If the text is not valid JSON.
    """
    text = str(source) if not isinstance(source, Path) else None
    if text is None or not text.lstrip().startswith("{"):
        text = Path(source).read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid {what} JSON: {exc}") from None


class JsonDocument:
    """JSON text, JSON files and equality for a model with ``to_dict`` / ``from_dict``.

    Subclasses define ``to_dict(include_trace=False)``, the class method
    ``from_dict(data)`` and ``json_kind``, the document's name in error messages. Two
    models are equal when their dicts are; models are not hashable (they are mutable).
    """

    #: Name of the document in error messages (``"invalid risk score JSON: ..."``).
    json_kind: ClassVar[str] = "model"

    #: The problem (training data and settings) a fitted model came from: kept by the fit
    #: for hand edits, never serialised (neither to JSON nor by pickling).
    _problem: Any = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_problem", None)
        return state

    def to_json(
        self, path: str | Path | None = None, *, include_trace: bool = False, indent: int | None = 2
    ) -> str:
        """JSON text of :meth:`to_dict`; also written to ``path`` when given."""
        return dump_json(self.to_dict(include_trace), path, indent)  # type: ignore[attr-defined]

    @classmethod
    def from_json(cls, source: str | Path) -> Self:
        """A model from JSON text or from the path of a JSON file."""
        return cls.from_dict(load_json(source, cls.json_kind))  # type: ignore[attr-defined]

    @classmethod
    def check_document(
        cls,
        data: Mapping[str, Any],
        format_name: str,
        newest: int | None = None,
        *,
        required: bool = False,
    ) -> None:
        """Raise :class:`InputError` unless ``data`` is a document of ``format_name`` that this
        version reads.

        Parameters
        ----------
        data : mapping
            The document.
        format_name : str
            Its ``format`` field.
        newest : int, optional
            The newest ``version`` this version reads (None: any).
        required : bool
            Whether the ``format`` field must be there (else a document without one is
            taken as of ``format_name``).
        """
        given = data.get("format") if required else data.get("format", format_name)
        if given != format_name:
            raise InputError(f"not a {cls.json_kind} document (format {data.get('format')!r})")
        version = data.get("version", 1)
        if newest is not None and isinstance(version, int) and version > newest:
            raise InputError(
                f"{cls.json_kind} document version {version} is newer than this riskexplore "
                f"reads ({newest}); upgrade riskexplore"
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]
