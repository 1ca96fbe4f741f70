"""The survival scores' settings in the Explorer: the follow-up time column, the horizon of
the risk (0: the median follow-up, said in plain words), the size limit and the points range.

The family names :class:`SurvivalSettings` in its registry entry
(:attr:`~riskexplore.core.registry.PlugIns.explorer_settings`);
:class:`~riskexplore.widgets.explorer.settings.SettingsControls` shows it while survival
scores are chosen. The event column is the Explorer's outcome picker.

Examples
--------
>>> import ipywidgets as w
>>> from riskexplore.exploration.explorer import ExplorerState
>>> from riskexplore.widgets.explorer.survival_settings import SurvivalSettings
>>> controls = SurvivalSettings(ExplorerState().settings, {}, w.Layout())
>>> controls.read()["horizon"] is None
True
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from riskexplore.widgets.explorer.family_settings import FamilySettings

__all__ = ["SurvivalSettings"]


class SurvivalSettings(FamilySettings):
    """The widgets of the survival scores' settings.

    Its parameters, ``controls`` and ``box`` are those of
    :class:`~riskexplore.widgets.explorer.family_settings.FamilySettings`.

    Attributes
    ----------
    time_column, horizon, survival_max_size, survival_coef_range : ipywidgets inputs
        The settings' widgets (the horizon 0 means the median follow-up).
    horizon_words : ipywidgets.HTML
        The horizon in plain words (see :meth:`show_data`).
    """

    def __init__(self, settings: Mapping[str, Any], style: dict[str, str], layout: Any) -> None:
        import ipywidgets as w

        self.time_column = w.Dropdown(
            options=[("(choose)", "")], value="", description="time column", style=style,
            layout=layout,
        )  # fmt: skip
        self.horizon = w.BoundedFloatText(
            value=0, min=0, max=1e9, description="horizon (0: median)", style=style,
            layout=layout,
        )  # fmt: skip
        self.survival_max_size = w.BoundedIntText(
            value=settings["max_size"], min=1, max=50, description="max items", style=style,
            layout=layout,
        )  # fmt: skip
        self.survival_coef_range = w.IntRangeSlider(
            value=(settings["coef_min"], settings["coef_max"]), min=-20, max=20,
            description="points range", style=style, layout=layout,
        )  # fmt: skip
        self.horizon_words = w.HTML()
        self.controls = {
            "time_column": self.time_column,
            "horizon": self.horizon,
            "survival_max_size": self.survival_max_size,
            "survival_coef_range": self.survival_coef_range,
        }
        self.box = w.VBox([self.time_column, self.horizon, self.horizon_words,
                           self.survival_max_size, self.survival_coef_range])  # fmt: skip
        self.show(settings)

    def show(self, settings: Mapping[str, Any]) -> None:
        """Show ``settings`` in the widgets.

        Parameters
        ----------
        settings : mapping
            The settings (``time_column``, ``horizon``, ``max_size``, ``coef_min``,
            ``coef_max``).
        """
        column = settings["time_column"] or ""
        if column not in [v for _label, v in self.time_column.options]:
            self.time_column.options = [*self.time_column.options, (column, column)]
        self.time_column.value = column
        self.horizon.value = float(settings["horizon"] or 0)
        self.survival_max_size.value = settings["max_size"]
        self.survival_coef_range.value = (settings["coef_min"], settings["coef_max"])

    def show_data(self, state: Any) -> None:
        """The columns that can be the time, and the horizon in words, of ``state``.

        Parameters
        ----------
        state : ExplorerState
            The Explorer's state.
        """
        options = [("(choose)", "")] + [(c, c) for c in state.time_column_options]
        chosen = state.settings.get("time_column") or ""
        self.time_column.options = options
        self.time_column.value = chosen if (chosen, chosen) in options else ""
        words = state.describe_horizon() if state.survival_mode else ""
        self.horizon_words.value = (
            f'<div class="rx-horizon" style="margin-left:134px;color:#444">{html.escape(words)}'
            "</div>"
            if words
            else ""
        )

    def read(self) -> dict[str, Any]:
        """The settings the widgets show.

        Returns
        -------
        dict
            ``time_column`` (None when none is chosen), ``horizon`` (None for the median
            follow-up), ``max_size``, ``coef_min``, ``coef_max``.
        """
        lo, hi = self.survival_coef_range.value
        horizon = float(self.horizon.value)
        return {
            "time_column": self.time_column.value or None,
            "horizon": horizon if horizon > 0 else None,
            "max_size": int(self.survival_max_size.value),
            "coef_min": int(lo),
            "coef_max": int(hi),
        }
