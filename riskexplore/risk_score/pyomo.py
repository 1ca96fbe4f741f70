"""Write constraints in Pyomo; read them back as :class:`LinearRow` objects.

>>> from pyomo.environ import Constraint
>>> m = risk_score_model(["male", "hypertension", "bmi>=30"])
>>> m.c = Constraint(expr=m.included["male"] <= m.included["hypertension"]
...                  + m.included["bmi>=30"])
>>> problem = RiskScoreProblem(X, y, constraints=[m])        # doctest: +SKIP

The model has, indexed by feature name,

* ``m.points[name]``: the integer points ``lambda_j``;
* ``m.included[name]``: the binary indicator ``alpha_j = 1[lambda_j != 0]``;

and the integer intercept ``m.intercept``. Any active linear Pyomo constraint over these
variables (``Constraint``, ``ConstraintList``, indexed constraints, sub-blocks) becomes one
row; no Pyomo solver is needed, only the expressions are read. Bounds that the user
tightens on ``m.points``/``m.intercept`` after the model is built become rows too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from riskexplore.core.pyomo import check_not_fixed, linear_rows, mark_model, marked_names
from riskexplore.errors import ConstraintError
from riskexplore.risk_score.rows import INTERCEPT, LinearRow

__all__ = ["pyomo_model_for", "risk_score_model", "rows_from_pyomo"]

_BOUNDS = "_riskexplore_bounds"


def risk_score_model(
    feature_names: Sequence[str],
    *,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    intercept_bounds: tuple[float, float] | None = None,
):
    """A Pyomo ``ConcreteModel`` with the variables of a risk score.

    Parameters
    ----------
    feature_names : sequence of str
    bounds : mapping of feature name to ``(lo, hi)``, optional
        Bounds put on ``m.points`` (informative only; they are not turned into rows).
    intercept_bounds : ``(lo, hi)``, optional
        Bounds put on ``m.intercept`` (informative only).
    """
    from pyomo.environ import Binary, ConcreteModel, Integers, Set, Var

    names = [str(n) for n in feature_names]
    if len(set(names)) != len(names):
        raise ConstraintError("risk_score_model: feature names must be unique")
    bounds = dict(bounds or {})
    unknown = set(bounds) - set(names)
    if unknown:
        raise ConstraintError(f"risk_score_model: bounds for unknown features {sorted(unknown)}")

    m = ConcreteModel(name="risk_score")
    m.features = Set(initialize=names, ordered=True)

    def point_bounds(model, name):
        lo, hi = bounds.get(name, (None, None))
        return lo, hi

    m.points = Var(m.features, domain=Integers, bounds=point_bounds)
    m.included = Var(m.features, domain=Binary)
    m.intercept = Var(domain=Integers, bounds=intercept_bounds or (None, None))
    mark_model(m, "risk_score_model", names)
    original = {("points", n): (m.points[n].lb, m.points[n].ub) for n in names}
    original[("intercept", None)] = (m.intercept.lb, m.intercept.ub)
    setattr(m, _BOUNDS, original)
    return m


def pyomo_model_for(problem):
    """:func:`risk_score_model` for a :class:`RiskScoreProblem`, with its coefficient bounds
    on the variables. Add constraints to it and pass it as ``constraints=[model]``.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem.

    Returns
    -------
    pyomo ConcreteModel
        The model.
    """
    lo, hi = problem.lam_bounds()
    bounds = {n: (float(lo[j + 1]), float(hi[j + 1])) for j, n in enumerate(problem.feature_names)}
    return risk_score_model(
        problem.feature_names, bounds=bounds, intercept_bounds=(float(lo[0]), float(hi[0]))
    )


def rows_from_pyomo(model, feature_names: Sequence[str] | None = None) -> list[LinearRow]:
    """Read every active constraint of ``model`` as a :class:`LinearRow`.

    Parameters
    ----------
    model : pyomo ConcreteModel
        A model from :func:`risk_score_model` with constraints added.
    feature_names : sequence of str, optional
        The problem's features; the model's must be among them.

    Returns
    -------
    list of LinearRow
        One row per constraint, then one per bound tightened after the model was built.

    Raises
    ------
    ConstraintError
        For a model not built by :func:`risk_score_model`, non-linear constraints,
        constraints over other variables, constraints without any variable, fixed
        variables, and features that are not in ``feature_names``.
    """
    names = marked_names(
        model,
        "risk_score_model",
        "build it with risk_score_model(feature_names) or pyomo_model_for(problem) and add "
        "constraints over m.points, m.included and m.intercept",
        feature_names,
        "feature",
    )

    def classify(var, where: str) -> tuple[str, str]:
        parent = var.parent_component()
        if parent is model.points:
            return "points", str(var.index())
        if parent is model.included:
            return "included", str(var.index())
        if parent is model.intercept:
            return "points", INTERCEPT
        raise ConstraintError(
            f"Pyomo constraint {where!r} uses variable {var.name!r}, which is not one of "
            "the model's m.points, m.included or m.intercept; only those can be used"
        )

    rows = []
    for row in linear_rows(model, classify, "points, included and intercept"):
        points = {name: c for (kind, name), c in row.coefs.items() if kind == "points"}
        included = {name: c for (kind, name), c in row.coefs.items() if kind == "included"}
        rows.append(LinearRow(row.name, points, included, lower=row.lower, upper=row.upper))
    rows.extend(_bound_rows(model, names))
    return rows


def _bound_rows(model, names) -> list[LinearRow]:
    """Rows for bounds tightened by the user on m.points / m.intercept after creation."""
    original = getattr(model, _BOUNDS, {})
    out = []
    items = [(("points", n), model.points[n], n) for n in names]
    items.append((("intercept", None), model.intercept, INTERCEPT))
    for key, var, name in items:
        check_not_fixed(var)
        now = (var.lb, var.ub)
        if now == original.get(key, (None, None)):
            continue
        lo = -math.inf if now[0] is None else float(now[0])
        hi = math.inf if now[1] is None else float(now[1])
        out.append(LinearRow(f"bounds of {var.name} set in Pyomo", {name: 1.0}, lower=lo, upper=hi))
    for n in names:
        var = model.included[n]
        check_not_fixed(var)
        lo, hi = var.lb, var.ub
        if (lo, hi) != (0, 1):
            out.append(
                LinearRow(
                    f"bounds of {var.name} set in Pyomo",
                    included={n: 1.0},
                    lower=-math.inf if lo is None else float(lo),
                    upper=math.inf if hi is None else float(hi),
                )
            )
    return out
