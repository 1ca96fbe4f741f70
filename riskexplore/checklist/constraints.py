"""Readable constraints for predictive checklists (Zhang et al. 2021, Table 1).

The model requirements of Table 1 of Zhang et al. [1]_ (Section 3), and more. A checklist
chooses items ``use_j in {0, 1}`` (``lambda_j`` in [1]_, Section 3), a threshold
``M`` and has ``N = sum_j use_j`` items; it predicts positive when at least ``M`` of its
items are checked. Constraints compile to two kinds of linear rows:

* :class:`ChecklistRow` -- on the model form, over ``use_j``, ``M`` and ``N``:
  ``lower <= sum_j items[j]*use_j + M_coef*M + N_coef*N <= upper``;
* :class:`ErrorRow` -- on the training mistakes, over the weighted false negatives
  ``FN_g`` and false positives ``FP_g`` of groups ``g`` of examples (``ALL`` is the
  whole training set): ``lower <= sum_g fn[g]*FN_g + fp[g]*FP_g <= upper``. The solver
  expands ``FN_g`` and ``FP_g`` into its mistake indicators; denominators of rates are
  constants (weighted class counts per group), so rate constraints stay linear.

Each readable constraint is a frozen dataclass with ``to_rows(item_names, problem=None)``
and ``describe()``; the description names the rows, so it shows in error messages and
in :meth:`ChecklistProblem.violations`. Constraints on the data (rates, group
fairness) need the problem (``problem=``) to know class weights and groups.

References
----------
.. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
   Predictive Checklists", Advances in Neural Information Processing Systems 34
   (NeurIPS 2021), 2021.

Examples
--------
>>> constraints = [
...     MaxItems(5), OneItemPerGroup(), Implies("cough", then_any=["fever"]),
...     PredictPositiveWhen(["fever", "cough"]), FNRLimit(0.2),
...     GroupRateGap("fpr", max_gap=0.1)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from riskexplore.checklist.pyomo import rows_from_pyomo
from riskexplore.checklist.rows import ALL, ChecklistRow, ErrorRow
from riskexplore.core.constraints import (
    ReadableConstraint,
    check_name,
    check_names,
    close_matches_hint,
    compile_constraints,
    fraction,
    listing,
    name_tuple,
    one_or_more_names,
    whole_number,
)
from riskexplore.errors import ConstraintError

__all__ = [
    "AtMostKItems",
    "ExcludeItem",
    "FNRLimit",
    "FPRLimit",
    "GroupRateGap",
    "Implies",
    "IncludeItem",
    "MRange",
    "MaxItems",
    "MinItems",
    "OneItemPerGroup",
    "PredictNegativeWhen",
    "PredictPositiveWhen",
    "WorstGroupRate",
    "checklist_constraints_to_rows",
]

_RATES = ("fnr", "fpr")


# --- helpers ---------------------------------------------------------------------------
def _rate(rate, what: str) -> str:
    text = str(rate).lower()
    if text not in _RATES:
        raise ConstraintError(f"{what}: rate must be 'fpr' or 'fnr', got {rate!r}")
    return text


def _by_tuple(by, what: str) -> tuple[str, ...] | None:
    if by is None:
        return None
    return tuple(str(n) for n in one_or_more_names(by, f"{what}: by", "group column"))


def _pct(x: float) -> str:
    return f"{100 * x:.4g}%"


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' if k != 1 else ''}"


def _need_problem(constraint, problem) -> None:
    if problem is None:
        raise ConstraintError(
            f"constraint {constraint.describe()!r} depends on the training data; compile it "
            "with a ChecklistProblem (to_rows(item_names, problem=...))"
        )


class ChecklistConstraint(ReadableConstraint):
    """Base class of the readable checklist constraints.

    ``to_rows(item_names, problem=None)`` compiles the constraint to
    :class:`ChecklistRow` and :class:`ErrorRow` objects (constraints on the data need the
    problem); ``describe()`` names them.
    """


# --- model size and threshold ------------------------------------------------------------
@dataclass(frozen=True)
class MaxItems(ChecklistConstraint):
    """Use at most ``n`` items: ``N <= n``."""

    n: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", whole_number(self.n, "MaxItems: n"))

    def describe(self) -> str:
        return f"Use at most {_plural(self.n, 'item')}"

    def to_rows(self, item_names, problem=None):
        return [ChecklistRow(self.describe(), N=1.0, upper=float(self.n))]


@dataclass(frozen=True)
class MinItems(ChecklistConstraint):
    """Use at least ``n`` items: ``N >= n``."""

    n: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", whole_number(self.n, "MinItems: n"))

    def describe(self) -> str:
        return f"Use at least {_plural(self.n, 'item')}"

    def to_rows(self, item_names, problem=None):
        return [ChecklistRow(self.describe(), N=1.0, lower=float(self.n))]


@dataclass(frozen=True)
class MRange(ChecklistConstraint):
    """Threshold between ``lo`` and ``hi`` checked items (``None`` for an open side)."""

    lo: int | None = None
    hi: int | None = None

    def __post_init__(self) -> None:
        if self.lo is None and self.hi is None:
            raise ConstraintError("MRange: give lo and/or hi")
        if self.lo is not None:
            object.__setattr__(self, "lo", whole_number(self.lo, "MRange: lo"))
        if self.hi is not None:
            object.__setattr__(self, "hi", whole_number(self.hi, "MRange: hi"))
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ConstraintError(f"MRange: lo={self.lo} exceeds hi={self.hi}")

    def describe(self) -> str:
        if self.hi is None:
            return f"Threshold M at least {self.lo}"
        if self.lo is None:
            return f"Threshold M at most {self.hi}"
        if self.lo == self.hi:
            return f"Threshold M equal to {self.lo}"
        return f"Threshold M between {self.lo} and {self.hi}"

    def to_rows(self, item_names, problem=None):
        lo = -math.inf if self.lo is None else float(self.lo)
        hi = math.inf if self.hi is None else float(self.hi)
        return [ChecklistRow(self.describe(), M=1.0, lower=lo, upper=hi)]


# --- items -------------------------------------------------------------------------------
@dataclass(frozen=True)
class AtMostKItems(ChecklistConstraint):
    """Use at most ``k`` of ``items``: ``sum_{j in items} use_j <= k``."""

    items: tuple[str, ...]
    k: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", name_tuple(self.items, "AtMostKItems", "item"))
        object.__setattr__(self, "k", whole_number(self.k, "AtMostKItems: k"))

    def describe(self) -> str:
        return f"Use at most {self.k} of: {listing(self.items)}"

    def to_rows(self, item_names, problem=None):
        check_names(self.describe(), self.items, item_names, "item")
        return [ChecklistRow(self.describe(), {i: 1.0 for i in self.items}, upper=float(self.k))]


@dataclass(frozen=True)
class OneItemPerGroup(ChecklistConstraint):
    """At most one item per feature group (adaptive binarization, Section 3).

    ``groups=None`` uses every group of the problem's ``item_groups`` (from
    ``Binarizer.item_groups_``); otherwise only the named groups. Groups with a single
    item need no row.
    """

    groups: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.groups is not None:
            object.__setattr__(self, "groups", name_tuple(self.groups, "OneItemPerGroup", "group"))

    def describe(self) -> str:
        if self.groups is None:
            return "Use at most one item per feature group"
        return f"Use at most one item of each of the groups {listing(self.groups)}"

    def to_rows(self, item_names, problem=None):
        item_groups = getattr(problem, "item_groups", None)
        if not item_groups:
            raise ConstraintError(
                f"constraint {self.describe()!r} needs item groups; pass item_groups= "
                "(e.g. Binarizer.item_groups_) to the checklist problem"
            )
        members: dict[str, list[str]] = {}
        for item in item_names:
            if item in item_groups:
                members.setdefault(str(item_groups[item]), []).append(item)
        wanted = list(members) if self.groups is None else list(self.groups)
        rows = []
        for group in wanted:
            if group not in members:
                hint = close_matches_hint(group, list(members))
                raise ConstraintError(
                    f"constraint {self.describe()!r} uses unknown feature group {group!r}{hint}"
                )
            items = members[group]
            if len(items) > 1:
                name = f"{self.describe()} ({group})"
                rows.append(ChecklistRow(name, {i: 1.0 for i in items}, upper=1.0))
        return rows


@dataclass(frozen=True)
class Implies(ChecklistConstraint):
    """Procedural rule: if ``if_item`` is used then one of ``then_any`` is used.

    ``use_if <= sum_{j in then_any} use_j`` ("if cough then fever").
    """

    if_item: str
    then_any: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.if_item, str):
            raise ConstraintError(f"Implies: if_item must be an item name, got {self.if_item!r}")
        then = one_or_more_names(self.then_any, f"Implies({self.if_item!r}, then_any=...)", "item")
        if self.if_item in then:
            raise ConstraintError(
                f"Implies: {self.if_item!r} cannot imply itself; remove it from then_any"
            )
        object.__setattr__(self, "then_any", then)

    def describe(self) -> str:
        return f"If {self.if_item} is used then {listing(self.then_any, ' or ')} is used"

    def to_rows(self, item_names, problem=None):
        label = self.describe()
        check_names(label, (self.if_item, *self.then_any), item_names, "item")
        coefs = {self.if_item: 1.0}
        coefs.update({i: -1.0 for i in self.then_any})
        return [ChecklistRow(label, coefs, upper=0.0)]


@dataclass(frozen=True)
class IncludeItem(ChecklistConstraint):
    """Always use ``item``."""

    item: str

    def describe(self) -> str:
        return f"Use {self.item}"

    def to_rows(self, item_names, problem=None):
        check_name(self.describe(), self.item, item_names, "item")
        return [ChecklistRow(self.describe(), {self.item: 1.0}, lower=1.0)]


@dataclass(frozen=True)
class ExcludeItem(ChecklistConstraint):
    """Never use ``item``."""

    item: str

    def describe(self) -> str:
        return f"Do not use {self.item}"

    def to_rows(self, item_names, problem=None):
        check_name(self.describe(), self.item, item_names, "item")
        return [ChecklistRow(self.describe(), {self.item: 1.0}, upper=0.0)]


# --- predictions -------------------------------------------------------------------------
@dataclass(frozen=True)
class PredictPositiveWhen(ChecklistConstraint):
    """An example with exactly ``items`` checked (all others unchecked) is predicted
    positive: ``sum_{j in items} use_j >= M``."""

    items: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", name_tuple(self.items, "PredictPositiveWhen", "item"))

    def describe(self) -> str:
        return f"Predict positive when {listing(self.items, ' and ')} are checked"

    def to_rows(self, item_names, problem=None):
        check_names(self.describe(), self.items, item_names, "item")
        return [ChecklistRow(self.describe(), {i: 1.0 for i in self.items}, M=-1.0, lower=0.0)]


@dataclass(frozen=True)
class PredictNegativeWhen(ChecklistConstraint):
    """An example with exactly ``items`` checked (all others unchecked) is predicted
    negative: ``sum_{j in items} use_j <= M - 1``."""

    items: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", name_tuple(self.items, "PredictNegativeWhen", "item"))

    def describe(self) -> str:
        return f"Predict negative when only {listing(self.items, ' and ')} are checked"

    def to_rows(self, item_names, problem=None):
        check_names(self.describe(), self.items, item_names, "item")
        return [ChecklistRow(self.describe(), {i: 1.0 for i in self.items}, M=-1.0, upper=-1.0)]


# --- class-based accuracy ----------------------------------------------------------------
@dataclass(frozen=True)
class FNRLimit(ChecklistConstraint):
    """Training false negative rate at most ``gamma``: ``FN <= gamma * W+`` where ``W+``
    is the weighted number of positive examples."""

    gamma: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", fraction(self.gamma, "FNRLimit: gamma"))

    def describe(self) -> str:
        return f"False negative rate at most {_pct(self.gamma)}"

    def to_rows(self, item_names, problem=None):
        _need_problem(self, problem)
        total = problem.class_weight(ALL, positive=True)
        return [ErrorRow(self.describe(), fn={ALL: 1.0}, upper=self.gamma * total)]


@dataclass(frozen=True)
class FPRLimit(ChecklistConstraint):
    """Training false positive rate at most ``gamma``: ``FP <= gamma * W-`` where ``W-``
    is the weighted number of negative examples."""

    gamma: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", fraction(self.gamma, "FPRLimit: gamma"))

    def describe(self) -> str:
        return f"False positive rate at most {_pct(self.gamma)}"

    def to_rows(self, item_names, problem=None):
        _need_problem(self, problem)
        total = problem.class_weight(ALL, positive=False)
        return [ErrorRow(self.describe(), fp={ALL: 1.0}, upper=self.gamma * total)]


# --- group fairness ----------------------------------------------------------------------
def _group_denominators(constraint, problem, rate: str, by) -> list[tuple[str, float]]:
    """``(label, weighted class count)`` of each intersectional group that has examples
    of the rate's class; groups without any are skipped with a note on the problem."""
    positive = rate == "fnr"
    out = []
    for label in problem.group_labels(by):
        total = problem.class_weight(label, positive=positive)
        if total > 0:
            out.append((label, total))
        else:
            which = "positive" if positive else "negative"
            problem.add_note(
                f"{constraint.describe()}: group {label!r} has no {which} examples, so its "
                f"{rate.upper()} is undefined; the group is skipped"
            )
    return out


def _rate_key(rate: str) -> str:
    return "fn" if rate == "fnr" else "fp"


@dataclass(frozen=True)
class GroupRateGap(ChecklistConstraint):
    """Group fairness: ``rate_g - rate_h <= max_gap`` for every pair of intersectional
    groups ``g, h`` (combinations of the values of the ``by`` columns of the problem's
    ``groups``; ``None`` uses all columns).

    ``rate`` is ``"fpr"`` (``FP_g / W-_g``) or ``"fnr"`` (``FN_g / W+_g``); the
    denominators are constants, so each pair is one linear row.
    """

    rate: str
    max_gap: float
    by: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", _rate(self.rate, "GroupRateGap"))
        object.__setattr__(self, "max_gap", fraction(self.max_gap, "GroupRateGap: max_gap"))
        object.__setattr__(self, "by", _by_tuple(self.by, "GroupRateGap"))

    def describe(self) -> str:
        over = "" if self.by is None else f" by {listing(self.by)}"
        return f"{self.rate.upper()} gap between groups{over} at most {_pct(self.max_gap)}"

    def to_rows(self, item_names, problem=None):
        _need_problem(self, problem)
        groups = _group_denominators(self, problem, self.rate, self.by)
        key = _rate_key(self.rate)
        rows = []
        for g, wg in groups:
            for h, wh in groups:
                if g == h:
                    continue
                coefs = {g: 1.0 / wg, h: -1.0 / wh}
                name = f"{self.describe()} ({g} vs {h})"
                rows.append(ErrorRow(name, **{key: coefs}, upper=self.max_gap))
        return rows


@dataclass(frozen=True)
class WorstGroupRate(ChecklistConstraint):
    """Minimax fairness: ``rate_g <= cap`` for every intersectional group ``g``."""

    rate: str
    cap: float
    by: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", _rate(self.rate, "WorstGroupRate"))
        object.__setattr__(self, "cap", fraction(self.cap, "WorstGroupRate: cap"))
        object.__setattr__(self, "by", _by_tuple(self.by, "WorstGroupRate"))

    def describe(self) -> str:
        over = "" if self.by is None else f" (groups by {listing(self.by)})"
        return f"{self.rate.upper()} of every group at most {_pct(self.cap)}{over}"

    def to_rows(self, item_names, problem=None):
        _need_problem(self, problem)
        key = _rate_key(self.rate)
        return [
            ErrorRow(f"{self.describe()} ({g})", **{key: {g: 1.0}}, upper=self.cap * wg)
            for g, wg in _group_denominators(self, problem, self.rate, self.by)
        ]


# --- compiling -------------------------------------------------------------------------
def checklist_constraints_to_rows(
    constraints: Iterable, item_names: Sequence[str], problem=None
) -> list[ChecklistRow | ErrorRow]:
    """Compile readable constraints, rows and Pyomo models to checklist rows.

    Parameters
    ----------
    constraints : iterable
        Readable checklist constraints, :class:`ChecklistRow` and :class:`ErrorRow`
        objects, Pyomo models from
        :func:`~riskexplore.checklist.pyomo.checklist_model`, and (nested) lists
        or tuples of these.
    item_names : sequence of str
        The items of the problem.
    problem : ChecklistProblem, optional
        The problem being built (constraints on the data need it).

    Returns
    -------
    list of ChecklistRow and ErrorRow
        The rows.

    Raises
    ------
    ConstraintError
        For anything else, malformed constraints and unknown items.
    """
    return compile_constraints(
        constraints,
        item_names,
        row_types=(ChecklistRow, ErrorRow),
        read_pyomo=rows_from_pyomo,
        problem=problem,
        family="checklist",
        examples="e.g. MaxItems, OneItemPerGroup, Implies, FNRLimit, GroupRateGap, a "
        "ChecklistRow, a Pyomo model from checklist_model, or a list of these",
    )
