"""The linear rows every checklist constraint compiles to.

A checklist chooses items ``use_j in {0, 1}``, a threshold ``M`` and has
``N = sum_j use_j`` items. Constraints compile to two kinds of rows:

* :class:`ChecklistRow` -- on the model form, over ``use_j``, ``M`` and ``N``;
* :class:`ErrorRow` -- on the weighted training mistakes of groups of examples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from riskexplore.core.constraints import check_bounds

__all__ = ["ALL", "ChecklistRow", "ErrorRow"]

#: Key of :class:`ErrorRow` coefficients that refers to the whole training set.
ALL = "(all examples)"


@dataclass(frozen=True)
class ChecklistRow:
    """``lower <= sum_j items[j]*use_j + M*M + N*N <= upper``.

    ``items`` maps item names to coefficients; ``M`` and ``N`` are the coefficients of
    the threshold and of the number of items.
    """

    name: str
    items: Mapping[str, float] = field(default_factory=dict)
    M: float = 0.0
    N: float = 0.0
    lower: float = -math.inf
    upper: float = math.inf

    def __post_init__(self) -> None:
        check_bounds(self.name, self.lower, self.upper)


@dataclass(frozen=True)
class ErrorRow:
    """``lower <= sum_g fn[g]*FN_g + fp[g]*FP_g <= upper`` on weighted training mistakes.

    ``FN_g`` (``FP_g``) is the sample-weighted number of false negatives (positives)
    among the examples of group ``g``; the key :data:`ALL` is the whole training set.
    Group keys are the labels of :meth:`ChecklistProblem.group_labels`.
    """

    name: str
    fn: Mapping[str, float] = field(default_factory=dict)
    fp: Mapping[str, float] = field(default_factory=dict)
    lower: float = -math.inf
    upper: float = math.inf

    def __post_init__(self) -> None:
        check_bounds(self.name, self.lower, self.upper)
