"""The survival-score side of a size path: solve ``max_size = R`` for ``R = 1, 2, ...``.

The risk scores' session (:class:`~riskexplore.risk_score.size_path.RiskScorePathSession`)
with the survival problem: one shared cut pool, each size warm-started from the previous
one, each certified, and the same certified intervals tightened along the path (the Cox
loss is never negative, as the logistic loss). A row names the loss ``cox_loss``
(with ``loss_lower`` and ``loss_upper``) and adds Harrell's C of the training (and test)
rows. A raw table is binarized once; every size's model keeps the binarizer and the
horizons.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riskexplore.errors import InputError
from riskexplore.risk_score.size_path import RiskScorePathSession
from riskexplore.risk_score.survival.fit import build_survival_problem, solve_survival_problem
from riskexplore.risk_score.survival.model import check_horizons

__all__ = ["SurvivalPathSession", "describe_path_row"]


class SurvivalPathSession(RiskScorePathSession):
    """Solves of one survival-score problem at growing size limits (a
    :class:`~riskexplore.core.registry.SizePathSession`).

    Parameters
    ----------
    X : DataFrame or array
        Training rows (a raw table is binarized once).
    y : structured array
        ``[("event", bool), ("time", float)]``.
    groups, test_groups : optional
        Not used (accepted for a uniform interface).
    cut_pool : CutPool, optional
        A pool already attached to this data.
    **fit_kwargs
        Other arguments of
        :func:`~riskexplore.risk_score.survival.fit.fit_survival_score` (``horizon``,
        ``coef_min``, ``c0``, ``constraints``, ``binarize``, ``n_jobs``, ...).
    """

    train_metrics = ("c_index",)
    test_metrics = ("c_index",)
    loss_column = "cox_loss"
    solve_keys = ("node_limit", "gap_tolerance", "callbacks", "settings", "n_jobs", "client")

    def __init__(self, X, y, **kwargs: Any) -> None:
        if kwargs.get("bands"):
            raise InputError("bands are not offered for survival scores yet; leave bands=None")
        self.horizons = check_horizons(kwargs.pop("horizon", None)) or None
        super().__init__(X, y, **kwargs)

    def raw_outcome(self, y):
        """None: a survival score's items do not depend on the outcome."""
        return None

    def build(self, size: int | None):
        """The survival problem at size limit ``size`` (None: the settings' own)."""
        sized = {} if size is None else {"max_size": size}
        return build_survival_problem(self.X, self.y, **sized, **self.fit_kwargs)

    def feasible(self, problem, model) -> bool:
        """Whether the previous size's points meet this problem's bounds and constraints."""
        points = [model._points.get(n, 0) for n in problem.feature_names]
        return problem.is_feasible(np.array([0, *points], dtype=float))

    def solve_built(self, problem, **kwargs: Any):
        """The certified survival score of a built problem, with the session's horizons."""
        return solve_survival_problem(problem, horizon=self.horizons, **kwargs)


def describe_path_row(row) -> str:
    """One size of a survival-score path in words: Cox loss and its interval, gap, C-index.

    Parameters
    ----------
    row : mapping
        A row of a size path with a model.

    Returns
    -------
    str
        The text (after ``"size <= R"``).
    """
    parts = [
        f"Cox loss {row['cox_loss']:.4f} in [{row['loss_lower']:.4f}, {row['loss_upper']:.4f}]",
        f"gap {100 * row['gap']:.1f}%",
    ]
    for split in ("train", "test"):
        value = row.get(f"{split}_c_index")
        if value is not None:
            parts.append(f"{split} C-index {value:.3f}")
    return "  ".join(parts)
