"""Typed lazy exports for package ``__init__`` modules, from one list.

A package lists its public names once, as ordinary imports under ``if TYPE_CHECKING:``
(so editors and type checkers see every name with its real signature), and lets
:func:`lazy_exports` read that block and import each name on first use::

    from typing import TYPE_CHECKING

    from riskexplore.core.lazy import lazy_exports

    if TYPE_CHECKING:
        from riskexplore.risk_score.fit import fit_risk_score

    __all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)

``import riskexplore`` then loads none of the solvers, and ``riskexplore.fit_risk_score``
is the function itself.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["export_map", "lazy_exports"]


def export_map(path: str | Path) -> dict[str, tuple[str, str]]:
    """The names imported under ``if TYPE_CHECKING:`` in a module's source.

    Parameters
    ----------
    path : str or Path
        The module's file.

    Returns
    -------
    dict
        Public name -> ``(module, attribute)``, in source order.
    """
    tree = ast.parse(Path(path).read_text())
    out: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
                    for alias in stmt.names:
                        out[alias.asname or alias.name] = (stmt.module, alias.name)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def lazy_exports(
    module_name: str, path: str | Path
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for a package's lazy public names.

    Parameters
    ----------
    module_name : str
        The package (``__name__``).
    path : str or Path
        Its ``__init__.py`` (``__file__``), whose ``if TYPE_CHECKING:`` imports list the
        public names.

    Returns
    -------
    tuple
        ``(__all__, __getattr__, __dir__)``.
    """
    exports = export_map(path)

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(target[0]), target[1])
        setattr(sys.modules[module_name], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module_name]), *exports})

    return sorted(exports), __getattr__, __dir__
