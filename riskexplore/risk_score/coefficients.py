"""Per-feature integer coefficient sets (the set L of Ustun & Rudin 2019, Definition 1).

The risk score problem of Ustun & Rudin [1]_ (RiskSLIM-MINLP, Definition 1 in Section 2)
restricts the points to a set ``L`` of integer vectors, a product of per-feature sets
``L_j``; here each ``L_j`` is a range of whole numbers with its own l0 penalty ``C0``.

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from riskexplore.core.params import Interval, validate
from riskexplore.errors import InputError

#: The most whole numbers a range of points (or of the intercept) may hold. The searches
#: try the values of a range one by one in places, so a range as wide as -1e9..1e9 would
#: need gigabytes; scores use a few points (the intercept rarely needs more than +-100).
MAX_RANGE_VALUES = 10_001

#: What the coefficient settings may be (see :mod:`riskexplore.core.params`).
PARAMETERS = {
    "coef_min": [Interval(int, None, None)],
    "coef_max": [Interval(int, None, None)],
    "intercept_min": [Interval(int, None, None)],
    "intercept_max": [Interval(int, None, None)],
    "c0": [Interval(float, 0, None)],
}


@dataclass
class CoefficientSet:
    """Integer bounds and l0 penalties for the points of each feature, and the intercept.

    Attributes
    ----------
    feature_names : list of str
    lower, upper : int arrays of shape (d,)
        Points of feature ``j`` lie in ``{lower[j], ..., upper[j]}``; a sign constraint is
        ``lower[j] = 0`` (non-negative) or ``upper[j] = 0`` (non-positive).
    c0 : float array of shape (d,)
        Penalty for using feature ``j`` (the trade-off parameter ``C0`` of Ustun & Rudin
        (2019), Definition 1, possibly per feature).
    intercept_lower, intercept_upper : int
        Bounds on the intercept (not penalised).
    """

    feature_names: list[str]
    lower: np.ndarray
    upper: np.ndarray
    c0: np.ndarray
    intercept_lower: int
    intercept_upper: int

    @classmethod
    def uniform(
        cls,
        feature_names: Sequence[str],
        *,
        coef_min: int,
        coef_max: int,
        c0: float,
        intercept_min: int,
        intercept_max: int,
        bounds: Mapping[str, tuple[int, int]] | None = None,
        signs: Mapping[str, int] | None = None,
        c0_by_feature: Mapping[str, float] | None = None,
    ) -> CoefficientSet:
        """Same bounds for every feature, with optional per-feature overrides.

        ``signs`` maps a feature to +1 (points >= 0) or -1 (points <= 0).
        """
        validate(
            PARAMETERS,
            {
                "coef_min": coef_min,
                "coef_max": coef_max,
                "c0": c0,
                "intercept_min": intercept_min,
                "intercept_max": intercept_max,
            },
        )
        names = list(feature_names)
        d = len(names)
        lower = np.full(d, int(coef_min), dtype=np.int64)
        upper = np.full(d, int(coef_max), dtype=np.int64)
        penalty = np.full(d, float(c0))
        index = {n: j for j, n in enumerate(names)}
        for name, (lo, hi) in (bounds or {}).items():
            j = _feature(index, name, "bounds")
            validate({name: PARAMETERS["coef_min"]}, {name: lo})
            validate({name: PARAMETERS["coef_max"]}, {name: hi})
            lower[j], upper[j] = int(lo), int(hi)
        for name, sign in (signs or {}).items():
            j = _feature(index, name, "signs")
            if sign not in (1, -1):
                raise InputError(f"sign of {name!r} must be +1 or -1, got {sign!r}")
            if sign > 0:
                lower[j] = max(lower[j], 0)
            else:
                upper[j] = min(upper[j], 0)
        for name, value in (c0_by_feature or {}).items():
            penalty[_feature(index, name, "c0_by_feature")] = float(value)
        out = cls(
            names,
            lower,
            upper,
            penalty,
            int(intercept_min),
            int(intercept_max),
        )
        out.validate()
        return out

    @property
    def n_features(self) -> int:
        """The number of features ``d``."""
        return len(self.feature_names)

    def validate(self) -> None:
        """Raise :class:`InputError` for crossed bounds or a negative or infinite ``c0``."""
        bad = np.flatnonzero(self.lower > self.upper)
        if bad.size:
            j = bad[0]
            raise InputError(
                f"feature {self.feature_names[j]!r}: lower bound {self.lower[j]} exceeds upper "
                f"bound {self.upper[j]}"
            )
        if self.intercept_lower > self.intercept_upper:
            raise InputError(
                f"intercept lower bound {self.intercept_lower} exceeds upper bound "
                f"{self.intercept_upper}"
            )
        self._check_widths()
        if np.any(~np.isfinite(self.c0)) or np.any(self.c0 < 0):
            raise InputError("c0 must be finite and >= 0 for every feature")

    def _check_widths(self) -> None:
        """Refuse a range of more than :data:`MAX_RANGE_VALUES` whole numbers."""
        ranges = [("intercept", self.intercept_lower, self.intercept_upper, "intercept_min")]
        ranges += [
            (f"points of {name!r}", lo, hi, "coef_min")
            for name, lo, hi in zip(self.feature_names, self.lower, self.upper, strict=True)
        ]
        for what, lo, hi, setting in ranges:
            count = int(hi) - int(lo) + 1
            if count > MAX_RANGE_VALUES:
                which = setting.replace("_min", "")
                raise InputError(
                    f"the range of the {what}, from {int(lo):,} to {int(hi):,}, holds {count:,} "
                    f"whole numbers; at most {MAX_RANGE_VALUES:,} are allowed (for example "
                    f"-5,000 to 5,000): narrow {which}_min and {which}_max"
                )

    def full_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of ``[lambda_0, lambda_1..d]`` as float arrays."""
        lo = np.concatenate([[self.intercept_lower], self.lower]).astype(float)
        hi = np.concatenate([[self.intercept_upper], self.upper]).astype(float)
        return lo, hi


def _feature(index: Mapping[str, int], name: str, where: str) -> int:
    if name not in index:
        raise InputError(f"{where} names unknown feature {name!r}")
    return index[name]
