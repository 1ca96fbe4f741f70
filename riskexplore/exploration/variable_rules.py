"""Rules that name a variable (a column of the raw table) rather than one of its items.

A raw column gives several items (``age ≥ 45``, ``age ≥ 55``, ``age ≥ 65``). Two rules
name the column itself:

* **do not use age**: no item of age in the model;
* **use age only as age ≥ 65**: no item of age but that one.

Both are one readable constraint of the family that keeps items out of the model, made
and recognised through its registry entry
(:attr:`RawTableSpec.exclude <riskexplore.core.registry.RawTableSpec>` and ``excluded``:
a risk score's ``AtMostKOf(items, 0)``, a checklist's ``AtMostKItems(items, 0)``), so the
solvers, the feasibility checks and study files need nothing new. :func:`describe_rule`
says such a rule in plain words again, given which column each item came from.

Examples
--------
>>> from riskexplore.core.registry import get_family
>>> from riskexplore.exploration.variable_rules import describe_rule, variable_rule
>>> groups = {"age ≥ 45": "age", "age ≥ 65": "age", "sex": "sex"}
>>> family = get_family("risk_score")
>>> rule = variable_rule(family, groups, "age", keep="age ≥ 65")
>>> rule.describe()
'Use at most 0 of: age ≥ 45'
>>> describe_rule(rule, family, groups)
'Use age only as age ≥ 65'
>>> describe_rule(variable_rule(family, groups, "age"), family, groups)
'Do not use age'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from riskexplore.core.registry import ModelFamily
from riskexplore.errors import InputError

__all__ = ["describe_rule", "variable_items", "variable_rule"]


def variable_items(item_groups: Mapping[str, str], column: str) -> tuple[str, ...]:
    """The items of ``column``, in order.

    Parameters
    ----------
    item_groups : mapping
        Item -> the column it came from.
    column : str
        The column.

    Returns
    -------
    tuple of str
        Its items (empty for an unknown column).
    """
    return tuple(item for item, group in item_groups.items() if group == column)


def variable_rule(
    family: ModelFamily,
    item_groups: Mapping[str, str],
    column: str,
    keep: str | Sequence[str] | None = None,
) -> Any:
    """The rule "do not use ``column``", or with ``keep`` "use ``column`` only as ``keep``".

    Parameters
    ----------
    family : ModelFamily
        The model family (with a :attr:`~riskexplore.core.registry.ModelFamily.raw_table`
        spec).
    item_groups : mapping
        Item -> the column it came from.
    column : str
        The variable.
    keep : str or sequence of str, optional
        Its items that stay allowed.

    Returns
    -------
    constraint
        One readable constraint of the family keeping the other items out.

    Raises
    ------
    InputError
        For a column with no item, an item of another column, or nothing to keep out.
    """
    spec = family.raw_table
    if spec is None:
        raise InputError(f"{family.label.lower()}s have no rules naming a variable")
    items = variable_items(item_groups, column)
    if not items:
        raise InputError(f"{column!r} gives no item in these data (see step 2)")
    kept = () if keep is None else (keep,) if isinstance(keep, str) else tuple(keep)
    strangers = [k for k in kept if k not in items]
    if strangers:
        raise InputError(
            f"{strangers[0]!r} is not an item of {column!r}; its items are {', '.join(items)}"
        )
    out = tuple(i for i in items if i not in kept)
    if not out:
        raise InputError(
            f"{column!r} has no other item than {', '.join(kept)}: nothing to rule out"
        )
    return spec.exclude(out)


def describe_rule(constraint: Any, family: ModelFamily, item_groups: Mapping[str, str]) -> str:
    """A rule in plain words: "Do not use age", "Use age only as age ≥ 65" for the rules
    of :func:`variable_rule`, else the rule's own ``describe()``.

    Parameters
    ----------
    constraint : object
        A readable constraint of ``family``.
    family : ModelFamily
        The model family.
    item_groups : mapping
        Item -> the column it came from (empty: no column is known).

    Returns
    -------
    str
        The words.
    """
    spec = family.raw_table
    excluded = None if spec is None else spec.excluded(constraint)
    if excluded:
        columns = {item_groups.get(i) for i in excluded}
        column = columns.pop() if len(columns) == 1 else None
        if column is not None:
            rest = [i for i in variable_items(item_groups, column) if i not in excluded]
            if not rest:
                return f"Do not use {column}"
            return f"Use {column} only as {' or '.join(rest)}"
    describe = getattr(constraint, "describe", None)  # (a Pyomo model has no words)
    return describe() if callable(describe) else type(constraint).__name__
