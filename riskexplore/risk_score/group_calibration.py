"""A group's calibration as a rule of a risk score (:class:`GroupCalibration`).

An audit (:mod:`riskexplore.evaluation.audit`) may find that a score under- or
overestimates the risk of a group of patients. The rule that limits it keeps the group's
average score near the log-odds of its observed rate: the average score is the intercept
plus the group's mean feature values times the points, so the rule is one linear row over
the points and is certified like every other rule, with the fixed and the learned scale.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from riskexplore.core.constraints import close_matches_hint, format_number, real_number
from riskexplore.errors import ConstraintError
from riskexplore.risk_score.constraints import RiskScoreConstraint, _logit
from riskexplore.risk_score.rows import INTERCEPT, LinearRow

__all__ = ["CALIBRATION_LIMITS", "GroupCalibration"]

#: Which side of a group's calibration :class:`GroupCalibration` limits: both sides,
#: ``"under"`` (the score may not underestimate the group's risk by more than the gap)
#: or ``"over"`` (nor overestimate it).
CALIBRATION_LIMITS = ("both", "under", "over")


def _condition(column: str, value: Any) -> tuple[str, Any]:
    """One condition of a group: ``(column, value)`` or ``(column, (low, high))``."""
    what = f"GroupCalibration: the condition on {column!r}"
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ConstraintError(f"{what} must be a value or a pair (low, high), got {value!r}")
        low, high = (None if v is None else real_number(v, what) for v in value)
        if low is None and high is None:
            raise ConstraintError(f"{what}: give low and/or high of the pair (low, high)")
        if low is not None and high is not None and low >= high:
            raise ConstraintError(
                f"{what}: low={format_number(low)} must be less than high={format_number(high)}"
            )
        return column, (low, high)
    if isinstance(value, str):
        return column, value
    if isinstance(value, (bool, np.bool_)):
        return column, float(value)
    if isinstance(value, numbers.Real):
        return column, real_number(value, what)
    raise ConstraintError(f"{what} must be a number, a text or a pair (low, high), got {value!r}")


def _condition_words(column: str, value: Any) -> str:
    if not isinstance(value, tuple):
        shown = value if isinstance(value, str) else format_number(value)
        return f"{column} = {shown}"
    low, high = value
    if high is None:
        return f"{column} at least {format_number(low)}"
    if low is None:
        return f"{column} below {format_number(high)}"
    return f"{column} from {format_number(low)} to below {format_number(high)}"


def _pct(p: float) -> str:
    """A risk in percent, never in scientific notation (``41%``, ``4.5%``, ``0.35%``)."""
    x = 100.0 * p
    if x >= 10 or x == 0:
        return f"{x:.0f}%"
    if x >= 1:
        return f"{x:.1f}".removesuffix(".0") + "%"
    if x >= 0.01:
        return f"{x:.2f}".rstrip("0").rstrip(".") + "%"
    return "under 0.01%"


@dataclass(frozen=True)
class GroupCalibration(RiskScoreConstraint):
    """Calibration in the large of one group of rows, as one linear row.

    The group's average score, in log-odds, must lie within ``max_gap`` of the log-odds
    of the group's observed rate:

    ``logit(r_g) - max_gap <= (1/W_g) sum_{i in g} w_i (lambda_0 + x_i . lambda)
    <= logit(r_g) + max_gap``

    where ``r_g`` is the group's observed rate of the outcome and ``w_i`` the rows'
    weights (those of the loss: ``sample_weight`` times ``positive_weight``). The middle
    term is ``lambda_0 + xbar_g . lambda`` with ``xbar_g`` the group's mean feature
    values, so the row is linear in the intercept and the points. Read as a risk: the
    risk at the group's average score lies between ``sigma(logit(r_g) - max_gap)`` and
    ``sigma(logit(r_g) + max_gap)``. With the learned scale (risk = ``sigma(score /
    m)``) the bounds apply to the average of ``score / m``, which is still linear in the
    solver's variables.

    Parameters
    ----------
    where : mapping of column to condition
        The group's rows: every condition holds. A condition is a value (``{"sex": 1}``)
        or a range ``(low, high)`` meaning ``low <= value < high``, with ``None`` for an
        open side (``{"age": (60, None)}``). Two or more columns give the cross of
        groups. Columns are looked up among the problem's ``groups=`` columns, then its
        features (a group column may be a feature).
    max_gap : float, default 0.25
        The largest distance, in log-odds, between the group's average score and the
        log-odds of its observed rate (``>= 0``). 0.25 is about 5 percentage points at
        a 40% risk.
    limit : {"both", "under", "over"}, default "both"
        Which side to limit: ``"under"`` stops the score underestimating the group's
        risk (only the lower bound), ``"over"`` stops it overestimating (only the upper).
    label : str, optional
        The group's name in plain words (``"age 60 and older"``); by default the
        conditions.
    target : float, optional
        The log-odds the group's average score should be near, instead of the log-odds
        of its observed rate. An average of log-odds is not the log-odds of an average
        risk: a group whose scores spread widely can have an average risk above its
        observed rate while its average score is below the observed log-odds. The rule
        of an audit finding (:func:`~riskexplore.evaluation.audit.rules.rule_for_finding`)
        therefore aims at the average score that would make the group's average risk
        match its observed rate, found from the audited model's scores.

    Raises
    ------
    ConstraintError
        For malformed conditions, a negative or NaN ``max_gap`` or an unknown ``limit``
        (here), and, when compiled, an unknown group column, a group without training
        rows, or a group whose rows all have the same outcome (its observed rate has no
        log-odds).

    Examples
    --------
    >>> rule = GroupCalibration({"age": (60, None)}, max_gap=0.2, limit="under")
    >>> rule.describe()
    'Group age at least 60: average score at most 0.2 log-odds below its observed risk'
    """

    where: tuple[tuple[str, Any], ...]
    max_gap: float = 0.25
    limit: str = "both"
    label: str | None = None
    target: float | None = None

    def __post_init__(self) -> None:
        where = self.where
        if isinstance(where, Mapping):
            where = tuple(where.items())
        elif isinstance(where, str):
            raise ConstraintError(
                "GroupCalibration: where must map group columns to values, e.g. "
                "{'sex': 1} or {'age': (60, None)}"
            )
        try:
            pairs = [(column, value) for column, value in where]
        except (TypeError, ValueError):
            raise ConstraintError(
                f"GroupCalibration: where must map group columns to values, got {self.where!r}"
            ) from None
        if not pairs:
            raise ConstraintError("GroupCalibration: where is empty; name the group's column")
        columns = [c for c, _ in pairs]
        for column in columns:
            if not isinstance(column, str):
                raise ConstraintError(
                    f"GroupCalibration: group columns must be names, got {column!r}"
                )
        if len(set(columns)) != len(columns):
            raise ConstraintError("GroupCalibration: a column appears twice in where")
        object.__setattr__(self, "where", tuple(_condition(c, v) for c, v in pairs))
        gap = real_number(self.max_gap, "GroupCalibration: max_gap")
        if gap < 0 or math.isinf(gap):
            raise ConstraintError(
                f"GroupCalibration: max_gap must be a number of log-odds >= 0, got {gap:g}"
            )
        object.__setattr__(self, "max_gap", gap)
        if self.limit not in CALIBRATION_LIMITS:
            raise ConstraintError(
                f"GroupCalibration: limit must be one of {', '.join(CALIBRATION_LIMITS)}, "
                f"got {self.limit!r}"
            )
        if self.label is not None and not isinstance(self.label, str):
            raise ConstraintError(f"GroupCalibration: label must be text, got {self.label!r}")
        if self.target is not None:
            target = real_number(self.target, "GroupCalibration: target")
            if math.isinf(target):
                raise ConstraintError("GroupCalibration: target must be a finite log-odds")
            object.__setattr__(self, "target", target)

    @property
    def group(self) -> str:
        """The group in words: the label, else its conditions."""
        if self.label:
            return self.label
        return " and ".join(_condition_words(c, v) for c, v in self.where)

    def describe(self) -> str:
        if self.target is not None:
            low, high = self._band(self.target)
            allowed = {
                "both": f"between {_pct(_expit(low))} and {_pct(_expit(high))}",
                "under": f"at least {_pct(_expit(low))}",
                "over": f"at most {_pct(_expit(high))}",
            }[self.limit]
            return f"Group {self.group}: risk at the group's average score {allowed}"
        gap = format_number(round(self.max_gap, 6))
        side = {
            "both": f"within {gap} log-odds of",
            "under": f"at most {gap} log-odds below",
            "over": f"at most {gap} log-odds above",
        }[self.limit]
        return f"Group {self.group}: average score {side} its observed risk"

    # --- the data ------------------------------------------------------------------------
    def _values(self, column: str, problem: Any) -> np.ndarray:
        groups = getattr(problem, "groups", None)
        if groups is not None and column in groups.columns:
            return groups[column].to_numpy()
        names = [str(n) for n in problem.feature_names]
        if column in names:
            return problem.X[:, names.index(column)]
        known = ([] if groups is None else [str(c) for c in groups.columns]) + names
        hint = close_matches_hint(column, known)
        raise ConstraintError(
            f"constraint {self.describe()!r} uses unknown group column {column!r}{hint}; "
            "group columns are the features and the columns passed as groups="
        )

    def rows_of(self, problem: Any) -> np.ndarray:
        """Boolean mask of the problem's training rows in the group.

        Parameters
        ----------
        problem : RiskScoreProblem
            The problem (its features and ``groups``).

        Returns
        -------
        ndarray of bool, shape (n,)
            The mask.

        Raises
        ------
        ConstraintError
            For an unknown column, or a text condition on a numeric column.
        """
        mask = np.ones(problem.X.shape[0], dtype=bool)
        for column, value in self.where:
            raw = np.asarray(self._values(column, problem))
            if isinstance(value, str):
                mask &= np.array([str(v) == value for v in raw], dtype=bool)
                continue
            try:
                numbers_ = np.asarray(raw, dtype=float)
            except (TypeError, ValueError):
                raise ConstraintError(
                    f"constraint {self.describe()!r}: column {column!r} is not numeric; "
                    "give its value as text"
                ) from None
            if isinstance(value, tuple):
                low, high = value
                inside = np.isfinite(numbers_)
                if low is not None:
                    inside &= numbers_ >= low
                if high is not None:
                    inside &= numbers_ < high
                mask &= inside
            else:
                mask &= numbers_ == value
        return mask

    def observed(self, problem: Any) -> tuple[float, float]:
        """The group's observed rate and its weight (weighted number of rows).

        Parameters
        ----------
        problem : RiskScoreProblem
            The problem.

        Returns
        -------
        (float, float)
            The rate and the group's total weight.

        Raises
        ------
        ConstraintError
            Without rows in the group.
        """
        mask = self.rows_of(problem)
        w = np.asarray(problem.sample_weight, dtype=float)[mask]
        if not mask.any() or w.sum() <= 0:
            raise ConstraintError(
                f"constraint {self.describe()!r}: the group has no rows in the training data; "
                "check its conditions"
            )
        positive = np.asarray(problem.y)[mask] > 0
        return float(w[positive].sum() / w.sum()), float(w.sum())

    def _band(self, center: float) -> tuple[float, float]:
        """The bounds on the group's average score around ``center`` (log-odds)."""
        lower = center - self.max_gap if self.limit in ("both", "under") else -math.inf
        upper = center + self.max_gap if self.limit in ("both", "over") else math.inf
        return lower, upper

    def center(self, problem: Any) -> float:
        """The log-odds the group's average score is held near: ``target``, else the
        log-odds of the group's observed rate.

        Parameters
        ----------
        problem : RiskScoreProblem
            The problem.

        Returns
        -------
        float
            The log-odds.

        Raises
        ------
        ConstraintError
            Without rows in the group, or (without ``target``) when all its rows have
            the same outcome.
        """
        rate, _ = self.observed(problem)
        if self.target is not None:
            return self.target
        if not 0.0 < rate < 1.0:
            which = "positive" if rate == 1.0 else "negative"
            raise ConstraintError(
                f"constraint {self.describe()!r}: every training row of the group is "
                f"{which}, so its observed risk ({_pct(rate)}) has no log-odds to match; "
                "choose a larger group"
            )
        return _logit(rate)

    def risk_bounds(self, problem: Any) -> tuple[float, float, float]:
        """The group's observed rate and the risks allowed at its average score.

        Parameters
        ----------
        problem : RiskScoreProblem
            The problem.

        Returns
        -------
        (float, float, float)
            ``(observed, lowest, highest)``; an open side is 0 or 1.
        """
        lower, upper = self._band(self.center(problem))
        rate, _ = self.observed(problem)
        low = _expit(lower) if math.isfinite(lower) else 0.0
        high = _expit(upper) if math.isfinite(upper) else 1.0
        return rate, low, high

    def to_rows(self, feature_names, problem=None):
        if problem is None:
            raise ConstraintError(
                f"constraint {self.describe()!r} depends on the training data; compile it "
                "with a RiskScoreProblem (to_rows(feature_names, problem=...))"
            )
        rate, low, high = self.risk_bounds(problem)
        mask = self.rows_of(problem)
        w = np.asarray(problem.sample_weight, dtype=float)[mask]
        means = (w @ np.asarray(problem.X, dtype=float)[mask]) / w.sum()
        points: dict[str, float] = {INTERCEPT: 1.0}
        for name, mean in zip(feature_names, means, strict=True):
            if mean != 0.0:
                points[str(name)] = float(mean)
        lower, upper = self._band(self.center(problem))
        if self.limit == "both":
            allowed = f"between {_pct(low)} and {_pct(high)}"
        elif self.limit == "under":
            allowed = f"at least {_pct(low)}"
        else:
            allowed = f"at most {_pct(high)}"
        if self.target is None:
            name = (
                f"{self.describe()} (observed {_pct(rate)}; risk at the group's average "
                f"score {allowed})"
            )
        else:
            name = f"{self.describe()} (observed {_pct(rate)})"
        return [LinearRow(name, points, lower=lower, upper=upper, logit_bounds=(lower, upper))]


def _expit(t: float) -> float:
    return 1.0 / (1.0 + math.exp(-t)) if t >= 0 else math.exp(t) / (1.0 + math.exp(t))
