"""Reading linear constraints written in Pyomo, for every model family.

A family builds a Pyomo ``ConcreteModel`` whose variables are its own (a risk score's
points, inclusion indicators and intercept; a checklist's item indicators, ``M`` and
``N``) and marks it with the variable names (:func:`mark_model`). Users add ordinary
linear Pyomo constraints; :func:`linear_rows` reads every active one as a
:class:`PyomoRow` -- the coefficient of each variable, keyed by the family's
``classify`` function, and the bounds with the constant moved over -- which the family
turns into its own rows. No Pyomo solver is needed: only the expressions are read.

Pyomo is an optional extra for users, so it is imported inside the functions that need it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from riskexplore.core.constraints import check_name
from riskexplore.errors import ConstraintError

__all__ = [
    "PyomoRow",
    "check_not_fixed",
    "linear_rows",
    "mark_model",
    "marked_names",
    "short",
]

#: Longest description of a Pyomo expression in a row's name.
MAX_NAME = 100

_MARK = "_riskexplore_names"
_FAMILY = "_riskexplore_family"


@dataclass(frozen=True)
class PyomoRow:
    """One linear Pyomo constraint: ``lower <= sum coefs[key] * var[key] <= upper``.

    Attributes
    ----------
    name : str
        ``"<constraint name>: <expression>"``.
    coefs : dict
        Non-zero coefficient of each variable, keyed by the family's ``classify``.
    lower, upper : float
        Bounds on the variable part (``-inf``/``inf`` for an open side).
    """

    name: str
    coefs: dict[Hashable, float]
    lower: float
    upper: float


def mark_model(model: Any, family: str, names: Sequence[str]) -> None:
    """Mark ``model`` as built by the family's model builder, for ``names``.

    Parameters
    ----------
    model : pyomo ConcreteModel
        The model.
    family : str
        Its builder, for messages (``"risk_score_model"``).
    names : sequence of str
        The variable names it is indexed by.
    """
    setattr(model, _MARK, tuple(names))
    setattr(model, _FAMILY, family)


def marked_names(
    model: Any, family: str, hint: str, known: Sequence[str] | None, kind: str
) -> tuple[str, ...]:
    """The names a model was built for, checked against the problem's names.

    Parameters
    ----------
    model : pyomo ConcreteModel
        A model marked by :func:`mark_model`.
    family : str
        The builder the model must come from (``"risk_score_model"``).
    hint : str
        How to build one, for the message.
    known : sequence of str or None
        The problem's names (``None``: not checked).
    kind : str
        What the names are (``"feature"``, ``"item"``).

    Returns
    -------
    tuple of str
        The model's names.

    Raises
    ------
    ConstraintError
        If the model was not built by ``family`` or uses a name that is not known.
    """
    names = getattr(model, _MARK, None)
    if names is None or getattr(model, _FAMILY, None) != family:
        raise ConstraintError(f"this Pyomo model was not built by riskexplore's {family}(); {hint}")
    if known is not None:
        known_set = set(known)
        for name in names:
            if name not in known_set:
                check_name(f"Pyomo model {model.name}", name, list(known), kind)
    return names


def check_not_fixed(var: Any, where: str | None = None) -> None:
    """Refuse a fixed Pyomo variable (fixing is not a constraint the solvers see).

    Parameters
    ----------
    var : pyomo VarData
        The variable.
    where : str, optional
        The constraint that uses it, for the message.

    Raises
    ------
    ConstraintError
        If ``var`` is fixed.
    """
    if var.fixed:
        prefix = f"Pyomo constraint {where!r}: variable" if where else "Pyomo variable"
        raise ConstraintError(
            f"{prefix} {var.name} is fixed; instead of fixing it, add a constraint such as "
            f"{var.name} == value"
        )


def linear_rows(
    model: Any, classify: Callable[[Any, str], Hashable], variables: str
) -> list[PyomoRow]:
    """Every active linear constraint of ``model`` (sub-blocks included) as a row.

    Parameters
    ----------
    model : pyomo ConcreteModel
        The model.
    classify : callable ``(var, where) -> key``
        The key of a variable of the family; raises :class:`ConstraintError` for any
        other variable.
    variables : str
        The family's variables in words (``"points, included and intercept"``), for
        messages.

    Returns
    -------
    list of PyomoRow
        One row per constraint that bounds something, in model order.

    Raises
    ------
    ConstraintError
        For a non-linear constraint, a constraint over other variables or over a fixed
        variable, and a constraint without variables.
    """
    from pyomo.core.expr.visitor import identify_variables
    from pyomo.environ import Constraint
    from pyomo.repn import generate_standard_repn

    rows: list[PyomoRow] = []
    for con in model.component_data_objects(Constraint, active=True, descend_into=True):
        where = con.name
        for var in identify_variables(con.body, include_fixed=True):
            classify(var, where)
            check_not_fixed(var, where)
        repn = generate_standard_repn(con.body, quadratic=False, compute_values=True)
        if not repn.is_linear():
            raise ConstraintError(
                f"Pyomo constraint {where!r} is not linear ({short(con.expr)}); only linear "
                f"constraints over {variables} are supported"
            )
        coefs: dict[Hashable, float] = {}
        for var, coef in zip(repn.linear_vars, repn.linear_coefs, strict=True):
            key = classify(var, where)
            coefs[key] = coefs.get(key, 0.0) + float(coef)
        coefs = {k: v for k, v in coefs.items() if v != 0}
        if not coefs:
            raise ConstraintError(
                f"Pyomo constraint {where!r} has no variables ({short(con.expr)}); it is "
                "either always true or always false, remove it"
            )
        constant = float(repn.constant)
        lower = -math.inf if con.lb is None else float(con.lb) - constant
        upper = math.inf if con.ub is None else float(con.ub) - constant
        if lower == -math.inf and upper == math.inf:
            continue  # bounds nothing
        rows.append(PyomoRow(f"{where}: {short(con.expr)}", coefs, lower, upper))
    return rows


def short(expr: Any) -> str:
    """A Pyomo expression as one line of at most :data:`MAX_NAME` characters.

    Parameters
    ----------
    expr : pyomo expression
        The expression.

    Returns
    -------
    str
        Its text, shortened with ``...``.
    """
    text = " ".join(str(expr).split())
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 3] + "..."
