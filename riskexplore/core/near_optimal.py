"""What a family's near-optimal search returns: the models within a tolerance of the
optimum, best first, with a certificate of completeness.

:class:`NearOptimalModels` is the set every family's search fills (risk scores:
:class:`~riskexplore.risk_score.near_optimal.NearOptimalScores`, checklists:
:class:`~riskexplore.checklist.near_optimal.NearOptimalChecklists`); a family's subclass
adds what names its features and says which features a model uses
(:meth:`NearOptimalModels.features_of`). :func:`checked_tolerance` and
:func:`checked_max_models` check the searches' two common arguments.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from riskexplore.core.diversity import feature_counts, group_by_features
from riskexplore.errors import InputError

__all__ = ["NearOptimalModels", "checked_max_models", "checked_tolerance"]

#: A family's record of one model of the set.
R = TypeVar("R")


@dataclass
class NearOptimalModels(Generic[R]):
    """The models within the tolerance of the optimum, best first.

    Attributes
    ----------
    models : list
        The family's records, best first.
    optimum : float
        The best objective found (the optimum when the first search is certified).
    tolerance : float
        The tolerance, in the family's unit.
    complete : bool
        True when the search proved that no other model lies within the tolerance.
    reason : str or None
        What cut the set short: ``"max_models"``, ``"time_limit"``, ``"stopped"``,
        ``"node_limit"``, ``"optimum_not_certified"`` or ``"numerical"``.
    time : float
        Seconds of both searches.
    nodes : int
        Search nodes of both searches.
    lower_bound : float
        The proven lower bound on the optimum (of the first search).
    status : str
        The first search's status (``"optimal"`` when the optimum is certified).
    """

    models: list[R]
    optimum: float
    tolerance: float
    complete: bool
    reason: str | None = None
    time: float = 0.0
    nodes: int = 0
    lower_bound: float = -math.inf
    status: str = "optimal"

    def __len__(self) -> int:
        return len(self.models)

    def features_of(self, model: R) -> Iterable[str]:
        """The features ``model`` uses (each family says how).

        Parameters
        ----------
        model
            One of ``models``.

        Returns
        -------
        iterable of str
            Its features.
        """
        raise NotImplementedError

    def feature_counts(self) -> dict[str, int]:
        """How many models use each feature, most used first.

        Returns
        -------
        dict
            Feature -> number of models.
        """
        return feature_counts(self.features_of(m) for m in self.models)

    def by_features(self) -> dict[tuple[str, ...], list[R]]:
        """The models grouped by the set of features they use, largest groups first.

        Returns
        -------
        dict
            Sorted feature names -> the models that use exactly them.
        """
        return group_by_features(self.models, self.features_of)

    def to_dict(self) -> dict:
        """The set as a dict (``complete``, ``reason``, ``optimum``, ``lower_bound``,
        ``tolerance``, ``models``).

        Returns
        -------
        dict
            The set.
        """
        return {
            "complete": self.complete,
            "reason": self.reason,
            "optimum": self.optimum,
            "lower_bound": self.lower_bound,
            "tolerance": self.tolerance,
            "models": [m.to_dict() for m in self.models],
        }


def checked_tolerance(value: Any, unit: str) -> float:
    """A tolerance as a finite number ``>= 0``.

    Parameters
    ----------
    value
        The tolerance given.
    unit : str
        What it counts, for the message (``"a relative number"``, ``"a number of errors"``).

    Returns
    -------
    float
        The tolerance.

    Raises
    ------
    InputError
        If it is not a finite number ``>= 0``.
    """
    message = f"tolerance must be {unit} >= 0, got {value!r}"
    try:
        tol = float(value)
    except (TypeError, ValueError):
        raise InputError(message) from None
    if not (tol >= 0 and math.isfinite(tol)):
        raise InputError(message)
    return tol


def checked_max_models(value: Any) -> int:
    """``max_models`` as a whole number ``>= 1``.

    Parameters
    ----------
    value
        The number given.

    Returns
    -------
    int
        The same number.

    Raises
    ------
    InputError
        If it is not a whole number ``>= 1`` (a bool is not one).
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"max_models must be a whole number >= 1, got {value!r}")
    return value
