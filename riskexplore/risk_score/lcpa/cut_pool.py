"""A per-dataset pool of loss cuts and models, shared between solves.

A loss cut ``L >= l(lam_t) + <grad_t, lam - lam_t>`` depends only on the data and the
weights, never on the constraints, the size limit or ``c0``. So cuts from one solve stay
valid in every other solve on the same data (a model-size path, constrained versus
unconstrained, a clinician's next tweak), and earlier models that meet the new
constraints are warm starts. The pool checks a fingerprint of the data so that it is
never used on other data by mistake.
"""

from __future__ import annotations

import threading

import numpy as np

from riskexplore.errors import InputError


def loss_fingerprint(loss) -> str:
    """A digest of the data that define the loss (its datafit's ``fingerprint()``).

    Parameters
    ----------
    loss : Datafit
        The loss.

    Returns
    -------
    str
        A hex digest (equal for equal data and weights).
    """
    return loss.fingerprint()


class CutPool:
    """Cuts ``(loss, grad, point)`` and integer models found on one dataset.

    Parameters
    ----------
    max_cuts : int
        Cuts kept (the most recent ones); the LP of each solve takes at most its own
        limit of them.
    """

    def __init__(self, max_cuts: int = 2000) -> None:
        self.max_cuts = max_cuts
        self.fingerprint: str | None = None
        self._cuts: list[tuple[float, np.ndarray, np.ndarray]] = []
        self._models: dict[bytes, np.ndarray] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._cuts)

    def attach(self, loss) -> None:
        """Bind the pool to a loss; raise if it already belongs to other data."""
        fingerprint = loss_fingerprint(loss)
        with self._lock:
            if self.fingerprint is None:
                self.fingerprint = fingerprint
            elif self.fingerprint != fingerprint:
                raise InputError(
                    "this cut pool was built on other data (or other weights); use one "
                    "CutPool per dataset"
                )

    def add_cut(self, loss: float, grad: np.ndarray, point: np.ndarray) -> None:
        """Keep a loss cut ``L >= loss + grad . (lam - point)`` (valid for every solve on the data).

        Parameters
        ----------
        loss : float
            The loss at ``point``.
        grad : ndarray
            Its gradient there.
        point : ndarray
            The point ``[intercept, points...]``.
        """
        with self._lock:
            self._cuts.append((float(loss), grad.copy(), point.astype(float).copy()))
            if len(self._cuts) > self.max_cuts:
                del self._cuts[: len(self._cuts) - self.max_cuts]

    def add_model(self, lam: np.ndarray) -> None:
        """Keep an integer model (a warm start for later solves on the data).

        Parameters
        ----------
        lam : ndarray
            The model ``[intercept, points...]``.
        """
        lam = np.asarray(lam, dtype=np.int64)
        with self._lock:
            self._models.setdefault(lam.tobytes(), lam.copy())

    def cuts(self, limit: int | None = None) -> list[tuple[float, np.ndarray, np.ndarray]]:
        """The most recent cuts (all, or the last ``limit``)."""
        with self._lock:
            return list(self._cuts if limit is None else self._cuts[-limit:])

    def models(self) -> list[np.ndarray]:
        """The integer models kept, in the order added."""
        with self._lock:
            return list(self._models.values())
