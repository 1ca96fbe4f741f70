"""Build readable risk-score constraints by choosing from lists — no code, no free text.

Pick a constraint type, choose feature names from drop-downs / multi-selects, set the
numbers (k, probability, sign, point bounds) and press Add. The active set is listed in
plain words (each constraint's ``describe()``); select entries and press Remove to drop
them. Invalid choices (unknown feature, malformed or infeasible set) are shown as a
readable message and the active set is left unchanged.

The feasibility check needs no data for most constraints: they compile to rows over the
points and inclusion indicators only, so a two-row placeholder problem with the same
feature names and bounds is checked with
:func:`riskexplore.risk_score.feasibility.check_feasible`. A group's calibration
(:class:`~riskexplore.risk_score.group_calibration.GroupCalibration`) depends on the training
rows: the builder takes them (``data=(X, y)``) and then checks on the real problem.

On a raw table (``item_groups``: each item's column) the builder also offers the rules that
name a variable ("Do not use age", "Use age only as age ≥ 65"; see
:mod:`riskexplore.exploration.variable_rules`) and lists every rule in plain words.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from riskexplore.errors import ConstraintError
from riskexplore.risk_score import constraints as C
from riskexplore.risk_score.family import FAMILY
from riskexplore.risk_score.feasibility import check_feasible
from riskexplore.risk_score.group_calibration import GroupCalibration
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.widgets.builders.constraint_list import (
    VARIABLE_TYPES,
    ConstraintListBase,
    ExplorerBuilder,
    VariableInputs,
    form_input,
)

__all__ = ["CONSTRAINT_TYPES", "ConstraintBuilder", "check_constraints", "explorer_builder"]

log = logging.getLogger(__name__)

#: Constraint types offered: label -> (class name, inputs used).
CONSTRAINT_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Use at most k features": ("MaxFeatures", ("k",)),
    "Use at least k features": ("MinFeatures", ("k",)),
    "Use at most k of a group": ("AtMostKOf", ("features", "k")),
    "Use at least k of a group": ("AtLeastKOf", ("features", "k")),
    "If a feature is used, use one of others": ("Implies", ("feature", "features")),
    "Do not use two features together": ("NotTogether", ("feature", "other")),
    "Predicted risk of an example": ("PredictedRisk", ("features", "side", "p")),
    "Sign of a feature's points": ("Sign", ("feature", "sign")),
    "Always use a feature": ("Include", ("feature",)),
    "Never use a feature": ("Exclude", ("feature",)),
    "Points of a feature within bounds": ("PointsBetween", ("feature", "bound_mode", "lo", "hi")),
    "Calibration of a group of patients": (
        "GroupCalibration",
        ("feature", "group_op", "group_value", "limit", "max_gap"),
    ),
}

#: Input captions per constraint class (defaults in ``_CAPTIONS[None]``).
_CAPTIONS: dict[str | None, dict[str, str]] = {
    None: {"feature": "feature", "features": "features", "other": "and"},
    "Implies": {"feature": "if used", "features": "then one of"},
    "NotTogether": {"feature": "feature", "other": "and"},
    "PredictedRisk": {"features": "example has"},
    "AtMostKOf": {"features": "group"},
    "AtLeastKOf": {"features": "group"},
    "GroupCalibration": {"feature": "group column"},
}


#: The form's inputs (attributes of the builder), in the order shown.
_INPUTS = (
    "feature",
    "other",
    "features",
    "k",
    "sign",
    "side",
    "p",
    "bound_mode",
    "group_op",
    "group_value",
    "limit",
    "max_gap",
    "lo",
    "hi",
)

#: Which bounds of a feature's points hold.
_BOUND_MODES = [("between lo and hi", "both"), ("at least lo", "lo"), ("at most hi", "hi")]

#: Which way a group's predicted risk may not be off.
_LIMITS = [
    ("neither under- nor overestimate", "both"),
    ("do not underestimate", "under"),
    ("do not overestimate", "over"),
]


def check_constraints(
    feature_names: Sequence[str],
    constraints: Iterable,
    *,
    data=None,
    feasibility: bool = True,
    **problem_kwargs: Any,
) -> None:
    """Raise a readable error if the constraints are malformed, name unknown features, or
    cannot hold together (with the problem's bounds and size limits).

    ``problem_kwargs`` are the bound and size arguments of
    :class:`~riskexplore.risk_score.problem.RiskScoreProblem` (``max_size``,
    ``coef_min``, ``coef_max``, ``intercept_min``, ``bounds``, ...).

    Raises
    ------
    ConstraintError, InfeasibleError, InputError

    Parameters
    ----------
    feature_names : sequence of str
        The features.
    constraints : iterable
        The constraints.
    data : (X, y), optional
        The training data, for constraints on the data (a group's calibration; only
        then is the real problem built). Without them a two-row placeholder is used,
        and such constraints are refused.
    feasibility : bool
        Also prove that some model meets them (default True).
    **problem_kwargs
        Bounds and size limits of the problem.
    """
    names = [str(n) for n in feature_names]
    constraints = list(constraints)
    needing = [c for c in constraints if isinstance(c, GroupCalibration)]
    if needing and data is None:
        raise ConstraintError(
            f"constraint {needing[0].describe()!r} depends on the training data; "
            "give the builder the data (data=(X, y))"
        )
    if needing:
        X, y = data
    else:
        X, y = np.zeros((2, len(names))), np.array([0, 1])
    problem = RiskScoreProblem(
        X,
        y,
        feature_names=names,
        constraints=constraints,
        **problem_kwargs,
    )
    if feasibility:
        check_feasible(problem)


class ConstraintBuilder(ConstraintListBase):
    """Widget to add and remove readable constraints by choosing feature names.

    Parameters
    ----------
    feature_names : sequence of str
        The features offered in the lists.
    constraints : iterable, optional
        Constraints to start with (checked like added ones; invalid ones are reported
        and left out).
    check_feasibility : bool
        Refuse a constraint that makes the set infeasible (default True).
    data : (X, y), optional
        The training data: needed by a group's calibration (the builder offers it only
        with data); the feasibility check then uses the real problem.
    item_groups : mapping, optional
        Feature -> the column of the raw table it comes from: the builder then offers
        the rules naming a variable (``VARIABLE_TYPES`` of
        :mod:`~riskexplore.widgets.builders.constraint_list`).
    **problem_kwargs
        Bounds and size limits used by the feasibility check (``max_size``,
        ``coef_min``, ``coef_max``, ...), as given to ``fit_risk_score``.

    Attributes
    ----------
    constraints : list
        The active constraint objects (a copy; pass to ``fit_risk_score``).
    kind : ipywidgets.Dropdown
        Constraint type (labels of :data:`CONSTRAINT_TYPES`).
    feature, other : ipywidgets.Dropdown
    features : ipywidgets.SelectMultiple
    k : ipywidgets.BoundedIntText
    sign, side, bound_mode, group_op, limit : ipywidgets.Dropdown
    p, group_value, max_gap : ipywidgets.BoundedFloatText
    lo, hi : ipywidgets.IntText
    variable, variable_item : ipywidgets.Dropdown
        A variable (column) and one of its items (with ``item_groups`` only).
    add_button, remove_button, clear_button : ipywidgets.Button
    active : ipywidgets.SelectMultiple
        The active constraints in plain words; select to remove.
    active_html : ipywidgets.HTML
        The active set as a numbered list.
    message : ipywidgets.HTML
        The latest message (errors in red).
    widget : ipywidgets.VBox

    Examples
    --------
    >>> from riskexplore import Exclude, load_dataset
    >>> from riskexplore.widgets import ConstraintBuilder
    >>> mammo = load_dataset("mammo")
    >>> builder = ConstraintBuilder(list(mammo.X.columns), max_size=3)
    >>> builder  # doctest: +SKIP
    >>> builder.add(Exclude("IrregularShape"))  # as the Add button does
    True
    >>> builder.constraints
    [Exclude(feature='IrregularShape')]
    """

    #: The family whose rules are built (its ``constraint_types`` limit the types offered).
    family = FAMILY
    #: Bounds of every feasibility check beside the settings' (a subclass's family's).
    fixed_problem_kwargs: dict[str, Any] = {}

    def __init__(
        self,
        feature_names: Sequence[str],
        constraints: Iterable = (),
        *,
        check_feasibility: bool = True,
        data=None,
        item_groups: Mapping[str, str] | None = None,
        **problem_kwargs: Any,
    ) -> None:
        names = [str(n) for n in feature_names]
        if not names:
            raise ValueError("ConstraintBuilder needs at least one feature name")
        self.feature_names = names
        grouped = bool(item_groups) and any(str(k) != str(v) for k, v in item_groups.items())
        self.variables = VariableInputs(self.family, item_groups) if grouped else None
        offered = {t.__name__ for t in self.family.constraint_types}
        types = {k: v for k, v in CONSTRAINT_TYPES.items() if v[0] in offered}
        self.types = {**types, **(VARIABLE_TYPES if grouped else {})}
        self.data = data
        self.check_feasibility = bool(check_feasibility)
        self.problem_kwargs = dict(problem_kwargs)
        self._constraints: list = []
        self._callbacks: list[Callable[[list], None]] = []
        self.last_error: str | None = None
        self._build(names)
        self._wire(watched=[self.kind, self.bound_mode])
        self._start(constraints)

    def _build(self, names: list[str]) -> None:
        """The form (the constraint type, then every input a type may use), the buttons
        and the active list."""
        import ipywidgets as w

        self.kind = form_input(w.Dropdown, "constraint", options=list(self.types))
        self.feature = form_input(w.Dropdown, "feature", options=names)
        other = names[1] if len(names) > 1 else names[0]
        self.other = form_input(w.Dropdown, "and", options=names, value=other)
        self.features = form_input(
            w.SelectMultiple, "features", options=names, rows=min(8, len(names))
        )
        self.k = form_input(w.BoundedIntText, "k", value=1, min=0, max=len(names))
        self.sign = form_input(
            w.Dropdown, "points are", options=[("non-negative (+)", 1), ("non-positive (−)", -1)]
        )
        self.side = form_input(
            w.Dropdown, "risk is", options=[("at least", "at_least"), ("at most", "at_most")]
        )
        self.p = form_input(
            w.BoundedFloatText, "probability", value=0.5, min=0.001, max=0.999, step=0.01
        )
        self.bound_mode = form_input(w.Dropdown, "points", options=_BOUND_MODES)
        self.group_op = form_input(
            w.Dropdown,
            "group: value",
            options=[("equal to", "eq"), ("at least", "ge"), ("below", "lt")],
        )
        self.group_value = form_input(w.FloatText, "of", value=1.0)
        self.limit = form_input(w.Dropdown, "risk", options=_LIMITS)
        self.max_gap = form_input(
            w.BoundedFloatText,
            "by more than (log-odds)",
            label_width="170px",
            value=0.25,
            min=0.0,
            max=5.0,
            step=0.05,
        )
        self.lo = form_input(w.IntText, "lo", value=0)
        self.hi = form_input(w.IntText, "hi", value=5)
        self._inputs = {key: getattr(self, key) for key in _INPUTS}
        if self.variables is not None:
            self.variable = self._inputs["variable"] = self.variables.variable
            self.variable_item = self._inputs["variable_item"] = self.variables.variable_item
        self._build_list()

    @classmethod
    def for_data(cls, X, constraints: Iterable = (), **kwargs: Any) -> ConstraintBuilder:
        """A builder offering the columns of ``X`` (a DataFrame or a list of names)."""
        names = list(getattr(X, "columns", X))
        return cls(names, constraints, **kwargs)

    # --- the constraint set ----------------------------------------------------------
    @property
    def kind_name(self) -> str:
        """Class name of the selected constraint type (e.g. ``"AtMostKOf"``)."""
        return self.types[self.kind.value][0]

    def current(self):
        """The constraint the form describes now (raises ConstraintError if malformed)."""
        name, _ = self.types[self.kind.value]
        feats = tuple(self.features.value)
        if name in ("ExcludeVariable", "OnlyItem"):
            return self.variables.rule(name)
        if name in ("MaxFeatures", "MinFeatures"):
            return getattr(C, name)(int(self.k.value))
        if name in ("AtMostKOf", "AtLeastKOf"):
            if not feats:
                raise ConstraintError("choose the features of the group from the list")
            return getattr(C, name)(feats, k=int(self.k.value))
        if name == "Implies":
            if not feats:
                raise ConstraintError("choose at least one feature under 'then one of'")
            return C.Implies(self.feature.value, then_any=feats)
        if name == "NotTogether":
            return C.NotTogether(self.feature.value, self.other.value)
        if name == "PredictedRisk":
            bound = {self.side.value: float(self.p.value)}
            return C.PredictedRisk(when=dict.fromkeys(feats, 1), **bound)
        if name == "Sign":
            return C.Sign(self.feature.value, int(self.sign.value))
        if name in ("Include", "Exclude"):
            return getattr(C, name)(self.feature.value)
        if name == "GroupCalibration":
            value = float(self.group_value.value)
            op = self.group_op.value
            condition = value if op == "eq" else (value, None) if op == "ge" else (None, value)
            return GroupCalibration(
                {self.feature.value: condition},
                max_gap=float(self.max_gap.value),
                limit=self.limit.value,
            )
        if name == "PointsBetween":
            mode = self.bound_mode.value
            lo = int(self.lo.value) if mode in ("both", "lo") else None
            hi = int(self.hi.value) if mode in ("both", "hi") else None
            return C.PointsBetween(self.feature.value, lo=lo, hi=hi)
        raise ConstraintError(f"unknown constraint type {self.kind.value!r}")  # pragma: no cover

    def _validate(self, constraint) -> None:
        if not isinstance(constraint, GroupCalibration):
            constraint.to_rows(self.feature_names)  # unknown features, malformed rows
        if self.check_feasibility or isinstance(constraint, GroupCalibration):
            check_constraints(
                self.feature_names,
                [*self._constraints, constraint] if self.check_feasibility else [constraint],
                data=self.data,
                feasibility=self.check_feasibility,
                **self.problem_kwargs,
            )

    # --- view ------------------------------------------------------------------------
    def _show_inputs(self) -> None:
        name, used = self.types[self.kind.value]
        captions = {**_CAPTIONS[None], **_CAPTIONS.get(name, {})}
        mode = self.bound_mode.value
        for key, widget in self._inputs.items():
            visible = key in used
            if key == "lo" and mode == "hi" or key == "hi" and mode == "lo":
                visible = False
            widget.layout.display = None if visible else "none"
            if key in captions:
                widget.description = captions[key]


def _problem_kwargs(state, builder_type: type[ConstraintBuilder]) -> dict[str, Any]:
    """The feasibility check's bounds: the Explorer's size and points, the builder's own."""
    s = state.settings
    return {
        "max_size": int(s["max_size"]),
        "coef_min": int(s["coef_min"]),
        "coef_max": int(s["coef_max"]),
        **builder_type.fixed_problem_kwargs,
    }


def _refresh(builder: ConstraintBuilder, state) -> None:
    builder.problem_kwargs.update(_problem_kwargs(state, type(builder)))


def explorer_builder(builder_type: type[ConstraintBuilder]) -> ExplorerBuilder:
    """How the Explorer makes a builder of ``builder_type``: one per data version (a new
    binarization is one) over the items its fit sees, its feasibility check following the
    size limit and points range.

    Parameters
    ----------
    builder_type : type
        :class:`ConstraintBuilder` or a subclass (another family's rules on the points).

    Returns
    -------
    ExplorerBuilder
        The Explorer's plug-in.
    """

    def make(state) -> ConstraintBuilder:
        features = state.features()
        return builder_type(
            list(features.columns),
            data=(features, state.y),
            item_groups=state.item_groups(),
            **_problem_kwargs(state, builder_type),
        )

    return ExplorerBuilder(make=make, key=lambda state: (), refresh=_refresh)


#: The Explorer's risk-score builder.
EXPLORER_BUILDER = explorer_builder(ConstraintBuilder)
