"""The engine's datafit: what LCPA reads from a loss (the logistic loss, the Cox loss).

The cutting-plane search (:mod:`riskexplore.risk_score.lcpa`) works on any convex loss
with a cut oracle. Everything it reads from the loss goes through this protocol, so that
:class:`~riskexplore.risk_score.loss.LogisticLoss` (risk scores) and
:class:`~riskexplore.risk_score.survival.cox.CoxLoss` (survival scores) run the same
search. A model is ``lam = [intercept, points...]``; a datafit without an intercept
(``has_intercept`` False) ignores ``lam[0]``, which its problem pins to 0.
"""

from __future__ import annotations

import hashlib
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Datafit", "data_fingerprint"]


@runtime_checkable
class Datafit(Protocol):
    """A convex loss of ``lam`` through per-row margins ``s = scores(lam)``.

    Attributes
    ----------
    n_rows : int
        The rows the loss sums over (after any merge).
    has_intercept : bool
        Whether ``lam[0]`` is a free intercept (the logistic loss) or ignored (the Cox loss
        is unchanged by a constant added to every score).
    support_kernel : str or None
        The compiled support kernel that screens supports of this loss (``"logistic"``),
        or None: then the support screen, the lattice search and the beam search step
        aside, and root fixing uses the datafit's own ``feature_floors(lower, upper,
        **settings)`` when it has one (the Cox loss), else steps aside too.
    integer_scores : bool
        Whether losses of integer models are read from a lookup table.
    """

    n_rows: int
    has_intercept: bool
    support_kernel: str | None
    integer_scores: bool

    def scores(self, lam: np.ndarray) -> np.ndarray:
        """The rows' margins at ``lam``."""

    def column(self, j) -> np.ndarray:
        """How the margins change per unit of ``lam[j]`` (``j`` an int or an index array)."""

    def from_scores(self, s: np.ndarray, integral: bool = False) -> float:
        """The loss at margins ``s``."""

    def batch_from_scores(self, S: np.ndarray) -> np.ndarray:
        """The losses at the margins in the columns of ``S``."""

    def value(self, lam: np.ndarray, integral: bool = False) -> float:
        """The loss at ``lam``."""

    def value_and_grad(self, lam: np.ndarray, integral: bool = False) -> tuple:
        """The loss at ``lam`` and its gradient in ``lam`` (a cut)."""

    def loss_floor(self) -> float:
        """A lower bound on the loss of every model (the LP's loss column starts there)."""

    def loss_bounds(self, lower: np.ndarray, upper: np.ndarray, max_size: int) -> tuple:
        """``(L_min, L_max)`` over the models in a box with at most ``max_size`` points."""

    def fingerprint(self) -> str:
        """A digest of the data (the cut pool refuses cuts of other data)."""


def data_fingerprint(*arrays: np.ndarray) -> str:
    """The digest of a datafit's arrays, in order (equal data, equal digest).

    Parameters
    ----------
    *arrays : ndarray
        What the loss reads (rows, weights, ...).

    Returns
    -------
    str
        A SHA-256 hex digest, as the cut pool keeps (see :meth:`Datafit.fingerprint`).
    """
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()
