"""The predictive checklist problem: M-of-N rules over binary items (Zhang et al. 2021, IP (2)).

A checklist uses items ``S`` (``use_j = 1`` for ``j in S``, ``N = |S|``) and predicts
positive when at least ``M`` of them are checked. :class:`ChecklistProblem` holds the
training data, the size bounds, the constraints and the objective::

    FN + W- * FP + eps_N * N + eps_M * M

where ``FN`` and ``FP`` are sample-weighted mistakes and ``W-`` is ``fp_weight``: the
objective (2a) of the integer program (2) of Zhang et al. [1]_ (Section 3).

Lexicographic objective
-----------------------
Let ``q > 0`` be a grid of the loss coefficients: every weighted class count of a
distinct item pattern (``w+_u`` and ``W- * w-_u``) is an integer multiple of ``q``
(``q = 1`` for unit or integer weights with ``W- = 1``; rational weights with
denominators up to 10^6 are detected). Then every achievable loss is a multiple of
``q``, and with ``d`` items we set::

    eps_N = q / (2 (d + 1)),        eps_M = eps_N / (d + 1).

Because ``N, M <= d``: (i) ``eps_N N + eps_M M < q/2 + eps_N < q``, so a checklist with
a smaller loss always has a smaller objective; (ii) ``eps_M M < eps_N``, so among equal
losses fewer items win, then a smaller ``M``. Also every objective value is an integer
multiple of ``eps_M``, which lets the solver certify optimality once its gap is below
``eps_M / 2``. The constants depend only on ``d`` and the weights, so objectives are
comparable across problems that differ in size bounds or constraints. If the weights
have no such grid (arbitrary reals), ``q`` falls back to ``1e-3`` times the smallest
non-zero coefficient and ``lexicographic_exact`` is ``False``.

Groups
------
``groups`` (a Series or DataFrame of protected attributes, one row per example) defines
intersectional groups: the combinations of its columns' values, labelled like
``"sex=F & race=B"``. Group-fairness constraints use them (``by=`` selects columns).

References
----------
.. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
   Predictive Checklists", Advances in Neural Information Processing Systems 34
   (NeurIPS 2021), 2021.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from riskexplore.checklist.constraints import checklist_constraints_to_rows
from riskexplore.checklist.rows import ALL, ChecklistRow, ErrorRow
from riskexplore.core.constraints import check_name, close_matches_hint
from riskexplore.core.distinct_rows import distinct_rows
from riskexplore.core.params import Check, Interval, validate
from riskexplore.core.rates import group_frame, group_labels
from riskexplore.data.validation import check_training_data
from riskexplore.errors import ConstraintError, InputError

__all__ = [
    "PARAMETERS",
    "ChecklistProblem",
    "ChecklistSolution",
    "checklist_sizes",
]

#: Tolerances of constraint checks on weighted mistakes (HiGHS' feasibility tolerance
#: is 1e-6, so a checklist HiGHS accepts is accepted here too).
_ABS_TOL = 1e-6
_REL_TOL = 1e-9


def violation_slack(bound: float) -> float:
    """Tolerance of a check against ``bound`` (relative for large bounds).

    Parameters
    ----------
    bound : float
        The bound.

    Returns
    -------
    float
        The tolerance (0 for an infinite bound).
    """
    return _ABS_TOL + _REL_TOL * abs(bound) if math.isfinite(bound) else 0.0


_POSITIVE = Interval(float, 0, None, closed="neither")

#: What the settings of a checklist problem may be (see :mod:`riskexplore.core.params`);
#: :func:`checklist_sizes` and :class:`ChecklistProblem` check them.
PARAMETERS = {
    "max_items": [Interval(int, 1, None), None],
    "min_items": [Interval(int, 0, None)],
    "min_m": [Interval(int, 1, None)],
    "max_m": [Interval(int, 1, None), None],
    "fp_weight": [
        Check(lambda w: _POSITIVE.satisfied_by(w) and math.isfinite(w), "a positive number")
    ],
}
_POSITIVE = Interval(float, 0, None, closed="neither")


def checklist_sizes(
    *,
    max_items: int | None = None,
    min_items: int = 1,
    min_m: int = 1,
    max_m: int | None = None,
    n_items: int | None = None,
) -> dict[str, int | None]:
    """The size and threshold bounds of a checklist problem, checked and made consistent.

    Parameters
    ----------
    max_items, min_items : int
        Bounds on the number of items ``N`` (``max_items=None``: no limit).
    min_m, max_m : int
        Bounds on the threshold ``M`` (``max_m=None``: ``max_items``).
    n_items : int, optional
        The number of items of the data (``max_items`` is capped by it), once known.

    Returns
    -------
    dict
        ``max_items``, ``min_items`` (at least 1), ``min_m``, ``max_m`` (at most
        ``max_items``); ``max_items`` and ``max_m`` stay None without limits and
        ``n_items``.

    Raises
    ------
    InputError
        For a setting of the wrong kind, or empty bounds.
    """
    validate(
        PARAMETERS, {"max_items": max_items, "min_items": min_items, "min_m": min_m, "max_m": max_m}
    )
    n_max = None if max_items is None else int(max_items)
    if n_items is not None:
        n_max = n_items if n_max is None else min(n_max, n_items)
    n_min, m_min = int(min_items), int(min_m)
    m_max = n_max if max_m is None else int(max_m) if n_max is None else min(int(max_m), n_max)
    if n_max is not None and n_min > n_max:
        with_items = "" if n_items is None else f" (with {n_items} items)"
        raise InputError(
            f"min_items={n_min} exceeds max_items={n_max}{with_items}; the size bounds are empty"
        )
    if m_max is not None and m_min > m_max:
        at_most = "" if n_max is None else f" (max_m is at most max_items={n_max})"
        raise InputError(
            f"the threshold bounds are empty: min_m={m_min} exceeds max_m={m_max}{at_most}"
        )
    return {"max_items": n_max, "min_items": max(n_min, 1), "min_m": m_min, "max_m": m_max}


class ChecklistSolution(NamedTuple):
    """A checklist as the solvers return it (:attr:`SolveResult.solution`).

    Attributes
    ----------
    items : list of str
        The items on the checklist.
    M : int
        The threshold: predict positive when at least ``M`` items are checked.
    """

    items: list[str]
    M: int


class ChecklistProblem:
    """Data, size bounds, constraints and objective of a predictive checklist.

    Parameters
    ----------
    X : DataFrame or array (n, d)
        Binary items (0/1 or booleans), no missing values.
    y : array-like (n,)
        Binary outcome with any two values; the larger (``True``) is positive.
    item_groups : mapping item -> feature group, optional
        E.g. ``Binarizer.item_groups_``; used by :class:`OneItemPerGroup`.
    sample_weight : array-like (n,), optional
    max_items, min_items : int
        Bounds on ``N`` (default ``1..d``).
    min_m, max_m : int
        Bounds on the threshold ``M`` (default ``1..max_items``); always ``M <= N``.
    fp_weight : float
        ``W-``, the cost of a false positive (a false negative costs 1).
    constraints : iterable
        Checklist constraints (see :mod:`riskexplore.checklist.constraints`),
        rows, or Pyomo models from :func:`checklist_model`.
    groups : Series or DataFrame, optional
        Protected attributes, one row per example, for group-fairness constraints.

    Attributes
    ----------
    item_names : list of str
    X : uint8 array (n, d)
    y : uint8 array (n,) of 0/1
    weights : float array (n,)
    item_groups : dict item -> group
    eps_n, eps_m, error_unit : float
        Tie-breaking penalties and the loss grid ``q`` (see the module docstring).
    notes : list of str
        Remarks made while compiling constraints (e.g. groups skipped).
    """

    def __init__(
        self,
        X,
        y,
        *,
        item_groups: Mapping[str, str] | None = None,
        sample_weight=None,
        max_items: int | None = None,
        min_items: int = 1,
        min_m: int = 1,
        max_m: int | None = None,
        fp_weight: float = 1.0,
        constraints: Iterable = (),
        groups=None,
    ) -> None:
        X_float, y_pm, w, names = check_training_data(X, y, sample_weight)
        _check_binary(X_float, names)
        self.item_names: list[str] = names
        self.X = X_float.astype(np.uint8)
        self.y = (y_pm > 0).astype(np.uint8)
        self.weights = w.astype(float)
        validate(PARAMETERS, {"fp_weight": fp_weight})
        self.fp_weight = float(fp_weight)
        self.item_groups = _item_groups(item_groups, names)
        d = len(names)
        self._set_sizes(d, max_items, min_items, min_m, max_m)
        self._compress()
        self.groups = group_frame(groups, self.X.shape[0])
        self._group_rows: dict[str, np.ndarray] = {}
        self._group_unique: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.notes: list[str] = []
        self._set_epsilons()
        compiled = checklist_constraints_to_rows(constraints, names, problem=self)
        self.rows: list[ChecklistRow] = [r for r in compiled if isinstance(r, ChecklistRow)]
        self.error_rows: list[ErrorRow] = [r for r in compiled if isinstance(r, ErrorRow)]
        self._compile_rows()

    # --- setup -------------------------------------------------------------------------
    def _set_sizes(self, d, max_items, min_items, min_m, max_m) -> None:
        sizes = checklist_sizes(
            max_items=max_items, min_items=min_items, min_m=min_m, max_m=max_m, n_items=d
        )
        self.max_items, self.min_items = sizes["max_items"], sizes["min_items"]
        self.min_m, self.max_m = sizes["min_m"], sizes["max_m"]

    def _compress(self) -> None:
        """Distinct item patterns ``u`` with their weighted class counts."""
        X = self.X
        if X.shape[1] == 0:  # pragma: no cover - rejected by validation
            raise InputError("X has no items")
        patterns, inverse = distinct_rows(X)
        self.patterns = patterns.astype(np.uint8)
        self.pattern_of_row = inverse
        U = patterns.shape[0]
        pos = self.y == 1
        self.w_pos = np.bincount(inverse[pos], weights=self.weights[pos], minlength=U)
        self.w_neg = np.bincount(inverse[~pos], weights=self.weights[~pos], minlength=U)
        self.pattern_size = patterns.sum(axis=1).astype(np.int64)
        self.total_pos = float(self.weights[pos].sum())
        self.total_neg = float(self.weights[~pos].sum())

    def _set_epsilons(self) -> None:
        coefs = np.concatenate([self.w_pos, self.fp_weight * self.w_neg])
        coefs = coefs[coefs > 0]
        q = grid_of(coefs)
        self.lexicographic_exact = q is not None
        if q is None:
            q = 1e-3 * float(coefs.min())
        d = len(self.item_names)
        self.error_unit = q
        self.eps_n = q / (2.0 * (d + 1))
        self.eps_m = self.eps_n / (d + 1)

    def _compile_rows(self) -> None:
        d = len(self.item_names)
        index = {n: j for j, n in enumerate(self.item_names)}
        A = np.zeros((len(self.rows), d + 2))  # [use_1..d, M, N]
        for i, row in enumerate(self.rows):
            for name, c in row.items.items():
                A[i, index[check_name(row.name, name, self.item_names, "item")]] += c
            A[i, d] += row.M
            A[i, d + 1] += row.N
        self.row_A = A
        self.row_lower = np.array([r.lower for r in self.rows], dtype=float)
        self.row_upper = np.array([r.upper for r in self.rows], dtype=float)
        for row in self.error_rows:
            for key in (*row.fn, *row.fp):
                self.group_class_weights(key)  # validates the labels

    def without_rows(self) -> ChecklistProblem:
        """A copy without the table's rows (``X``, ``y``, ``weights``, the groups and
        ``pattern_of_row``): the distinct patterns and everything else kept, for the
        workers of a search that are given its arrays (a million rows stay here).

        Returns
        -------
        ChecklistProblem
            A shallow copy; its row-level attributes are None.
        """
        light = copy.copy(self)
        light.X = light.y = light.weights = light.pattern_of_row = light.groups = None
        light._group_rows, light._group_unique = {}, {}
        return light

    # --- groups ------------------------------------------------------------------------
    def group_labels(self, by: Sequence[str] | None = None) -> list[str]:
        """Labels of the intersectional groups formed by the ``by`` columns of
        ``groups`` (all columns when ``None``), in sorted order."""
        if self.groups is None:
            raise ConstraintError(
                "group constraints need the protected attributes: pass groups= (a Series or "
                "DataFrame with one row per example) to the checklist problem"
            )
        columns = list(self.groups.columns) if by is None else list(by)
        for col in columns:
            if col not in self.groups.columns:
                hint = close_matches_hint(str(col), list(self.groups.columns))
                raise ConstraintError(f"unknown group column {col!r}{hint}")
        labels = group_labels(self.groups[columns], len(self.groups))
        out = []
        for label in sorted(set(labels)):
            if label not in self._group_rows:
                self._group_rows[label] = labels == label
            out.append(label)
        return out

    def group_rows(self, label: str) -> np.ndarray:
        """Boolean mask of the training rows in group ``label`` (:data:`ALL`: every row)."""
        if label == ALL:
            return np.ones(self.X.shape[0], dtype=bool)
        try:
            return self._group_rows[label]
        except KeyError:
            raise ConstraintError(
                f"unknown group {label!r}; labels come from group_labels(by)"
            ) from None

    def group_class_weights(self, label: str) -> tuple[np.ndarray, np.ndarray]:
        """Weighted positives and negatives of group ``label`` per distinct pattern."""
        if label == ALL:
            return self.w_pos, self.w_neg
        if label not in self._group_unique:
            rows = self.group_rows(label)
            U = self.patterns.shape[0]
            pos = rows & (self.y == 1)
            neg = rows & (self.y == 0)
            inv, w = self.pattern_of_row, self.weights
            self._group_unique[label] = (
                np.bincount(inv[pos], weights=w[pos], minlength=U),
                np.bincount(inv[neg], weights=w[neg], minlength=U),
            )
        return self._group_unique[label]

    def class_weight(self, label: str, *, positive: bool) -> float:
        """Weighted number of positive (or negative) examples of group ``label``."""
        wp, wn = self.group_class_weights(label)
        return float((wp if positive else wn).sum())

    def add_note(self, note: str) -> None:
        """Record a remark about the problem (once), e.g. a group left out of a constraint.

        Parameters
        ----------
        note : str
            The remark.
        """
        if note not in self.notes:
            self.notes.append(note)

    # --- checklists --------------------------------------------------------------------
    @property
    def n_items(self) -> int:
        """The number of items ``d``."""
        return len(self.item_names)

    def mask(self, items) -> np.ndarray:
        """Boolean mask of a checklist given as item names or a 0/1 mask of length d."""
        if isinstance(items, str):
            items = [items]
        values = list(items) if not isinstance(items, np.ndarray) else items
        d = self.n_items
        if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
            if values.shape != (d,):
                raise InputError(f"an item mask needs {d} entries, got shape {values.shape}")
            return values.astype(bool)
        if values and all(isinstance(v, str) for v in values):
            index = {n: j for j, n in enumerate(self.item_names)}
            out = np.zeros(d, dtype=bool)
            for name in values:
                out[index[check_name("checklist", name, self.item_names, "item")]] = True
            return out
        if len(values) == 0:
            return np.zeros(d, dtype=bool)
        array = np.asarray(values)
        if array.shape != (d,):
            raise InputError(f"an item mask needs {d} entries, got {len(values)}")
        return array.astype(bool)

    def items_of(self, mask) -> list[str]:
        """The item names of a checklist given as names or a 0/1 mask.

        Parameters
        ----------
        mask : array-like or sequence of str
            The checklist.

        Returns
        -------
        list of str
            Its items, in the problem's order.
        """
        return [n for n, m in zip(self.item_names, self.mask(mask), strict=True) if m]

    def pattern_predictions(self, items, M: int) -> np.ndarray:
        """0/1 prediction of each distinct item pattern."""
        counts = self.patterns @ self.mask(items).astype(np.int64)
        return (counts >= int(M)).astype(np.uint8)

    def predict(self, items, M: int, X=None) -> np.ndarray:
        """0/1 predictions on the training data (or on a 0/1 matrix ``X``)."""
        mask = self.mask(items).astype(np.int64)
        data = self.X if X is None else np.asarray(X)
        return ((data @ mask) >= int(M)).astype(np.uint8)

    def _mistakes(self, pred: np.ndarray, label: str = ALL) -> tuple[float, float]:
        wp, wn = self.group_class_weights(label)
        return float(wp @ (1 - pred)), float(wn @ pred)

    def errors(self, items, M: int) -> dict:
        """Weighted training mistakes: ``fp, fn, n_pos, n_neg, error, fnr, fpr, loss``.

        ``error`` is ``(fp + fn) / (n_pos + n_neg)``; ``loss`` is ``fn + W- * fp`` (the
        objective without tie-breaking penalties).
        """
        pred = self.pattern_predictions(items, M)
        fn, fp = self._mistakes(pred)
        n_pos, n_neg = self.total_pos, self.total_neg
        return {
            "fp": fp,
            "fn": fn,
            "n_pos": n_pos,
            "n_neg": n_neg,
            "error": (fp + fn) / (n_pos + n_neg),
            "fnr": fn / n_pos if n_pos > 0 else math.nan,
            "fpr": fp / n_neg if n_neg > 0 else math.nan,
            "loss": fn + self.fp_weight * fp,
        }

    def loss(self, items, M: int) -> float:
        """The weighted mistakes ``FN + W- FP`` of a checklist on the training data.

        Parameters
        ----------
        items : array-like or sequence of str
            The checklist's items (names or a 0/1 mask).
        M : int
            Its threshold.

        Returns
        -------
        float
            The loss.
        """
        fn, fp = self._mistakes(self.pattern_predictions(items, M))
        return fn + self.fp_weight * fp

    def objective(self, items, M: int) -> float:
        """The IP objective ``FN + W- FP + eps_N N + eps_M M`` of a checklist."""
        mask = self.mask(items)
        return self.loss(mask, M) + self.eps_n * int(mask.sum()) + self.eps_m * int(M)

    def size_names(self) -> dict[str, str]:
        """Names of the size and threshold bounds, as used in violations and errors."""
        return {
            "max_items": f"Use at most {self.max_items} items (max_items)",
            "min_items": f"Use at least {self.min_items} items (min_items)",
            "m_range": f"Threshold M between {self.min_m} and {self.max_m}",
            "m_le_n": "Threshold M at most the number of items N",
        }

    def violations(self, items, M: int, tol: float = 1e-7) -> list[str]:
        """Names of the bounds and constraints that the checklist breaks (exact check)."""
        mask = self.mask(items)
        N = int(mask.sum())
        M = int(M)
        names = self.size_names()
        out = []
        if N > self.max_items:
            out.append(names["max_items"])
        if N < self.min_items:
            out.append(names["min_items"])
        if not self.min_m <= M <= self.max_m:
            out.append(names["m_range"])
        if M > N:
            out.append(names["m_le_n"])
        if self.rows:
            x = np.concatenate([mask.astype(float), [M, N]])
            ax = self.row_A @ x
            bad = (ax < self.row_lower - tol) | (ax > self.row_upper + tol)
            out.extend(self.rows[i].name for i in np.flatnonzero(bad))
        if self.error_rows:
            pred = self.pattern_predictions(mask, M)
            for row in self.error_rows:
                value = self.error_row_value(row, pred)
                if value > row.upper + violation_slack(
                    row.upper
                ) or value < row.lower - violation_slack(row.lower):
                    out.append(row.name)
        return out

    def error_row_value(self, row: ErrorRow, pred: np.ndarray) -> float:
        """The left-hand side of a mistake row for the pattern predictions ``pred``.

        Parameters
        ----------
        row : ErrorRow
            The row.
        pred : ndarray of shape (patterns,)
            The 0/1 prediction of each distinct item pattern.

        Returns
        -------
        float
            ``sum_g fn[g] FN_g + fp[g] FP_g``.
        """
        value = 0.0
        for label, c in row.fn.items():
            value += c * self._mistakes(pred, label)[0]
        for label, c in row.fp.items():
            value += c * self._mistakes(pred, label)[1]
        return value

    def is_feasible(self, items, M: int) -> bool:
        """Whether a checklist meets every bound and constraint of the problem.

        Parameters
        ----------
        items : array-like or sequence of str
            The checklist's items.
        M : int
            Its threshold.

        Returns
        -------
        bool
            True without violations.
        """
        return not self.violations(items, M)

    def as_dict(self, items, M: int) -> dict:
        """``{"items": [...], "M": m}``, the incumbent format of solve events."""
        return {"items": self.items_of(items), "M": int(M)}


# --- validation helpers ----------------------------------------------------------------
def _check_binary(X: np.ndarray, names: list[str]) -> None:
    bad = (X != 0) & (X != 1)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        i = int(np.flatnonzero(bad[:, j])[0])
        raise InputError(
            f"item {names[j]!r} has value {X[i, j]:g} at row position {i}; checklist items "
            "must be 0/1, so binarize the features first (e.g. with Binarizer)"
        )


def _item_groups(item_groups, names: list[str]) -> dict[str, str]:
    if item_groups is None:
        return {}
    if not isinstance(item_groups, Mapping):
        raise InputError("item_groups must map item names to feature group names")
    out = {}
    for item, group in item_groups.items():
        if item not in names:
            continue  # e.g. Binarizer groups of items dropped before fitting
        out[str(item)] = str(group)
    return out


def grid_of(coefs: np.ndarray) -> float | None:
    """Largest ``q`` with every coefficient an integer multiple of ``q`` (rational
    coefficients with denominators up to 10^6), or ``None``.

    Parameters
    ----------
    coefs : ndarray
        Positive coefficients.

    Returns
    -------
    float or None
        The grid ``q``, or ``None`` when there is none.
    """
    if coefs.size == 0:
        return 1.0
    if np.all(coefs == np.round(coefs)):
        g = 0
        for c in np.unique(coefs).astype(np.int64):
            g = math.gcd(g, int(c))
            if g == 1:
                break
        return float(g)
    num, den = 0, 1
    for c in np.unique(coefs):
        f = Fraction(float(c)).limit_denominator(10**6)
        if abs(float(f) - c) > 1e-12 * max(1.0, abs(c)):
            return None
        den_new = den * f.denominator // math.gcd(den, f.denominator)
        num = math.gcd(num * (den_new // den), f.numerator * (den_new // f.denominator))
        den = den_new
        if den > 10**9:
            return None
    q = num / den
    if q <= 1e-9 * float(coefs.max()):
        return None
    return q
