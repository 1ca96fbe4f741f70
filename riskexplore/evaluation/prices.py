"""The certified price of each feature: what leaving it out of the best model, or forcing
it in, costs.

For every feature of the best model, :func:`feature_prices` solves the problem again with
the feature left out; for every feature outside it, with the feature forced in (risk
scores: :class:`~riskexplore.Exclude` / :class:`~riskexplore.Include`; checklists: the
items of the feature group excluded, or one of them required). The re-solves are
warm-started and share work (a risk score's
:class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool`: loss cuts are valid for every
constraint). As in :func:`~riskexplore.evaluation.compare.compare_models`, the best
objective ``V*`` and the best objective under the change ``V_f`` are certified by
``LB* <= V* <= UB*`` and ``LB_f <= V_f <= UB_f``, and every model of the changed problem
is a model of the original one, so the price ``V_f - V*`` lies in
``[max(0, LB_f - UB*), max(0, UB_f - LB*)]``: valid however early a solve stopped.

Prices are in the family's units: objective (loss plus size penalty) for risk scores,
weighted mistakes for checklists (the tie-breaking terms taken off their bounds).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from riskexplore.core.limits import Clock, StopRequest, checked_limits
from riskexplore.core.registry import DEFAULT_FAMILY, get_family
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.evaluation.near_optimal import alternatives_of

__all__ = ["FeaturePrice", "FeaturePrices", "feature_prices"]

#: Least seconds a re-solve gets, however tight the budget.
MIN_SECONDS = 1.0

#: Statuses of a solve that ended without a model and without proving there is none.
_UNPROVEN = ("time_limit", "node_limit", "stopped")


@dataclass
class FeaturePrice:
    """The certified price of one change to the best model.

    Attributes
    ----------
    feature : str
        The feature (a checklist's feature group).
    in_best : bool
        Whether the best model uses it (then the change leaves it out, else forces it in).
    low, high : float
        The certified interval of the price (``inf`` when the change admits no model).
    model : fitted model or None
        The best model found with the change (None when there is none).
    status : str
        The re-solve's status (``"optimal"``, ``"time_limit"``, ``"infeasible"``, ...).
    """

    feature: str
    in_best: bool
    low: float
    high: float
    model: Any = None
    status: str = "optimal"

    @property
    def action(self) -> str:
        """``"leave out"`` or ``"force in"``."""
        return "leave out" if self.in_best else "force in"

    @property
    def price(self) -> tuple[float, float]:
        """``(low, high)``."""
        return (self.low, self.high)

    @property
    def certified(self) -> bool:
        """Whether the re-solve proved its answer (the interval is then as tight as the
        two certificates allow)."""
        return self.status in ("optimal", "infeasible")


@dataclass
class FeaturePrices:
    """The price of leaving out each feature of the best model and of forcing in each
    other one.

    Attributes
    ----------
    family : str
        The model family.
    best : fitted model
        The best model of the settings (the reference).
    prices : list of FeaturePrice
        The best model's features first (dearest to leave out first), then the others
        (cheapest to force in first).
    unit : str
        ``"objective"`` or ``"mistakes"``.
    time : float
        Seconds.
    complete : bool
        Whether every feature was priced (False when stopped or out of time).
    """

    family: str
    best: Any
    prices: list[FeaturePrice] = field(default_factory=list)
    unit: str = "objective"
    time: float = 0.0
    complete: bool = True

    def __len__(self) -> int:
        return len(self.prices)

    def __getitem__(self, feature: str) -> FeaturePrice:
        for p in self.prices:
            if p.feature == feature:
                return p
        raise KeyError(feature)

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: ``feature``, ``in_best``, ``action``, ``price_low``,
        ``price_high``, ``status`` and the size of the model found.

        Returns
        -------
        DataFrame
            The table.
        """
        rows = [
            {
                "feature": p.feature,
                "in_best": p.in_best,
                "action": p.action,
                "price_low": p.low,
                "price_high": p.high,
                "status": p.status,
                "size": None if p.model is None else int(p.model.size),
            }
            for p in self.prices
        ]
        columns = ["feature", "in_best", "action", "price_low", "price_high", "status", "size"]
        return pd.DataFrame(rows, columns=columns)

    def summary(self) -> str:
        """The table as text, one line per feature.

        Returns
        -------
        str
            ``"leave out Age_geq_60   [0.0159, 0.0159]  optimal"`` lines.
        """
        width = max((len(p.feature) for p in self.prices), default=7)
        lines = [f"price of each feature ({self.unit}; certified intervals)"]
        for p in self.prices:
            lines.append(
                f"{p.action:<9} {p.feature:<{width}}  [{_fmt(p.low)}, {_fmt(p.high)}]  {p.status}"
            )
        if not self.complete:
            lines.append("(stopped before every feature was priced)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _fmt(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.4g}"


def _tighter(first: FeaturePrice, second: FeaturePrice) -> FeaturePrice:
    """Both intervals are valid: their intersection, with the better model and the later
    status."""
    models = [m for m in (first.model, second.model) if m is not None]
    model = min(models, key=lambda m: m.objective) if models else None
    return FeaturePrice(
        first.feature,
        first.in_best,
        max(first.low, second.low),
        min(first.high, second.high),
        model,
        second.status,
    )


def _interval(best_distance, changed_distance) -> tuple[float, float]:
    """``[max(0, LB_f - UB*), max(0, UB_f - LB*)]`` from two distances (same unit)."""
    ub_star, lb_star = float(best_distance.objective), float(best_distance.lower_bound)
    ub_f, lb_f = float(changed_distance.objective), float(changed_distance.lower_bound)
    return (max(0.0, lb_f - ub_star), max(0.0, ub_f - lb_star))


def feature_prices(
    X,
    y,
    *,
    family: str = DEFAULT_FAMILY,
    best=None,
    features: Iterable[str] | None = None,
    time_limit: float = 60.0,
    stop: StopRequest = None,
    constraints: Iterable = (),
    callback: Callable[[FeaturePrice], None] | None = None,
    **settings: Any,
) -> FeaturePrices:
    """The certified price of leaving out each feature of the best model, and of forcing
    in each other feature.

    Parameters
    ----------
    X, y
        Training data.
    family : str
        The model family (``"risk_score"``, ``"checklist"``).
    best : fitted model, optional
        The best model of these settings, if already fitted (else it is fitted first).
    features : iterable of str, optional
        The features to price (default: every feature; a checklist's feature groups).
    time_limit : float
        Seconds for everything: each re-solve first gets an equal share of what is left
        (at least :data:`MIN_SECONDS`), then those not certified share the time left over
        (warm-started; the two intervals are intersected). A re-solve that runs out of
        time still gives a valid, wider interval.
    stop : threading.Event or callable, optional
        Ends the work early (the features priced so far are kept).
    constraints : iterable
        Constraints of the original problem (kept in every re-solve).
    callback : callable, optional
        Called with each :class:`FeaturePrice` as it is found (again when a second try
        tightens it).
    **settings
        The family's fit settings (``max_size``, ... or ``max_items``, ``binarize``, ...).

    Returns
    -------
    FeaturePrices
        The prices.

    Raises
    ------
    InputError
        For an unknown feature or unusable settings (a risk score's learned scale among
        them).
    InfeasibleError
        If no model obeys the original settings.
    """
    spec = alternatives_of(family)
    fam = get_family(family)
    refused = spec.unsupported(settings, best)
    if refused is not None:
        raise InputError(refused)
    clock = Clock(checked_limits(time_limit, None, 0.0, stop))
    base = list(constraints or ())
    shared = spec.shared()  # (unless the caller shares its own, e.g. a cut pool)
    shared.update({k: settings.pop(k) for k in list(settings) if k in shared})

    def solve(extra: list, share: int):
        limit = max(MIN_SECONDS, clock.remaining() / max(share, 1))
        if not math.isfinite(limit):
            limit = math.inf
        return fam.fit(
            X, y, constraints=base + extra, time_limit=limit, stop=stop, **shared, **settings
        )

    if best is None:  # a share as for each feature (a raw column: a feature or a group)
        best = solve([], int(getattr(X, "shape", (0, 1))[1]) + 1)
    unit_distance = best.distance
    chosen = set(spec.features_of(best))
    candidates = list(spec.all_features(best))
    if features is not None:
        wanted = [str(f) for f in features]
        unknown = [f for f in wanted if f not in candidates]
        if unknown:
            raise InputError(f"unknown feature(s): {', '.join(unknown)}")
        candidates = [f for f in candidates if f in wanted]
    order = [f for f in candidates if f in chosen] + [f for f in candidates if f not in chosen]

    def price(feature: str, share: int) -> FeaturePrice:
        in_best = feature in chosen
        extra = list(spec.feature_constraints(best, feature, not in_best))
        try:
            model = solve(extra, share)
        except InfeasibleError as exc:  # proven, unless the solve ended without a model
            proven = not any(f"(status {s}" in str(exc) for s in _UNPROVEN)
            low, high = (math.inf, math.inf) if proven else (0.0, math.inf)
            status = "infeasible" if proven else "time_limit"
            return FeaturePrice(feature, in_best, low, high, None, status)
        low, high = _interval(unit_distance, model.distance)
        return FeaturePrice(feature, in_best, low, high, model, model.certificate.status)

    found: dict[str, FeaturePrice] = {}
    complete = True
    for i, feature in enumerate(order):  # first an equal share of the time left each
        if clock.limit_reached() is not None:
            complete = False
            break
        found[feature] = price(feature, len(order) - i)
        if callback is not None:
            callback(found[feature])
    # then the time left to the ones not yet certified (warm: the pool has their models)
    again = [f for f, p in found.items() if not p.certified]
    for i, feature in enumerate(again):
        if clock.limit_reached() is not None:
            break
        first, second = found[feature], price(feature, len(again) - i)
        found[feature] = _tighter(first, second)
        if callback is not None:
            callback(found[feature])
    prices = list(found.values())
    inside = sorted((p for p in prices if p.in_best), key=lambda p: (-p.high, p.feature))
    outside = sorted((p for p in prices if not p.in_best), key=lambda p: (p.low, p.feature))
    return FeaturePrices(
        family=fam.name,
        best=best,
        prices=inside + outside,
        unit=unit_distance.unit,
        time=clock.elapsed(),
        complete=complete,
    )
