"""The risk scores' settings in the Explorer: size limit, points range, how points become
a risk, and the range of the learned multiplier.

The family names :class:`RiskScoreSettings` in its registry entry
(:attr:`~riskexplore.core.registry.PlugIns.explorer_settings`);
:class:`~riskexplore.widgets.explorer.settings.SettingsControls` shows it while risk scores
are chosen.

Examples
--------
>>> import ipywidgets as w
>>> from riskexplore.exploration.explorer import ExplorerState
>>> from riskexplore.widgets.explorer.risk_score_settings import RiskScoreSettings
>>> settings = ExplorerState().settings
>>> controls = RiskScoreSettings(settings, {}, w.Layout())
>>> controls.read()["coef_min"] == settings["coef_min"]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskexplore.widgets.explorer.family_settings import FamilySettings

__all__ = ["RiskScoreSettings"]


class RiskScoreSettings(FamilySettings):
    """The widgets of the risk scores' settings.

    Its parameters, ``controls`` and ``box`` are those of
    :class:`~riskexplore.widgets.explorer.family_settings.FamilySettings`.

    Attributes
    ----------
    max_size, coef_range, scale, multiplier_range : ipywidgets inputs
        The settings' widgets (the range of ``m`` shown only with the learned scale).
    """

    def __init__(self, settings: Mapping[str, Any], style: dict[str, str], layout: Any) -> None:
        import ipywidgets as w

        s = settings
        self.max_size = w.BoundedIntText(
            value=s["max_size"],
            min=1,
            max=50,
            description="max features",
            style=style,
            layout=layout,
        )
        self.coef_range = w.IntRangeSlider(
            value=(s["coef_min"], s["coef_max"]),
            min=-20,
            max=20,
            description="points range",
            style=style,
            layout=layout,
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
        self.controls = {
            "max_size": self.max_size,
            "coef_range": self.coef_range,
            "scale": self.scale,
            "multiplier_range": self.multiplier_range,
        }
        self.box = w.VBox(list(self.controls.values()))
        self._show_scale(s["scale"])

    def show(self, settings: Mapping[str, Any]) -> None:
        """Show ``settings`` in the widgets.

        Parameters
        ----------
        settings : mapping
            The settings (``max_size``, ``coef_min``, ``coef_max``, ``scale``,
            ``multiplier_min``, ``multiplier_max``).
        """
        s = settings
        self.max_size.value = s["max_size"]
        self.coef_range.value = (s["coef_min"], s["coef_max"])
        self.scale.value = s["scale"]
        self.multiplier_range.value = (s["multiplier_min"], s["multiplier_max"])
        self._show_scale(s["scale"])

    def read(self) -> dict[str, Any]:
        """The settings the widgets show.

        Returns
        -------
        dict
            ``max_size``, ``coef_min``, ``coef_max``, ``scale``, ``multiplier_min``,
            ``multiplier_max``.
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
        }

    def _show_scale(self, scale: str) -> None:
        """The range of the learned multiplier, shown only with the learned scale."""
        self.multiplier_range.layout.display = None if scale == "learned" else "none"
