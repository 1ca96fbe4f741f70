"""Static plotly figures of fitted models, solves and studies (no ipywidgets).

* :func:`bounds_figure` -- a solve's upper and lower bounds, gap and work over time;
* :func:`card_figure` -- a model's card;
* :func:`reliability_figure`, :func:`metrics_figure` -- calibration, ROC curves and a
  metrics table on training and held-out data;
* :func:`pareto_figure` -- a size path with certified intervals;
* :func:`compare_figure` -- two models side by side and the certified price of the
  constraints that separate them;
* :func:`feature_frequency_figure` -- how often each feature appears in a near-optimal
  set, and its models grouped by the features they use;
* :func:`feature_price_figure` -- the certified price of leaving out or forcing in each
  feature;
* :func:`forest_figure`, :func:`group_reliability_figure` -- a subgroup audit: one
  metric per group with its interval, and a reliability diagram per group;
* :func:`km_figure`, :func:`survival_calibration_figure` -- a survival validation:
  Kaplan-Meier curves by score group, calibration at the horizon;
* :func:`save_figure` -- HTML (always) or PNG/SVG/PDF (with ``kaleido``).

The widgets of :mod:`riskexplore.widgets` show the same figures live. plotly is imported
inside the functions, and names here on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.figures.alternatives import (
        feature_frequency_figure as feature_frequency_figure,
    )
    from riskexplore.figures.alternatives import feature_price_figure as feature_price_figure
    from riskexplore.figures.audit import forest_figure as forest_figure
    from riskexplore.figures.audit import group_reliability_figure as group_reliability_figure
    from riskexplore.figures.cards import card_figure as card_figure
    from riskexplore.figures.compare import compare_figure as compare_figure
    from riskexplore.figures.export import (
        image_export_available as image_export_available,
    )
    from riskexplore.figures.export import (
        save_figure as save_figure,
    )
    from riskexplore.figures.metrics import metrics_figure as metrics_figure
    from riskexplore.figures.paths import pareto_figure as pareto_figure
    from riskexplore.figures.progress import bounds_figure as bounds_figure
    from riskexplore.figures.reliability import reliability_figure as reliability_figure
    from riskexplore.figures.survival import km_figure as km_figure
    from riskexplore.figures.survival import (
        survival_calibration_figure as survival_calibration_figure,
    )

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
