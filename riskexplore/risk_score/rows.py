"""Linear rows: the one form every constraint compiles to.

A risk score problem has, per feature ``j``, an integer number of points ``lambda_j``
and an inclusion indicator ``alpha_j = 1[lambda_j != 0]``; the intercept ``lambda_0``
has no indicator. Readable constraints and Pyomo constraints both end as
:class:`LinearRow` objects over these variables, so solvers only ever see rows.

The solver's variable vector is ``[lambda_0, lambda_1..lambda_d, alpha_1..alpha_d]``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from riskexplore.core.constraints import check_bounds
from riskexplore.errors import ConstraintError

#: Key used for the intercept in ``LinearRow.points``.
INTERCEPT = "(Intercept)"


@dataclass(frozen=True)
class LinearRow:
    """``lower <= sum(points[f]*lambda_f) + sum(included[f]*alpha_f) <= upper``.

    Parameters
    ----------
    name : str
        Plain-words description, shown in errors and in the active-constraint list.
    points : mapping of feature name (or ``INTERCEPT``) to coefficient on lambda.
    included : mapping of feature name to coefficient on alpha.
    lower, upper : float
        Row bounds; use ``-inf``/``inf`` for one-sided rows.
    logit_bounds : (float, float), optional
        Set on rows that bound a predicted risk: the bounds on the risk's logit
        ``score / m`` (``-inf``/``inf`` for an open side). Model classes that learn the
        score-to-risk multiplier ``m`` use them instead of ``lower``/``upper``, which hold
        for ``m = 1`` (possibly rounded to whole scores).
    """

    name: str
    points: Mapping[str, float] = field(default_factory=dict)
    included: Mapping[str, float] = field(default_factory=dict)
    lower: float = -math.inf
    upper: float = math.inf
    logit_bounds: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        check_bounds(self.name, self.lower, self.upper)

    def variables(self) -> set[str]:
        """The names of the features (and the intercept) the row uses."""
        return set(self.points) | set(self.included)


@dataclass(frozen=True)
class RowMatrix:
    """Rows compiled against a feature order: ``lower <= A @ x <= upper``."""

    A: np.ndarray  # (m, 2d+1), columns [lambda_0, lambda_1..d, alpha_1..d]
    lower: np.ndarray  # (m,)
    upper: np.ndarray  # (m,)
    names: tuple[str, ...]

    @property
    def n_rows(self) -> int:
        """The number of rows."""
        return len(self.names)

    def violations(self, x: np.ndarray, tol: float = 1e-7) -> list[str]:
        """Names of rows that the point ``x`` violates."""
        if self.n_rows == 0:
            return []
        ax = self.A @ x
        bad = (ax < self.lower - tol) | (ax > self.upper + tol)
        return [self.names[i] for i in np.flatnonzero(bad)]


def compile_rows(rows: Sequence[LinearRow], feature_names: Sequence[str]) -> RowMatrix:
    """Compile rows to a dense matrix over ``[lambda_0, lambda_1..d, alpha_1..d]``.

    Raises :class:`ConstraintError` naming the row and the unknown feature.

    Parameters
    ----------
    rows : sequence of LinearRow
        The rows.
    feature_names : sequence of str
        The features, in the solver's order.

    Returns
    -------
    RowMatrix
        The matrix and bounds.
    """
    d = len(feature_names)
    index = {name: j + 1 for j, name in enumerate(feature_names)}
    A = np.zeros((len(rows), 2 * d + 1))
    for i, row in enumerate(rows):
        for name, value in row.points.items():
            if name == INTERCEPT:
                A[i, 0] += value
                continue
            A[i, _column(index, name, row)] += value
        for name, value in row.included.items():
            A[i, d + _column(index, name, row)] += value
    lower = np.array([r.lower for r in rows], dtype=float)
    upper = np.array([r.upper for r in rows], dtype=float)
    return RowMatrix(A, lower, upper, tuple(r.name for r in rows))


def _column(index: Mapping[str, int], name: str, row: LinearRow) -> int:
    try:
        return index[name]
    except KeyError:
        known = ", ".join(list(index)[:8]) + (", ..." if len(index) > 8 else "")
        raise ConstraintError(
            f"constraint {row.name!r} uses unknown feature {name!r}; known features: {known}"
        ) from None
