"""The certified price of a fixed scale: what fixing the multiplier ``m`` to 1 costs.

A risk score with the fixed scale turns its score into a risk as ``sigma(score)``; with the
learned scale as ``sigma(score / m)``, with ``m`` learned in ``[multiplier_min,
multiplier_max]`` (:mod:`riskexplore.risk_score.scaled.model_class`). :func:`price_of_fixed_scale`
fits the best risk score of both classes on the same data, with the same settings and
constraints, sharing one :class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool` (a loss cut
holds for every ``m``, so the second solve starts warm), and reports a certified interval
for ``V*_fixed - V*_learned``, the difference of the two optimal objectives (loss plus the
size penalty).

The solves certify ``LB_f <= V*_fixed <= UB_f`` and ``LB_l <= V*_learned <= UB_l``, so the
difference lies in ``[LB_f - UB_l, UB_f - LB_l]``. When ``1`` is in the multiplier's range,
every model of the fixed class is a model of the learned class (same points, ``m = 1``,
and the constraints mean the same), so ``V*_learned <= V*_fixed`` and both ends are
clipped at 0. The interval holds at any time limit; certified optimal solves shrink it to
(nearly) a point.

:func:`price_of_run` prices a run of the Explorer (its model is one side); the family's
registry entry offers it to the layers above (:class:`~riskexplore.core.registry.ScalePriceSpec`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from riskexplore.core.certificate import Certificate
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.fit import fit_risk_score
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.model import RiskScore, format_multiplier
from riskexplore.risk_score.problem import MULTIPLIER_MAX, MULTIPLIER_MIN, multiplier_range
from riskexplore.risk_score.raw_settings import split_raw
from riskexplore.risk_score.raw_table import item_frame, reads_raw

__all__ = ["ScalePrice", "price_of_fixed_scale", "price_of_run", "scale_price_interval"]


@dataclass
class ScalePrice:
    """The best risk scores with a fixed and a learned scale, and the certified price.

    Attributes
    ----------
    fixed : RiskScore or None
        The best model with ``m = 1`` (None when that class has no model, or none was
        found in time).
    learned : RiskScore
        The best model with ``m`` learned.
    interval : (float, float)
        Certified interval of ``V*_fixed - V*_learned`` (objective units: mean logistic
        loss plus the size penalty); ``(inf, inf)`` when the fixed class has no model.
    multiplier_range : (float, float)
        The learned multiplier's range.
    """

    fixed: RiskScore | None
    learned: RiskScore
    interval: tuple[float, float]
    multiplier_range: tuple[float, float]

    @property
    def lower(self) -> float:
        """The interval's lower end."""
        return self.interval[0]

    @property
    def upper(self) -> float:
        """The interval's upper end."""
        return self.interval[1]

    def describe(self, qualifier: str = "") -> str:
        """The price in plain words (one sentence, for a page or a report).

        Parameters
        ----------
        qualifier : str
            Words after "Price of a fixed scale" naming the problem priced, e.g.
            ``"(without your rules)"``.

        Returns
        -------
        str
            The text.
        """
        m = format_multiplier(self.learned.multiplier)
        lo, hi = self.interval
        head = "Price of a fixed scale" + (f" {qualifier}" if qualifier else "")
        learned = f"a learned scale (risk = σ(score / m), here m = {m})"
        if math.isinf(lo):
            return (
                f"{head}: no score with a fixed scale (risk = σ(score)) meets the settings and "
                f"rules; one with {learned} does."
            )
        if math.isinf(hi):
            return (
                f"{head}: no score with a fixed scale (risk = σ(score)) was found in time, so "
                "what it costs is not known."
            )
        if hi <= 1e-9:
            return (
                f"{head}: nothing. The best score with {learned} fits these patients no "
                "better than with a fixed scale (risk = σ(score); certified)."
            )
        amount = (
            f"by at most {_fmt(hi)}"
            if lo <= 0
            else (f"by {_fmt(lo)}" if _fmt(lo) == _fmt(hi) else f"by {_fmt(lo)} to {_fmt(hi)}")
        )
        return (
            f"{head}: the best score with a fixed scale (risk = σ(score)) fits "
            f"these patients worse than the best with {learned}, {amount} in loss (the "
            "measure the search minimises; certified)."
        )

    def summary(self) -> str:
        """Plain-text report: both models' lines and the interval.

        Returns
        -------
        str
            The report.
        """
        lines = []
        for name, model in (("fixed scale", self.fixed), ("learned scale", self.learned)):
            lines.append(f"{name}: " + ("no model" if model is None else model.summary()))
        lo, hi = self.interval
        lines.append(
            f"price of a fixed scale (optimal objective, fixed - learned): [{lo:.6g}, {hi:.6g}]"
        )
        lines.append(self.describe())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _fmt(value: float) -> str:
    return f"{value:.2g}" if abs(value) < 1e-3 else f"{value:.4f}"


def scale_price_interval(
    fixed: Certificate, learned: Certificate, *, contains_one: bool = True
) -> tuple[float, float]:
    """The certified interval of ``V*_fixed - V*_learned`` from the two certificates.

    Parameters
    ----------
    fixed, learned : Certificate
        The certificates of the fixed-scale and the learned-scale solves (same data,
        settings and constraints).
    contains_one : bool
        Whether the learned multiplier's range contains 1 (then the fixed class is part
        of the learned one and both ends are at least 0).

    Returns
    -------
    (float, float)
        ``[LB_f - UB_l, UB_f - LB_l]``, clipped at 0 when ``contains_one``.
    """
    lo = float(fixed.lower_bound) - float(learned.upper_bound)
    hi = float(fixed.upper_bound) - float(learned.lower_bound)
    if contains_one:
        lo, hi = max(0.0, lo), max(0.0, hi)
    return lo, hi


def _check_given(model, scale: str, X, y, m_range) -> None:
    """A model passed in must be a fit of this scale on these data."""
    if model is None:
        return
    if not isinstance(model, RiskScore):
        raise InputError(f"{scale}= must be a RiskScore, got {type(model).__name__}")
    if model.scale != scale or model.certificate is None:
        raise InputError(f"{scale}= must be a certified fit with scale={scale!r}")
    columns = getattr(X, "columns", None)
    if reads_raw(model.binarizer, X):  # a raw table: the model's features are its items
        columns = item_frame(model.binarizer, X).columns
    if columns is not None and [str(c) for c in columns] != list(model.feature_names):
        raise InputError(f"the {scale}-scale model was fitted on other features")
    n = model.stats.get("n_samples")
    if n is not None and int(n) != len(y):
        raise InputError(f"the {scale}-scale model was fitted on {n} rows, not {len(y)}")
    if scale == "learned":
        fitted = (model.stats.get("multiplier_min"), model.stats.get("multiplier_max"))
        if fitted != m_range:
            raise InputError(
                f"the learned-scale model's multiplier range {fitted} is not {m_range}"
            )


def price_of_fixed_scale(
    X,
    y,
    *,
    multiplier_min: float = MULTIPLIER_MIN,
    multiplier_max: float = MULTIPLIER_MAX,
    fixed: RiskScore | None = None,
    learned: RiskScore | None = None,
    cut_pool: CutPool | None = None,
    callbacks: Sequence = (),
    **fit_kwargs: Any,
) -> ScalePrice:
    """Fit the best risk score with ``m = 1`` and with ``m`` learned; certify the difference.

    See the module notes: the interval ``[LB_f - UB_l, UB_f - LB_l]`` (clipped at 0 when 1
    is in the range) contains ``V*_fixed - V*_learned`` whatever the time limits were.

    Parameters
    ----------
    X, y
        Training data.
    multiplier_min, multiplier_max : float
        The learned multiplier's range (``0 < min < max``; default 0.25 and 10).
    fixed, learned : RiskScore, optional
        A model already fitted with that scale on the same data, settings and
        constraints (e.g. by the Explorer); only the other class is then solved. Its
        certificate enters the interval, so it must come from exactly this problem.
    cut_pool : CutPool, optional
        A pool already attached to this data (shared by both solves; default a new one).
    callbacks : sequence of callables
        Receive the :class:`~riskexplore.core.events.SolveEvent` of both solves (fixed
        scale first).
    **fit_kwargs
        Other arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score`
        (``max_size``, ``constraints``, ``c0``, ``time_limit`` (per solve), ``stop``, ...),
        used for both solves.

    Returns
    -------
    ScalePrice
        Both models and the certified interval.

    Raises
    ------
    InputError
        For bad settings (``scale`` or ``warm_start`` among ``fit_kwargs``, a bad
        multiplier range) or a given model that is not a fit of this kind.
    InfeasibleError
        When the learned class has no model (then neither has the fixed one).
    """
    for key in ("scale", "warm_start"):
        if key in fit_kwargs:
            raise InputError(
                f"price_of_fixed_scale sets {key} itself; pass multiplier_min / "
                "multiplier_max, and fixed= or learned= for a model already fitted"
            )
    m_range = multiplier_range("learned", multiplier_min, multiplier_max)
    features = split_raw(X, fit_kwargs, y)[0]
    _check_given(fixed, "fixed", features, y, m_range)
    _check_given(learned, "learned", features, y, m_range)
    pool = CutPool() if cut_pool is None else cut_pool
    for given in (fixed, learned):
        if given is not None:
            pool.add_model(given.coefficients)  # a starting incumbent where it is feasible
    contains_one = m_range[0] <= 1.0 <= m_range[1]
    common = {"cut_pool": pool, "callbacks": tuple(callbacks or ()), **fit_kwargs}
    fixed_error: InfeasibleError | None = None
    if fixed is None:
        try:
            fixed = fit_risk_score(X, y, scale="fixed", **common)
        except InfeasibleError as exc:
            fixed_error = exc
    if learned is None:
        learned = fit_risk_score(
            X,
            y,
            scale="learned",
            multiplier_min=m_range[0],
            multiplier_max=m_range[1],
            **common,
        )
    if fixed is None:
        proven = fixed_error is not None and "status infeasible" in str(fixed_error)
        if proven:
            interval = (math.inf, math.inf)
        else:
            interval = (0.0 if contains_one else -math.inf, math.inf)
    else:
        interval = scale_price_interval(
            fixed.certificate, learned.certificate, contains_one=contains_one
        )
    return ScalePrice(fixed, learned, interval, m_range)


def price_of_run(
    X,
    y,
    model: RiskScore,
    settings: Mapping[str, Any],
    fit_arguments: Mapping[str, Any],
    *,
    callbacks: Sequence = (),
    stop=None,
) -> ScalePrice:
    """The price of a fixed scale for a run's model: the other scale is solved with the
    run's fit arguments (:func:`price_of_fixed_scale`).

    Parameters
    ----------
    X, y
        The run's training data.
    model : RiskScore
        The run's model (of the scale in ``fit_arguments``).
    settings : mapping
        The run's settings in the Explorer (``multiplier_min``, ``multiplier_max``: the
        learned multiplier's range).
    fit_arguments : mapping
        The run's arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score`
        (with ``time_limit``, per solve).
    callbacks : sequence of callables
        Receive the solve's events.
    stop : threading.Event or callable, optional
        Ends the solve early.

    Returns
    -------
    ScalePrice
        Both models and the certified interval.
    """
    kwargs = dict(fit_arguments)
    scale = kwargs.pop("scale", "fixed")
    for key in ("multiplier_min", "multiplier_max"):
        kwargs.pop(key, None)
    bounds = {k: float(settings[k]) for k in ("multiplier_min", "multiplier_max")}
    return price_of_fixed_scale(
        X, y, callbacks=callbacks, stop=stop, **{scale: model}, **bounds, **kwargs
    )
