"""What every family's recalibration shares: the outcome check, the record of the rows a
model was recalibrated on, and the line its card prints about them.

A recalibrated model keeps every point or item; only its score-to-risk map is refitted to
other rows (see :mod:`riskexplore.evaluation.validation`). Its ``stats["recalibrated"]``
says on how many rows, so the card can say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.errors import InputError

__all__ = ["checked_outcome", "recalibration_note", "recalibration_record"]


def checked_outcome(y, n_rows: int) -> np.ndarray:
    """``y`` as a 0/1 integer array of ``n_rows`` entries, or an :class:`InputError`.

    Validation and recalibration are strict: the outcome must be coded 0/1 (or
    True/False), 1 meaning the outcome happened, so that no guess decides which of two
    labels is the event.

    Parameters
    ----------
    y : array-like (n,)
        The observed outcome.
    n_rows : int
        The number of rows of ``X``.

    Returns
    -------
    ndarray of int
        The outcome.

    Raises
    ------
    InputError
        For a length other than ``n_rows``, missing values, or values other than 0 and 1.
    """
    values = np.asarray(y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y)
    values = values.ravel() if values.ndim > 1 and 1 in values.shape else values
    if values.ndim != 1:
        raise InputError(f"y must be one column of 0/1 outcomes, got shape {values.shape}")
    if len(values) != n_rows:
        raise InputError(f"X has {n_rows} rows but y has {len(values)}: give one outcome per row")
    if values.dtype == bool:
        return values.astype(np.int64)
    missing = pd.isna(values)
    if missing.any():
        raise InputError(
            f"y has {int(missing.sum())} missing outcome(s) (first at row "
            f"{int(np.flatnonzero(missing)[0])}): drop those rows first"
        )
    try:
        numbers = values.astype(float)
    except (TypeError, ValueError):
        numbers = None
    if numbers is None or not np.all(np.isin(numbers, (0.0, 1.0))):
        others = sorted({str(v) for v in values if numbers is None or v not in (0, 1)})
        raise InputError(
            f"y must be 0/1 (1 = the outcome happened), found {', '.join(others[:5])}: "
            "code the outcome as 0/1"
        )
    return numbers.astype(np.int64)


def recalibration_record(y: np.ndarray) -> dict[str, int]:
    """``{"rows": n, "events": e}``: what ``stats["recalibrated"]`` keeps.

    Parameters
    ----------
    y : ndarray
        The 0/1 outcome of the rows of the recalibration.

    Returns
    -------
    dict
        Rows and rows with the outcome.
    """
    return {"rows": int(len(y)), "events": int(np.sum(y))}


def recalibration_note(stats: Mapping[str, Any]) -> str:
    """The card's words about a recalibration (``"; risks recalibrated on 200 patients
    (31 with the outcome)"``), or ``""`` for a model that was not recalibrated.

    Parameters
    ----------
    stats : mapping
        The model's statistics.

    Returns
    -------
    str
        The note, starting with ``"; "``.
    """
    record = stats.get("recalibrated")
    if not isinstance(record, Mapping):
        return ""
    rows, events = int(record.get("rows", 0)), int(record.get("events", 0))
    return (
        f"; risks recalibrated on {rows} patient{'s' if rows != 1 else ''} "
        f"({events} with the outcome)"
    )
