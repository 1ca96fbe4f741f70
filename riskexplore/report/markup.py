"""Small HTML pieces the report's sections share: escaped text, tables, sections and
numbers in plain words (never scientific notation)."""

from __future__ import annotations

import decimal
import html
import math
from collections.abc import Iterable, Sequence
from typing import Any

from riskexplore.core.plain_numbers import plain_number

__all__ = ["esc", "number", "paragraph", "percent", "section", "setting", "table"]


def esc(value: Any) -> str:
    """``value`` as escaped HTML text.

    Parameters
    ----------
    value : Any
        The value (its ``str``).

    Returns
    -------
    str
        The HTML text.
    """
    return html.escape(str(value))


def number(value: Any, digits: int = 3) -> str:
    """A number in plain decimal notation (``—`` for None or NaN).

    Parameters
    ----------
    value : float or None
        The number.
    digits : int
        Significant digits.

    Returns
    -------
    str
        The text.
    """
    if value is None:
        return "—"
    v = float(value)
    if v != v:
        return "—"
    return plain_number(v, digits).replace("-", "−")


def setting(value: Any) -> str:
    """A setting's value as written, numbers in full decimal notation (a ``c0`` of
    ``1e-06`` is ``0.000001``: no scientific notation on the page).

    Parameters
    ----------
    value : Any
        The value.

    Returns
    -------
    str
        The text.
    """
    if isinstance(value, float) and math.isfinite(value):
        return format(decimal.Decimal(repr(value)), "f")
    return str(value)


def percent(value: Any, places: int = 1) -> str:
    """A fraction as a percentage (``12.5%``; ``—`` for None or NaN).

    Parameters
    ----------
    value : float or None
        The fraction.
    places : int
        Decimal places of the percentage.

    Returns
    -------
    str
        The text.
    """
    if value is None or float(value) != float(value):
        return "—"
    return f"{100 * float(value):.{places}f}%"


def paragraph(text: str, cls: str | None = None) -> str:
    """An escaped paragraph.

    Parameters
    ----------
    text : str
        The paragraph's text (escaped here).
    cls : str, optional
        Its CSS class.

    Returns
    -------
    str
        The HTML.
    """
    attr = f' class="{cls}"' if cls else ""
    return f"<p{attr}>{esc(text)}</p>"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], cls: str = "rx-table") -> str:
    """A table of escaped text (numbers are formatted before: cells are shown as given).

    Parameters
    ----------
    headers : sequence of str
        The column headers.
    rows : iterable of sequences
        The rows' cells.
    cls : str
        The table's CSS class.

    Returns
    -------
    str
        The HTML.
    """
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def section(anchor: str, title: str, body: str) -> str:
    """A report section: an anchor, a heading and its body (kept on one printed page
    where it fits).

    Parameters
    ----------
    anchor : str
        The section's id (the TRIPOD table links to it).
    title : str
        The heading.
    body : str
        The HTML inside.

    Returns
    -------
    str
        The HTML.
    """
    return f'<section id="{esc(anchor)}"><h2>{esc(title)}</h2>\n{body}\n</section>'
