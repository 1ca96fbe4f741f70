"""The Explorer's columns (its step 2): what each column of the raw table became, and how
to change it.

:class:`BinarizationView` is a thin view over the plain state
(:meth:`ExplorerState.column_views
<riskexplore.exploration.explorer.ExplorerState.column_views>`,
:mod:`riskexplore.exploration.binarization`): a table of every column with its kind
(numbers, categories, yes/no, skipped), its cut points, the items it gives, or why it was
skipped; and one editor: choose a column, type its cut points (``65, 75``; empty: the
data's own) or choose how it is used (its items, one item per value, or a number that
counts points per unit), and press **Apply**. Every change goes through the state, which
checks it; a refused one is a message and nothing changes.

Examples
--------
>>> from riskexplore.widgets import Explorer
>>> ex = Explorer("heart", max_size=3)
>>> ex.binarization.set_cut_points("age", "60, 70")
True
>>> [v.items for v in ex.state.column_views() if v.name == "age"]
[('age ≥ 60', 'age ≥ 70')]
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from riskexplore.errors import InputError
from riskexplore.exploration.runner import describe_error
from riskexplore.widgets.cards import message_html

__all__ = ["BinarizationView", "columns_html"]

#: A column's kind in plain words.
_KINDS = {
    "numeric": "numbers",
    "categorical": "categories",
    "binary": "yes/no",
    "skipped": "skipped",
    "as is": "used as it is",
}
#: How a column may be used (the editor's choices).
_USES = [
    ("its items (cut points, categories)", "items"),
    ("categories: one item per value", "categories"),
    ("a number: points per unit", "number"),
]
#: Items listed per column before "and n more".
_SHOWN = 6
#: Tables of at most this many columns are shown whole (longer ones scroll).
_WHOLE = 24
_FONT = "font-family:system-ui,sans-serif"


def _items_text(items) -> str:
    shown = ", ".join(items[:_SHOWN])
    more = len(items) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _row(view) -> str:
    esc = html.escape
    if view.linear:
        kind, cuts, items = "numbers", "—", "a number: points per unit"
    else:
        kind = _KINDS.get(view.kind, view.kind) + (" (your choice)" if view.categorical else "")
        cuts = view.cut_text + (" (yours)" if view.edited else "") if view.cuts else "—"
        items = _items_text(view.items) if view.items else (view.reason or "—")
    cells = [f"<b>{esc(view.name)}</b>", esc(kind), esc(cuts), esc(items)]
    style = ' style="color:#8a6d00"' if view.kind == "skipped" else ""
    return f"<tr{style}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _scroll(rows: int) -> str:
    """A long table scrolls in its own box; a short one is shown whole."""
    return "max-height:640px;overflow-y:auto" if rows > _WHOLE else ""


def columns_html(views, noun: str = "model") -> str:
    """The table of what each column became (HTML).

    Parameters
    ----------
    views : list of ColumnView
        The columns (:meth:`ExplorerState.column_views
        <riskexplore.exploration.explorer.ExplorerState.column_views>`).
    noun : str
        What a model is called ("score", "checklist").

    Returns
    -------
    str
        HTML: a summary line and one row per column.
    """
    if not views:
        return f'<div style="{_FONT};color:#777">Choose the data and the outcome first.</div>'
    skipped = [v for v in views if v.kind == "skipped"]
    n_items = sum(len(v.items) + v.linear for v in views)
    summary = f"{len(views)} columns give {n_items} items"
    if skipped:
        summary += f"; {len(skipped)} skipped ({', '.join(v.name for v in skipped)})"
    if any(v.items for v in views):
        summary += f". A {noun} uses at most one item of each column."
    head = "".join(f"<th>{h}</th>" for h in ("column", "kind", "cut points", "items"))
    return (
        f'<div class="rx-columns" style="{_FONT};font-size:13px">'
        f'<div style="margin:2px 0 4px 0">{html.escape(summary)}</div>'
        f'<div style="{_scroll(len(views))}">'
        '<table style="border-collapse:collapse" cellpadding="4">'
        f'<tr style="text-align:left;border-bottom:1px solid #ccc">{head}</tr>'
        + "".join(_row(v) for v in views)
        + "</table></div></div>"
    )


class BinarizationView:
    """The columns of step 2 and the editor of one column's use.

    Parameters
    ----------
    state : callable
        ``() -> ExplorerState``: the state shown (read at each use: opening a study
        replaces it).
    on_change : callable
        ``() -> None``, called after the state adopted a change (the Explorer then
        refreshes its rules and results).

    Attributes
    ----------
    table : ipywidgets.HTML
        Every column (:func:`columns_html`).
    column : ipywidgets.Dropdown
        The column to change.
    cuts : ipywidgets.Text
        Its cut points (``65, 75``; empty: the data's own).
    use : ipywidgets.Dropdown
        How it is used (its items, categories, a number).
    apply_button : ipywidgets.Button
    message : ipywidgets.HTML
        What the last change did, or why it was refused.
    widget : ipywidgets.VBox
        All of it.
    """

    def __init__(self, state: Callable[[], Any], on_change: Callable[[], None]) -> None:
        import ipywidgets as w

        self._state, self._on_change = state, on_change
        style, lay = {"description_width": "110px"}, w.Layout(width="380px")
        self.table = w.HTML()
        self.column = w.Dropdown(options=[], description="column", style=style, layout=lay)
        self.cuts = w.Text(
            description="cut points",
            placeholder="e.g. 65, 75 (empty: from the data)",
            style=style,
            layout=lay,
        )
        self.use = w.Dropdown(options=_USES, description="use as", style=style, layout=lay)
        self.apply_button = w.Button(description="Apply", icon="check")
        self.message = w.HTML()
        self.column.observe(lambda _c: self._fill(), names="value")
        self.apply_button.on_click(lambda _b: self.apply())
        editor = w.HBox([w.VBox([self.column, self.use, self.cuts]), self.apply_button])
        editor.layout.align_items = "flex-end"
        self.widget = w.VBox([self.table, editor, self.message])
        self.widget.add_class("rx-binarization")

    # --- showing the state ----------------------------------------------------------------
    def _views(self) -> list:
        try:
            return self._state().column_views()
        except InputError as exc:
            self.table.value = message_html(f"The columns cannot be turned into items: {exc}")
            return []

    def refresh(self) -> None:
        """Show the state's columns (after data, family, settings or choices changed)."""
        st = self._state()
        views = self._views()
        if views or st.X is None:
            self.table.value = columns_html(views, st.model_family.noun)
        spec = st.model_family.raw_table
        linear = spec is not None and spec.linear
        self.use.options = [o for o in _USES if linear or o[1] != "number"]
        names = [v.name for v in views]
        chosen = self.column.value if self.column.value in names else None
        self.column.options = names
        self.column.value = chosen if chosen is not None else (names[0] if names else None)
        self._fill(views)

    def _view(self, views=None):
        views = self._views() if views is None else views
        return next((v for v in views if v.name == self.column.value), None)

    def _fill(self, views=None) -> None:
        """The editor shows the chosen column's cut points and use."""
        view = self._view(views)
        if view is None:
            self.cuts.value, self.cuts.disabled = "", True
            return
        self.cuts.value = view.cut_text if view.editable else ""
        self.cuts.disabled = not view.editable
        use = "number" if view.linear else "categories" if view.categorical else "items"
        if use in [v for _label, v in self.use.options]:
            self.use.value = use

    # --- changing it ----------------------------------------------------------------------
    def apply(self) -> bool:
        """Apply the editor's choice (what the Apply button does).

        Returns
        -------
        bool
            Whether the state adopted a change (else :attr:`message` says why).
        """
        view, use = self._view(), self.use.value
        if view is None:
            return self._say("Choose a column first.", "warning")
        current = "number" if view.linear else "categories" if view.categorical else "items"
        if use != current:
            return self.set_use(view.name, use)
        if view.editable and self.cuts.value.strip() != view.cut_text:
            return self.set_cut_points(view.name, self.cuts.value)
        return self._say(f"Nothing to change for {view.name}.", "info")

    def set_cut_points(self, column: str, cuts) -> bool:
        """Replace a column's cut points (``"65, 75"``; None or ``""``: the data's own).

        Parameters
        ----------
        column : str
            A numeric column.
        cuts : str, sequence or None
            The cut points.

        Returns
        -------
        bool
            Whether they were adopted.
        """
        return self._change(self._state().set_cut_points, column, cuts)

    def set_use(self, column: str, use: str) -> bool:
        """Use a column as its items, as categories or as a number (points per unit).

        Parameters
        ----------
        column : str
            A column.
        use : {"items", "categories", "number"}
            How to use it.

        Returns
        -------
        bool
            Whether it was adopted.
        """
        return self._change(self._state().set_column_use, column, use)

    def _change(self, action, column: str, value) -> bool:
        try:
            action(column, value)
        except Exception as exc:  # a message on the page, never a traceback
            return self._say(describe_error(exc))
        self._on_change()
        view = next((v for v in self._state().column_views() if v.name == column), None)
        if view is None or view.linear:
            text = f"{column} now counts points per unit. Search again to use it."
        else:
            text = f"{column} now gives: {_items_text(view.items) or 'no item'}. Search again."
        self._say(text, "info")
        return True

    def _say(self, text: str, level: str = "error") -> bool:
        self.message.value = message_html(text, level)
        return False
