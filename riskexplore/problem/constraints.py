"""Operational constraints (placeholder: full readable API lands with issue 2 work)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from riskexplore.errors import ConstraintError
from riskexplore.problem.rows import LinearRow


def constraints_to_rows(constraints: Iterable, feature_names: Sequence[str]) -> list[LinearRow]:
    """Compile readable constraints, Pyomo models and raw rows to :class:`LinearRow`."""
    rows: list[LinearRow] = []
    for item in constraints:
        if isinstance(item, LinearRow):
            rows.append(item)
        elif hasattr(item, "to_rows"):
            rows.extend(item.to_rows(feature_names))
        else:
            raise ConstraintError(f"cannot use {item!r} as a constraint")
    return rows
