"""The risk-score side of a size path: solve ``max_size = R`` for ``R = 1, 2, ...``.

Every solve shares one :class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool` (loss cuts depend
only on the data) and is warm-started from the previous size's model, which is feasible
for the larger limit unless constraints such as a minimum size exclude it. The metrics of
each row are added by :func:`riskexplore.evaluation.paths.size_path`. Survival scores'
session (:mod:`riskexplore.risk_score.survival.size_path`) is this one with its own
problem, warm start and solve (the hooks ``build``, ``feasible``, ``solve_built``); the
intervals below hold for any loss that is never negative (the Cox loss too).

Certified intervals
-------------------
Let ``V*(R)`` be the optimal objective at size limit ``R`` and ``L*(R)`` the smallest
*loss* of a feasible model with at most ``R`` features. Each solve certifies
``LB_R <= V*(R) <= UB_R``. Two further intervals hold whatever the time limits were:

* ``objective_lower <= V*(R) <= objective_upper``, tightened along the path: the
  feasible sets grow with ``R``, so ``V*`` is non-increasing and
  ``V*(R) >= V*(R') >= LB_R'`` for every ``R' > R`` and ``V*(R) <= UB_R''`` for ``R'' < R``;
* ``loss_lower <= L*(R) <= loss_upper``: ``L*(R) <= loss of the model found`` and, since
  a model with at most ``R`` features pays a penalty of at most ``pen(R)`` (the sum of
  the ``R`` largest ``c0_j``), ``L*(R) >= V*(R) - pen(R) >= LB_R - pen(R)``; ``L*`` is also
  non-increasing in ``R``, which tightens both ends the same way.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from riskexplore.risk_score.fit import build_problem, points_feasible, solve_problem
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.raw_settings import split_raw

__all__ = ["RiskScorePathSession"]

#: Arguments of fit_risk_score that belong to the solver rather than to the problem.
_SOLVE_KEYS = ("node_limit", "gap_tolerance", "callbacks", "settings")


class RiskScorePathSession:
    """Solves of one risk-score problem at growing size limits (a
    :class:`~riskexplore.core.registry.SizePathSession`).

    Parameters
    ----------
    X, y
        Training data.
    groups, test_groups : optional
        Not used by risk scores (accepted for a uniform interface).
    cut_pool : CutPool, optional
        A pool already attached to this data.
    **fit_kwargs
        Other arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score` (with
        ``scale="learned"`` every size learns its own multiplier; with ``binarize``,
        the raw table is binarized once and every size's model keeps the binarizer).
    """

    train_metrics = ("cal", "auc")
    test_metrics = ("cal", "auc", "loss")
    #: The row's column of the model's loss (and of its interval's ends).
    loss_column = "loss"

    def __init__(
        self,
        X,
        y,
        *,
        groups=None,
        test_groups=None,
        cut_pool: CutPool | None = None,
        **fit_kwargs: Any,
    ) -> None:
        X, fit_kwargs, self.binarizer = split_raw(X, fit_kwargs, self.raw_outcome(y))
        self.X, self.y = X, y
        self.solve_kw = {k: fit_kwargs.pop(k) for k in self.solve_keys if k in fit_kwargs}
        self.fit_kwargs = fit_kwargs
        self.pool = CutPool() if cut_pool is None else cut_pool
        self.default_max = min(self.build(None).n_features, 10)
        self.previous = None
        self.problem = None

    #: Arguments of the fit that belong to the solver rather than to the problem.
    solve_keys = _SOLVE_KEYS

    def raw_outcome(self, y):
        """The outcome the binarizer of a raw table reads (``bands="auto"`` needs it)."""
        return y

    def build(self, size: int | None):
        """The problem at size limit ``size`` (None: the settings' own)."""
        sized = {} if size is None else {"max_size": size}
        return build_problem(self.X, self.y, **sized, **self.fit_kwargs)

    def feasible(self, problem, model) -> bool:
        """Whether ``model`` (the previous size's) is a valid warm start of ``problem``."""
        return points_feasible(problem, model.coefficients)

    def solve_built(self, problem, **kwargs: Any):
        """The model of a built problem (``time_limit``, ``stop``, ``warm_start``,
        ``cut_pool`` and the solver's settings in ``kwargs``)."""
        return solve_problem(problem, **kwargs)

    def solve(self, size: int, time_limit: float, stop: Any):
        """The best model with at most ``size`` features (warm-started)."""
        self.problem = problem = self.build(size)
        warm = None
        if self.previous is not None and self.feasible(problem, self.previous):
            warm = self.previous
        model = self.solve_built(
            problem,
            time_limit=time_limit,
            stop=stop,
            warm_start=warm,
            cut_pool=self.pool,
            **self.solve_kw,
        )
        model.binarizer = self.binarizer  # (None without a raw table)
        self.previous = model
        return model

    def columns(self, model, size: int) -> dict[str, Any]:
        """Model size, loss, objective, certificate and the certified intervals."""
        cert = model.certificate
        c0 = np.sort(np.asarray(self.problem.c0, dtype=float))[::-1]
        penalty = float(c0[: min(size, len(c0))].sum())
        return {
            "model_size": model.size,
            self.loss_column: float(model.loss),
            "objective": float(model.objective),
            "lower_bound": float(cert.lower_bound),
            "upper_bound": float(cert.upper_bound),
            "gap": float(cert.gap),
            "status": cert.status,
            "objective_lower": float(cert.lower_bound),
            "objective_upper": float(cert.upper_bound),
            "loss_lower": max(0.0, float(cert.lower_bound) - penalty),
            "loss_upper": float(model.loss),
            "_loss_lower_raw": max(0.0, float(cert.lower_bound) - penalty),
        }

    def work(self, model) -> dict[str, Any]:
        """Nodes and loss cuts of the solve."""
        return {"nodes": int(model.stats.get("nodes", 0)), "cuts": int(model.stats.get("cuts", 0))}

    def tighten(self, rows: list[dict[str, Any]]) -> None:
        """Recompute the path-tightened intervals of every row (see the module notes)."""
        have = [r for r in rows if r.get("model_size") is not None]
        running_obj, running_loss = math.inf, math.inf
        for r in have:  # increasing size: upper ends from smaller sizes
            running_obj = min(running_obj, r["upper_bound"])
            running_loss = min(running_loss, r[self.loss_column])
            r["objective_upper"], r["loss_upper"] = running_obj, running_loss
        running_obj, running_loss = -math.inf, -math.inf
        for r in reversed(have):  # decreasing size: lower ends from larger sizes
            running_obj = max(running_obj, r["lower_bound"])
            running_loss = max(running_loss, r["_loss_lower_raw"])
            r["objective_lower"], r["loss_lower"] = running_obj, running_loss


def describe_path_row(row: dict[str, Any]) -> str:
    """One size of a risk-score path in words: loss and its interval, gap, test metrics.

    Parameters
    ----------
    row : dict
        A row of a size path with a model.

    Returns
    -------
    str
        The text (after ``"size <= R"``).
    """
    parts = [
        f"loss {row['loss']:.4f} in [{row['loss_lower']:.4f}, {row['loss_upper']:.4f}]",
        f"gap {100 * row['gap']:.1f}%",
    ]
    if row.get("test_auc") is not None:
        parts.append(f"test AUC {row['test_auc']:.3f}, CAL {100 * row['test_cal']:.1f}%")
    return "  ".join(parts)
