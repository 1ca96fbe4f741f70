"""The model-family registry: what the evaluation, the figures, the widgets and the command
line need to know about a family of models, in one place per family.

A *family* (risk scores, checklists) is a package that defines its problem, constraints,
solvers, model and fit function, and describes itself with one :class:`ModelFamily`
(``riskexplore/<family>/family.py``). Everything above the families asks the registry
instead of testing ``if family == "risk_score"`` or ``isinstance(model, RiskScore)``:

>>> from riskexplore.core.registry import get_family
>>> family = get_family("checklist")
>>> family.size_parameter
'max_items'

Adding a family means adding its package and registering its :class:`ModelFamily`: in
:data:`BUILTIN_FAMILIES` (the families shipped with riskexplore, imported on first use) or
at run time with :func:`register_family`. What a family has *above* the families -- its rule
builder and settings in the Explorer, its command of the command line -- it names by dotted
path (:class:`PlugIns`, :func:`load_plugin`): the family imports none of it, and the upper
layers import it only when they use it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd

from riskexplore.errors import InputError

__all__ = [
    "BUILTIN_COMMANDS",
    "BUILTIN_FAMILIES",
    "DEFAULT_FAMILY",
    "AlternativesSpec",
    "AuditSpec",
    "Command",
    "ModelFamily",
    "PathPlot",
    "PlugIns",
    "RawTableSpec",
    "ScalePriceSpec",
    "SizePathSession",
    "ValidationSpec",
    "every_setting_supported",
    "families",
    "family_commands",
    "family_of",
    "family_of_incumbent",
    "find_family",
    "get_family",
    "load_plugin",
    "no_plain_words",
    "register_family",
]

#: The families shipped with riskexplore: name -> module whose ``FAMILY`` describes it.
BUILTIN_FAMILIES: dict[str, str] = {
    "risk_score": "riskexplore.risk_score.family",
    "checklist": "riskexplore.checklist.family",
    "survival_score": "riskexplore.risk_score.survival.family",
}

#: The family chosen when none is named (the default of ``family=`` arguments).
DEFAULT_FAMILY = "risk_score"


@dataclass(frozen=True)
class Command:
    """A family's command of the command line (``riskexplore NAME ...``).

    Attributes
    ----------
    name : str
        The command (``"fit"``).
    plugin : str
        Where it is (``"riskexplore.cli.fit"``; see :func:`load_plugin`): ``DESCRIPTION``,
        ``add_arguments(parser)`` and ``run(args) -> exit code``, and for the family's side
        of ``near-optimal`` optionally ``add_near_optimal_arguments(parser) -> names`` and
        ``near_optimal_problem(args, settings) -> (X, y, name)`` (see
        :mod:`riskexplore.cli.near_optimal`).
    help : str
        Its line in ``riskexplore --help``.
    """

    name: str
    plugin: str
    help: str


#: The commands of the built-in families, by family: ``riskexplore --help`` lists them
#: without importing the families (a family's :attr:`PlugIns.command` is its entry here).
BUILTIN_COMMANDS: dict[str, Command] = {
    "risk_score": Command(
        "fit", "riskexplore.cli.fit", "fit a risk score to a CSV file or a bundled dataset"
    ),
    "checklist": Command(
        "checklist",
        "riskexplore.cli.checklist",
        "fit a predictive checklist (M-of-N rule) to a CSV file or a bundled dataset",
    ),
    "survival_score": Command(
        "survival",
        "riskexplore.cli.survival",
        "fit a survival score (time to event; also: fit --time T --event E) to a CSV file",
    ),
}


def load_plugin(path: str) -> Any:
    """The object a dotted path names: ``"package.module"`` (the module) or
    ``"package.module:attribute"`` (an attribute of it), imported now.

    Parameters
    ----------
    path : str
        The dotted path.

    Returns
    -------
    object
        The module or the attribute.
    """
    module, _, attribute = path.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


@dataclass(frozen=True)
class PlugIns:
    """What a family has above the families (in the widgets and the command line), named
    by dotted path (:func:`load_plugin`) so that the family imports none of it.

    Attributes
    ----------
    explorer_builder : str or None
        The family's :class:`~riskexplore.widgets.builders.constraint_list.ExplorerBuilder`
        (its rule builder in the Explorer); None: constraints are given in code.
    explorer_settings : str or None
        The class of the family's settings controls in the Explorer, made with
        ``(settings, style, layout)``, with ``controls`` (setting name -> widget),
        ``box`` (shown while the family is chosen), ``show(settings)`` and ``read() ->
        dict`` (see :mod:`riskexplore.widgets.explorer.settings`); None: no controls.
    command : Command or None
        The family's command of the command line.
    """

    explorer_builder: str | None = None
    explorer_settings: str | None = None
    command: Command | None = None

    def modules(self) -> tuple[str, ...]:
        """The modules the plug-ins are in.

        Returns
        -------
        tuple of str
            Module names.
        """
        paths = (self.explorer_builder, self.explorer_settings)
        paths += (self.command.plugin if self.command else None,)
        return tuple(p.partition(":")[0] for p in paths if p)


class SizePathSession(Protocol):
    """The family's side of a size path (see :func:`riskexplore.evaluation.paths.size_path`):
    solving the problem at one size limit after another, and the certified columns of
    each size's row. Metrics are added by the evaluation layer."""

    #: Largest size of the default path.
    default_max: int
    #: Metrics of the training and of the test data added to each row.
    train_metrics: tuple[str, ...]
    test_metrics: tuple[str, ...]

    def solve(self, size: int, time_limit: float, stop: Any) -> Any:
        """The best model with at most ``size`` (features, items); raises
        :class:`~riskexplore.errors.InfeasibleError` when there is none."""

    def columns(self, model: Any, size: int) -> dict[str, Any]:
        """The row's columns of the model and its certificate (after ``size``)."""

    def work(self, model: Any) -> dict[str, Any]:
        """Columns after the row's ``time`` (search effort)."""

    def tighten(self, rows: list[dict[str, Any]]) -> None:
        """Tighten the certified intervals of all rows so far (in place)."""


@dataclass(frozen=True)
class PathPlot:
    """How a size path of the family is drawn (:func:`riskexplore.figures.paths.pareto_figure`).

    Attributes
    ----------
    traces : tuple of (name, column, subplot row, interval columns or None)
        One trace per metric; the first carries the certified interval.
    titles : tuple of str
        The three subplot titles (the figure has as many subplots as the traces' rows use).
    objective_label : str
        The y axis of the first subplot.
    middle_percent : bool
        Whether the second subplot shows a rate (as a percentage).
    """

    traces: tuple[tuple[str, str, int, tuple[str, str] | None], ...]
    titles: tuple[str, str, str]
    objective_label: str
    middle_percent: bool


def every_setting_supported(
    settings: Mapping[str, Any], model: Any = None, words: bool = False
) -> None:
    """The default :attr:`AlternativesSpec.unsupported`: every setting has alternatives.

    Parameters
    ----------
    settings : mapping
        Fit settings (not used).
    model : optional
        A model to start from (not used).
    words : bool
        For a page rather than an error (not used).

    Returns
    -------
    None
        Always.
    """
    return None


@dataclass(frozen=True)
class AlternativesSpec:
    """What a family offers beyond its best model: near-optimal sets, hand edits with a
    certified distance, and the price of each feature (see
    :mod:`riskexplore.evaluation.near_optimal` and
    :mod:`riskexplore.evaluation.prices`).

    Attributes
    ----------
    near_optimal : callable
        ``(X, y, *, tolerance, max_models, time_limit, stop, constraints, **settings)``
        -> the family's near-optimal result: ``models`` (records best first, each with
        ``model``, a fitted model value whose ``distance`` is certified), ``optimum``,
        ``lower_bound``, ``tolerance``, ``complete``, ``reason``, ``time`` and ``nodes``.
        ``settings`` are the family's fit settings (and :attr:`shared` arguments).
    tolerance : float
        The default tolerance.
    tolerance_unit : {"relative", "mistakes"}
        ``"relative"``: a fraction of the optimal objective; ``"mistakes"``: weighted
        mistakes added to the optimal ones.
    features_of : callable
        ``(model) -> tuple of str``: the features a model uses (a checklist's feature
        groups).
    all_features : callable
        ``(model) -> tuple of str``: every feature it could use.
    feature_constraints : callable
        ``(model, feature, force_in) -> list``: constraints that force ``feature`` into the
        model (``force_in=True``) or leave it out.
    shared : callable
        ``() -> dict``: fit arguments that let solves on the same data share work (a
        risk score's cut pool); empty when there is nothing to share.
    edit_kind : {"points", "items"}
        How a model is edited by hand: points per feature, or items and a threshold.
    edit : callable
        ``(model, change) -> model``: the hand edit ``change`` (``{"points": {...},
        "intercept": ...}`` or ``{"add": [...], "remove": [...], "M": m}``).
    describe_model : callable
        ``(model) -> dict``: the model's own fields in reports (``intercept`` and
        ``coefficients``; ``items``, ``M`` and ``train_errors``).
    unsupported : callable
        ``(settings, model=None, words=False) -> str or None``: why these fit settings
        (or a model to start from) have no near-optimal sets, edits or prices (a risk
        score's learned scale): an error message naming the option, or with
        ``words=True`` plain words for a page; None when they are supported (by default,
        always).
    training_problem : callable or None
        ``(X, y, settings, constraints) -> problem``: the training problem that
        :attr:`near_optimal` solves for these fit settings and constraints. Models read
        from a file (a study's set) keep no problem; hand edits of them need it.
    """

    near_optimal: Callable[..., Any]
    tolerance: float
    tolerance_unit: str
    features_of: Callable[[Any], tuple[str, ...]]
    all_features: Callable[[Any], tuple[str, ...]]
    feature_constraints: Callable[[Any, str, bool], list]
    shared: Callable[[], dict[str, Any]]
    edit_kind: str
    edit: Callable[[Any, Mapping[str, Any]], Any]
    describe_model: Callable[[Any], dict[str, Any]]
    unsupported: Callable[..., str | None] = every_setting_supported
    training_problem: Callable[..., Any] | None = None


def no_plain_words(constraint: Any, groups: Callable[[Any], str]) -> None:
    """The default :attr:`AuditSpec.plain_rule`: no rule of the family has plain words of
    its own (pages show its ``describe()``).

    Parameters
    ----------
    constraint : object
        A rule (not used).
    groups : callable
        Plain words of a rule's group columns (not used).

    Returns
    -------
    None
        Always.
    """
    return None


@dataclass(frozen=True)
class AuditSpec:
    """What the subgroup audit (:mod:`riskexplore.evaluation.audit`) shows of a family's
    models and which rules it suggests for their findings.

    Attributes
    ----------
    metrics : tuple of str
        The metrics the audit's forest plot offers, in order (of ``"calibration"``,
        ``"auc"``, ``"fnr"``, ``"fpr"``, ``"ppv"``; for a survival outcome
        ``"observed_expected"``, ``"c_index"``); by default a classifier's.
    calibration_rule : callable or None
        ``(where, *, max_gap, limit, label, target) -> constraint``: the rule that limits
        a calibration finding (a risk score's
        :class:`~riskexplore.risk_score.group_calibration.GroupCalibration`); None: none.
    rate_rule : callable or None
        ``(rate, limit, *, by, cap) -> constraint``: the rule that limits a finding of
        missed cases (``rate="fnr"``) or false alarms (``"fpr"``) over the groups of the
        columns ``by``: the gap between groups, or with ``cap=True`` every group's rate,
        at most ``limit`` (a checklist's group-rate limits); None: none.
    plain_rule : callable
        ``(constraint, groups) -> str or None``: a rule of the family in plain words for
        pages (``groups(by)`` gives the plain words of group columns); None for a
        constraint it has no words for.
    rule_groups : bool
        Whether the rules take their groups from the fit's ``groups=`` (the Explorer's
        ``group_columns`` setting) rather than from the features.
    """

    metrics: tuple[str, ...] = ("fnr", "fpr", "ppv", "auc")
    calibration_rule: Callable[..., Any] | None = None
    rate_rule: Callable[..., Any] | None = None
    plain_rule: Callable[[Any, Callable[[Any], str]], str | None] = no_plain_words
    rule_groups: bool = False


@dataclass(frozen=True)
class ScalePriceSpec:
    """The certified price of a fixed scale (a risk score's ``m = 1`` against a learned
    multiplier; see :mod:`riskexplore.risk_score.scale_price`).

    Attributes
    ----------
    of_run : callable
        ``(X, y, model, settings, fit_arguments, *, callbacks, stop) -> price``: the
        price for a run's model, fitted with the Explorer's ``settings`` and the family's
        ``fit_arguments`` of them (the other scale is solved).
    result_type : type
        The price: made with ``(fixed, learned, interval, multiplier_range)``, the fields
        a study file keeps.
    """

    of_run: Callable[..., Any]
    result_type: type


@dataclass(frozen=True)
class RawTableSpec:
    """How a family turns a raw table (numbers, categories, missing values) into its
    features: what the Explorer shows and lets the user edit in its step 2 (see
    :mod:`riskexplore.exploration.binarization`), and rules that name a variable.

    Attributes
    ----------
    binarizer : callable
        ``(settings, *, thresholds, categorical) -> Binarizer or None``: the unfitted
        :class:`~riskexplore.data.binarize.Binarizer` the family's fit makes its items with,
        for the Explorer's ``settings``, the user's cut points (``{column: [cut, ...]}``)
        and the columns to treat as categories; None when these settings use the columns
        as they are (a checklist without binarization).
    linear : bool
        Whether a numeric column may stay a number (points per unit) instead of items.
    exclude : callable
        ``(items) -> constraint``: one readable constraint of the family that keeps every
        item of ``items`` out of the model ("do not use age" excludes every item of age).
    excluded : callable
        ``(constraint) -> tuple of str or None``: the items the constraint keeps out of the
        model when that is all it does, else None (how such a rule is recognised, to say
        it in plain words).
    """

    binarizer: Callable[..., Any]
    linear: bool
    exclude: Callable[[tuple[str, ...]], Any]
    excluded: Callable[[Any], tuple[str, ...] | None]


@dataclass(frozen=True)
class ValidationSpec:
    """How a family's models are validated on other rows and recalibrated to them (see
    :mod:`riskexplore.evaluation.validation`).

    Attributes
    ----------
    card_score : callable
        ``(model, X) -> ndarray``: the number a person reads off the card for each row
        (a risk score's total points, a checklist's number of items checked); the score
        table and the calibration plot have one row per value.
    score_noun : str
        What that number is called in tables (``"total score"``, ``"items checked"``).
    risk_of : callable
        ``(model, X) -> ndarray or None``: the predicted risk of each row; None when the
        model has no score-to-risk map (a checklist saved before it kept its risk per
        number of items checked).
    no_risk : str
        Why there is no risk when :attr:`risk_of` gives None, and what to do about it.
    logit_of : callable or None
        ``(model, X) -> ndarray``: the exact log-odds of the risk (a risk score's
        ``decision_function``); None: the logit of the risk, clipped to
        ``[1e-12, 1 - 1e-12]``.
    recalibrate : callable
        ``(model, X, y) -> model``: the model with its score-to-risk map refitted to the
        rows ``(X, y)``, every point or item kept, and ``stats["recalibrated"] =
        {"rows": n, "events": e}``.
    horizon_of : callable or None
        For a family whose outcome is a time to event (``ModelFamily.outcome ==
        "survival"``): ``(model, horizon or None) -> float``, the horizon of the validation
        (checked; the model's first by default); :attr:`risk_of` then takes it as a third
        argument, ``(model, X, horizon)``, and ``y`` of :attr:`recalibrate` is the survival
        outcome. None for 0/1 outcomes.
    """

    card_score: Callable[[Any, Any], Any]
    score_noun: str
    risk_of: Callable[..., Any]
    no_risk: str
    recalibrate: Callable[[Any, Any, Any], Any]
    logit_of: Callable[[Any, Any], Any] | None = None
    horizon_of: Callable[[Any, Any], float] | None = None


@dataclass(frozen=True)
class ModelFamily:
    """A family of models, as the layers above the families see it.

    Attributes
    ----------
    name : str
        The family's key (``"risk_score"``).
    label : str
        Its name for people (``"Risk score"``).
    model_type : type
        The fitted model class.
    constraint_types : tuple of type
        The family's readable constraint classes (frozen dataclasses): the only ones a
        study file may name (see :mod:`~riskexplore.exploration.study`). Keyword-only, default
        none.
    fit : callable
        ``fit(X, y, *, constraints, callbacks, stop, time_limit, **settings) -> model``.
    size_parameter : str
        The fit argument that limits the model size (``"max_size"``).
    size_noun : str
        What the size counts (``"features"``, ``"items"``).
    incumbent_key : str
        The key that marks the family's incumbents in solve events.
    from_incumbent : callable
        ``(incumbent, certificate, stats, template) -> model``: a model of a solver
        incumbent, for live views (``template`` an earlier model or None).
    describe_incumbent : callable
        ``(incumbent) -> str``: the incumbent in a few words.
    card_table : callable
        ``(model) -> (header, columns)``: the model's card as a table.
    compare_table : callable
        ``(model_a, model_b, names) -> DataFrame``: two models side by side, with a
        ``changed`` column.
    settings : mapping
        The family's settings in the Explorer and their defaults.
    check_settings : callable
        ``(settings) -> None``: raises :class:`~riskexplore.errors.InputError` for
        settings that cannot be fitted.
    fit_arguments : callable
        ``(settings, *, categorical, groups) -> dict``: the fit arguments of the
        settings (``categorical``: coded columns of the dataset; ``groups``: the
        protected attributes chosen, or None). A family with a :attr:`raw_table` spec
        also takes ``binarizer`` (the fitted Binarizer of the Explorer's data, or None:
        the columns are used as they are) and ``linear`` (columns kept as numbers).
    check_data : callable
        ``(X, y, settings) -> None``: raises :class:`~riskexplore.errors.InputError`
        when the data cannot be fitted with the settings.
    comparable : tuple of str
        Settings that must agree for two runs to differ only in their constraints (so the
        price of the constraints is certified).
    path_session : callable
        ``(X, y, *, groups, cut_pool, **fit_kwargs) -> SizePathSession``.
    path_metric : str
        The column the size path's Pareto front uses (``"loss"``, ``"objective"``).
    describe_path_row : callable
        ``(row) -> str``: one row of a size path in words.
    path_plot : PathPlot
        How a size path is drawn.
    aliases : tuple of str
        Other names of the family.
    alternatives : AlternativesSpec or None
        Near-optimal sets, hand edits and feature prices (None: not offered).
    noun : str
        What a model is called in sentences (``"score"``, ``"checklist"``).
    shared : mapping
        Fit arguments that let solves on the same data share work, and how to make each
        (a risk score's ``{"cut_pool": CutPool}``): cross-validation gives one per training
        set, comparisons one for both solves.
    audit : AuditSpec
        What the subgroup audit shows and suggests.
    scale_price : ScalePriceSpec or None
        The certified price of a fixed scale (risk scores); None: no such price.
    warm_up : callable or None
        ``() -> None``: compile (or load from numba's cache) the family's search code on
        a tiny problem, before a server takes visitors.
    plugins : PlugIns
        The family's widgets and command, named by dotted path.
    raw_table : RawTableSpec or None
        How the family binarizes a raw table in the Explorer; None: its fit takes the
        table as it is.
    validation : ValidationSpec or None
        How its models are validated on other rows and recalibrated; None: not offered.
    outcome : {"binary", "survival"}
        The kind of outcome ``y`` its fit takes: ``"binary"`` (0/1 labels) or
        ``"survival"`` (scikit-survival's structured array ``[("event", bool), ("time",
        float)]``, so that every ``(X, y)`` signature and row indexing stays). Layers
        that only handle one kind (the Explorer, the audit, AUC and calibration) ask it.
    """

    name: str
    label: str
    model_type: type
    constraint_types: tuple[type, ...] = field(default=(), kw_only=True)
    fit: Callable[..., Any]
    size_parameter: str
    size_noun: str
    incumbent_key: str
    from_incumbent: Callable[..., Any]
    describe_incumbent: Callable[[Mapping[str, Any]], str]
    card_table: Callable[[Any], tuple[list[str], list[list[str]]]]
    compare_table: Callable[[Any, Any, tuple[str, str]], pd.DataFrame]
    settings: Mapping[str, Any]
    check_settings: Callable[[Mapping[str, Any]], None]
    fit_arguments: Callable[..., dict[str, Any]]
    check_data: Callable[[Any, Any, Mapping[str, Any]], None]
    comparable: tuple[str, ...]
    path_session: Callable[..., SizePathSession]
    path_metric: str
    describe_path_row: Callable[[Mapping[str, Any]], str]
    path_plot: PathPlot
    aliases: tuple[str, ...] = field(default=())
    alternatives: AlternativesSpec | None = None
    noun: str = "model"
    shared: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    audit: AuditSpec = AuditSpec()
    scale_price: ScalePriceSpec | None = None
    warm_up: Callable[[], None] | None = None
    plugins: PlugIns = PlugIns()
    raw_table: RawTableSpec | None = None
    validation: ValidationSpec | None = None
    outcome: str = "binary"


_lock = threading.Lock()
_registry: dict[str, ModelFamily] = {}
_loaded = False


def register_family(family: ModelFamily) -> ModelFamily:
    """Add a family (or replace the one of the same name).

    Parameters
    ----------
    family : ModelFamily
        The family.

    Returns
    -------
    ModelFamily
        ``family``.
    """
    with _lock:
        _registry[family.name] = family
    return family


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    for module in BUILTIN_FAMILIES.values():
        family = importlib.import_module(module).FAMILY
        with _lock:
            _registry.setdefault(family.name, family)
    _loaded = True


def families() -> Sequence[ModelFamily]:
    """Every registered family, built-in ones first.

    Returns
    -------
    sequence of ModelFamily
        The families.
    """
    _load_builtin()
    with _lock:
        return tuple(_registry.values())


def get_family(name: str | ModelFamily) -> ModelFamily:
    """The family called ``name`` (or one of its aliases).

    Parameters
    ----------
    name : str or ModelFamily
        A family name (``"risk_score"``, ``"checklist"``); a family is returned as is.

    Returns
    -------
    ModelFamily
        The family.

    Raises
    ------
    InputError
        For an unknown name.
    """
    if isinstance(name, ModelFamily):
        return name
    family = find_family(name)
    if family is not None:
        return family
    known = ", ".join(repr(f.name) for f in families())
    raise InputError(f"unknown model family {name!r}; use {known}")


def find_family(name: str) -> ModelFamily | None:
    """The family called ``name`` (or one of its aliases), or None (e.g. for the kind
    ``"model"`` of an audited model of no family).

    Parameters
    ----------
    name : str
        A family name.

    Returns
    -------
    ModelFamily or None
        The family.
    """
    for family in families():
        if name == family.name or name in family.aliases:
            return family
    return None


def family_commands() -> dict[str, Command]:
    """The families' commands of the command line: the built-in ones (listed without
    importing the families) and those of families registered at run time.

    Returns
    -------
    dict
        Command name -> :class:`Command`, built-in ones first.
    """
    with _lock:
        registered = [f.plugins.command for f in _registry.values() if f.plugins.command]
    out = {c.name: c for c in BUILTIN_COMMANDS.values()}
    out.update((c.name, c) for c in registered)
    return out


def family_of(model: Any) -> ModelFamily:
    """The family of a fitted model.

    Parameters
    ----------
    model : object
        A fitted model (:class:`~riskexplore.risk_score.model.RiskScore`,
        :class:`~riskexplore.checklist.model.Checklist`, ...).

    Returns
    -------
    ModelFamily
        Its family.

    Raises
    ------
    InputError
        If no registered family makes such models.
    """
    for family in families():
        if isinstance(model, family.model_type):
            return family
    raise InputError(f"{type(model).__name__} is not a model of a registered family")


def family_of_incumbent(incumbent: Mapping[str, Any]) -> ModelFamily | None:
    """The family whose solvers report incumbents like ``incumbent`` (None if none does).

    Parameters
    ----------
    incumbent : mapping
        The ``incumbent`` of a :class:`~riskexplore.core.events.SolveEvent`.

    Returns
    -------
    ModelFamily or None
        The family.
    """
    for family in families():
        if family.incumbent_key in incumbent:
            return family
    return None
