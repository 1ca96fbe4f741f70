"""The views an :class:`~riskexplore.widgets.explorer.widget.Explorer` shows as tabs of its results.

:class:`ExplorerTab` gives a view its ``attach(explorer)``: the view is made with the
Explorer's arguments (:meth:`ExplorerTab.explorer_arguments`), its widget becomes the last
tab of the Explorer's results, titled :attr:`ExplorerTab.tab_title`, and it starts to
follow the Explorer (:meth:`ExplorerTab.follow`); :meth:`ExplorerTab.selected` is called
when its tab is chosen (a view that makes its controls on first use makes them then).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ExplorerTab"]


class ExplorerTab:
    """A view that an Explorer shows as a tab of its results (a mixin).

    Subclasses set :attr:`tab_title`, have a ``widget`` and may override
    :meth:`explorer_arguments`, :meth:`follow` and :meth:`selected`.
    """

    #: The title of the view's tab.
    tab_title: str = ""

    @classmethod
    def attach(cls, explorer, **kwargs: Any):
        """A view of ``explorer``, as the last tab of its results.

        Parameters
        ----------
        explorer : Explorer
            The Explorer.
        **kwargs
            Arguments of the view (beside those it takes from the Explorer).

        Returns
        -------
        ExplorerTab
            The view.
        """
        view = cls(**cls.explorer_arguments(explorer), **kwargs)
        # (the Explorer builds its results' tabs on first use: added now or then)
        explorer.add_results_tab(cls.tab_title, view.widget, on_select=view.selected)
        view.follow(explorer)
        return view

    @classmethod
    def explorer_arguments(cls, explorer) -> dict[str, Any]:
        """The keyword arguments of the view taken from ``explorer`` (none by default)."""
        return {}

    def follow(self, explorer) -> None:
        """Start following ``explorer`` once attached (nothing by default)."""

    def selected(self) -> None:
        """The view's tab was chosen (nothing by default)."""
