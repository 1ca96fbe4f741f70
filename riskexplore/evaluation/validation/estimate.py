"""One validation figure with its interval: ``estimate``, ``lower``, ``upper``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Estimate", "json_number"]


def json_number(value: Any) -> float | int | None:
    """A number for a JSON document: ``None`` for a missing value or ``nan``.

    Parameters
    ----------
    value : number or None
        The number.

    Returns
    -------
    float, int or None
        The number as a plain Python value.
    """
    if value is None:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    number = float(value)
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class Estimate:
    """A figure and its confidence interval (``nan`` where there is none).

    Attributes
    ----------
    estimate : float
        The figure (``nan`` when it cannot be computed on the rows).
    lower, upper : float
        Its interval (``nan`` when the figure has none, e.g. the Brier score).
    method : str or None
        How the interval was made, when it matters to a reader (``"DeLong"``).
    """

    estimate: float
    lower: float = math.nan
    upper: float = math.nan
    method: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"estimate", "lower", "upper"}`` (and ``"method"``), ``nan`` as None.

        Returns
        -------
        dict
            JSON-ready values.
        """
        out: dict[str, Any] = {
            "estimate": json_number(self.estimate),
            "lower": json_number(self.lower),
            "upper": json_number(self.upper),
        }
        if self.method is not None:
            out["method"] = self.method
        return out
