"""How far a model is proven to be from the best model of its settings.

A solve certifies a lower bound ``LB`` on the objective of *every* model that obeys its
settings (bounds, size limits, constraints). Any other model of the same settings, a
near-optimal alternative or a hand edit, is then at most ``objective - LB`` worse than the
best one: its *certified distance* to the best. :class:`Distance` keeps that figure with
the constraints of the original search the model breaks (for such a model the bound
compares it with the best model that obeys them, and may be negative).

Both families use it: risk scores in objective units (loss plus the size penalty),
checklists in weighted mistakes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from riskexplore.core.jsonio import decode_float, encode_float
from riskexplore.errors import InputError

__all__ = ["Distance", "attach_problem", "attached_problem", "percent"]

#: Units of a distance, as the text names them.
UNITS = {"objective": "objective", "mistakes": "weighted mistakes"}
#: How a distance above (below) the proven bound reads, per unit.
_PHRASES = {
    "objective": ("above the best possible objective", "below the proven bound on the best"),
    "mistakes": (
        "more weighted mistakes than the best possible",
        "fewer weighted mistakes than the proven bound on the best",
    ),
}


@dataclass(frozen=True)
class Distance:
    """A model's certified distance to the best model of its settings.

    Attributes
    ----------
    objective : float
        The model's objective, in ``unit``.
    lower_bound : float
        A proven lower bound on the objective of the best model of the original settings,
        in ``unit`` (``-inf`` when nothing is proven).
    unit : {"objective", "mistakes"}
        ``"objective"``: loss plus size penalty (risk scores); ``"mistakes"``: weighted
        training mistakes ``FN + W- FP`` (checklists).
    breaks : tuple of str
        The bounds and constraints of the original search that the model breaks (empty
        when it obeys them all).
    notes : tuple of str
        Further remarks (e.g. constraints that could not be checked).
    """

    objective: float
    lower_bound: float
    unit: str = "objective"
    breaks: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def absolute(self) -> float:
        """``objective - lower_bound``: how much worse than the best model, at most."""
        return float(self.objective) - float(self.lower_bound)

    @property
    def relative(self) -> float:
        """:attr:`absolute` as a fraction of the lower bound (``nan`` if it is not
        positive): ``0.01`` reads "at most 1% worse than the best possible"."""
        lb = float(self.lower_bound)
        if not (math.isfinite(lb) and lb > 0):
            return math.nan
        return self.absolute / lb

    @property
    def obeys_settings(self) -> bool:
        """Whether the model obeys every bound and constraint of the original search."""
        return not self.breaks

    def describe(self) -> str:
        """One line: ``"at most 0.0012 (0.26%) above the best possible objective"``.

        Returns
        -------
        str
            The distance in words, with the constraints the model breaks.
        """
        unit = UNITS.get(self.unit, self.unit)
        if not math.isfinite(self.lower_bound):
            text = f"{unit} {_num(self.objective)}; no proven bound on the best model"
        else:
            rel = self.relative
            pct = f" ({percent(abs(rel))})" if math.isfinite(rel) else ""
            tol = 1e-8 * max(1.0, abs(float(self.lower_bound)))
            more, less = _PHRASES.get(self.unit, _PHRASES["objective"])
            if self.absolute < -tol:
                text = f"{_num(-self.absolute)}{pct} {less}"
            elif self.absolute <= tol:
                text = f"as good as the best possible ({unit} {_num(self.objective)})"
            else:
                text = f"at most {_num(self.absolute)}{pct} {more}"
        if self.breaks:
            text += (
                "; breaks " + "; ".join(self.breaks) + " (compared with the best model that "
                "obeys them)"
            )
        return text

    def to_dict(self) -> dict[str, Any]:
        """A strict-JSON dict (non-finite numbers as strings).

        Returns
        -------
        dict
            ``objective``, ``lower_bound``, ``absolute``, ``relative``, ``unit``,
            ``breaks`` and ``notes``.
        """
        return {
            "objective": encode_float(float(self.objective)),
            "lower_bound": encode_float(float(self.lower_bound)),
            "absolute": encode_float(self.absolute),
            "relative": encode_float(self.relative),
            "unit": self.unit,
            "breaks": list(self.breaks),
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Distance:
        """The inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : mapping
            A dict of :meth:`to_dict`.

        Returns
        -------
        Distance
            The distance.
        """
        return cls(
            decode_float(data["objective"]),
            decode_float(data["lower_bound"]),
            str(data.get("unit", "objective")),
            tuple(str(b) for b in data.get("breaks") or ()),
            tuple(str(n) for n in data.get("notes") or ()),
        )

    @classmethod
    def of_model(cls, model) -> Distance | None:
        """The distance a model carries (``stats["distance"]``, set for near-optimal
        alternatives and hand edits), else the one of its certificate (objective units);
        None without either.

        Parameters
        ----------
        model : RiskScore or Checklist
            The model.

        Returns
        -------
        Distance or None
            The distance.
        """
        stats = getattr(model, "stats", None) or {}
        if isinstance(stats.get("distance"), Mapping):
            return cls.from_dict(stats["distance"])
        cert = getattr(model, "certificate", None)
        if cert is None:
            return None
        return cls(float(cert.upper_bound), float(cert.lower_bound))


def _num(value: float) -> str:
    if not math.isfinite(value):
        return str(value)
    if value != 0 and abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{value:.4g}"


def percent(fraction: float) -> str:
    """A small fraction as a percentage (``"<0.01%"`` below 0.01%).

    Parameters
    ----------
    fraction : float
        The fraction.

    Returns
    -------
    str
        ``"0.26%"``.
    """
    if 0 < fraction < 1e-4:
        return "<0.01%"
    return f"{100 * fraction:.2f}%"


def attach_problem(model, problem) -> None:
    """Let a model read from a file keep its training problem, as a fitted one does (for
    hand edits with a certified distance; never serialised).

    Parameters
    ----------
    model : RiskScore or Checklist
        The model.
    problem : RiskScoreProblem or ChecklistProblem
        The problem it was fitted on: the same data, settings and constraints.
    """
    model._problem = problem


def attached_problem(model, X, y, *, noun: str, call: str):
    """The training problem a fitted model keeps (never serialised), or None when the
    caller gives the training data ``X, y`` instead.

    Parameters
    ----------
    model : RiskScore or Checklist
        The model.
    X, y : optional
        The training data, both or neither.
    noun : str
        The model in the message (``"risk score"``).
    call : str
        The method in the message (``"with_points"``).

    Returns
    -------
    problem or None
        The kept problem; None when ``X`` and ``y`` are given.

    Raises
    ------
    InputError
        With only one of ``X`` and ``y``, or neither and no kept problem.
    """
    if (X is None) != (y is None):
        raise InputError(f"give both X and y (the data the {noun} was fitted on), or neither")
    if X is not None:
        return None
    problem = getattr(model, "_problem", None)
    if problem is None:
        raise InputError(
            f"this {noun} has no training data attached (it was read from JSON or built by "
            f"hand); pass the data it was fitted on: {call}(..., X=X, y=y)"
        )
    return problem
