"""Build readable checklist constraints by choosing from lists — no code, no free text.

:class:`ChecklistConstraintBuilder` is the checklist counterpart of
:class:`~riskexplore.widgets.builders.risk_score.ConstraintBuilder`: pick a constraint type
(:data:`CHECKLIST_CONSTRAINT_TYPES`), choose items, feature groups or protected-group
columns from lists, set the numbers and press Add. The active set is listed in plain
words; select entries and press Remove to drop them.

Every constraint is checked before it becomes active: item and group names against the
lists (``to_rows``), and — when a ``checker`` is given, e.g. one that builds the checklist
problem on the data and runs :func:`~riskexplore.checklist.engines.check_feasible`
(see :func:`data_checker`) — against the data. A refused
constraint is shown as a readable message and the active set stays as it was.

With the items' feature groups (the columns of a raw table) the builder also offers the
rules that name a variable ("Do not use age", "Use age only as age ≥ 65"; see
:mod:`riskexplore.exploration.variable_rules`) and lists every rule in plain words.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from riskexplore.checklist import constraints as cc
from riskexplore.checklist.engines import check_feasible
from riskexplore.checklist.family import FAMILY
from riskexplore.checklist.fit import prepare_checklist
from riskexplore.errors import ConstraintError
from riskexplore.widgets.builders.constraint_list import (
    VARIABLE_TYPES,
    ConstraintListBase,
    ExplorerBuilder,
    VariableInputs,
    form_input,
)

__all__ = ["CHECKLIST_CONSTRAINT_TYPES", "ChecklistConstraintBuilder", "data_checker"]

log = logging.getLogger(__name__)

#: Constraint types offered: label -> (class name, inputs used).
CHECKLIST_CONSTRAINT_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Use at most N items": ("MaxItems", ("k",)),
    "Threshold M within bounds": ("MRange", ("m_mode", "lo", "hi")),
    "At most one item per feature group": ("OneItemPerGroup", ("feature_groups",)),
    "If an item is used, use one of others": ("Implies", ("item", "items")),
    "Predict positive when items are checked": ("PredictPositiveWhen", ("items",)),
    "Always use an item": ("IncludeItem", ("item",)),
    "Never use an item": ("ExcludeItem", ("item",)),
    "False negative rate at most": ("FNRLimit", ("rate_value",)),
    "False positive rate at most": ("FPRLimit", ("rate_value",)),
    "Rate gap between groups at most": ("GroupRateGap", ("rate", "rate_value", "by")),
    "Rate of every group at most": ("WorstGroupRate", ("rate", "rate_value", "by")),
}

_CAPTIONS: dict[str | None, dict[str, str]] = {
    None: {"item": "item", "items": "items", "rate_value": "rate", "k": "N"},
    "Implies": {"item": "if used", "items": "then one of"},
    "PredictPositiveWhen": {"items": "checked items"},
    "GroupRateGap": {"rate_value": "max gap"},
    "WorstGroupRate": {"rate_value": "cap"},
}

_GROUP_TYPES = ("GroupRateGap", "WorstGroupRate")

#: The form's inputs (attributes of the builder), in the order shown.
_INPUTS = ("item", "items", "feature_groups", "k", "m_mode", "lo", "hi", "rate", "rate_value", "by")


def data_checker(X, y, groups=None, *, feasibility: bool = True, **prepare_kw: Any):
    """A ``checker(constraints)`` that builds the checklist problem on ``(X, y)``
    (``prepare_kw``: ``binarize``, ``max_items``, ... as for ``fit_checklist``) and, with
    ``feasibility``, proves that some checklist satisfies the constraints. Raises a
    readable :class:`~riskexplore.errors.RiskExploreError` otherwise.

    Parameters
    ----------
    X, y
        Training data (raw features).
    groups : optional
        Protected attributes, one row per example.
    feasibility : bool
        Also prove that some checklist satisfies the constraints.
    **prepare_kw
        Arguments of :func:`~riskexplore.checklist.fit.prepare_checklist`.

    Returns
    -------
    callable
        ``checker(constraints) -> None``.
    """

    def check(constraints) -> None:

        prepared = prepare_checklist(
            X, y, constraints=list(constraints), groups=groups, **prepare_kw
        )
        if feasibility:
            check_feasible(prepared.problem)

    return check


class ChecklistConstraintBuilder(ConstraintListBase):
    """Widget to add and remove checklist constraints by choosing from lists.

    Parameters
    ----------
    item_names : sequence of str
        The items offered (binarized names such as ``"age ≥ 54"``).
    item_groups : mapping item -> feature group, optional
        Feature group (source column) of each item, for "one item per group" and the
        rules naming a variable (``VARIABLE_TYPES`` of
        :mod:`~riskexplore.widgets.builders.constraint_list`).
    group_columns : sequence of str, optional
        Columns of the protected-group data, offered for group-rate constraints
        ("by"; none selected means every column crossed).
    constraints : iterable, optional
        Constraints to start with (invalid ones are reported and left out).
    checker : callable ``(constraints) -> None``, optional
        Raises a readable error if the set cannot be used (see :func:`data_checker`).

    Attributes
    ----------
    constraints : list
        The active constraint objects (pass to ``fit_checklist(constraints=...)``).
    kind : ipywidgets.Dropdown
        Constraint type (labels of :data:`CHECKLIST_CONSTRAINT_TYPES`).
    item : ipywidgets.Dropdown
    items, feature_groups, by : ipywidgets.SelectMultiple
    k : ipywidgets.BoundedIntText
    m_mode, rate : ipywidgets.Dropdown
    lo, hi : ipywidgets.BoundedIntText
    rate_value : ipywidgets.BoundedFloatText
    variable, variable_item : ipywidgets.Dropdown
        A variable (feature group) and one of its items (with ``item_groups`` only).
    add_button, remove_button, clear_button : ipywidgets.Button
    active : ipywidgets.SelectMultiple
    active_html, message : ipywidgets.HTML
    widget : ipywidgets.VBox

    Examples
    --------
    >>> from riskexplore import FNRLimit
    >>> from riskexplore.widgets import ChecklistConstraintBuilder
    >>> builder = ChecklistConstraintBuilder(["age ≥ 54", "chol ≥ 240", "smoker"])
    >>> builder  # doctest: +SKIP
    >>> builder.add(FNRLimit(0.2))
    True
    >>> builder.constraints
    [FNRLimit(gamma=0.2)]
    """

    def __init__(
        self,
        item_names: Sequence[str],
        item_groups: Mapping[str, str] | None = None,
        group_columns: Sequence[str] = (),
        constraints: Iterable = (),
        *,
        checker: Callable[[list], None] | None = None,
    ) -> None:
        names = [str(n) for n in item_names]
        if not names:
            raise ValueError("ChecklistConstraintBuilder needs at least one item name")
        self.item_names = names
        self.item_groups = {str(k): str(v) for k, v in (item_groups or {}).items()}
        self.variables = VariableInputs(FAMILY, self.item_groups) if self.item_groups else None
        self.types = {
            **CHECKLIST_CONSTRAINT_TYPES,
            **(VARIABLE_TYPES if self.item_groups else {}),
        }
        self.group_columns = [str(c) for c in group_columns]
        self.checker = checker
        self._constraints: list = []
        self._callbacks: list[Callable[[list], None]] = []
        self.last_error: str | None = None
        self._build(names)
        self._wire(watched=[self.kind, self.m_mode])
        self._start(constraints)

    def _build(self, names: list[str]) -> None:
        """The form (the constraint type, then every input a type may use), the buttons
        and the active list."""
        import ipywidgets as w

        n = len(names)
        groups = sorted({str(g) for g in self.item_groups.values()})
        columns = self.group_columns
        self.kind = form_input(w.Dropdown, "constraint", options=list(self.types))
        self.item = form_input(w.Dropdown, "item", options=names)
        self.items = form_input(w.SelectMultiple, "items", options=names, rows=min(8, n))
        self.feature_groups = form_input(
            w.SelectMultiple,
            "groups (none = all)",
            options=groups,
            rows=min(6, max(1, len(groups))),
        )
        self.k = form_input(w.BoundedIntText, "N", value=min(3, n), min=1, max=n)
        self.m_mode = form_input(
            w.Dropdown,
            "M is",
            options=[("between lo and hi", "both"), ("at least lo", "lo"), ("at most hi", "hi")],
        )
        self.lo = form_input(w.BoundedIntText, "lo", value=1, min=1, max=n)
        self.hi = form_input(w.BoundedIntText, "hi", value=min(2, n), min=1, max=n)
        self.rate = form_input(
            w.Dropdown,
            "rate",
            options=[("false negative rate", "fnr"), ("false positive rate", "fpr")],
        )
        self.rate_value = form_input(
            w.BoundedFloatText, "rate", value=0.2, min=0.0, max=1.0, step=0.01
        )
        self.by = form_input(
            w.SelectMultiple, "by (none = all)", options=columns, rows=min(4, max(1, len(columns)))
        )
        self._inputs = {key: getattr(self, key) for key in _INPUTS}
        if self.variables is not None:
            self.variable = self._inputs["variable"] = self.variables.variable
            self.variable_item = self._inputs["variable_item"] = self.variables.variable_item
        self._build_list()

    # --- the constraint set ----------------------------------------------------------
    @property
    def kind_name(self) -> str:
        """Class name of the selected constraint type (e.g. ``"FNRLimit"``)."""
        return self.types[self.kind.value][0]

    def select_kind(self, class_name: str) -> None:
        """Choose the constraint type by class name (e.g. ``"FNRLimit"``)."""
        for label, (name, _) in self.types.items():
            if name == class_name:
                self.kind.value = label
                return
        raise ConstraintError(f"unknown checklist constraint type {class_name!r}")

    def current(self):
        """The constraint the form describes now (raises ConstraintError if malformed)."""
        name = self.kind_name
        items = tuple(self.items.value)
        by = tuple(self.by.value) or None
        if name in ("ExcludeVariable", "OnlyItem"):
            return self.variables.rule(name)
        if name == "MaxItems":
            return cc.MaxItems(int(self.k.value))
        if name == "MRange":
            mode = self.m_mode.value
            lo = int(self.lo.value) if mode in ("both", "lo") else None
            hi = int(self.hi.value) if mode in ("both", "hi") else None
            return cc.MRange(lo=lo, hi=hi)
        if name == "OneItemPerGroup":
            if not self.item_groups:
                raise ConstraintError("these items have no feature groups (binarize the data)")
            return cc.OneItemPerGroup(tuple(self.feature_groups.value) or None)
        if name == "Implies":
            if not items:
                raise ConstraintError("choose at least one item under 'then one of'")
            return cc.Implies(self.item.value, then_any=items)
        if name == "PredictPositiveWhen":
            if not items:
                raise ConstraintError("choose the checked items from the list")
            return cc.PredictPositiveWhen(items)
        if name in ("IncludeItem", "ExcludeItem"):
            return getattr(cc, name)(self.item.value)
        if name in ("FNRLimit", "FPRLimit"):
            return getattr(cc, name)(float(self.rate_value.value))
        if name in _GROUP_TYPES:
            if not self.group_columns:
                raise ConstraintError(
                    "group-rate constraints need protected-group columns; choose them first"
                )
            if name == "GroupRateGap":
                return cc.GroupRateGap(self.rate.value, float(self.rate_value.value), by)
            return cc.WorstGroupRate(self.rate.value, float(self.rate_value.value), by)
        raise ConstraintError(f"unknown constraint type {self.kind.value!r}")  # pragma: no cover

    def _check_names(self, constraint) -> None:
        if isinstance(constraint, cc.OneItemPerGroup):
            known = set(map(str, self.item_groups.values()))
            missing = [g for g in constraint.groups or () if g not in known]
            if missing:
                raise ConstraintError(f"unknown feature group(s): {', '.join(missing)}")
            return
        if isinstance(constraint, (cc.GroupRateGap, cc.WorstGroupRate)):
            missing = [b for b in constraint.by or () if b not in self.group_columns]
            if missing:
                raise ConstraintError(f"unknown group column(s): {', '.join(missing)}")
            if not self.group_columns:
                raise ConstraintError("group-rate constraints need protected-group columns")
            return
        if isinstance(constraint, (cc.FNRLimit, cc.FPRLimit)):
            return
        constraint.to_rows(self.item_names)  # unknown items, malformed rows

    def _validate(self, constraint) -> None:
        self._check_names(constraint)
        if self.checker is not None:
            self.checker([*self._constraints, constraint])

    # --- view ------------------------------------------------------------------------
    def _show_inputs(self) -> None:
        name, used = self.types[self.kind.value]
        captions = {**_CAPTIONS[None], **_CAPTIONS.get(name, {})}
        mode = self.m_mode.value
        for key, widget in self._inputs.items():
            visible = key in used
            if key == "lo" and mode == "hi" or key == "hi" and mode == "lo":
                visible = False
            widget.layout.display = None if visible else "none"
            if key in captions:
                widget.description = captions[key]


def _for_explorer(state) -> ChecklistConstraintBuilder:
    """A builder over the items the Explorer's data, binarization and settings give."""
    s = state.settings
    features = state.features()
    item_groups = state.item_groups() if s["binarize"] is not None else None
    prepare = state.fit_kwargs()
    for key in ("time_limit", "groups"):
        prepare.pop(key, None)
    checker = data_checker(state.X, state.y, state.groups(), **prepare)
    return ChecklistConstraintBuilder(
        list(features.columns), item_groups, list(s.get("group_columns") or ()), checker=checker
    )


#: The Explorer's checklist builder: a new one when the items, their number or the
#: protected groups change.
EXPLORER_BUILDER = ExplorerBuilder(
    make=_for_explorer,
    key=lambda state: (
        state.settings["binarize"],
        state.settings["max_items"],
        tuple(state.settings.get("group_columns") or ()),
    ),
    refresh=lambda builder, state: None,
)
