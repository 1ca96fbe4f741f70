"""Numbers in plain decimal notation, for pages read by clinicians (never ``1.8e-29``)."""

from __future__ import annotations

import math

__all__ = ["plain_number"]


def plain_number(value: float, digits: int = 4) -> str:
    """A finite number in plain decimal notation (never scientific), ``digits`` significant:
    ``0.4686``, ``12,346``, ``< 0.0001`` for a positive number below the last digit shown.

    Parameters
    ----------
    value : float
        The number.
    digits : int
        Significant digits.

    Returns
    -------
    str
        The text.
    """
    v = float(value)
    smallest = 10.0**-digits
    if v == 0 or abs(v) < smallest / 2:
        return "0" if v == 0 or v < 0 else f"< {smallest:.{digits}f}"
    if abs(v) >= 10 ** (digits - 1):
        return f"{v:,.0f}"
    places = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    places = min(places, digits)  # 0.00012345 -> 0.0001: plain, not 0.0001235
    text = f"{v:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
