"""The Explorer's settings (its step 2): one widget per setting of the model families.

:class:`SettingsControls` makes the widgets of the settings (size limits, coefficient
range, how points become a risk and the range of the learned multiplier, binarization,
group columns, time limit, held-out fraction), shows a settings dict in them
(:meth:`~SettingsControls.show`) and reads them back as one
(:meth:`~SettingsControls.read`, the arguments of :meth:`ExplorerState.update_settings
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
    family_boxes : dict
        Family name -> the box of its own settings (shown while it is chosen).

    Examples
    --------
    >>> import ipywidgets as w
    >>> from riskexplore.widgets.explorer.settings import SettingsControls
    >>> from riskexplore.exploration.explorer import ExplorerState
    >>> controls = SettingsControls(ExplorerState().settings, {}, w.Layout())
    >>> sorted(controls.family_boxes)
    ['checklist', 'risk_score']
    """

    def __init__(self, settings: dict[str, Any], style: dict[str, str], layout: Any) -> None:
        self._build(settings, style, layout)
        self._lay_out()
        self._show_scale(settings["scale"])

    def _build(self, settings: dict[str, Any], style: dict[str, str], layout: Any) -> None:
        """One widget per setting, showing ``settings``."""
        import ipywidgets as w

        s, lay = settings, layout
        self.max_size = w.BoundedIntText(
            value=s["max_size"],
            min=1,
            max=50,
            description="max features",
            style=style,
            layout=lay,
        )
        self.coef_range = w.IntRangeSlider(
            value=(s["coef_min"], s["coef_max"]),
            min=-20,
            max=20,
            description="points range",
            style=style,
            layout=lay,
        )
        self.scale = w.RadioButtons(
            options=[
                ("fixed: risk = σ(score)", "fixed"),
                ("learned: risk = σ(score / m), m learned", "learned"),
            ],
            value=s["scale"],
            description="points to risk",
            style=style,
            layout=w.Layout(width="420px"),
        )
        self.multiplier_range = w.FloatRangeSlider(
            value=(s["multiplier_min"], s["multiplier_max"]),
            min=0.05,
            max=50,
            step=0.05,
            readout_format=".2f",
            description="range of m",
            style=style,
            layout=w.Layout(width="360px"),  # its own: hidden with the fixed scale
        )
        self.max_items = w.BoundedIntText(
            value=s["max_items"], min=1, max=50, description="max items", style=style, layout=lay
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
            layout=lay,
        )
        self.group_columns = w.SelectMultiple(
            options=[], description="group columns", rows=3, style=style, layout=lay
        )
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
        import ipywidgets as w

        self.family_boxes = {
            "risk_score": w.VBox(
                [self.max_size, self.coef_range, self.scale, self.multiplier_range]
            ),
            "checklist": w.VBox([self.max_items, self.binarize, self.group_columns]),
        }

    @property
    def widgets(self) -> tuple:
        """Every setting's widget (observe their ``value``)."""
        return (
            self.max_size,
            self.coef_range,
            self.scale,
            self.multiplier_range,
            self.max_items,
            self.binarize,
            self.group_columns,
            self.time_limit,
            self.test_fraction,
        )

    def show(self, settings: dict[str, Any]) -> None:
        """Show ``settings`` in the widgets.

        Parameters
        ----------
        settings : dict
            The settings (every key of
            :func:`~riskexplore.exploration.explorer.default_settings`).
        """
        s = settings
        self.max_size.value = s["max_size"]
        self.coef_range.value = (s["coef_min"], s["coef_max"])
        self.scale.value = s["scale"]
        self.multiplier_range.value = (s["multiplier_min"], s["multiplier_max"])
        self.max_items.value = s["max_items"]
        self.binarize.value = s["binarize"]
        self.time_limit.value = s["time_limit"]
        self.test_fraction.value = s["test_fraction"]
        chosen = tuple(s.get("group_columns") or ())
        offered = list(self.group_columns.options)
        if any(c not in offered for c in chosen):  # e.g. a column cut into ranges by a rule
            self.group_columns.options = offered + [c for c in chosen if c not in offered]
        self.group_columns.value = chosen
        self._show_scale(s["scale"])

    def read(self) -> dict[str, Any]:
        """The settings the widgets show.

        Returns
        -------
        dict
            Arguments of :meth:`ExplorerState.update_settings
            <riskexplore.exploration.explorer.ExplorerState.update_settings>`.
        """
        lo, hi = self.coef_range.value
        m_lo, m_hi = self.multiplier_range.value
        return {
            "max_size": int(self.max_size.value),
            "coef_min": int(lo),
            "coef_max": int(hi),
            "scale": self.scale.value,
            "multiplier_min": float(m_lo),
            "multiplier_max": float(m_hi),
            "max_items": int(self.max_items.value),
            "binarize": self.binarize.value,
            "time_limit": float(self.time_limit.value),
            "test_fraction": float(self.test_fraction.value),
            "group_columns": tuple(self.group_columns.value),
        }

    def show_family(self, family: str | None) -> None:
        """Show the settings of ``family`` only.

        Parameters
        ----------
        family : str or None
            The family chosen.
        """
        for name, box in self.family_boxes.items():
            box.layout.display = None if name == family else "none"

    def _show_scale(self, scale: str) -> None:
        """The range of the learned multiplier, shown only with the learned scale."""
        self.multiplier_range.layout.display = None if scale == "learned" else "none"
