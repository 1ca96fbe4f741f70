"""The checklists' settings in the Explorer: item limit, binarization, and the group columns
(the protected groups of group-rate rules).

The family names :class:`ChecklistSettings` in its registry entry
(:attr:`~riskexplore.core.registry.PlugIns.explorer_settings`);
:class:`~riskexplore.widgets.explorer.settings.SettingsControls` shows it while checklists
are chosen.

Examples
--------
>>> import ipywidgets as w
>>> from riskexplore.exploration.explorer import ExplorerState
>>> from riskexplore.widgets.explorer.checklist_settings import ChecklistSettings
>>> settings = ExplorerState().settings
>>> controls = ChecklistSettings(settings, {}, w.Layout())
>>> controls.read()["max_items"] == settings["max_items"]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskexplore.widgets.explorer.family_settings import FamilySettings

__all__ = ["ChecklistSettings"]


class ChecklistSettings(FamilySettings):
    """The widgets of the checklists' settings.

    Its parameters, ``controls`` and ``box`` are those of
    :class:`~riskexplore.widgets.explorer.family_settings.FamilySettings`.

    Attributes
    ----------
    max_items, binarize, group_columns : ipywidgets inputs
        The settings' widgets (the Explorer offers the group columns of its data).
    """

    def __init__(self, settings: Mapping[str, Any], style: dict[str, str], layout: Any) -> None:
        import ipywidgets as w

        s = settings
        self.max_items = w.BoundedIntText(
            value=s["max_items"],
            min=1,
            max=50,
            description="max items",
            style=style,
            layout=layout,
        )
        self.binarize = w.Dropdown(
            options=[
                ("adaptive (quantiles)", "adaptive"),
                ("fixed (median)", "fixed"),
                ("none (0/1 columns)", None),
            ],
            value=s["binarize"],
            description="binarization",
            style=style,
            layout=layout,
        )
        self.group_columns = w.SelectMultiple(
            options=[], description="group columns", rows=3, style=style, layout=layout
        )
        self.controls = {
            "max_items": self.max_items,
            "binarize": self.binarize,
            "group_columns": self.group_columns,
        }
        self.box = w.VBox(list(self.controls.values()))

    def show(self, settings: Mapping[str, Any]) -> None:
        """Show ``settings`` in the widgets (a group column not offered yet, e.g. a column
        cut into ranges by a rule, is added to the options).

        Parameters
        ----------
        settings : mapping
            The settings (``max_items``, ``binarize``, ``group_columns``).
        """
        s = settings
        self.max_items.value = s["max_items"]
        self.binarize.value = s["binarize"]
        chosen = tuple(s.get("group_columns") or ())
        offered = list(self.group_columns.options)
        if any(c not in offered for c in chosen):
            self.group_columns.options = offered + [c for c in chosen if c not in offered]
        self.group_columns.value = chosen

    def read(self) -> dict[str, Any]:
        """The settings the widgets show.

        Returns
        -------
        dict
            ``max_items``, ``binarize``, ``group_columns``.
        """
        return {
            "max_items": int(self.max_items.value),
            "binarize": self.binarize.value,
            "group_columns": tuple(self.group_columns.value),
        }
