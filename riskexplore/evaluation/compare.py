"""Side-by-side comparison of models, and the certified price of constraints.

:func:`compare_models` fits the best risk score (or model of another family) with and
without a set of constraints on the same data (sharing one
:class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool`, or whatever the family shares between
solves, so the second solve starts warm) and reports the points of both, their metrics,
both certificates and a certified interval for the *price of the constraints*: how much the
optimal objective rises when the constraints are imposed.

:func:`compare` puts two already-fitted models side by side (no price: their problems
need not be nested).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from riskexplore.core.registry import DEFAULT_FAMILY, ModelFamily, family_of, get_family
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.evaluation.metrics import model_metrics

__all__ = ["Comparison", "certified_price", "compare", "compare_models", "comparison_from_models"]

#: Metrics shown per split, in this order.
_METRICS = ("cal", "auc", "loss", "brier", "error", "fnr", "fpr")


@dataclass
class Comparison:
    """Two models side by side.

    Attributes
    ----------
    names : (str, str)
        Labels of the two models (``("unconstrained", "constrained")`` for
        :func:`compare_models`).
    models : (model, model)
        The models (the second is None if the constrained problem has no solution).
    points : DataFrame
        Risk scores: ``feature`` (``"(intercept)"`` first), the points of each model and
        ``changed``; features with zero points in both are left out. Checklists:
        ``item``, membership in each checklist and ``changed``.
    metrics : DataFrame
        One row per model (indexed by name): ``train_*`` and ``test_*`` metrics, size,
        objective and certificate (``status, gap, lower_bound, upper_bound``).
    price_of_constraints : (float, float) or None
        Certified interval for ``V*_constrained - V*_unconstrained`` (objective units;
        with a small ``c0`` essentially the logistic loss). None for :func:`compare`.
    constraints : list of str
        Descriptions of the constraints that separate the two models.
    """

    names: tuple[str, str]
    models: tuple[Any, Any]
    points: pd.DataFrame
    metrics: pd.DataFrame
    price_of_constraints: tuple[float, float] | None = None
    constraints: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The metrics table: one row per model."""
        return self.metrics.copy()

    @property
    def unconstrained(self):
        """The first model (the unconstrained one of :func:`compare_models`)."""
        return self.models[0]

    @property
    def constrained(self):
        """The second model (the constrained one; None when it has no model)."""
        return self.models[1]

    def summary(self) -> str:
        """Plain-text report: points table, metrics, certificates and price."""
        a, b = self.names
        lines = [f"{a} vs {b}"]
        if self.constraints:
            lines.append("constraints: " + "; ".join(self.constraints))
        lines.append("")
        if not self.points.empty:
            table = self.points.drop(columns=["changed"]).copy()
            for name in (a, b):
                table[name] = [_cell(v) for v in table[name]]
            table[""] = ["*" if c else "" for c in self.points["changed"]]
            lines.append(table.to_string(index=False))
            lines.append("")
        shown = [c for c in self.metrics.columns if _is_metric(c)]
        if shown:
            view = self.metrics[shown].T
            view.index.name = None
            lines.append(view.to_string(float_format=lambda v: f"{v:.4f}"))
            lines.append("")
        for name, model in zip(self.names, self.models, strict=True):
            cert = getattr(model, "certificate", None)
            if model is None:
                lines.append(f"{name}: no model")
            elif cert is not None:
                time = getattr(model, "stats", {}).get("time")
                lines.append(f"{name}: {cert.describe(time)}")
        if self.price_of_constraints is not None:
            lo, hi = self.price_of_constraints
            lines.append(
                f"price of constraints (optimal objective, constrained - unconstrained): "
                f"[{lo:.6g}, {hi:.6g}]"
            )
        lines.extend(self.notes)
        return "\n".join(lines).rstrip()

    def __str__(self) -> str:
        return self.summary()


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "."
    if isinstance(value, bool):
        return "x" if value else "."
    return "." if value == 0 else f"{int(value):+d}"


def _is_metric(column: str) -> bool:
    return column.startswith(("train_", "test_")) or column in ("size", "objective", "gap")


# --- tables ----------------------------------------------------------------------------
def _points_table(model_a, model_b, names: tuple[str, str]) -> pd.DataFrame:
    """The two models' own table (points, items) when they are of one family."""
    a, b = names
    try:
        family = family_of(model_a)
    except InputError:
        family = None
    if family is not None and isinstance(model_b, family.model_type):
        return family.compare_table(model_a, model_b, names)
    return pd.DataFrame(columns=["feature", a, b, "changed"])


def certified_price(unconstrained, constrained) -> tuple[float, float]:
    """The certified interval of the price of constraints, from two certificates.

    When the constrained problem is the unconstrained one plus constraints (same data and
    settings), ``V*_c >= V*_u``, and the solves certify ``LB_u <= V*_u <= UB_u`` and
    ``LB_c <= V*_c <= UB_c``, so ``V*_c - V*_u`` lies in
    ``[max(0, LB_c - UB_u), max(0, UB_c - LB_u)]``.

    Parameters
    ----------
    unconstrained, constrained : Certificate
        The certificates of the two solves.

    Returns
    -------
    tuple of float
        The interval (objective units).
    """
    return (
        max(0.0, float(constrained.lower_bound) - float(unconstrained.upper_bound)),
        max(0.0, float(constrained.upper_bound) - float(unconstrained.lower_bound)),
    )


def _metrics_row(model, X, y, X_test, y_test, groups, test_groups) -> dict[str, Any]:
    if model is None:
        return {"status": "infeasible"}
    train = model_metrics(model, X, y, groups)
    row: dict[str, Any] = {f"train_{k}": train[k] for k in _METRICS if k in train}
    if X_test is not None:
        test = model_metrics(model, X_test, y_test, test_groups)
        row.update({f"test_{k}": test[k] for k in _METRICS if k in test})
        if test_groups is not None:
            row.update({f"test_{k}": test[k] for k in ("max_fnr_gap", "max_fpr_gap") if k in test})
    if groups is not None:
        row.update({f"train_{k}": train[k] for k in ("max_fnr_gap", "max_fpr_gap") if k in train})
    for key in ("size", "objective", "status", "gap", "lower_bound", "upper_bound"):
        row[key] = train.get(key)
    if getattr(model, "M", None) is not None:
        row["M"] = model.M
    return row


def _metrics_table(models, names, X, y, X_test, y_test, groups, test_groups) -> pd.DataFrame:
    if (X_test is None) != (y_test is None):
        raise InputError("give both X_test and y_test, or neither")
    rows = [_metrics_row(m, X, y, X_test, y_test, groups, test_groups) for m in models]
    frame = pd.DataFrame(rows, index=list(names))
    frame.index.name = "model"
    return frame


# --- public API ------------------------------------------------------------------------
def compare(
    model_a,
    model_b,
    X,
    y,
    *,
    X_test=None,
    y_test=None,
    names: Sequence[str] = ("A", "B"),
    groups=None,
    test_groups=None,
) -> Comparison:
    """Compare two fitted models (risk scores, checklists, or any model with metrics).

    Returns a :class:`Comparison` with the points (or items) side by side and the
    metrics of both on ``(X, y)`` (and ``(X_test, y_test)`` if given). There is no
    price of constraints, since the two models' problems need not be nested.

    Parameters
    ----------
    model_a, model_b : fitted models
        The models.
    X, y
        Training data.
    X_test, y_test : optional
        Held-out data.
    names : (str, str)
        Labels of the two models.
    groups, test_groups : optional
        Groups of the rows (worst FNR/FPR gaps).

    Returns
    -------
    Comparison
        The comparison (``price_of_constraints`` None).
    """
    names = _names(names)
    return Comparison(
        names=names,
        models=(model_a, model_b),
        points=_points_table(model_a, model_b, names),
        metrics=_metrics_table(
            (model_a, model_b), names, X, y, X_test, y_test, groups, test_groups
        ),
    )


def _names(names: Sequence[str]) -> tuple[str, str]:
    names = tuple(str(n) for n in names)
    if len(names) != 2 or names[0] == names[1]:
        raise InputError("names must be two different labels")
    return names  # type: ignore[return-value]


def _describe(constraints: Iterable) -> list[str]:
    out = []
    for c in constraints:
        describe = getattr(c, "describe", None)
        out.append(describe() if callable(describe) else str(getattr(c, "name", c)))
    return out


def compare_models(
    X,
    y,
    *,
    constraints: Iterable,
    base_constraints: Iterable = (),
    X_test=None,
    y_test=None,
    cut_pool=None,
    names: Sequence[str] = ("unconstrained", "constrained"),
    family: str | ModelFamily = DEFAULT_FAMILY,
    **fit_kwargs: Any,
) -> Comparison:
    """Fit the best risk score (by default) without and with ``constraints`` and compare
    them.

    Both problems share every other setting (``base_constraints``, size limit, bounds,
    ``c0``, ...) and one CutPool (what the family shares between solves on the same data):
    the loss cuts of the first solve are valid for the second, so it starts warm, and the
    unconstrained optimum is the reference.

    **Price of constraints.** Let ``V*_u`` and ``V*_c`` be the optimal objectives
    (``loss + c0 * size``) without and with the constraints. The solves certify
    ``LB_u <= V*_u <= UB_u`` and ``LB_c <= V*_c <= UB_c``, so
    ``V*_c - V*_u`` lies in ``[LB_c - UB_u, UB_c - LB_u]``. Moreover every model that
    obeys the constraints is feasible for the unconstrained problem (the constrained
    feasible set is a subset of the unconstrained one, and the objective is the same),
    so ``V*_c >= V*_u``: the lower end is clipped at 0. When both solves are certified
    optimal the interval shrinks to (nearly) a point; with time limits it stays valid.
    If the constraints admit no model the price is ``inf`` (proven infeasible) or
    ``[0, inf]`` (no model found in time).

    Parameters
    ----------
    X, y : training data.
    constraints : iterable
        The constraints whose price is measured (readable constraints, rows, Pyomo).
    base_constraints : iterable
        Constraints imposed on both models.
    X_test, y_test : optional
        Held-out data for test metrics.
    cut_pool : CutPool, optional
        A pool already attached to this data.
    names : (str, str)
        Labels of the two models.
    family : str or ModelFamily
        The model family (see :mod:`riskexplore.core.registry`; default risk scores).
    **fit_kwargs
        Other arguments of the family's fit function (of
        :func:`~riskexplore.risk_score.fit.fit_risk_score`: ``max_size``, ``time_limit``,
        ``c0``, ``coef_min``, ...), used for both solves.

    Returns
    -------
    Comparison
        The two models, their points and metrics, and ``price_of_constraints``.
    """
    if "constraints" in fit_kwargs or "warm_start" in fit_kwargs:
        raise InputError("pass constraints / base_constraints; warm starts come from the pool")
    names = _names(names)
    constraints, base = list(constraints or ()), list(base_constraints or ())
    family = get_family(family)
    fit, shared = family.fit, _shared(family, cut_pool)
    free = fit(X, y, constraints=base, **shared, **fit_kwargs)
    notes: list[str] = []
    try:
        bound = fit(X, y, constraints=base + constraints, **shared, **fit_kwargs)
    except InfeasibleError as exc:
        bound = None
        proven = "status infeasible" in str(exc)
        notes.append(
            "the constraints admit no model" if proven else "no constrained model found in time"
        )
        price = (math.inf, math.inf) if proven else (0.0, math.inf)
    else:
        price = certified_price(free.certificate, bound.certificate)
        if hasattr(free, "loss"):
            notes.append(
                f"loss of the models found: {free.loss:.6g} -> {bound.loss:.6g} "
                f"({bound.loss - free.loss:+.6g})"
            )
    if bound is not None:
        points = _points_table(free, bound, names)
    else:
        points = _points_table(free, free, names)
        points[names[1]] = None
        points["changed"] = False
    return Comparison(
        names=names,
        models=(free, bound),
        points=points,
        metrics=_metrics_table((free, bound), names, X, y, X_test, y_test, None, None),
        price_of_constraints=price,
        constraints=_describe(constraints),
        notes=notes,
    )


def _shared(family: ModelFamily, cut_pool) -> dict[str, Any]:
    """The fit arguments both solves share: the family's (a new cut pool), or the pool
    given."""
    given = {} if cut_pool is None else {"cut_pool": cut_pool}
    return {**{k: make() for k, make in family.shared.items() if k not in given}, **given}


def comparison_from_models(
    unconstrained,
    constrained,
    X,
    y,
    *,
    X_test=None,
    y_test=None,
    constraints: Sequence = (),
    names: Sequence[str] = ("unconstrained", "constrained"),
    nested: bool = True,
):
    """A :class:`~riskexplore.evaluation.compare.Comparison` of two fitted models, with
    the certified price of the constraints when the problems are ``nested``.

    ``nested=True`` asserts that the constrained problem is the unconstrained one plus
    ``constraints`` (same data and settings), so ``V*_c >= V*_u`` and the price
    ``V*_c - V*_u`` lies in ``[max(0, LB_c - UB_u), max(0, UB_c - LB_u)]`` (as in
    :func:`~riskexplore.evaluation.compare.compare_models`). ``constrained=None`` means
    the constrained problem has no model (price ``[0, inf]``).

    Parameters
    ----------
    unconstrained, constrained : fitted models
        The two models (``constrained`` may be None).
    X, y
        Training data.
    X_test, y_test : optional
        Held-out data.
    constraints : sequence
        The constraints that separate the models (described in the comparison).
    names : (str, str)
        Labels of the two models.
    nested : bool
        Whether the constrained problem is the unconstrained one plus ``constraints``.

    Returns
    -------
    Comparison
        The comparison, with the certified price when ``nested``.
    """
    second = constrained if constrained is not None else unconstrained
    comparison = compare(
        unconstrained, second, X, y, X_test=X_test, y_test=y_test, names=tuple(names)
    )
    descriptions = []
    for c in constraints:
        describe = getattr(c, "describe", None)
        descriptions.append(describe() if callable(describe) else str(c))
    comparison.constraints = descriptions
    if constrained is None:
        comparison.models = (unconstrained, None)
        comparison.notes.append("no constrained model")
        if nested:
            comparison.price_of_constraints = (0.0, math.inf)
        return comparison
    fc = getattr(unconstrained, "certificate", None)
    bc = getattr(constrained, "certificate", None)
    if nested and fc is not None and bc is not None:
        comparison.price_of_constraints = certified_price(fc, bc)
    return comparison
