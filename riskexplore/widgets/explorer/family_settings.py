"""The base of a family's settings controls in the Explorer: what
:class:`~riskexplore.widgets.explorer.settings.SettingsControls` asks of each (its widgets by
name, the box that holds them, showing and reading the settings, and the data's options).

A family names its subclass in its registry entry
(:attr:`~riskexplore.core.registry.PlugIns.explorer_settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FamilySettings"]


class FamilySettings:
    """The widgets of one family's settings (each family's controls subclass it).

    Parameters
    ----------
    settings : mapping
        The settings shown first.
    style : dict
        The widgets' style (description width).
    layout : ipywidgets.Layout
        The layout the widgets share.

    Attributes
    ----------
    controls : dict
        The settings' names -> their widgets.
    box : ipywidgets.VBox
        The widgets, shown while the family is chosen.
    """

    controls: dict[str, Any]
    box: Any

    def __init__(self, settings: Mapping[str, Any], style: dict[str, str], layout: Any) -> None:
        raise NotImplementedError

    def show(self, settings: Mapping[str, Any]) -> None:
        """Show ``settings`` in the widgets.

        Parameters
        ----------
        settings : mapping
            The Explorer's settings (each family reads its own keys).
        """
        raise NotImplementedError

    def read(self) -> dict[str, Any]:
        """The settings the widgets show.

        Returns
        -------
        dict
            The family's own settings.
        """
        raise NotImplementedError

    def show_data(self, state: Any) -> None:
        """Offer what the data allows (e.g. its columns); nothing unless a family needs it.

        Parameters
        ----------
        state : ExplorerState
            The Explorer's state.
        """
