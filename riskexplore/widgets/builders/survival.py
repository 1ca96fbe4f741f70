"""The rule builder of survival scores: the risk-score builder limited to the rules on the
points (the survival family's ``constraint_types``: at most or at least k items, of a group
too, always or never an item, signs, point limits, and the rules naming a variable).

A rule on a predicted risk or a group's calibration is not linear in a survival score's
points (its risk by a horizon depends on every point through the baseline hazard), so it
is not offered. The feasibility check is the risk-score builder's placeholder problem with
the intercept pinned to 0, as a survival score has none.
"""

from __future__ import annotations

from typing import Any

from riskexplore.risk_score.survival.family import FAMILY
from riskexplore.widgets.builders.risk_score import ConstraintBuilder, explorer_builder

__all__ = ["EXPLORER_BUILDER", "SurvivalConstraintBuilder"]


class SurvivalConstraintBuilder(ConstraintBuilder):
    """:class:`~riskexplore.widgets.builders.risk_score.ConstraintBuilder` offering the
    rules a survival score takes (see the module's words).

    Examples
    --------
    >>> builder = SurvivalConstraintBuilder(["age ≥ 65", "chf"], max_size=2)  # doctest: +SKIP
    >>> "Predicted risk of an example" in builder.types  # doctest: +SKIP
    False
    """

    family = FAMILY
    fixed_problem_kwargs: dict[str, Any] = {"intercept_min": 0, "intercept_max": 0}


#: The Explorer's survival-score builder (as the risk scores').
EXPLORER_BUILDER = explorer_builder(SurvivalConstraintBuilder)
