"""Checklists as a model family: what the layers above need to know about them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

import riskexplore.checklist.constraints as rules
from riskexplore.checklist import edits
from riskexplore.checklist.constraints import (
    AtMostKItems,
    ExcludeItem,
    GroupRateGap,
    IncludeItem,
    WorstGroupRate,
)
from riskexplore.checklist.count_risk import risk_of_counts
from riskexplore.checklist.fit import BINARIZE_METHODS, fit_checklist, prepare_checklist
from riskexplore.checklist.model import Checklist
from riskexplore.checklist.near_optimal import near_optimal_models
from riskexplore.checklist.recalibration import recalibrate_checklist
from riskexplore.checklist.rows import ChecklistRow
from riskexplore.checklist.search.solve import warm_up
from riskexplore.checklist.size_path import ChecklistPathSession, describe_path_row
from riskexplore.core.certificate import Certificate
from riskexplore.core.params import Interval, Options, validate
from riskexplore.core.registry import (
    BUILTIN_COMMANDS,
    AlternativesSpec,
    AuditSpec,
    ModelFamily,
    PathPlot,
    PlugIns,
    RawTableSpec,
    ValidationSpec,
)
from riskexplore.data.binarize import Binarizer
from riskexplore.errors import InputError

__all__ = ["FAMILY"]

#: The Explorer's checklist settings and their defaults.
SETTINGS: dict[str, Any] = {"max_items": 5, "binarize": "adaptive"}

#: The readable checklist constraints (what a study file may name).
CONSTRAINT_TYPES: tuple[type, ...] = (
    rules.MaxItems,
    rules.MinItems,
    rules.MRange,
    rules.AtMostKItems,
    rules.OneItemPerGroup,
    rules.Implies,
    rules.IncludeItem,
    rules.ExcludeItem,
    rules.PredictPositiveWhen,
    rules.PredictNegativeWhen,
    rules.FNRLimit,
    rules.FPRLimit,
    rules.GroupRateGap,
    rules.WorstGroupRate,
)

#: What each setting may be (see :mod:`riskexplore.core.params`).
SETTING_CONSTRAINTS = {
    "max_items": [Interval(int, 1, None)],
    "binarize": [Options(BINARIZE_METHODS), None],
}


def from_incumbent(
    incumbent: Mapping[str, Any], certificate: Certificate, stats: dict, template=None
) -> Checklist:
    """A checklist of a solver incumbent ``{"items": [...], "M": m}`` (``template``: an
    earlier checklist of the same problem, for the outcome's wording).

    Parameters
    ----------
    incumbent : mapping
        The incumbent of a solve event.
    certificate : Certificate
        The certificate to attach (bounds at that moment).
    stats : dict
        Statistics to attach.
    template : Checklist, optional
        An earlier checklist of the same problem.

    Returns
    -------
    Checklist
        The checklist.
    """
    items = [str(i) for i in incumbent.get("items") or []]
    outcome = getattr(template, "outcome", None)
    return Checklist(
        items, int(incumbent.get("M", 1)), outcome=outcome, certificate=certificate, stats=stats
    )


def describe_incumbent(incumbent: Mapping[str, Any]) -> str:
    """``"M = 2 of 3: cough, fever, age >= 60"``.

    Parameters
    ----------
    incumbent : mapping
        The incumbent of a solve event.

    Returns
    -------
    str
        The description.
    """
    items = [str(i) for i in incumbent.get("items") or []]
    return f"M = {incumbent.get('M')} of {len(items)}: " + (", ".join(items) or "no items")


def card_table(model: Checklist) -> tuple[list[str], list[list[str]]]:
    """``(["", "item"], [boxes, items])`` with the rule on the last row.

    Parameters
    ----------
    model : Checklist
        The checklist.

    Returns
    -------
    tuple
        The header and the columns.
    """
    items = [str(i) for i in model.items]
    rule = f"positive if at least {model.M} of {len(items)} checked"
    return ["", "item"], [["☐"] * len(items) + [""], items + [rule]]


def compare_table(a_model: Checklist, b_model: Checklist, names: tuple[str, str]) -> pd.DataFrame:
    """Which items each of two checklists uses.

    Parameters
    ----------
    a_model, b_model : Checklist
        The checklists.
    names : (str, str)
        Their labels (the membership columns).

    Returns
    -------
    DataFrame
        ``item``, one boolean column per checklist and ``changed``.
    """
    a, b = names
    ia, ib = list(a_model.items), list(b_model.items)
    items = ia + [i for i in ib if i not in ia]
    frame = pd.DataFrame({"item": items, a: [i in ia for i in items], b: [i in ib for i in items]})
    frame["changed"] = frame[a] != frame[b]
    return frame


def check_settings(settings: Mapping[str, Any]) -> None:
    """Raise :class:`InputError` unless the settings can be fitted.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings (``max_items``, ``binarize``).
    """
    validate(SETTING_CONSTRAINTS, {k: settings[k] for k in SETTING_CONSTRAINTS})


def fit_arguments(
    settings: Mapping[str, Any],
    *,
    categorical: Sequence[str] = (),
    groups=None,
    binarizer: Binarizer | None = None,
    linear: Sequence[str] = (),
) -> dict[str, Any]:
    """The arguments of :func:`fit_checklist` for the Explorer's settings (coded columns
    one-hot encoded when binarizing; groups for group constraints).

    Parameters
    ----------
    settings : mapping
        The Explorer's settings.
    categorical : sequence of str
        Integer-coded categorical columns of the dataset (without ``binarizer``).
    groups : DataFrame, optional
        The protected attributes chosen.
    binarizer : Binarizer, optional
        The fitted binarizer of the Explorer's data (see :func:`binarizer_for`): every
        solve then uses its items.
    linear : sequence of str
        Not used: a checklist's items are yes/no.

    Returns
    -------
    dict
        Keyword arguments of :func:`~riskexplore.checklist.fit.fit_checklist`.
    """
    out: dict[str, Any] = {"max_items": int(settings["max_items"])}
    if binarizer is not None and settings["binarize"] is not None:
        out["binarize"] = binarizer
    else:
        out["binarize"] = settings["binarize"]
        if settings["binarize"] is not None and categorical:
            out["categorical"] = list(categorical)
    if groups is not None:
        out["groups"] = groups
    return out


def binarizer_for(
    settings: Mapping[str, Any],
    *,
    thresholds: Mapping[str, Sequence[float]] | None = None,
    categorical: Sequence[str] = (),
) -> Binarizer | None:
    """The (unfitted) binarizer of the settings' method with the user's cut points.

    Parameters
    ----------
    settings : mapping
        The Explorer's settings (``binarize``: ``"adaptive"``, ``"fixed"`` or None).
    thresholds : mapping column -> cut points, optional
        Cut points replacing a column's own.
    categorical : sequence of str
        Columns to treat as categories (one item per value).

    Returns
    -------
    Binarizer or None
        None without binarization (the columns are 0/1 items already).
    """
    if settings["binarize"] is None:
        return None
    return Binarizer(
        method=settings["binarize"],
        thresholds={c: list(v) for c, v in thresholds.items()} if thresholds else None,
        categorical=[str(c) for c in categorical] or "auto",
    )


def excluded_items(constraint) -> tuple[str, ...] | None:
    """The items a rule naming a variable keeps off the checklist:
    ``AtMostKItems(items, 0)`` keeps off all of them; None for any other rule.

    Parameters
    ----------
    constraint : object
        A rule.

    Returns
    -------
    tuple of str or None
        The items.
    """
    if isinstance(constraint, AtMostKItems) and constraint.k == 0:
        return tuple(constraint.items)
    return None


def exclude_items(items: Sequence[str]) -> AtMostKItems:
    """One rule keeping every item of ``items`` off the checklist (a rule naming a
    variable: "do not use age" keeps off every item of age).

    Parameters
    ----------
    items : sequence of str
        The items (of a column, say).

    Returns
    -------
    AtMostKItems
        ``AtMostKItems(items, 0)``.
    """
    return AtMostKItems(tuple(str(i) for i in items), 0)


def check_data(X, y, settings: Mapping[str, Any]) -> None:
    """Without binarization every feature must be 0/1.

    Parameters
    ----------
    X : DataFrame
        Features.
    y : Series
        Outcome.
    settings : mapping
        The Explorer's settings.

    Raises
    ------
    InputError
        Naming up to five columns that are not 0/1.
    """
    if settings["binarize"] is None:
        bad = [c for c in X.columns if not set(pd.unique(X[c].dropna())) <= {0, 1}]
        if bad:
            raise InputError(
                f"without binarization every feature must be 0/1; not: {', '.join(bad[:5])}"
            )


def _group(model: Checklist, item: str) -> str:
    return (model.item_groups or {}).get(item, item)


def features_of(model: Checklist) -> tuple[str, ...]:
    """The feature groups of a checklist's items (``age`` for ``age ≥ 60``), in order.

    Parameters
    ----------
    model : Checklist
        The checklist.

    Returns
    -------
    tuple of str
        The groups (an item without a group is its own).
    """
    return tuple(dict.fromkeys(_group(model, i) for i in model.items))


def all_features(model: Checklist) -> tuple[str, ...]:
    """Every feature group of the items the checklist was chosen from.

    Parameters
    ----------
    model : Checklist
        The checklist.

    Returns
    -------
    tuple of str
        The groups, in the order of the items.
    """
    return tuple(dict.fromkeys(_group(model, i) for i in model.item_names))


def feature_constraints(model: Checklist, feature: str, force_in: bool) -> list:
    """Leave out every item of the feature group, or require one of them.

    Parameters
    ----------
    model : Checklist
        A checklist of the problem (for its items and groups).
    feature : str
        The feature group.
    force_in : bool
        Require an item of the group, or exclude them all.

    Returns
    -------
    list
        :class:`ExcludeItem` constraints, an :class:`IncludeItem` (a group of one item)
        or a row requiring one of the group's items.
    """
    items = [i for i in model.item_names if _group(model, i) == feature]
    if not items:
        raise InputError(f"no item of the checklist's data belongs to {feature!r}")
    if not force_in:
        return [ExcludeItem(i) for i in items]
    if len(items) == 1:
        return [IncludeItem(items[0])]
    return [ChecklistRow(f"Use an item of {feature}", {i: 1.0 for i in items}, lower=1.0)]


def describe_model(model: Checklist) -> dict[str, Any]:
    """``items``, ``M``, ``N`` and ``train_errors``.

    Parameters
    ----------
    model : Checklist
        The checklist.

    Returns
    -------
    dict
        The fields.
    """
    return {
        "items": list(model.items),
        "M": int(model.M),
        "N": int(model.N),
        "train_errors": model.stats.get("train_errors"),
    }


def group_rate_rule(
    rate: str, limit: float, *, by: tuple[str, ...], cap: bool = False
) -> GroupRateGap | WorstGroupRate:
    """The rule that limits an audit's finding of missed cases or false alarms.

    Parameters
    ----------
    rate : {"fnr", "fpr"}
        The rate.
    limit : float
        The largest gap between any two groups, or with ``cap`` every group's rate.
    by : tuple of str
        The group columns (the fit's ``groups=``).
    cap : bool
        Cap every group's rate instead of the gaps.

    Returns
    -------
    GroupRateGap or WorstGroupRate
        The rule.
    """
    if cap:
        return WorstGroupRate(rate, limit, by=by)
    return GroupRateGap(rate, limit, by=by)


def plain_rule(constraint, groups: Callable[[tuple[str, ...] | None], str]) -> str | None:
    """A group-rate limit in plain words ("false alarms may differ by at most 12 points
    between the groups by age ranges"); None for other rules.

    Parameters
    ----------
    constraint : object
        A rule.
    groups : callable
        The plain words of the rule's group columns.

    Returns
    -------
    str or None
        The sentence (without a final full stop).
    """
    if not isinstance(constraint, GroupRateGap | WorstGroupRate):
        return None
    words = "missed cases" if constraint.rate == "fnr" else "false alarms"
    who = groups(constraint.by)
    if isinstance(constraint, GroupRateGap):
        points = f"{100 * constraint.max_gap:.1f}".removesuffix(".0")
        return f"{words} may differ by at most {points} points between {who}"
    return f"none of {who} may have more than {100 * constraint.cap:.0f}% {words}"


ALTERNATIVES = AlternativesSpec(
    near_optimal=near_optimal_models,
    tolerance=2.0,
    tolerance_unit="mistakes",
    features_of=features_of,
    all_features=all_features,
    feature_constraints=feature_constraints,
    shared=dict,
    edit_kind="items",
    edit=edits.edit,
    describe_model=describe_model,
    training_problem=lambda X, y, settings, constraints: (
        prepare_checklist(X, y, constraints=constraints, **settings).problem
    ),
)


def checklist_risk(model: Checklist, X) -> Any:
    """The risk of each row: the outcome rate of its number of items checked (None for a
    checklist saved before it kept one).

    Parameters
    ----------
    model : Checklist
        The checklist.
    X : DataFrame or array
        The rows.

    Returns
    -------
    ndarray or None
        The risks.
    """
    if model.count_risk is None:
        return None
    return risk_of_counts(model.count_risk, model.count_checked(X))


VALIDATION = ValidationSpec(
    card_score=lambda model, X: model.count_checked(X),
    score_noun="items checked",
    risk_of=checklist_risk,
    no_risk=(
        "this checklist was saved before riskexplore kept its outcome rate per number of "
        "items checked; recalibrate it on rows with outcomes (riskexplore.recalibrate) or "
        "fit it again to give it one"
    ),
    recalibrate=recalibrate_checklist,
)


FAMILY = ModelFamily(
    name="checklist",
    label="Checklist",
    model_type=Checklist,
    constraint_types=CONSTRAINT_TYPES,
    fit=fit_checklist,
    size_parameter="max_items",
    size_noun="items",
    incumbent_key="items",
    from_incumbent=from_incumbent,
    describe_incumbent=describe_incumbent,
    card_table=card_table,
    compare_table=compare_table,
    settings=SETTINGS,
    check_settings=check_settings,
    fit_arguments=fit_arguments,
    check_data=check_data,
    # (not the group columns: they change no problem but through group constraints, and
    # the run without rules has none, so adding a group-rate rule keeps the price certified)
    comparable=("max_items", "binarize"),
    path_session=ChecklistPathSession,
    path_metric="objective",
    describe_path_row=describe_path_row,
    path_plot=PathPlot(
        traces=(
            ("objective (mistakes)", "objective", 1, ("lower_bound", "upper_bound")),
            ("train error", "train_error", 2, None),
            ("test error", "test_error", 2, None),
            ("train FNR", "train_fnr", 3, None),
            ("test FNR", "test_fnr", 3, None),
        ),
        titles=("Training mistakes with certified interval", "Error", "False negative rate"),
        objective_label="mistakes",
        middle_percent=True,
    ),
    alternatives=ALTERNATIVES,
    noun="checklist",
    audit=AuditSpec(
        metrics=("fnr", "fpr", "ppv", "auc"),
        rate_rule=group_rate_rule,
        plain_rule=plain_rule,
        rule_groups=True,
    ),
    warm_up=warm_up,
    plugins=PlugIns(
        explorer_builder="riskexplore.widgets.builders.checklist:EXPLORER_BUILDER",
        explorer_settings="riskexplore.widgets.explorer.checklist_settings:ChecklistSettings",
        command=BUILTIN_COMMANDS["checklist"],
    ),
    raw_table=RawTableSpec(
        binarizer=binarizer_for,
        linear=False,
        exclude=exclude_items,
        excluded=excluded_items,
    ),
    validation=VALIDATION,
)
