"""Certified sets of near-optimal models, with each model's metrics.

:func:`near_optimal_risk_scores` and :func:`near_optimal_checklists` (also exported by
``riskexplore``) take the data and the settings of ``fit_risk_score`` / ``fit_checklist``
and return every distinct model whose objective is within the tolerance of the optimum,
best first, as a :class:`NearOptimalSet`:

* for risk scores, a model is the points together with the intercept, and the set holds
  every one with objective ``<= (1 + tolerance) * optimum`` (objective = loss plus
  ``c0`` times the size);
* for checklists, a model is the items together with ``M``, and the set holds every one
  with weighted mistakes ``<= optimal mistakes + tolerance`` (every ``N`` from the least
  to the most allowed, every ``M`` from 1 to ``N``).

The set comes with a certificate: ``complete`` is True when the search proved that no
model within the tolerance is missing; otherwise ``reason`` says what cut it short
(``"max_models"``, ``"time_limit"``, ``"stopped"``, ...). Each model is a fitted model
value (:class:`~riskexplore.RiskScore`, :class:`~riskexplore.Checklist`) whose
``distance`` to the best model is certified and which can be edited by hand
(``with_points``, ``with_items``), with its training (and held-out) metrics.
:meth:`NearOptimalSet.by_features` and :meth:`NearOptimalSet.feature_counts` show how
diverse the set is. The searches themselves are the families'
(:mod:`riskexplore.risk_score.near_optimal`, :mod:`riskexplore.checklist.near_optimal`),
reached through the registry.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from riskexplore.core.diversity import feature_counts, group_by_features
from riskexplore.core.limits import StopRequest
from riskexplore.core.registry import DEFAULT_FAMILY, AlternativesSpec, ModelFamily, get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.metrics import model_metrics

__all__ = [
    "Alternative",
    "NearOptimalSet",
    "alternatives_of",
    "model_row",
    "near_optimal_checklists",
    "near_optimal_models",
    "near_optimal_risk_scores",
    "near_optimal_survival_scores",
    "set_metrics",
]

#: Metrics kept per model and split (those the model's family has; ``c_index``: Harrell's
#: C of a survival score).
METRICS = ("auc", "cal", "loss", "error", "fnr", "fpr", "c_index")

#: Why a set is incomplete, in words.
REASONS = {
    "max_models": "more models lie within the tolerance than the most asked for",
    "time_limit": "the time limit was reached",
    "stopped": "the search was stopped",
    "node_limit": "the node limit was reached",
    "optimum_not_certified": "the optimum itself was not certified in time",
    "numerical": "an LP could not be solved exactly in some region",
}


def alternatives_of(family: str | ModelFamily) -> AlternativesSpec:
    """The near-optimal search, hand edits and feature prices of a family.

    Parameters
    ----------
    family : str or ModelFamily
        The family.

    Returns
    -------
    AlternativesSpec
        Its hooks.

    Raises
    ------
    InputError
        If the family offers none.
    """
    spec = get_family(family)
    if spec.alternatives is None:
        raise InputError(f"{spec.label} models offer no near-optimal sets or hand edits")
    return spec.alternatives


def set_metrics(model, X, y, X_test=None, y_test=None) -> dict[str, float]:
    """``train_*`` (and ``test_*``) metrics of a model: AUC, CAL, loss, error, FNR, FPR
    (those its family has).

    Parameters
    ----------
    model : fitted model
        The model.
    X, y
        Training data.
    X_test, y_test : optional
        Held-out data.

    Returns
    -------
    dict
        The metrics.
    """
    if (X_test is None) != (y_test is None):
        raise InputError("give both X_test and y_test, or neither")
    out: dict[str, float] = {}
    splits = [("train", X, y)] + ([] if X_test is None else [("test", X_test, y_test)])
    for split, Xs, ys in splits:
        values = model_metrics(model, Xs, ys)
        for key in METRICS:
            value = values.get(key)
            if isinstance(value, (int, float)):
                out[f"{split}_{key}"] = float(value)
    return out


@dataclass
class Alternative:
    """One model of a near-optimal set.

    Attributes
    ----------
    rank : int
        1 for the best model.
    model : fitted model
        The model (``model.distance``: its certified distance to the best one).
    features : tuple of str
        The features it uses (feature groups for checklists).
    metrics : dict
        ``train_*`` (and ``test_*``) metrics.
    """

    rank: int
    model: Any
    features: tuple[str, ...]
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def objective(self) -> float:
        """The model's objective in the set's unit, the unit of :attr:`NearOptimalSet.optimum`
        and of the distance: loss plus size penalty for a risk score, weighted mistakes for
        a checklist (without the search's tie-breaking terms)."""
        distance = self.model.distance
        if distance is not None:
            return float(distance.objective)
        return float(self.model.objective)

    @property
    def distance(self):
        """The model's certified :class:`~riskexplore.core.distance.Distance` to the best
        model of the same settings."""
        return self.model.distance


@dataclass
class NearOptimalSet:
    """Every model within the tolerance of the optimum, best first, with a certificate of
    completeness.

    Attributes
    ----------
    family : str
        The model family.
    alternatives : list of Alternative
        The models, best first.
    optimum : float
        The best objective (risk scores) or weighted mistakes (checklists) found; the
        optimum when :attr:`certified`.
    lower_bound : float
        The proven lower bound on the best objective (checklists: on the best weighted
        mistakes).
    tolerance : float
        Relative (risk scores) or in weighted mistakes (checklists).
    tolerance_unit : {"relative", "mistakes"}
        How :attr:`tolerance` is measured.
    complete : bool
        True when no model within the tolerance is missing (proven).
    reason : str or None
        What cut the set short (see :data:`REASONS`).
    time : float
        Seconds.
    nodes : int
        Search nodes.
    certified : bool
        Whether the optimum is certified.
    """

    family: str
    alternatives: list[Alternative]
    optimum: float
    lower_bound: float
    tolerance: float
    tolerance_unit: str
    complete: bool
    reason: str | None = None
    time: float = 0.0
    nodes: int = 0
    certified: bool = True

    def __len__(self) -> int:
        return len(self.alternatives)

    def __iter__(self) -> Iterator[Alternative]:
        return iter(self.alternatives)

    def __getitem__(self, index: int) -> Alternative:
        return self.alternatives[index]

    @property
    def models(self) -> list:
        """The models, best first."""
        return [a.model for a in self.alternatives]

    @property
    def best(self):
        """The best model."""
        return self.alternatives[0].model

    def feature_counts(self) -> dict[str, int]:
        """How many models use each feature, most used first.

        Returns
        -------
        dict
            Feature -> number of models.
        """
        return feature_counts(a.features for a in self.alternatives)

    def by_features(self) -> dict[tuple[str, ...], list[Alternative]]:
        """The models grouped by the set of features they use, largest groups first
        (ties: the group with the better best model first).

        Returns
        -------
        dict
            Sorted feature names -> the models that use exactly them, best first.
        """
        return group_by_features(self.alternatives, lambda a: a.features)

    def describe(self) -> str:
        """One line: how many models, within what, and whether the set is complete.

        Returns
        -------
        str
            ``"44 risk scores within 1% of the best (objective 0.4686); complete: no
            other model is within the tolerance"``.
        """
        noun = get_family(self.family).label.lower()
        plural = noun + ("s" if len(self) != 1 else "")
        if self.tolerance_unit == "relative":
            within = f"within {100 * self.tolerance:g}% of the best"
            best = f"objective {self.optimum:.4g}"
        else:
            suffix = "" if self.tolerance == 1 else "s"
            within = f"within {self.tolerance:g} weighted mistake{suffix} of the best"
            best = f"{self.optimum:g} weighted mistakes"
        head = f"{len(self)} {plural} {within} ({best})"
        if self.complete:
            return f"{head}; complete: no other model is within the tolerance (proven)"
        why = REASONS.get(self.reason or "", self.reason or "unknown")
        return f"{head}; not complete: {why}"

    def to_frame(self) -> pd.DataFrame:
        """One row per model: rank, objective, certified distance (absolute, relative),
        size, features, the family's own fields and the metrics.

        Returns
        -------
        DataFrame
            Indexed by rank.
        """
        spec = alternatives_of(self.family)
        rows = [model_row(a, spec) for a in self.alternatives]
        frame = pd.DataFrame(rows)
        if not frame.empty:
            frame = frame.set_index("rank")
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The set as a strict-JSON dict (non-finite numbers as None): ``complete``,
        ``reason``, ``optimum``, ``lower_bound``, ``tolerance``, ``family``, ``time``
        and ``models`` (each with ``objective``, its distance, size, features, the
        family's fields and the metrics).

        Returns
        -------
        dict
            The set.
        """
        spec = alternatives_of(self.family)
        return {
            "complete": bool(self.complete),
            "reason": self.reason,
            "family": self.family,
            "optimum": _finite(self.optimum),
            "lower_bound": _finite(self.lower_bound),
            "tolerance": _finite(self.tolerance),
            "tolerance_unit": self.tolerance_unit,
            "certified": bool(self.certified),
            "time": _finite(self.time),
            "nodes": int(self.nodes),
            "models": [
                {k: _finite(v) if isinstance(v, float) else v for k, v in row.items()}
                for row in (model_row(a, spec) for a in self.alternatives)
            ],
        }


def model_row(alternative: Alternative, spec: AlternativesSpec) -> dict[str, Any]:
    """A model of a set as a flat record (see :meth:`NearOptimalSet.to_frame`).

    Parameters
    ----------
    alternative : Alternative
        The model.
    spec : AlternativesSpec
        Its family's hooks.

    Returns
    -------
    dict
        ``rank``, ``objective``, ``distance``, ``relative_distance``, ``size``,
        ``features``, the family's fields and the metrics.
    """
    model = alternative.model
    distance = model.distance
    row: dict[str, Any] = {
        "rank": alternative.rank,
        "objective": alternative.objective,
        "distance": float(distance.absolute),
        "relative_distance": float(distance.relative),
        "size": int(model.size),
        "features": list(alternative.features),
    }
    row.update(spec.describe_model(model))
    row.update(alternative.metrics)
    return row


def near_optimal_models(
    X,
    y,
    *,
    family: str = DEFAULT_FAMILY,
    tolerance: float | None = None,
    max_models: int = 100,
    time_limit: float = math.inf,
    stop: StopRequest = None,
    constraints: Iterable = (),
    X_test=None,
    y_test=None,
    **settings: Any,
) -> NearOptimalSet:
    """Every model of ``family`` within ``tolerance`` of the optimum, with a certificate
    of completeness and each model's metrics.

    Parameters
    ----------
    X, y
        Training data.
    family : str
        The model family (``"risk_score"``, ``"checklist"``).
    tolerance : float, optional
        Relative for risk scores (0.01: within 1%), in weighted mistakes for checklists
        (default: the family's, 1% or 2 mistakes).
    max_models : int
        Most models returned (the best ones; the set is then marked incomplete).
    time_limit : float
        Seconds for the whole search.
    stop : threading.Event or callable, optional
        Ends the search early (the set is then marked incomplete).
    constraints : iterable
        Constraints every model obeys.
    X_test, y_test : optional
        Held-out data for ``test_*`` metrics.
    **settings
        The family's fit settings (``max_size``, ``coef_min``, ... or ``max_items``,
        ``binarize``, ...).

    Returns
    -------
    NearOptimalSet
        The models, best first.

    Raises
    ------
    InputError
        For unusable data, settings or tolerance.
    InfeasibleError
        If no model obeys the settings and constraints.
    """
    spec = alternatives_of(family)
    name = get_family(family).name
    refused = spec.unsupported(settings)
    if refused is not None:  # e.g. a risk score's learned scale
        raise InputError(refused)
    if (X_test is None) != (y_test is None):
        raise InputError("give both X_test and y_test, or neither")
    tol = spec.tolerance if tolerance is None else tolerance
    found = spec.near_optimal(
        X,
        y,
        tolerance=tol,
        max_models=max_models,
        time_limit=time_limit,
        stop=stop,
        constraints=constraints,
        **settings,
    )
    alternatives = [
        Alternative(
            rank,
            record.model,
            tuple(spec.features_of(record.model)),
            set_metrics(record.model, X, y, X_test, y_test),
        )
        for rank, record in enumerate(found.models, start=1)
    ]
    # the bound in the family's unit (a checklist's in weighted mistakes, as its optimum)
    lower_bound = alternatives[0].distance.lower_bound if alternatives else found.lower_bound
    return NearOptimalSet(
        family=name,
        alternatives=alternatives,
        optimum=float(found.optimum),
        lower_bound=float(lower_bound),
        tolerance=float(found.tolerance),
        tolerance_unit=spec.tolerance_unit,
        complete=bool(found.complete),
        reason=found.reason,
        time=float(found.time),
        nodes=int(found.nodes),
        certified=found.status == "optimal",
    )


def near_optimal_risk_scores(
    X,
    y,
    *,
    tolerance: float = 0.01,
    max_models: int = 100,
    time_limit: float = math.inf,
    stop: StopRequest = None,
    constraints: Iterable = (),
    X_test=None,
    y_test=None,
    **settings: Any,
) -> NearOptimalSet:
    """Every risk score with objective at most ``(1 + tolerance)`` times the optimum.

    A model is the points together with the intercept; the objective is the loss plus
    ``c0`` times the size, as for :func:`~riskexplore.fit_risk_score`, whose settings
    this takes. The set is *complete* (``result.complete``) when the search proved that no
    other model lies within the tolerance; ``max_models`` or the time limit can cut it
    short, and ``result.reason`` then says which.

    Parameters
    ----------
    X, y
        Training data, as for ``fit_risk_score``.
    tolerance : float
        Relative distance to the optimum (0.01: within 1%).
    max_models : int
        Most models returned (the best ones).
    time_limit : float
        Seconds for the whole search.
    stop : threading.Event or callable, optional
        Ends the search early.
    constraints : iterable
        Constraints every model obeys.
    X_test, y_test : optional
        Held-out data for ``test_*`` metrics.
    **settings
        Settings of ``fit_risk_score`` (``max_size``, ``coef_min``, ``coef_max``,
        ``intercept_min``, ``intercept_max``, ``c0``, ``cut_pool``, ...).

    Returns
    -------
    NearOptimalSet
        The risk scores, best first, each a :class:`~riskexplore.RiskScore` with its
        certified ``distance`` to the best one and its metrics.

    Raises
    ------
    InputError
        For unusable data, settings or tolerance.
    InfeasibleError
        If no risk score obeys the settings and constraints.

    Examples
    --------
    >>> from riskexplore import load_dataset, near_optimal_risk_scores
    >>> data = load_dataset("mammo")
    >>> found = near_optimal_risk_scores(data.X, data.y, max_size=5)  # doctest: +SKIP
    >>> found.complete, len(found)  # doctest: +SKIP
    (True, 44)
    """
    return near_optimal_models(
        X,
        y,
        family="risk_score",
        tolerance=tolerance,
        max_models=max_models,
        time_limit=time_limit,
        stop=stop,
        constraints=constraints,
        X_test=X_test,
        y_test=y_test,
        **settings,
    )


def near_optimal_checklists(
    X,
    y,
    *,
    tolerance: float = 2.0,
    max_models: int = 100,
    time_limit: float = math.inf,
    stop: StopRequest = None,
    constraints: Iterable = (),
    X_test=None,
    y_test=None,
    **settings: Any,
) -> NearOptimalSet:
    """Every checklist whose weighted mistakes are within ``tolerance`` of the optimum.

    A model is the items together with ``M``; every number of items from the least to
    the most allowed and every ``M`` from 1 to ``N`` counts. Takes the settings of
    :func:`~riskexplore.fit_checklist` (binarization included). The set is *complete*
    when the exact search proved that no other checklist lies within the tolerance.

    Parameters
    ----------
    X, y
        Training data, as for ``fit_checklist``.
    tolerance : float
        Weighted mistakes allowed above the optimal ones (0: every tie of the optimum).
    max_models : int
        Most checklists returned (the best ones).
    time_limit : float
        Seconds for the whole search.
    stop : threading.Event or callable, optional
        Ends the search early.
    constraints : iterable
        Constraints every checklist obeys.
    X_test, y_test : optional
        Held-out data for ``test_*`` metrics.
    **settings
        Settings of ``fit_checklist`` (``binarize``, ``max_items``, ``min_m``,
        ``max_m``, ``fnr_max``, ``fpr_max``, ``fp_weight``, ``categorical``, ...).

    Returns
    -------
    NearOptimalSet
        The checklists, best first, each a :class:`~riskexplore.Checklist` with its
        certified ``distance`` (in weighted mistakes) to the best one and its metrics.

    Raises
    ------
    InputError
        For unusable data, settings or tolerance.
    InfeasibleError
        If no checklist obeys the settings and constraints.
    """
    return near_optimal_models(
        X,
        y,
        family="checklist",
        tolerance=tolerance,
        max_models=max_models,
        time_limit=time_limit,
        stop=stop,
        constraints=constraints,
        X_test=X_test,
        y_test=y_test,
        **settings,
    )


def near_optimal_survival_scores(
    X,
    y,
    *,
    tolerance: float = 0.01,
    max_models: int = 100,
    time_limit: float = math.inf,
    stop: StopRequest = None,
    constraints: Iterable = (),
    X_test=None,
    y_test=None,
    **settings: Any,
) -> NearOptimalSet:
    """Every survival score with objective at most ``(1 + tolerance)`` times the optimum.

    A model is its points (no intercept); the objective is the mean Cox loss plus ``c0``
    per item, as for :func:`~riskexplore.fit_survival_score`, whose settings this takes.
    The set is *complete* (``result.complete``) when the search proved that no other
    model lies within the tolerance. Each model has its own Breslow baseline, its
    certified ``distance`` to the best one and Harrell's C (``train_c_index``,
    ``test_c_index``).

    Parameters
    ----------
    X : DataFrame or array
        Training rows (a raw table is binarized).
    y : structured array
        ``[("event", bool), ("time", float)]`` (e.g. ``sksurv.util.Surv.from_arrays``).
    tolerance, max_models, time_limit, stop, constraints
        As for :func:`near_optimal_risk_scores`.
    X_test, y_test : optional
        Held-out rows and their survival outcome, for ``test_c_index``.
    **settings
        Settings of ``fit_survival_score`` (``max_size``, ``coef_min``, ``coef_max``,
        ``c0``, ``horizon``, ``binarize``, ``cut_pool``, ...).

    Returns
    -------
    NearOptimalSet
        The survival scores, best first.

    Raises
    ------
    InputError
        For unusable data, settings or tolerance.
    InfeasibleError
        If no survival score obeys the settings and constraints.
    """
    return near_optimal_models(
        X,
        y,
        family="survival_score",
        tolerance=tolerance,
        max_models=max_models,
        time_limit=time_limit,
        stop=stop,
        constraints=constraints,
        X_test=X_test,
        y_test=y_test,
        **settings,
    )


def _finite(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None
