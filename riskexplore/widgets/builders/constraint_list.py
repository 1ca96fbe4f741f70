"""What both constraint builders share: the active list, adding with checks, removing,
and the message area. A builder subclass supplies the form (its ``_build``, and
``current()``), the per-family checks (``_validate``) and which inputs to show
(``_show_inputs``).

On a raw table (items grouped by the column they come from) both builders also offer the
rules that name a variable, "do not use age" and "use age only as age ≥ 65"
(:data:`VARIABLE_TYPES`, :class:`VariableInputs`; the rules themselves:
:mod:`riskexplore.exploration.variable_rules`), and list every rule in plain words."""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from riskexplore.core.registry import ModelFamily
from riskexplore.errors import ConstraintError, RiskExploreError
from riskexplore.exploration.runner import describe_error
from riskexplore.exploration.variable_rules import describe_rule, variable_items, variable_rule
from riskexplore.widgets.cards import message_html

log = logging.getLogger(__name__)

#: The width of a form's descriptions.
LABEL_WIDTH = "110px"

#: The rules naming a variable, offered on a raw table: label -> (name, inputs used).
VARIABLE_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Do not use a variable": ("ExcludeVariable", ("variable",)),
    "Use a variable only as one of its items": ("OnlyItem", ("variable", "variable_item")),
}


def form_input(kind, description: str, *, label_width: str = LABEL_WIDTH, **kwargs: Any):
    """An input of a builder's form, at the form's width.

    Parameters
    ----------
    kind : type
        Its ipywidgets class (``Dropdown``, ``BoundedIntText``, ...).
    description : str
        Its caption.
    label_width : str
        The caption's width.
    **kwargs
        Further arguments of ``kind`` (``options``, ``value``, ...).

    Returns
    -------
    ipywidgets.Widget
        The input, with a layout of its own (the inputs are hidden one by one).
    """
    import ipywidgets as w

    return kind(
        description=description,
        style={"description_width": label_width},
        layout=w.Layout(width="380px"),
        **kwargs,
    )


class ConstraintListBase:
    """Active-constraint bookkeeping for a builder widget.

    Subclasses set ``self._constraints``, ``self._callbacks`` and ``self.last_error``; their
    ``_build`` makes the form (``self.kind`` and the inputs ``self._inputs``) and then
    calls :meth:`_build_list`; their ``__init__`` ends with :meth:`_wire` and
    :meth:`_start`. They implement ``current()``, ``_validate(constraint)`` and
    ``_show_inputs()``.
    """

    def _validate(self, constraint) -> None:  # pragma: no cover - abstract
        """Raise a RiskExploreError if ``constraint`` cannot join the active set."""
        raise NotImplementedError

    def _build_list(self) -> None:
        """The buttons, the message area and the active list, and the builder's widget
        (the form above them)."""
        import ipywidgets as w

        self.add_button = w.Button(description="Add", button_style="success", icon="plus")
        self.remove_button = w.Button(description="Remove selected", icon="minus")
        self.clear_button = w.Button(description="Remove all", icon="trash")
        self.active = w.SelectMultiple(
            options=[],
            description="active",
            rows=6,
            style={"description_width": LABEL_WIDTH},
            layout=w.Layout(width="520px"),
        )
        self.active_html = w.HTML()
        self.message = w.HTML()
        form = w.VBox([self.kind, *self._inputs.values()])
        buttons = w.HBox([self.add_button, self.remove_button, self.clear_button])
        self.widget = w.VBox([form, buttons, self.message, self.active, self.active_html])

    def _wire(self, watched) -> None:
        """Wire the buttons; changes of the ``watched`` widgets re-decide which inputs
        are shown."""
        for widget in watched:
            widget.observe(lambda _c: self._show_inputs(), names="value")
        self.add_button.on_click(lambda _b: self.add_current())
        self.remove_button.on_click(lambda _b: self.remove_selected())
        self.clear_button.on_click(lambda _b: self.clear())

    def _start(self, constraints) -> None:
        """Show the inputs of the type chosen and add the initial ``constraints``; those
        refused are listed in one message instead of raising."""
        self._show_inputs()
        errors = [self.last_error for c in constraints if not self.add(c, quiet=True)]
        self._refresh_list()
        if errors:
            self._message("Left out: " + "; ".join(e for e in errors if e))

    # --- display ---------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def on_change(self, callback: Callable[[list], None]) -> None:
        """Call ``callback(constraints)`` whenever the active set changes."""
        self._callbacks.append(callback)

    # --- the constraint set ----------------------------------------------------------
    @property
    def constraints(self) -> list:
        """The active constraint objects, in the order added."""
        return list(self._constraints)

    def describe(self) -> list[str]:
        """The active constraints in plain words ("Do not use age" for a rule naming a
        variable)."""
        return [self.words(c) for c in self._constraints]

    def words(self, constraint) -> str:
        """One rule in plain words (see :mod:`riskexplore.exploration.variable_rules`)."""
        variables = getattr(self, "variables", None)
        return constraint.describe() if variables is None else variables.words(constraint)

    def add_current(self) -> bool:
        """Add the constraint described by the form (what the Add button does)."""
        try:
            constraint = self.current()
        except (RiskExploreError, ValueError, TypeError) as exc:
            self._fail(describe_error(exc))
            return False
        return self.add(constraint)

    def add(self, constraint, *, quiet: bool = False) -> bool:
        """Add a constraint object after checking it; False (and a message) if refused."""
        try:
            if not hasattr(constraint, "describe") or not hasattr(constraint, "to_rows"):
                raise ConstraintError(f"{constraint!r} is not a readable constraint")
            text = self.words(constraint)
            if any(c == constraint for c in self._constraints):
                self._fail(f"Already active: {text}", level="warning")
                return False
            self._validate(constraint)
        except Exception as exc:  # shown as a message, never a traceback
            if not isinstance(exc, RiskExploreError):
                log.debug("constraint refused", exc_info=True)
            self._fail(describe_error(exc))
            return False
        self._constraints.append(constraint)
        self.last_error = None
        if not quiet:
            self._message(f"Added: {text}", "info")
            self._changed()
        return True

    def remove(self, index_or_constraint) -> None:
        """Remove one constraint (by position or by value)."""
        if isinstance(index_or_constraint, int):
            del self._constraints[index_or_constraint]
        else:
            self._constraints.remove(index_or_constraint)
        self._changed()

    def remove_selected(self) -> None:
        """Remove the constraints selected in the active list (the Remove button)."""
        chosen = set(self.active.value)
        if not chosen:
            self._message("Select constraints in the active list to remove them.", "warning")
            return
        removed = [self.words(c) for i, c in enumerate(self._constraints) if i in chosen]
        self._constraints = [c for i, c in enumerate(self._constraints) if i not in chosen]
        self._message("Removed: " + "; ".join(removed), "info")
        self._changed()

    def clear(self) -> None:
        """Remove every constraint."""
        self._constraints = []
        self._message("No constraints.", "info")
        self._changed()

    # --- view ------------------------------------------------------------------------
    def _refresh_list(self) -> None:
        texts = self.describe()
        self.active.options = [(t, i) for i, t in enumerate(texts)]
        if texts:
            items = "".join(f"<li>{html.escape(t)}</li>" for t in texts)
            self.active_html.value = (
                '<div style="font-family:system-ui,sans-serif">'
                f"<b>{len(texts)} active constraint{'s' if len(texts) != 1 else ''}</b>"
                f'<ol style="margin:4px 0">{items}</ol></div>'
            )
        else:
            self.active_html.value = (
                '<div style="font-family:system-ui,sans-serif;color:#777">No constraints.</div>'
            )

    def _changed(self) -> None:
        self._refresh_list()
        for callback in list(self._callbacks):
            try:
                callback(self.constraints)
            except Exception:
                log.exception("%s callback failed", type(self).__name__)

    def _fail(self, text: str, level: str = "error") -> None:
        self.last_error = text
        self._message(text, level)

    def _message(self, text: str, level: str = "error") -> None:
        self.message.value = message_html(text, level)


@dataclass(frozen=True)
class ExplorerBuilder:
    """How the Explorer makes, keys and refreshes a family's constraint builder.

    Attributes
    ----------
    make : callable ``(state) -> builder``
        A builder for the state's data and settings.
    key : callable ``(state) -> tuple``
        The settings the builder depends on (a new builder when they change).
    refresh : callable ``(builder, state) -> None``
        Update a builder kept across other setting changes.
    """

    make: Callable[[Any], Any]
    key: Callable[[Any], tuple]
    refresh: Callable[[Any, Any], None]


class VariableInputs:
    """The inputs of the rules naming a variable (:data:`VARIABLE_TYPES`) and their words.

    Parameters
    ----------
    family : ModelFamily
        The builder's family (its registry entry makes the rules).
    item_groups : mapping
        Item -> the column of the raw table it comes from.

    Attributes
    ----------
    variable : ipywidgets.Dropdown
        The column.
    variable_item : ipywidgets.Dropdown
        The item it may still be used as (its options follow the column).
    """

    def __init__(self, family: ModelFamily, item_groups: Mapping[str, str]) -> None:
        import ipywidgets as w

        self.family = family
        self.item_groups = {str(k): str(v) for k, v in item_groups.items()}
        columns = list(dict.fromkeys(self.item_groups.values()))
        self.variable = form_input(w.Dropdown, "variable", options=columns)
        self.variable_item = form_input(w.Dropdown, "only as", options=[])
        self.variable.observe(lambda _c: self._follow(), names="value")
        self._follow()

    def _follow(self) -> None:
        """The items of the column chosen."""
        self.variable_item.options = list(variable_items(self.item_groups, self.variable.value))

    def rule(self, name: str):
        """The rule of type ``name`` (``"ExcludeVariable"`` or ``"OnlyItem"``) the inputs
        describe.

        Parameters
        ----------
        name : str
            The rule's type (the first element of a :data:`VARIABLE_TYPES` entry).

        Returns
        -------
        constraint
            A readable constraint of the family.
        """
        keep = self.variable_item.value if name == "OnlyItem" else None
        return variable_rule(self.family, self.item_groups, self.variable.value, keep)

    def words(self, constraint) -> str:
        """A rule in plain words.

        Parameters
        ----------
        constraint : object
            A readable constraint of the family.

        Returns
        -------
        str
            "Do not use age", "Use age only as age ≥ 65", or its ``describe()``.
        """
        return describe_rule(constraint, self.family, self.item_groups)
