"""Hand edits of a checklist, each with its certified distance to the best checklist.

``Checklist.with_items(add=..., remove=...)`` (add, remove or swap items) and
``Checklist.with_threshold(M)`` return a new checklist (a value) whose mistakes, rates and
objective are recomputed on the training data. Its certificate keeps the lower bound of
the original search, which holds for every checklist of the same settings, so the
edit's :class:`~riskexplore.core.distance.Distance` is a proven bound on how many more
weighted mistakes it makes than the best checklist. An edit that breaks a bound or
constraint of the original search names it (``distance.breaks``).

Distances are in weighted mistakes ``FN + W- FP``: the objective's tie-breaking terms
(``eps_N N + eps_M M``, less than one mistake in all) are taken off the lower bound, which
is then rounded up to the grid of achievable mistakes when there is one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.checklist.constraints import FNRLimit, FPRLimit, OneItemPerGroup
from riskexplore.checklist.problem import ChecklistProblem, ChecklistSolution
from riskexplore.core.constraints import close_matches_hint
from riskexplore.core.distance import Distance, attached_problem
from riskexplore.core.params import Interval, validate
from riskexplore.core.result import SolveResult
from riskexplore.data.binarize import Binarizer
from riskexplore.errors import InputError

__all__ = [
    "checklist_at",
    "edit",
    "mistakes_lower_bound",
    "problem_of",
    "with_items",
    "with_threshold",
]

#: Statistics of a solve that do not describe an edited checklist.
_SOLVE_STATS = ("nodes", "time", "solver", "solve_time", "heuristics_time")


def problem_of(model, X=None, y=None) -> tuple[ChecklistProblem, list[str]]:
    """The training problem of ``model``: the one its fit kept, or one rebuilt from
    ``X, y`` and the settings saved with the checklist.

    Parameters
    ----------
    model : Checklist
        The checklist.
    X : DataFrame or array, optional
        The training data: raw columns (binarized with the stored binarizer) or items.
    y : array-like, optional
        The training outcome.

    Returns
    -------
    tuple
        ``(problem, notes)``: notes say what a rebuilt problem cannot check.

    Raises
    ------
    InputError
        Without training data, or with only one of ``X`` and ``y``.
    """
    problem = attached_problem(model, X, y, noun="checklist", call="with_items")
    if problem is not None:
        return problem, []
    items = _item_frame(model, X)
    settings = dict(model.stats.get("settings") or {})
    constraints: list = []
    if settings.get("one_item_per_group") and model.item_groups:
        constraints.append(OneItemPerGroup())
    if settings.get("fnr_max") is not None:
        constraints.append(FNRLimit(float(settings["fnr_max"])))
    if settings.get("fpr_max") is not None:
        constraints.append(FPRLimit(float(settings["fpr_max"])))
    problem = ChecklistProblem(
        items,
        y,
        item_groups=model.item_groups,
        max_items=settings.get("max_items"),
        min_m=int(settings.get("min_m", 1)),
        max_m=settings.get("max_m"),
        fp_weight=float(settings.get("fp_weight", 1.0)),
        constraints=constraints,
    )
    notes = []
    other = int(settings.get("n_constraints", 0)) - len(constraints)
    if other > 0:
        notes.append(
            f"{other} constraint(s) of the original search are not saved with the checklist, "
            "so they are not checked"
        )
    return problem, notes


def _item_frame(model, X):
    """The items of ``X`` (raw data binarized with the stored binarizer), in the order of
    ``model.item_names``."""
    if not isinstance(X, pd.DataFrame):
        array = np.asarray(X)
        if array.ndim != 2 or array.shape[1] != len(model.item_names):
            raise InputError(
                f"X must be a DataFrame (raw columns or items) or an array with one column "
                f"per item ({len(model.item_names)}), got shape {array.shape}"
            )
        X = pd.DataFrame(array, columns=list(model.item_names))
    columns = {str(c): c for c in X.columns}
    if any(n not in columns for n in model.item_names) and model.binarizer is not None:
        X = Binarizer.from_dict(model.binarizer).transform(X)
        columns = {str(c): c for c in X.columns}
    missing = [n for n in model.item_names if n not in columns]
    if missing:
        raise InputError(
            f"X lacks the checklist's item column(s): {', '.join(missing[:5])}"
            + ("" if model.binarizer is not None else " (and no binarizer is stored)")
        )
    return X[[columns[n] for n in model.item_names]]


def mistakes_lower_bound(problem: ChecklistProblem, lower_bound: float) -> float:
    """A lower bound on the weighted mistakes of the best checklist, from a lower bound
    on its objective.

    The objective adds ``eps_N N + eps_M M`` to the mistakes, at most
    ``eps_N max_items + eps_M max_m``; taking that off leaves a valid bound, rounded up to
    the grid of achievable mistakes when the problem has one.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    lower_bound : float
        A proven lower bound on its optimal objective.

    Returns
    -------
    float
        The bound on the mistakes (``-inf`` for an infinite ``lower_bound``).
    """
    if not math.isfinite(lower_bound):
        return -math.inf
    slack = problem.eps_n * problem.max_items + problem.eps_m * problem.max_m
    bound = float(lower_bound) - slack
    if problem.lexicographic_exact:
        q = problem.error_unit
        bound = q * math.ceil(bound / q - 1e-6)  # (a bound a hair below a grid point)
    return max(bound, 0.0)


def checklist_at(
    template,
    problem: ChecklistProblem,
    items: Iterable[str],
    M: int,
    *,
    status: str,
    lower_bound: float,
    notes: tuple[str, ...] = (),
):
    """A checklist of ``type(template)`` with ``items`` and threshold ``M``: statistics
    and certificate recomputed on ``problem``, and its :class:`Distance` to the best one.

    Parameters
    ----------
    template : Checklist
        A checklist of the same problem (its binarizer, outcome and settings are kept).
    problem : ChecklistProblem
        The training problem.
    items : iterable of str
        The items, in the order they are printed.
    M : int
        The threshold.
    status : str
        The certificate's status (``"alternative"``, ``"edited"``, ...).
    lower_bound : float
        The proven lower bound on the best objective of the problem.
    notes : tuple of str
        Remarks for the distance.

    Returns
    -------
    Checklist
        The checklist (its ``_problem`` is ``problem``).
    """
    items = [str(i) for i in items]
    objective = float(problem.objective(items, M))
    result = SolveResult(status, ChecklistSolution(items, int(M)), objective, float(lower_bound))
    model = type(template).from_result(
        problem,
        result,
        binarizer=template.binarizer,
        outcome_name=template.outcome,
        settings=template.stats.get("settings"),
    )
    for key in _SOLVE_STATS:
        model.stats.pop(key, None)
    distance = Distance(
        float(problem.loss(items, M)),
        mistakes_lower_bound(problem, lower_bound),
        "mistakes",
        tuple(problem.violations(items, M)),
        tuple(notes),
    )
    model.stats["distance"] = distance.to_dict()
    model._problem = problem
    return model


def with_items(model, *, add=(), remove=(), M=None, X=None, y=None):
    """``model`` with items added and removed (a swap is both) and perhaps another
    threshold (see ``Checklist.with_items``).

    Parameters
    ----------
    model : Checklist
        The checklist edited.
    add, remove : iterable of str
        Items to add (printed last) and to remove.
    M : int, optional
        The threshold; by default the checklist's, lowered to the number of items when
        fewer remain.
    X, y : optional
        The training data, for a checklist read from JSON.

    Returns
    -------
    Checklist
        The edited checklist, its certificate (status ``"edited"``) and ``distance``.

    Raises
    ------
    InputError
        For an unknown item, adding an item already on the checklist, removing one that is
        not, removing every item, a bad threshold, or no training data.
    """
    add, remove = _names(add, "add"), _names(remove, "remove")
    problem, notes = problem_of(model, X, y)
    known = list(problem.item_names)
    for name in add + remove:
        if name not in known:
            raise InputError(f"unknown item {name!r}{close_matches_hint(name, known)}")
    current = list(model.items)
    for name in add:
        if name in current:
            raise InputError(f"{name!r} is already on the checklist")
    for name in remove:
        if name not in current:
            raise InputError(f"{name!r} is not on the checklist")
    items = [i for i in current if i not in remove] + [i for i in add if i not in remove]
    if not items:
        raise InputError("a checklist needs at least one item; add one before removing the last")
    if M is None:
        threshold = min(model.M, len(items))
    else:
        threshold = _threshold(M, len(items))
    lower_bound = -math.inf if model.certificate is None else float(model.certificate.lower_bound)
    return checklist_at(
        model, problem, items, threshold, status="edited", lower_bound=lower_bound, notes=notes
    )


def with_threshold(model, M: int, *, X=None, y=None):
    """``model`` with threshold ``M`` (see ``Checklist.with_threshold``).

    Parameters
    ----------
    model : Checklist
        The checklist.
    M : int
        The new threshold (0 to N + 1).
    X, y : optional
        The training data, for a checklist read from JSON.

    Returns
    -------
    Checklist
        The edited checklist.
    """
    return with_items(model, M=M, X=X, y=y)


def edit(model, change: Mapping[str, Any]):
    """The registry's hand edit: ``change`` is ``{"add": [...], "remove": [...], "M": m}``.

    Parameters
    ----------
    model : Checklist
        The checklist.
    change : mapping
        ``add``, ``remove`` (item names) and ``M``, each optional.

    Returns
    -------
    Checklist
        The edited checklist.
    """
    unknown = set(change) - {"add", "remove", "M"}
    if unknown:
        raise InputError(f"a checklist edit adds, removes items or sets M, not {sorted(unknown)}")
    return with_items(
        model, add=change.get("add") or (), remove=change.get("remove") or (), M=change.get("M")
    )


def _names(values, what: str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    try:
        names = [str(v) for v in values]
    except TypeError:
        raise InputError(f"{what} must be a list of item names, got {values!r}") from None
    if len(set(names)) != len(names):
        raise InputError(f"{what} names an item twice")
    return names


def _threshold(value, n_items: int) -> int:
    validate({"M": [Interval(int, 0, n_items + 1)]}, {"M": value})
    return int(value)
