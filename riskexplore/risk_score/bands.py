"""Monotone bands: a column's thresholds used together, their points of one sign.

By default a risk score fitted on a raw table uses at most one item of each column
(:func:`~riskexplore.risk_score.raw_table.one_per_variable`). With
``bands=["age"]`` (of :func:`~riskexplore.risk_score.fit.fit_risk_score`), the nested
threshold items of ``age`` (``age ≥ 65``, ``age ≥ 75``) may be used together, and all
their points have one sign, so that the column adds a monotone step function to the
score; the card shows it as bands with cumulative points::

    age 65–74     1 point
    age ≥ 75      3 points

The sign comes from the column's *direction*: ``"increasing"`` (points >= 0: the score
never falls as the value rises), ``"decreasing"`` (points <= 0), or ``"auto"`` (the
default): increasing when the column's mean is at least as high among the positive rows
as among the negative ones (non-missing values, with the sample weights), else
decreasing. An optional ``max_bands`` limits how many of the column's thresholds are
used (:class:`~riskexplore.risk_score.constraints.AtMostKOf`). The signs are coefficient
bounds (``signs=`` of the problem), which every engine honours, so the certificate
covers the choice of thresholds and points under the monotone rule; with ``"auto"`` it
covers the direction chosen, not the other one. The column's ``"col missing"`` item,
if any, keeps its own points of either sign.

The fitted model keeps the band settings in ``model.stats["bands"]`` (saved with it);
:func:`band_rows` writes a band column's rows of the score card.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.data.binarize import Binarizer, Item, format_value
from riskexplore.data.validation import check_training_data
from riskexplore.errors import InputError
from riskexplore.risk_score.card_rows import CardRow
from riskexplore.risk_score.constraints import AtMostKOf
from riskexplore.risk_score.raw_table import RawItems

__all__ = ["DIRECTIONS", "Band", "apply_bands", "band_columns", "band_rows", "parse_bands"]

#: The directions of a band column (``"auto"``: from the column's association).
DIRECTIONS = ("increasing", "decreasing", "auto")
#: Operators of the threshold items that nest upwards (``col ≥ v``, ``col > v``).
_LOWER_BOUNDS = (">=", ">")


@dataclass(frozen=True)
class Band:
    """The band rule of one column.

    Attributes
    ----------
    column : str
        The raw column.
    direction : {"increasing", "decreasing"}
        The sign of every threshold item's points (>= 0, or <= 0).
    items : tuple of str
        The column's threshold items, by increasing cut-off.
    max_bands : int or None
        At most this many of the items (None: no limit).
    integer : bool
        Whether the column's values are whole numbers (bands read ``65–74``).
    """

    column: str
    direction: str
    items: tuple[str, ...]
    max_bands: int | None
    integer: bool

    def record(self) -> dict[str, Any]:
        """The settings kept in ``model.stats["bands"][column]``."""
        return {"direction": self.direction, "max_bands": self.max_bands, "integer": self.integer}


def parse_bands(bands) -> dict[str, dict[str, Any]]:
    """The ``bands`` argument as ``{column: {"direction": ..., "max_bands": ...}}``.

    Parameters
    ----------
    bands : None, str, iterable of str, or mapping
        ``["age", "sbp"]`` (direction ``"auto"``), ``{"age": "increasing"}`` or
        ``{"age": {"direction": "increasing", "max_bands": 2}}``.

    Returns
    -------
    dict
        One entry per column (empty for None).

    Raises
    ------
    InputError
        For another type, an unknown direction or a ``max_bands`` that is not a whole
        number of at least 1.
    """
    if bands is None:
        return {}
    if isinstance(bands, str):
        bands = [bands]
    if not isinstance(bands, Mapping):
        if not isinstance(bands, Iterable) or not all(isinstance(c, str) for c in bands):
            raise InputError(
                "bands must be a list of column names or a mapping {column: direction}, "
                f"got {bands!r}"
            )
        bands = dict.fromkeys(bands, "auto")
    return {str(col): _band_setting(str(col), spec) for col, spec in bands.items()}


def _band_setting(column: str, spec) -> dict[str, Any]:
    if isinstance(spec, str):
        spec = {"direction": spec}
    if not isinstance(spec, Mapping) or not set(spec) <= {"direction", "max_bands"}:
        raise InputError(
            f"bands of {column!r}: give a direction ('increasing', 'decreasing', 'auto') or "
            f"{{'direction': ..., 'max_bands': ...}}, got {spec!r}"
        )
    direction = spec.get("direction", "auto")
    if direction not in DIRECTIONS:
        raise InputError(
            f"bands of {column!r}: direction must be 'increasing', 'decreasing' or 'auto', "
            f"got {direction!r}"
        )
    limit = spec.get("max_bands")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InputError(
            f"bands of {column!r}: max_bands must be a whole number >= 1, got {limit!r}"
        )
    return {"direction": direction, "max_bands": limit}


def _threshold_items(
    binarizer: Binarizer, column: str, linear: Sequence[str], columns: Sequence[str]
) -> list[Item]:
    """The column's threshold items by increasing cut-off, after checking that the column
    (of the raw table's ``columns``) can be banded."""
    if column in linear:
        raise InputError(f"bands: column {column!r} is linear (points per unit); choose one")
    if column not in {str(c) for c in binarizer.feature_names_in_}:
        if column in columns:
            raise InputError(f"bands: column {column!r} gave no items to band")
        raise InputError(f"bands names a column not in the data: {column!r}")
    kind = binarizer.column_kinds_.get(column)
    if kind not in ("numeric", "thresholds"):
        why = binarizer.dropped_columns_.get(column, kind)
        raise InputError(
            f"bands: column {column!r} is {why}; bands need a numeric column with cut-offs"
        )
    items = [i for i in binarizer.items_ if i.column == column and i.op != "missing"]
    upper = [i.name for i in items if i.op not in _LOWER_BOUNDS]
    if upper:
        raise InputError(
            f"bands: column {column!r} has items below a cut-off ({', '.join(upper)}); "
            "bands need cut-offs of the form 'col ≥ v' (a Binarizer with complements=False)"
        )
    return sorted(items, key=lambda i: (float(i.value), i.op == ">"))


def _direction(setting: str, values: np.ndarray, positive: np.ndarray, w: np.ndarray) -> str:
    """The direction of a setting; ``"auto"``: from the column's weighted means among the
    positive and the negative rows (non-missing values)."""
    if setting != "auto":
        return setting
    present = ~np.isnan(values) & (w > 0)
    pos, neg = present & positive, present & ~positive
    if not pos.any() or not neg.any():
        return "increasing"
    rise = np.average(values[pos], weights=w[pos]) - np.average(values[neg], weights=w[neg])
    return "increasing" if rise >= 0 else "decreasing"


def band_columns(
    bands, raw: RawItems, X: pd.DataFrame, y, linear: Iterable[str] = (), sample_weight=None
) -> list[Band]:
    """The :class:`Band` of each column named in ``bands``.

    Parameters
    ----------
    bands : see :func:`parse_bands`
    raw : RawItems
        The items of the raw table (:func:`~riskexplore.risk_score.raw_table.binarize_table`).
    X : DataFrame
        The raw table.
    y : array-like
        The outcome (for ``"auto"`` directions).
    linear : iterable of str
        The columns kept as numbers.
    sample_weight : array-like, optional
        Row weights (for ``"auto"`` directions).

    Returns
    -------
    list of Band
        In the order given.

    Raises
    ------
    InputError
        For a column that is not in the data, linear, not numeric, or has items below a
        cut-off.
    """
    settings = parse_bands(bands)
    if not settings:
        return []
    positive = w = None
    if any(s["direction"] == "auto" for s in settings.values()):
        _, y_pm, w, _ = check_training_data(raw.X, y, sample_weight)
        positive = y_pm > 0
    linear = [str(c) for c in linear]
    X = X.set_axis([str(c) for c in X.columns], axis=1)  # named as the items name them
    out = []
    for column, setting in settings.items():
        items = _threshold_items(raw.binarizer, column, linear, list(X.columns))
        values = pd.to_numeric(X[column]).to_numpy(dtype=float, na_value=np.nan)
        present = values[~np.isnan(values)]
        direction = _direction(setting["direction"], values, positive, w)
        integer = bool(np.all(present == np.round(present)))
        names = tuple(i.name for i in items)
        out.append(Band(column, direction, names, setting["max_bands"], integer))
    return out


def apply_bands(
    bands, raw: RawItems, X: pd.DataFrame, y, linear: Iterable[str], problem_kwargs: dict
) -> tuple[tuple, dict[str, Any] | None]:
    """The constraints of a raw table with bands, and the band record of the model.

    The one-per-variable rule of a band column is dropped (its threshold items may be
    used together), an ``AtMostKOf(items, max_bands)`` is added when ``max_bands`` is
    set, and the signs of the items are added to ``problem_kwargs["signs"]`` (in place).

    Parameters
    ----------
    bands : see :func:`parse_bands`
    raw : RawItems
        The items, binarizer and one-per-variable constraints of the raw table.
    X : DataFrame
        The raw table.
    y : array-like
        The outcome.
    linear : iterable of str
        The columns kept as numbers.
    problem_kwargs : dict
        The problem's further arguments (``signs``, ``sample_weight``, ...).

    Returns
    -------
    constraints : tuple
        ``raw.constraints`` with the band rules.
    record : dict or None
        ``{column: Band.record()}`` for ``model.stats["bands"]``; None without bands.

    Raises
    ------
    InputError
        For a column that cannot be banded, a coefficient set given with bands, or signs
        given against a band's direction.
    """
    columns = band_columns(bands, raw, X, y, linear, problem_kwargs.get("sample_weight"))
    if not columns:
        return raw.constraints, None
    if problem_kwargs.get("coefficient_set") is not None:
        raise InputError("bands set signs of points: give bounds and signs, not a coefficient_set")
    signs = dict(problem_kwargs.get("signs") or {})
    banded = set()
    rules = []
    for band in columns:
        sign = 1 if band.direction == "increasing" else -1
        clash = [n for n in band.items if signs.get(n, sign) != sign]
        if clash:
            raise InputError(
                f"bands: {band.column!r} is {band.direction} but signs= gives "
                f"{', '.join(clash)} the other sign"
            )
        signs.update(dict.fromkeys(band.items, sign))
        banded.update(band.items)
        if band.max_bands is not None and band.max_bands < len(band.items):
            rules.append(AtMostKOf(band.items, band.max_bands))
    problem_kwargs["signs"] = signs
    kept = [c for c in raw.constraints if not set(getattr(c, "features", ())) & banded]
    return (*kept, *rules), {band.column: band.record() for band in columns}


# --- the score card ----------------------------------------------------------------------
def band_rows(
    rows: Sequence[CardRow],
    points: Mapping[str, int],
    binarizer: Binarizer | None,
    record: Mapping[str, Mapping[str, Any]] | None,
) -> list[CardRow]:
    """The card's rows with each band column's threshold items as bands.

    A band column with two or more thresholds in the model gets one row per band, in
    place of its first threshold's row: the band's range (``age 65–74``, ``1.2 ≤ crea <
    2``, the top band ``age ≥ 75``) and its cumulative points (the points of every
    threshold at or below it). Other rows stay as they are.

    Parameters
    ----------
    rows : sequence of CardRow
        The card's rows, one per item with points
        (:func:`~riskexplore.risk_score.card_rows.card_rows`).
    points : mapping item -> int
        The model's non-zero points.
    binarizer : Binarizer or None
        The model's binarizer.
    record : mapping or None
        ``model.stats.get("bands")``: ``{column: {"integer": ...}}``.

    Returns
    -------
    list of CardRow
        The rows (a band's label is its range, ``"65–74"`` or ``"1.2 ≤ crea < 2"``).
    """
    if not record or binarizer is None:
        return list(rows)
    replaced: dict[str, list[CardRow]] = {}
    for column, setting in record.items():
        used = [
            i
            for i in binarizer.items_
            if i.column == column and i.op in _LOWER_BOUNDS and points.get(i.name, 0)
        ]
        if len(used) < 2:
            continue
        used.sort(key=lambda i: (float(i.value), i.op == ">"))
        replaced.update(dict.fromkeys((i.name for i in used[1:]), []))
        replaced[used[0].name] = _bands_of(used, points, bool(setting.get("integer")))
    out: list[CardRow] = []
    for row in rows:
        out.extend(replaced.get(row.name, [row]))
    return out


def _bands_of(used: list[Item], points: Mapping[str, int], integer: bool) -> list[CardRow]:
    """The bands of the thresholds ``used`` (sorted): one row per band, with its range and
    its cumulative points."""
    out, total = [], 0
    column = used[0].column
    for k, item in enumerate(used):
        total += int(points[item.name])
        name = item.name if k + 1 == len(used) else _band_label(item, used[k + 1], integer)
        label = name[len(column) :].strip() if name.startswith(f"{column} ") else name
        out.append(CardRow(column, label, name, total, per_unit=False))
    return out


def _band_label(low: Item, high: Item, integer: bool) -> str:
    """``age 65–74`` (whole numbers) or ``1.2 ≤ crea < 2``: the values at or above
    ``low`` and below ``high``."""
    a, b = float(low.value), float(high.value)
    if integer:
        first = math.ceil(a) if low.op == ">=" else math.floor(a) + 1
        last = math.ceil(b) - 1 if high.op == ">=" else math.floor(b)
        if first == last:
            return f"{low.column} {first}"
        if first < last:
            return f"{low.column} {first}–{last}"
    left = "≤" if low.op == ">=" else "<"
    right = "<" if high.op == ">=" else "≤"
    return f"{format_value(a)} {left} {low.column} {right} {format_value(b)}"
