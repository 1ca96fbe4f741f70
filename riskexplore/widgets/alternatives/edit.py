"""The edit controls of the "Alternatives" view: change the model shown by hand.

For a risk score, one line per feature with ``−``/``+`` buttons and its points; for a
checklist, a checkbox per item (one line per characteristic) and ``−``/``+`` for the
number of checked items ``M`` that flags a patient. :class:`EditControls` builds them for
the rows of :meth:`AlternativesState.edit_rows
<riskexplore.exploration.alternatives.AlternativesState.edit_rows>` (again only when the
rows change) and shows their values; a click calls back the view, which edits its state.

The blocks carry CSS classes for pages and browser tests: ``rx-alt-edit`` (the box),
``rx-alt-row`` (a feature's line), ``rx-alt-item`` (a checkbox), ``rx-alt-group`` (a
characteristic's line), ``rx-alt-minus`` and ``rx-alt-plus`` (the buttons),
``rx-alt-points`` (a feature's points).

Examples
--------
The view makes them (``view.edits``); on their own:

>>> from riskexplore.widgets.alternatives.edit import EditControls
>>> edits = EditControls(print, print, print)
>>> edits.item_boxes
{}
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from riskexplore.widgets.alternatives.html import FONT

__all__ = ["EditControls"]

#: The key of the threshold's text among the rows of a checklist.
_THRESHOLD = "__M__"


class EditControls:
    """The edit controls of the model shown, calling back on each change.

    Parameters
    ----------
    change_points : callable
        ``(feature, delta)``: a ``−`` (``delta=-1``) or ``+`` (``+1``) of a risk score.
    set_item : callable
        ``(item, on)``: a checklist's checkbox ticked or cleared.
    change_threshold : callable
        ``(delta)``: a ``−`` or ``+`` of a checklist's ``M``.

    Attributes
    ----------
    box : ipywidgets.VBox
        The controls.
    title : ipywidgets.HTML
        What they do, in words.

    Examples
    --------
    >>> from riskexplore.widgets.alternatives.edit import EditControls
    >>> edits = EditControls(print, print, print)
    >>> edits.box.children
    ()
    """

    def __init__(
        self,
        change_points: Callable[[str, int], Any],
        set_item: Callable[[str, bool], Any],
        change_threshold: Callable[[int], Any],
    ) -> None:
        import ipywidgets as w

        self.change_points = change_points
        self.set_item = set_item
        self.change_threshold = change_threshold
        self.box = w.VBox()
        self.box.add_class("rx-alt-edit")
        self.title = w.HTML()
        self._rows: dict[str, Any] = {}
        self._key: tuple | None = None
        self._syncing = False

    @property
    def item_boxes(self) -> dict[str, Any]:
        """Item -> its checkbox (checklists; empty for risk scores)."""
        return {k: v for k, v in self._rows.items() if hasattr(v, "indent")}

    def clear(self) -> None:
        """Show no controls."""
        self.box.children = ()
        self.title.value = ""

    def show(self, state: Any) -> None:
        """Show the controls of ``state``'s model (built again when its rows change).

        Parameters
        ----------
        state : AlternativesState
            The state, with a model shown.
        """
        rows = state.edit_rows()
        key = (state.family, state.data_version, tuple(r.name for r in rows))
        if key != self._key:
            self._build(rows, state.spec.edit_kind)
            self._key = key
        self._syncing = True
        try:
            if state.spec.edit_kind == "points":
                for row in rows:
                    self._rows[row.name].value = _points_html(row.value)
            else:
                for row in rows:
                    self._rows[row.name].value = bool(row.value)
                model = state.model
                self._rows[
                    _THRESHOLD
                ].value = f"<b>{model.M}</b> of {model.N} items checked flag a patient"
        finally:
            self._syncing = False

    def _build(self, rows: list, edit_kind: str) -> None:
        self._rows = {}
        if edit_kind == "points":
            self._build_points(rows)
        else:
            self._build_items(rows)

    def _build_points(self, rows: list) -> None:
        import ipywidgets as w

        self.title.value = (
            f'<div style="{FONT};font-weight:bold;margin:8px 0 2px 0">Change the points '
            "(the risk table and the numbers below follow at once)</div>"
        )
        lines = []
        for row in rows:
            minus, plus = _minus_plus(
                f"one point less for {row.name}",
                f"one point more for {row.name}",
                lambda _b, n=row.name: self.change_points(n, -1),
                lambda _b, n=row.name: self.change_points(n, +1),
            )
            value = w.HTML(layout=w.Layout(width="70px"))
            self._rows[row.name] = value
            name = w.HTML(
                f'<span style="{FONT}">{html.escape(row.name)}</span>',
                layout=w.Layout(width="220px"),
            )
            line = w.HBox([name, minus, value, plus], layout=w.Layout(align_items="center"))
            line.add_class("rx-alt-row")
            lines.append(line)
        self.box.children = (w.Box(lines, layout=w.Layout(flex_flow="row wrap", width="100%")),)
        for line in lines:
            line.layout.width = "340px"

    def _build_items(self, rows: list) -> None:
        import ipywidgets as w

        self.title.value = (
            f'<div style="{FONT};font-weight:bold;margin:8px 0 2px 0">Change the items (tick to '
            "put an item on the checklist) and how many must be checked</div>"
        )
        groups: dict[str, list] = {}  # one line per characteristic
        for row in rows:
            box = w.Checkbox(
                value=bool(row.value),
                description=row.name,
                indent=False,
                layout=w.Layout(width="auto", margin="0 14px 0 0"),
            )
            box.add_class("rx-alt-item")
            box.observe(lambda change, n=row.name: self._on_item(n, change), names="value")
            self._rows[row.name] = box
            groups.setdefault(row.group, []).append(box)
        lines = []
        for group, members in groups.items():
            label = w.HTML(
                f'<span style="{FONT};color:#555">{html.escape(group)}</span>',
                layout=w.Layout(width="110px", flex="0 0 auto"),
            )
            items = w.Box(members, layout=w.Layout(flex_flow="row wrap", flex="1 1 0%"))
            line = w.HBox([label, items], layout=w.Layout(width="100%", align_items="center"))
            line.add_class("rx-alt-group")
            lines.append(line)
        minus, plus = _minus_plus(
            "one item fewer needed",
            "one item more needed",
            lambda _b: self.change_threshold(-1),
            lambda _b: self.change_threshold(+1),
        )
        threshold = w.HTML()
        self._rows[_THRESHOLD] = threshold
        self.box.children = (
            w.VBox(lines, layout=w.Layout(width="100%")),
            w.HBox([minus, threshold, plus], layout=w.Layout(align_items="center")),
        )

    def _on_item(self, item: str, change: dict) -> None:
        if not self._syncing:
            self.set_item(item, bool(change["new"]))


def _minus_plus(less: str, more: str, on_less: Callable, on_more: Callable) -> tuple:
    """A small ``−`` and ``+`` button with their tooltips and click handlers."""
    import ipywidgets as w

    minus = w.Button(description="−", tooltip=less, layout=w.Layout(width="34px", height="28px"))
    plus = w.Button(description="+", tooltip=more, layout=w.Layout(width="34px", height="28px"))
    minus.add_class("rx-alt-minus")
    plus.add_class("rx-alt-plus")
    minus.on_click(on_less)
    plus.on_click(on_more)
    return minus, plus


def _points_html(points: int) -> str:
    """A feature's points (``+2 pt``; a grey ``0``)."""
    weight = "bold" if points else "normal"
    return (
        f'<span class="rx-alt-points" style="{FONT};font-weight:{weight};display:inline-block;'
        f'width:70px;text-align:center">{points:+d} pt</span>'
        if points
        else f'<span class="rx-alt-points" style="{FONT};color:#999;display:inline-block;'
        'width:70px;text-align:center">0</span>'
    )
