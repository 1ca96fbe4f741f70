"""The Explorer's settings (its step 2): one widget per setting of the model families.

:class:`SettingsControls` makes the widgets of the settings every family shares (time
limit, held-out fraction) and, for each family that names settings controls in its registry
entry (:attr:`~riskexplore.core.registry.PlugIns.explorer_settings`), the family's own
(:mod:`~riskexplore.widgets.explorer.risk_score_settings`: size limit, coefficient range,
how points become a risk and the range of the learned multiplier;
:mod:`~riskexplore.widgets.explorer.checklist_settings`: item limit, binarization, group
columns). It shows a settings dict in them (:meth:`~SettingsControls.show`) and reads them
back as one (:meth:`~SettingsControls.read`, the arguments of
:meth:`ExplorerState.update_settings
<riskexplore.exploration.explorer.ExplorerState.update_settings>`). The
:class:`~riskexplore.widgets.explorer.widget.Explorer` observes them and checks every change in
plain Python.

Examples
--------
>>> import ipywidgets as w
>>> from riskexplore.widgets.explorer.settings import SettingsControls
>>> from riskexplore.exploration.explorer import ExplorerState
>>> settings = ExplorerState().settings
>>> controls = SettingsControls(settings, {"description_width": "130px"}, w.Layout())
>>> controls.read()["max_size"] == settings["max_size"]
True
"""

from __future__ import annotations

from typing import Any

from riskexplore.core.registry import families, load_plugin

__all__ = ["SettingsControls"]


class SettingsControls:
    """The widgets of the Explorer's settings.

    Parameters
    ----------
    settings : dict
        The settings shown first (the ``settings`` of
        :class:`~riskexplore.exploration.explorer.ExplorerState`).
    style : dict
        The widgets' style (description width).
    layout : ipywidgets.Layout
        The layout the widgets share (the Explorer's data pickers share it too).

    Attributes
    ----------
    max_size, coef_range, scale, multiplier_range : ipywidgets inputs
        Risk scores' settings (the range of ``m`` only with the learned scale).
    max_items, binarize, group_columns : ipywidgets inputs
        Checklists' settings.
    time_limit, test_fraction : ipywidgets inputs
        Every family's.
    family_controls : dict
        Family name -> its settings controls (every widget of theirs is also an
        attribute here, by its setting's name).
    family_boxes : dict
        Family name -> the box of its own settings (shown while it is chosen).

    Examples
    --------
    >>> import ipywidgets as w
    >>> from riskexplore.widgets.explorer.settings import SettingsControls
    >>> from riskexplore.exploration.explorer import ExplorerState
    >>> controls = SettingsControls(ExplorerState().settings, {}, w.Layout())
    >>> sorted(controls.family_boxes)
    ['checklist', 'risk_score', 'survival_score']
    """

    def __init__(self, settings: dict[str, Any], style: dict[str, str], layout: Any) -> None:
        self._build(settings, style, layout)
        self._lay_out()

    def _build(self, settings: dict[str, Any], style: dict[str, str], layout: Any) -> None:
        """One widget per setting, showing ``settings``."""
        import ipywidgets as w

        s, lay = settings, layout
        self.family_controls = {
            f.name: load_plugin(f.plugins.explorer_settings)(s, style, lay)
            for f in families()
            if f.plugins.explorer_settings is not None
        }
        for controls in self.family_controls.values():
            for name, widget in controls.controls.items():
                setattr(self, name, widget)
        self.time_limit = w.BoundedFloatText(
            value=s["time_limit"],
            min=0.5,
            max=86400,
            description="time limit (s)",
            style=style,
            layout=lay,
        )
        self.test_fraction = w.BoundedFloatText(
            value=s["test_fraction"],
            min=0,
            max=0.8,
            step=0.05,
            description="test fraction",
            style=style,
            layout=lay,
        )

    def _lay_out(self) -> None:
        """The box of each family's own settings."""
        self.family_boxes = {name: c.box for name, c in self.family_controls.items()}
        self._family: str | None = None

    @property
    def widgets(self) -> tuple:
        """Every setting's widget (observe their ``value``): the families' in the order
        of the registry, then the time limit and the held-out fraction."""
        own = tuple(w for c in self.family_controls.values() for w in c.controls.values())
        return (*own, self.time_limit, self.test_fraction)

    def show(self, settings: dict[str, Any]) -> None:
        """Show ``settings`` in the widgets.

        Parameters
        ----------
        settings : dict
            The settings (every key of
            :func:`~riskexplore.exploration.explorer.default_settings`).
        """
        for controls in self.family_controls.values():
            controls.show(settings)
        self.time_limit.value = settings["time_limit"]
        self.test_fraction.value = settings["test_fraction"]

    def read(self) -> dict[str, Any]:
        """The settings the widgets show.

        Returns
        -------
        dict
            Arguments of :meth:`ExplorerState.update_settings
            <riskexplore.exploration.explorer.ExplorerState.update_settings>`.
        """
        out: dict[str, Any] = {}
        # families share some settings (max_size): the chosen family's widgets say last
        order = sorted(self.family_controls, key=lambda name: name == self._family)
        for name in order:
            out.update(self.family_controls[name].read())
        out["time_limit"] = float(self.time_limit.value)
        out["test_fraction"] = float(self.test_fraction.value)
        return out

    def show_family(self, family: str | None) -> None:
        """Show the settings of ``family`` only.

        Parameters
        ----------
        family : str or None
            The family chosen.
        """
        self._family = family
        for name, box in self.family_boxes.items():
            box.layout.display = None if name == family else "none"

    def show_data(self, state: Any) -> None:
        """Show what the families' controls take from the data (a survival score's time
        columns and horizon in words): each family's ``show_data(state)``, if it has one.

        Parameters
        ----------
        state : ExplorerState
            The Explorer's state.
        """
        for controls in self.family_controls.values():
            if hasattr(controls, "show_data"):
                controls.show_data(state)
