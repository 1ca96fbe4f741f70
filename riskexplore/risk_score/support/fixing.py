"""Fixing features out at the root: a certified floor on every model that uses a feature.

The support screen (:mod:`riskexplore.risk_score.support.screen`) bounds the objective of
every model on each support ``S`` of the root's region. Any model that uses feature ``j``
lies on some support that contains ``j``, so

    floor_j = min over screened supports S containing j of bound(S)

bounds the objective of every model of the region that uses ``j`` (the supports the screen
leaves out break a row on indicators, so no model lies on them). Once the incumbent's
objective is at most ``floor_j``, no model using ``j`` beats it: ``j`` can be fixed to zero
for the whole search (reduced-cost fixing with the screen's bound). The floors are computed
once; as the incumbent improves, more features fall below it and are fixed.

The floors are valid for the optimum under the size bound that the screen used (the
problem's ``max_size``, or a smaller one that every optimal model meets).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.rows import RowMatrix
from riskexplore.risk_score.support.screen import (
    ScreenResult,
    SupportData,
    count_supports,
    screen_supports,
    support_floors,
)

__all__ = ["FeatureFixing", "alpha_rows", "feature_floors", "root_feature_floors"]


def alpha_rows(problem: RiskScoreProblem) -> RowMatrix | None:
    """The problem's rows that involve indicators only (a support meets them or not).

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    RowMatrix or None
        Those rows (None when there are none).
    """
    rm = problem.row_matrix
    d = problem.n_features
    keep = np.flatnonzero(~np.any(rm.A[:, : d + 1] != 0, axis=1))
    if keep.size == 0:
        return None
    return RowMatrix(rm.A[keep], rm.lower[keep], rm.upper[keep], tuple(rm.names[i] for i in keep))


def feature_floors(result: ScreenResult, d: int) -> np.ndarray:
    """Per feature, the least bound over the screened supports that contain it.

    Parameters
    ----------
    result : ScreenResult
        A complete screen of a region.
    d : int
        Number of features.

    Returns
    -------
    numpy.ndarray (d,)
        ``floor_j`` (``inf`` for a feature in no screened support: no model of the region
        uses it).
    """
    if result.floors is not None:
        return result.floors
    return support_floors(result.supports, result.bounds, d)


def root_feature_floors(
    data: SupportData,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    w_lower: np.ndarray,
    w_upper: np.ndarray,
    c0: np.ndarray,
    k_min: int,
    k_max: int,
    max_supports: int,
    max_work: float = math.inf,
    alpha_rows: RowMatrix | None = None,
    cutoff: float = math.inf,
    should_stop: Callable[[], bool] | None = None,
    n_jobs: int = 1,
    client: Any = None,
) -> np.ndarray | None:
    """The floors of the root region ``[lower, upper]`` (over ``[lambda, alpha]``).

    Parameters
    ----------
    data : SupportData
        The loss's rows.
    lower, upper : arrays (2d+1,)
        The root's bounds on ``[lambda_0..d, alpha_1..d]``.
    w_lower, w_upper : arrays (d+1,)
        The box of the screen's continuous fits (``lambda`` itself for the fixed scale).
    c0 : array (d,)
        Penalty of each feature.
    k_min, k_max : int
        Size range of the models.
    max_supports : int
        Give up (return None) when the root has more supports than this.
    max_work : float
        Give up when the screen would read more rows than this (supports times distinct
        rows, times 20 where the rows do not merge).
    alpha_rows : RowMatrix, optional
        Rows on indicators only.
    cutoff : float
        The incumbent's objective (the screen may stop fitting a support above it).
    should_stop : callable, optional
        A stop request; an interrupted screen gives None.
    n_jobs : int
        Threads of the screen (the same floors as one).
    client : dask.distributed.Client, optional
        Run the screen on this Dask cluster (the same floors).

    Returns
    -------
    numpy.ndarray (d,) or None
        The floors, or None when the screen was too large or stopped.
    """
    d = data.d
    forced = np.flatnonzero(lower[d + 1 :] > 0)
    free = np.flatnonzero((lower[d + 1 :] == 0) & (upper[d + 1 :] > 0))
    count = count_supports(forced.size, free.size, k_min, k_max)
    if k_max < forced.size or count > max_supports:
        return None
    # rows read per support: one pass where the kernel merges them, else a Newton method
    # on all of them (about 20 passes)
    passes = 1 if data.merges_all(k_max) else 20
    if count * data.X.shape[0] * passes > max_work:
        return None
    result = screen_supports(
        data,
        forced=forced,
        free=free,
        k_min=k_min,
        k_max=k_max,
        w_lower=w_lower,
        w_upper=w_upper,
        c0=c0,
        alpha_rows=alpha_rows,
        cutoff=cutoff,
        should_stop=should_stop,
        n_jobs=n_jobs,
        client=client,
        keep_below=-math.inf,  # only the floors are wanted
        floors=True,
    )
    if not result.complete:
        return None
    return feature_floors(result, d)


class FeatureFixing:
    """The features fixed to zero by their floors, as the incumbent improves.

    Parameters
    ----------
    floors : array (d,)
        A lower bound on the objective of every model that uses each feature.

    Attributes
    ----------
    fixed : bool array (d,)
        Features no model better than the incumbent uses.
    """

    def __init__(self, floors: np.ndarray) -> None:
        self.floors = np.asarray(floors, dtype=float)
        self.fixed = np.zeros(len(self.floors), dtype=bool)

    @property
    def count(self) -> int:
        """The number of features fixed out."""
        return int(self.fixed.sum())

    def update(self, incumbent: float) -> int:
        """Fix every feature whose floor reaches the incumbent's objective.

        Parameters
        ----------
        incumbent : float
            The best objective found.

        Returns
        -------
        int
            How many features became fixed.
        """
        newly = (self.floors >= incumbent) & ~self.fixed
        self.fixed |= newly
        return int(newly.sum())

    def restrict(self, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Set the fixed features to zero in a region's bounds (in place).

        Parameters
        ----------
        lower, upper : arrays (2d+1,)
            Bounds on ``[lambda_0..d, alpha_1..d]``.

        Returns
        -------
        bool
            False when the region needs a fixed feature (its every model uses one, so
            none beats the incumbent): the region can be dropped.
        """
        d = len(self.fixed)
        cols = np.flatnonzero(self.fixed) + 1
        if cols.size == 0:
            return True
        if np.any(lower[cols + d] > 0) or np.any(lower[cols] > 0) or np.any(upper[cols] < 0):
            return False
        upper[cols + d] = 0.0
        lower[cols], upper[cols] = 0.0, 0.0
        return True
