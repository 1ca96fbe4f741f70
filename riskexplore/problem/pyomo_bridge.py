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

from riskexplore.errors import ConstraintError
from riskexplore.problem.rows import INTERCEPT, LinearRow

__all__ = ["pyomo_model_for", "risk_score_model", "rows_from_pyomo"]

_MARK = "_riskexplore_features"
_BOUNDS = "_riskexplore_bounds"
_MAX_NAME = 100


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
    setattr(m, _MARK, tuple(names))
    original = {("points", n): (m.points[n].lb, m.points[n].ub) for n in names}
    original[("intercept", None)] = (m.intercept.lb, m.intercept.ub)
    setattr(m, _BOUNDS, original)
    return m


def pyomo_model_for(problem):
    """:func:`risk_score_model` for a :class:`RiskScoreProblem`, with its coefficient bounds
    on the variables. Add constraints to it and pass it as ``constraints=[model]``."""
    lo, hi = problem.lam_bounds()
    bounds = {n: (float(lo[j + 1]), float(hi[j + 1])) for j, n in enumerate(problem.feature_names)}
    return risk_score_model(
        problem.feature_names, bounds=bounds, intercept_bounds=(float(lo[0]), float(hi[0]))
    )


def rows_from_pyomo(model, feature_names: Sequence[str] | None = None) -> list[LinearRow]:
    """Read every active constraint of ``model`` as a :class:`LinearRow`.

    Raises :class:`ConstraintError` for a model not built by :func:`risk_score_model`,
    non-linear constraints, constraints over other variables, constraints without any
    variable, fixed variables, and features that are not in ``feature_names``.
    """
    from pyomo.core.expr.visitor import identify_variables
    from pyomo.environ import Constraint
    from pyomo.repn import generate_standard_repn

    model_names = getattr(model, _MARK, None)
    if model_names is None:
        raise ConstraintError(
            "this Pyomo model was not built by riskexplore's risk_score_model(); build it "
            "with risk_score_model(feature_names) or pyomo_model_for(problem) and add "
            "constraints over m.points, m.included and m.intercept"
        )
    if feature_names is not None:
        known = set(feature_names)
        missing = [n for n in model_names if n not in known]
        if missing:
            from riskexplore.problem.constraints import _check_feature

            _check_feature(f"Pyomo model {model.name}", missing[0], list(feature_names))

    def var_key(var, where: str) -> tuple[str, str]:
        parent = var.parent_component()
        if parent is model.points:
            kind = "points"
        elif parent is model.included:
            kind = "included"
        elif parent is model.intercept:
            return "points", INTERCEPT
        else:
            raise ConstraintError(
                f"Pyomo constraint {where!r} uses variable {var.name!r}, which is not one of "
                "the model's m.points, m.included or m.intercept; only those can be used"
            )
        return kind, str(var.index())

    rows: list[LinearRow] = []
    for con in model.component_data_objects(Constraint, active=True, descend_into=True):
        where = con.name
        body = con.body
        for var in identify_variables(body, include_fixed=True):
            var_key(var, where)
            if var.fixed:
                raise ConstraintError(
                    f"Pyomo constraint {where!r}: variable {var.name} is fixed; instead of "
                    f"fixing it, add a constraint such as {var.name} == value"
                )
        repn = generate_standard_repn(body, quadratic=False, compute_values=True)
        if not repn.is_linear():
            raise ConstraintError(
                f"Pyomo constraint {where!r} is not linear ({_short(con.expr)}); only linear "
                "constraints over points, included and intercept are supported"
            )
        points: dict[str, float] = {}
        included: dict[str, float] = {}
        for var, coef in zip(repn.linear_vars, repn.linear_coefs, strict=True):
            kind, name = var_key(var, where)
            target = points if kind == "points" else included
            target[name] = target.get(name, 0.0) + float(coef)
        points = {k: v for k, v in points.items() if v != 0}
        included = {k: v for k, v in included.items() if v != 0}
        if not points and not included:
            raise _no_variables(where, con)
        bounds = _row_bounds(con, repn)
        if bounds is None:
            continue
        lower, upper = bounds
        rows.append(
            LinearRow(f"{where}: {_short(con.expr)}", points, included, lower=lower, upper=upper)
        )
    rows.extend(_bound_rows(model, model_names))
    return rows


def _bound_rows(model, names) -> list[LinearRow]:
    """Rows for bounds tightened by the user on m.points / m.intercept after creation."""
    original = getattr(model, _BOUNDS, {})
    out = []
    items = [(("points", n), model.points[n], n) for n in names]
    items.append((("intercept", None), model.intercept, INTERCEPT))
    for key, var, name in items:
        if var.fixed:
            raise ConstraintError(
                f"Pyomo variable {var.name} is fixed; instead of fixing it, add a constraint "
                f"such as {var.name} == value"
            )
        now = (var.lb, var.ub)
        if now == original.get(key, (None, None)):
            continue
        lo = -math.inf if now[0] is None else float(now[0])
        hi = math.inf if now[1] is None else float(now[1])
        out.append(LinearRow(f"bounds of {var.name} set in Pyomo", {name: 1.0}, lower=lo, upper=hi))
    for n in names:
        var = model.included[n]
        if var.fixed:
            raise ConstraintError(
                f"Pyomo variable {var.name} is fixed; instead of fixing it, add a constraint "
                f"such as {var.name} == value"
            )
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


def _no_variables(where: str, con) -> ConstraintError:
    """The error for a Pyomo constraint without variables (always true or always false).

    Parameters
    ----------
    where : str
        The constraint's name.
    con : pyomo ConstraintData
        The constraint.

    Returns
    -------
    ConstraintError
        The error to raise.
    """
    return ConstraintError(
        f"Pyomo constraint {where!r} has no variables ({_short(con.expr)}); it is "
        "either always true or always false, remove it"
    )


def _row_bounds(con, repn) -> tuple[float, float] | None:
    """Bounds on the variable part of a linear Pyomo constraint (its constant moved over).

    Parameters
    ----------
    con : pyomo ConstraintData
        The constraint.
    repn : pyomo StandardRepn
        Its linear standard representation.

    Returns
    -------
    tuple of float or None
        ``(lower, upper)``, or ``None`` when the constraint bounds nothing.
    """
    constant = float(repn.constant)
    lower = -math.inf if con.lb is None else float(con.lb) - constant
    upper = math.inf if con.ub is None else float(con.ub) - constant
    if lower == -math.inf and upper == math.inf:
        return None
    return lower, upper


def _short(expr) -> str:
    text = " ".join(str(expr).split())
    return text if len(text) <= _MAX_NAME else text[: _MAX_NAME - 3] + "..."
