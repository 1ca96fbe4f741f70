"""The checklist side of a size path: the best checklist with at most ``N`` items for
``N = 1, 2, ...``, each solve warm-started from the previous checklist (the solver
ignores a warm start that breaks the new problem's constraints). The metrics of each row
are added by :func:`riskexplore.evaluation.paths.size_path`.
"""

from __future__ import annotations

from typing import Any

from riskexplore.checklist.fit import fit_checklist
from riskexplore.checklist.model import Checklist

__all__ = ["ChecklistPathSession", "describe_path_row"]

_GAPS = ("max_fnr_gap", "max_fpr_gap")


class ChecklistPathSession:
    """Fits of one checklist problem at growing item limits (a
    :class:`~riskexplore.core.registry.SizePathSession`).

    Parameters
    ----------
    X, y
        Training data.
    groups : optional
        Groups of the training rows: passed to ``fit_checklist`` (for group constraints)
        and adding the worst FNR/FPR gaps to the training metrics.
    test_groups : optional
        Groups of the test rows: adding the worst gaps to the test metrics.
    cut_pool : optional
        Not used by checklists (accepted for a uniform interface).
    **fit_kwargs
        Other arguments of :func:`~riskexplore.checklist.fit.fit_checklist`.
    """

    default_max = 8

    def __init__(
        self, X, y, *, groups=None, test_groups=None, cut_pool=None, **fit_kwargs: Any
    ) -> None:
        self.X, self.y, self.groups = X, y, groups
        self.fit_kwargs = fit_kwargs
        self.train_metrics = ("error", "fnr", "fpr") + (_GAPS if groups is not None else ())
        self.test_metrics = ("error", "fnr", "fpr", "auc") + (
            _GAPS if test_groups is not None else ()
        )
        self.previous: Checklist | None = None

    def solve(self, size: int, time_limit: float, stop: Any) -> Checklist:
        """The best checklist with at most ``size`` items (warm-started)."""
        model = fit_checklist(
            self.X,
            self.y,
            max_items=size,
            time_limit=time_limit,
            warm_start=self.previous,
            stop=stop,
            groups=self.groups,
            **self.fit_kwargs,
        )
        self.previous = model
        return model

    def columns(self, model: Checklist, size: int) -> dict[str, Any]:
        """Items, threshold, objective and certificate."""
        cert = model.certificate
        return {
            "model_size": model.N,
            "M": model.M,
            "objective": None if model.objective is None else float(model.objective),
            "lower_bound": None if cert is None else float(cert.lower_bound),
            "upper_bound": None if cert is None else float(cert.upper_bound),
            "gap": None if cert is None else float(cert.gap),
            "status": None if cert is None else cert.status,
        }

    def work(self, model: Checklist) -> dict[str, Any]:
        """Nothing after the row's time."""
        return {}

    def tighten(self, rows: list[dict[str, Any]]) -> None:
        """Nothing to tighten: each row keeps its own certificate."""


def describe_path_row(row: dict[str, Any]) -> str:
    """One size of a checklist path in words: N, M, training error and gap.

    Parameters
    ----------
    row : dict
        A row of a size path with a model.

    Returns
    -------
    str
        The text (after ``"size <= N"``).
    """
    return "  ".join(
        [
            f"N={row['model_size']}, M={row['M']}",
            f"train error {100 * row['train_error']:.1f}%",
            f"gap {100 * row['gap']:.1f}%",
        ]
    )
