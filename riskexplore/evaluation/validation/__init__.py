"""Validation on other rows, and recalibration: the figures a journal asks of a model.

* :mod:`~riskexplore.evaluation.validation.run` -- :func:`validate`, the entry point;
* :mod:`~riskexplore.evaluation.validation.result` -- :class:`Validation`, its result;
* :mod:`~riskexplore.evaluation.validation.estimate` -- :class:`Estimate`, a figure with
  its interval;
* :mod:`~riskexplore.evaluation.validation.calibration` -- calibration intercept and
  slope, O/E and the calibration plot's table;
* :mod:`~riskexplore.evaluation.validation.decision_curve` -- net benefit;
* :mod:`~riskexplore.evaluation.validation.score_table` -- one row per card score;
* :mod:`~riskexplore.evaluation.validation.recalibration` -- :func:`recalibrate`.

Names are imported on first use. (``score_table`` is not re-exported here, where it is
the submodule; import it from :mod:`riskexplore.evaluation.validation.score_table`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.evaluation.validation.calibration import (
        calibration_intercept as calibration_intercept,
    )
    from riskexplore.evaluation.validation.calibration import (
        calibration_slope as calibration_slope,
    )
    from riskexplore.evaluation.validation.calibration import (
        observed_expected as observed_expected,
    )
    from riskexplore.evaluation.validation.decision_curve import net_benefit as net_benefit
    from riskexplore.evaluation.validation.estimate import Estimate as Estimate
    from riskexplore.evaluation.validation.recalibration import recalibrate as recalibrate
    from riskexplore.evaluation.validation.result import Validation as Validation
    from riskexplore.evaluation.validation.run import validate as validate

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
