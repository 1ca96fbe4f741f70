"""The normalised, weighted logistic loss on compressed rows, with its gradient.

Rows ``z_i = y_i * [1, x_i]`` that repeat are merged and their weights summed, so the
cost of a loss evaluation scales with the number of *distinct* rows. When every
feature value is an integer (binary or ordinal data) and the coefficients are
integers, every score is an integer in a known range, and ``log(1 + exp(-s))`` is read
from a table instead of computed.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from riskexplore.core.distinct_rows import distinct_rows, small_integer_codes
from riskexplore.risk_score.datafit import data_fingerprint

#: Largest score range for which an integer lookup table is built.
_MAX_TABLE = 2_000_000
#: Rows times columns from which a mostly-zero ``Z`` is also kept in sparse (CSR) form for
#: margins and gradients (on 111 one-hot items and 26,564 rows, 13% non-zero, a loss
#: with its gradient takes a fraction of the dense product's time; small ``Z`` stay dense).
_SPARSE_MIN_SIZE = 500_000
#: Largest share of non-zero entries for the sparse form.
_SPARSE_DENSITY = 0.2


def mostly_zero(A: np.ndarray) -> bool:
    """Whether a matrix is large and mostly zeros (its products are then faster in CSR
    form; small matrices stay dense).

    Parameters
    ----------
    A : ndarray
        The matrix.

    Returns
    -------
    bool
        At least ``_SPARSE_MIN_SIZE`` entries, at most ``_SPARSE_DENSITY`` of them non-zero.
    """
    return A.size >= _SPARSE_MIN_SIZE and np.count_nonzero(A) <= _SPARSE_DENSITY * A.size


class LogisticLoss:
    """``l(lam) = sum_i w_i log(1 + exp(-<lam, z_i>))`` with ``sum_i w_i = 1``.

    The engine's logistic datafit (:class:`~riskexplore.risk_score.datafit.Datafit`).

    Parameters
    ----------
    Z : array (m, d+1)
        Distinct signed rows ``y_i * [1, x_i]``.
    weights : array (m,)
        Non-negative weights summing to one.
    lam_lower, lam_upper : arrays (d+1,)
        Integer bounds on ``lam``; used to size the lookup table.
    """

    #: ``lam[0]`` is a free intercept.
    has_intercept = True
    #: The compiled support kernel of ``support/`` screens supports of this loss.
    support_kernel = "logistic"

    def __init__(
        self,
        Z: np.ndarray,
        weights: np.ndarray,
        lam_lower: np.ndarray | None = None,
        lam_upper: np.ndarray | None = None,
    ):
        self.Z = np.ascontiguousarray(Z, dtype=float)
        self.weights = np.asarray(weights, dtype=float)
        self.ZT_w = None  # lazily built (d+1, m) matrix for fast gradients
        self._table = None
        self._sigma_table = None
        self._smin = 0
        self._csr = None  # Z in CSR form when large and mostly zeros (products only)
        if mostly_zero(self.Z):
            self._csr = csr_matrix(self.Z)
        if lam_lower is not None and np.all(self.Z == np.round(self.Z)):
            smin, smax = score_range(self.Z, lam_lower, lam_upper)
            if smax - smin < _MAX_TABLE:
                s = np.arange(smin, smax + 1, dtype=float)
                self._smin = int(smin)
                self._table = np.logaddexp(0.0, -s)
                self._sigma_table = _expit(-s)

    @classmethod
    def from_data(
        cls, X: np.ndarray, y: np.ndarray, w: np.ndarray, lam_lower=None, lam_upper=None
    ) -> LogisticLoss:
        """Compress rows of ``y*[1, X]`` (y in {-1,+1}) and normalise ``w`` to sum to one."""
        Zu, inverse = distinct_rows(signed_rows(X, y))
        wu = np.bincount(inverse, weights=w, minlength=len(Zu))
        keep = wu > 0
        return cls(Zu[keep].astype(float), wu[keep] / wu.sum(), lam_lower, lam_upper)

    @property
    def n_rows(self) -> int:
        """The number of distinct rows."""
        return self.Z.shape[0]

    @property
    def integer_scores(self) -> bool:
        """Whether losses of integer models are read from the lookup table."""
        return self._table is not None

    def scores(self, lam: np.ndarray) -> np.ndarray:
        """The margins ``Z @ lam`` of every distinct row.

        Parameters
        ----------
        lam : ndarray
            The model.

        Returns
        -------
        ndarray
            The margins.
        """
        if self._csr is not None:
            return self._csr @ np.asarray(lam, dtype=float)
        return self.Z @ lam

    def column(self, j):
        """How the margins change per unit of ``lam[j]``: the column ``Z[:, j]``.

        Parameters
        ----------
        j : int or array of int
            A coordinate of ``lam``, or several (then one column each).

        Returns
        -------
        ndarray
            The column(s) of ``Z``.
        """
        return self.Z[:, j]

    def loss_floor(self) -> float:
        """A lower bound on the loss of every model: 0 (each term is positive).

        Returns
        -------
        float
            0.0.
        """
        return 0.0

    def loss_bounds(self, lower: np.ndarray, upper: np.ndarray, max_size: int):
        """``[L_min, L_max]`` over every model in a box (Proposition 4 of Ustun & Rudin).

        Parameters
        ----------
        lower, upper : ndarray of shape (d+1,)
            The box of ``[intercept, points...]``.
        max_size : int
            The most non-zero points.

        Returns
        -------
        tuple of float
            ``(L_min, L_max)``.
        """
        y = self.Z[:, 0]  # first column of z = y * [1, x] is the label
        X = self.Z[:, 1:] * y[:, None]
        s_min, s_max = box_score_range(X, lower[1:], upper[1:], max_size)
        lo0, hi0 = lower[0], upper[0]
        worst_margin = np.where(y > 0, lo0 + s_min, -(hi0 + s_max))
        best_margin = np.where(y > 0, hi0 + s_max, -(lo0 + s_min))
        L_min = float(self.weights @ np.logaddexp(0.0, -best_margin))
        L_max = float(self.weights @ np.logaddexp(0.0, -worst_margin))
        return L_min, L_max

    def fingerprint(self) -> str:
        """A digest of the compressed rows and weights (equal data, equal digest).

        Returns
        -------
        str
            A hex digest, as the cut pool keeps.
        """
        return data_fingerprint(self.Z, self.weights)

    def from_scores(self, s: np.ndarray, integral: bool = False) -> float:
        """Loss given margins ``s = Z @ lam``; ``integral`` promises integer ``lam``."""
        if integral and self._table is not None:
            idx = np.rint(s).astype(np.int64) - self._smin
            return float(self.weights @ self._table[idx])
        return float(self.weights @ np.logaddexp(0.0, -s))

    def value(self, lam: np.ndarray, integral: bool = False) -> float:
        """The loss at ``lam`` (``integral=True`` promises an integer ``lam``: table lookup).

        Parameters
        ----------
        lam : ndarray
            The model.
        integral : bool
            Whether ``lam`` is integer.

        Returns
        -------
        float
            The loss.
        """
        return self.from_scores(self.scores(lam), integral)

    def value_and_grad(self, lam: np.ndarray, integral: bool = False):
        """The loss at ``lam`` and its gradient.

        Parameters
        ----------
        lam : ndarray
            The model.
        integral : bool
            Whether ``lam`` is integer.

        Returns
        -------
        tuple
            ``(loss, gradient)``.
        """
        s = self.scores(lam)
        if integral and self._table is not None:
            idx = np.rint(s).astype(np.int64) - self._smin
            value = float(self.weights @ self._table[idx])
            p = self._sigma_table[idx]
        else:
            value = float(self.weights @ np.logaddexp(0.0, -s))
            p = _expit(-s)
        if self._csr is not None:
            grad = -(self._csr.T @ (self.weights * p))
        else:
            grad = -((self.weights * p) @ self.Z)
        return value, grad

    def batch_from_scores(self, S: np.ndarray) -> np.ndarray:
        """Losses of many candidates whose margins are the columns of ``S`` (m, k)."""
        return self.weights @ np.logaddexp(0.0, -S)


def signed_rows(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The signed rows ``y * [1, x]`` (``y`` in {-1, +1}), as ``int8`` when every feature
    is a whole number within -127..127 (a million rows of a hundred items then take a
    hundred megabytes instead of eight hundred), else as floats.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The features.
    y : ndarray of shape (n,)
        The labels, -1 or +1.

    Returns
    -------
    ndarray of shape (n, d + 1)
        The signed rows; equal values whatever the dtype.
    """
    coded = small_integer_codes(X)
    if coded is None or coded[1] < -127 or coded[1] + int(coded[0].max()) > 127:
        return y[:, None] * np.column_stack([np.ones(len(y)), X])
    codes, low = coded
    Z = np.empty((len(y), codes.shape[1] + 1), dtype=np.int8)
    Z[:, 0] = y
    step = 1 << 16  # block by block: the int16 products stay small
    for start in range(0, len(y), step):
        part = codes[start : start + step].astype(np.int16) + low
        Z[start : start + step, 1:] = part * y[start : start + step, None].astype(np.int16)
    return Z


def score_range(Z: np.ndarray, lam_lower: np.ndarray, lam_upper: np.ndarray):
    """Smallest and largest margin any ``lam`` in the box can give any row.

    Parameters
    ----------
    Z : ndarray of shape (m, d+1)
        Signed rows.
    lam_lower, lam_upper : ndarray of shape (d+1,)
        The box.

    Returns
    -------
    tuple of float
        ``(smallest, largest)``, rounded outwards to integers.
    """
    lo = np.minimum(Z * lam_lower, Z * lam_upper).sum(axis=1)
    hi = np.maximum(Z * lam_lower, Z * lam_upper).sum(axis=1)
    return float(np.floor(lo.min())), float(np.ceil(hi.max()))


def box_score_range(X: np.ndarray, lo: np.ndarray, hi: np.ndarray, max_size: int):
    """Smallest and largest ``<points, x_i>`` over a box with at most ``max_size`` points.

    A point forced in by the box (``lo > 0`` or ``hi < 0``) counts against ``max_size``
    whatever its value.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Rows of features.
    lo, hi : ndarray of shape (d,)
        The box of the points.
    max_size : int
        The most non-zero points.

    Returns
    -------
    tuple of ndarray
        The smallest and largest score of each row.
    """
    t_min = np.minimum(X * lo, X * hi)
    t_max = np.maximum(X * lo, X * hi)
    forced = (lo > 0) | (hi < 0)
    free = max(0, max_size - int(forced.sum()))
    s_min = t_min[:, forced].sum(axis=1) + _sum_extreme(np.minimum(t_min[:, ~forced], 0), free)
    s_max = t_max[:, forced].sum(axis=1) - _sum_extreme(-np.maximum(t_max[:, ~forced], 0), free)
    return s_min, s_max


def _sum_extreme(T: np.ndarray, k: int) -> np.ndarray:
    """Sum of the ``k`` smallest entries of each row of ``T``."""
    if T.shape[1] == 0 or k <= 0:
        return np.zeros(T.shape[0])
    if k >= T.shape[1]:
        return T.sum(axis=1)
    return np.partition(T, k - 1, axis=1)[:, :k].sum(axis=1)


def _expit(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out
