"""What a risk-score solver returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from riskexplore.solvers.events import Trace, relative_gap

#: Final statuses, as the CLI and JSON report them.
STATUSES = ("optimal", "time_limit", "node_limit", "stopped", "infeasible")


@dataclass
class SolveResult:
    """Best model, certificate and statistics of one solve.

    ``coefficients`` is the integer vector ``[intercept, points_1..points_d]`` of the
    best model found (``None`` when no feasible model exists). ``lower_bound`` is a
    proven lower bound on the optimal objective; ``upper_bound`` is the objective of
    ``coefficients``.
    """

    status: str
    coefficients: np.ndarray | None
    upper_bound: float
    lower_bound: float
    loss: float
    nodes: int = 0
    cuts: int = 0
    time: float = 0.0
    trace: Trace = field(default_factory=Trace)
    stats: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        return relative_gap(self.upper_bound, self.lower_bound)

    @property
    def objective(self) -> float:
        return self.upper_bound

    @property
    def has_model(self) -> bool:
        return self.coefficients is not None and math.isfinite(self.upper_bound)
