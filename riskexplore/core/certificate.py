"""The certificate that comes with a fitted model: how close to optimal it is proven to be."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from riskexplore.core.events import relative_gap
from riskexplore.core.jsonio import decode, decode_float, encode, encode_float

#: Human-readable reasons a solve stopped before proving optimality.
_REASONS = {
    "time_limit": "time limit",
    "node_limit": "node limit",
    "stopped": "stopped",
    "infeasible": "infeasible",
    "alternative": "a near-optimal alternative",
    "edited": "edited by hand",
    "numerical": "LP trouble in part of the search",
}


@dataclass(frozen=True)
class Certificate:
    """Proof of (near-)optimality of a model.

    Attributes
    ----------
    status : str
        Final solver status: ``"optimal"``, ``"time_limit"``, ``"node_limit"``,
        ``"stopped"`` or ``"infeasible"``; ``"alternative"`` for a model of a near-optimal
        set and ``"edited"`` for a hand edit (their lower bound is the one of the solve
        that found the best model of the same settings).
    upper_bound : float
        Objective value of the model (``inf`` without a model).
    lower_bound : float
        Proven lower bound on the best objective any feasible model can attain.
    gap : float
        ``(upper_bound - lower_bound) / upper_bound``; 0 means certified optimal.
    """

    status: str
    upper_bound: float
    lower_bound: float
    gap: float

    @classmethod
    def from_bounds(cls, status: str, upper_bound: float, lower_bound: float) -> Certificate:
        """Certificate whose gap is computed from the bounds."""
        upper, lower = float(upper_bound), float(lower_bound)
        return cls(status, upper, lower, relative_gap(upper, lower))

    @property
    def is_optimal(self) -> bool:
        """True when the solver proved that no feasible model has a lower objective."""
        return self.status == "optimal"

    def describe(self, time: float | None = None) -> str:
        """One line: ``certified optimal (gap 0.0%)`` or ``gap 3.2% after 60 s (time limit)``."""
        gap = _percent(self.gap)
        if self.is_optimal:
            return f"certified optimal (gap {gap})"
        reason = _REASONS.get(self.status, self.status)
        after = f" after {_seconds(time)}" if time is not None and math.isfinite(time) else ""
        return f"gap {gap}{after} ({reason})"

    def to_dict(self) -> dict[str, Any]:
        """The certificate as a strict-JSON dict (non-finite bounds as strings).

        Returns
        -------
        dict
            ``status``, ``upper_bound``, ``lower_bound`` and ``gap``.
        """
        return {
            "status": self.status,
            "upper_bound": encode_float(self.upper_bound),
            "lower_bound": encode_float(self.lower_bound),
            "gap": encode_float(self.gap),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Certificate:
        """The inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            A dict of :meth:`to_dict`.

        Returns
        -------
        Certificate
            The certificate.
        """
        return cls(
            str(data["status"]),
            decode_float(data["upper_bound"]),
            decode_float(data["lower_bound"]),
            decode_float(data["gap"]),
        )


def solve_fields(certificate: Certificate | None, stats: dict[str, Any]) -> dict[str, Any]:
    """``{"certificate": ..., "stats": ...}``, what a model's document keeps of its solve.

    Parameters
    ----------
    certificate : Certificate or None
        The model's certificate.
    stats : dict
        Its solve statistics (non-finite floats are encoded, see
        :func:`~riskexplore.core.jsonio.encode`).

    Returns
    -------
    dict
        The two fields, JSON-ready.
    """
    return {
        "certificate": None if certificate is None else certificate.to_dict(),
        "stats": encode(stats),
    }


def read_solve_fields(data: Mapping[str, Any]) -> tuple[Certificate | None, dict[str, Any]]:
    """The certificate and the statistics of a document of :func:`solve_fields`.

    Parameters
    ----------
    data : mapping
        The model's document (either field may be absent).

    Returns
    -------
    tuple
        ``(certificate or None, stats)``.
    """
    cert = data.get("certificate")
    return None if cert is None else Certificate.from_dict(cert), decode(data.get("stats") or {})


def _percent(gap: float) -> str:
    if not math.isfinite(gap):
        return "unknown"
    return f"{100 * gap:.1f}%"


def _seconds(time: float) -> str:
    return f"{time:.0f} s" if time >= 10 else f"{time:.1f} s"
