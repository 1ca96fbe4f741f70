"""Write checklist constraints in Pyomo; read them back as :class:`ChecklistRow` objects.

>>> from pyomo.environ import Constraint
>>> m = checklist_model(["cough", "fever", "age>=60"])
>>> m.c = Constraint(expr=m.use["cough"] <= m.use["fever"])   # doctest: +SKIP

``m.use[item]`` (binary: the item is on the checklist), ``m.M`` (integer threshold) and
``m.N`` (integer number of items); every active linear constraint over them becomes one
row (see :mod:`riskexplore.core.pyomo`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from riskexplore.checklist.rows import ChecklistRow
from riskexplore.core.pyomo import check_not_fixed, linear_rows, mark_model, marked_names
from riskexplore.errors import ConstraintError

__all__ = ["checklist_model", "rows_from_pyomo"]


def checklist_model(item_names: Sequence[str]):
    """A Pyomo ``ConcreteModel`` with the variables of a checklist.

    Parameters
    ----------
    item_names : sequence of str
        The items.

    Returns
    -------
    pyomo ConcreteModel
        ``m.use[item]`` (binary), ``m.M`` and ``m.N`` (non-negative integers). Add linear
        constraints over them and pass the model in ``constraints=[m]``.
    """
    from pyomo.environ import Binary, ConcreteModel, NonNegativeIntegers, Set, Var

    names = [str(n) for n in item_names]
    if len(set(names)) != len(names):
        raise ConstraintError("checklist_model: item names must be unique")
    m = ConcreteModel(name="checklist")
    m.item_set = Set(initialize=names, ordered=True)
    m.use = Var(m.item_set, domain=Binary)
    m.M = Var(domain=NonNegativeIntegers)
    m.N = Var(domain=NonNegativeIntegers)
    mark_model(m, "checklist_model", names)
    return m


def rows_from_pyomo(model, item_names: Sequence[str] | None = None) -> list[ChecklistRow]:
    """Every active linear constraint of a :func:`checklist_model` as a :class:`ChecklistRow`.

    Parameters
    ----------
    model : pyomo ConcreteModel
        A model from :func:`checklist_model` with constraints added.
    item_names : sequence of str, optional
        The problem's items; the model's must be among them.

    Returns
    -------
    list of ChecklistRow
        One row per constraint, then one per bound set on ``m.M`` or ``m.N``.

    Raises
    ------
    ConstraintError
        For a model not built by :func:`checklist_model`, non-linear constraints,
        constraints over other variables or without any, fixed variables and unknown
        items.
    """
    marked_names(
        model,
        "checklist_model",
        "build it with checklist_model(item_names) and add constraints over m.use, m.M and m.N",
        item_names,
        "item",
    )

    def classify(var, where: str) -> tuple[str, str | None]:
        parent = var.parent_component()
        if parent is model.use:
            return "use", str(var.index())
        if parent is model.M:
            return "M", None
        if parent is model.N:
            return "N", None
        raise ConstraintError(
            f"Pyomo constraint {where!r} uses variable {var.name!r}, which is not one of the "
            "model's m.use, m.M or m.N; only those can be used"
        )

    for var in (model.M, model.N, *model.use.values()):
        check_not_fixed(var)
    rows = []
    for row in linear_rows(model, classify, "use, M and N"):
        items = {name: c for (kind, name), c in row.coefs.items() if kind == "use"}
        rows.append(
            ChecklistRow(
                row.name,
                items,
                M=row.coefs.get(("M", None), 0.0),
                N=row.coefs.get(("N", None), 0.0),
                lower=row.lower,
                upper=row.upper,
            )
        )
    for var, kind in ((model.M, "M"), (model.N, "N")):
        if var.lb not in (None, 0) or var.ub is not None:
            lo = -math.inf if var.lb is None else float(var.lb)
            hi = math.inf if var.ub is None else float(var.ub)
            rows.append(
                ChecklistRow(
                    f"bounds of {var.name} set in Pyomo", **{kind: 1.0}, lower=lo, upper=hi
                )
            )
    return rows
