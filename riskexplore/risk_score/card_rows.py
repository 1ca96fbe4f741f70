"""The rows of a score card, grouped by source variable.

A risk score fitted on a raw table (:mod:`riskexplore.risk_score.raw_table`) has items
such as ``"age ≥ 75"`` or ``"creatinine missing"``; its card lists the items of one column
together under the variable, as a clinical score sheet does::

    age          ≥ 75       2 points
    creatinine   missing    1 point

A row says "per unit" only for a feature used as a number: a column kept in ``linear``
or a real-valued feature of a model fitted without binarization; never for an item.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

from riskexplore.data.binarize import Binarizer

__all__ = ["CardRow", "card_rows", "points_table_html"]

_CELL = 'style="padding:3px 10px;border-bottom:1px solid #eee"'
#: The first row of a variable after another one: a darker line above it.
_FIRST = 'style="padding:3px 10px;border-bottom:1px solid #eee;border-top:2px solid #bbb"'


@dataclass(frozen=True)
class CardRow:
    """One row of a score card.

    Attributes
    ----------
    variable : str
        The source column of the item (the feature itself for a model without binarizer).
    label : str
        The item within its variable (``"≥ 75"``, ``"missing"``, ``"= M"``; ``"yes"`` and
        ``"no"`` for the items ``"fbs"`` and ``"not fbs"`` of a 0/1 column); empty for a
        feature that is not an item.
    name : str
        The feature's name (``"age ≥ 75"``).
    points : int
        Its points.
    per_unit : bool
        The points count once per unit of a number (not for a 0/1 item).
    """

    variable: str
    label: str
    name: str
    points: int
    per_unit: bool

    @property
    def points_text(self) -> str:
        """``"2 points"``, ``"-1 point"``, ``"1 point per unit"``."""
        unit = "point" if abs(self.points) == 1 else "points"
        return f"{self.points} {unit}" + (" per unit" if self.per_unit else "")


def card_rows(
    points: Mapping[str, int], feature_info: Mapping | None, binarizer: Binarizer | None
) -> list[CardRow]:
    """The rows of a card: the features with points, the items of one variable together.

    Parameters
    ----------
    points : mapping feature -> int
        The features in the model (non-zero points), in the model's order.
    feature_info : mapping or None
        Feature -> ``{"min", "max", "integer"}`` on the training data (None: every
        feature counts as 0/1).
    binarizer : Binarizer or None
        The binarizer of a model fitted on a raw table.

    Returns
    -------
    list of CardRow
        Grouped by variable, the variables in the order of their first feature.
    """
    groups = {} if binarizer is None else binarizer.item_groups_
    order: dict[str, int] = {}
    rows = []
    for name, p in points.items():
        variable = groups.get(name, name)
        order.setdefault(variable, len(order))
        item = name in groups
        per_unit = not item and not _binary((feature_info or {}).get(name))
        label = _label(name, variable) if item else ""
        rows.append(CardRow(variable, label, name, int(p), per_unit))
    return sorted(rows, key=lambda row: order[row.variable])  # stable: items keep their order


def _binary(info) -> bool:
    return info is None or (info["integer"] and info["min"] >= 0 and info["max"] <= 1)


def _label(name: str, variable: str) -> str:
    """The item without its variable: ``"age ≥ 75"`` -> ``"≥ 75"``; a 0/1 column's items
    ``"fbs"`` and ``"not fbs"`` -> ``"yes"`` and ``"no"``."""
    if name == variable:
        return "yes"
    if name.startswith(f"{variable} "):
        return name[len(variable) + 1 :]
    if name == f"not {variable}":
        return "no"
    return name


def points_table_html(rows: list[CardRow], by_variable: bool) -> str:
    """The points table of the HTML card.

    Parameters
    ----------
    rows : list of CardRow
        The card's rows (see :func:`card_rows`).
    by_variable : bool
        Show the variable once in its own column, above its items, which show only the
        rest of their name (a model fitted on a raw table); otherwise one column of
        feature names.

    Returns
    -------
    str
        An HTML table.
    """
    esc = html.escape
    out = ['<table class="rx-points" style="border-collapse:collapse">']
    previous = None
    for i, row in enumerate(rows, start=1):
        td = _FIRST if by_variable and previous not in (None, row.variable) else _CELL
        if by_variable:
            shown = "" if row.variable == previous else esc(row.variable)
            names = f'<td {td} class="rx-variable">{shown}</td><td {td}>{esc(row.label)}</td>'
        else:
            names = f"<td {td}>{esc(row.name)}</td>"
        out.append(
            f"<tr><td {td}>{i}.</td>{names}"
            f'<td {td} align="right">{esc(row.points_text)}</td>'
            f"<td {td}>{'' if i == 1 else '+'} &hellip;</td></tr>"
        )
        previous = row.variable
    span = ' colspan="2"' if by_variable else ""
    out.append(
        f"<tr><td {_CELL}></td><td {_CELL}{span}><b>ADD POINTS FROM ROWS 1&ndash;{len(rows)}"
        f'</b></td><td {_CELL} align="right"><b>SCORE</b></td><td {_CELL}>= &hellip;</td></tr>'
    )
    out.append("</table>")
    return "\n".join(out)
