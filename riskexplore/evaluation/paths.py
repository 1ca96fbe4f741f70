"""Model-size paths: the best risk score (or checklist) for every size limit.

:func:`risk_score_size_path` solves the risk score problem with ``max_size = R`` for
``R = 1, 2, ...``, smallest first. Every solve shares one
:class:`~riskexplore.risk_score.cut_pool.CutPool` (loss cuts depend only on the data) and
is warm-started from the previous size's model, which is feasible for the larger limit.
:func:`checklist_size_path` does the same over the number of checklist items ``N``.

Certified intervals
-------------------
Let ``V*(R) = min { l(lam) + c0 ||lam||_0 : lam feasible, ||lam||_0 <= R }`` be the
optimal objective at size limit ``R`` and ``L*(R)`` the smallest *loss* of a feasible
model with at most ``R`` features. Each solve certifies ``LB_R <= V*(R) <= UB_R``
(``lower_bound``/``upper_bound``: the solver's bound and the objective of the returned
model). The path reports two further intervals, valid whatever the time limits were:

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
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.errors import InfeasibleError, InputError
from riskexplore.evaluation.metrics import model_metrics

__all__ = ["SizePath", "checklist_size_path", "risk_score_size_path"]

RowCallback = Callable[[dict[str, Any]], None]

#: Arguments of fit_risk_score that belong to the solver rather than to the problem.
_SOLVE_KEYS = ("node_limit", "gap_tolerance", "callbacks", "settings")
#: Arguments the size path sets itself.
_PATH_KEYS = ("max_size", "max_items", "warm_start", "time_limit")


@dataclass
class SizePath:
    """Best models along a size path, one row per size limit.

    Attributes
    ----------
    rows : list of dict
        One row per size limit, in increasing size (see :meth:`to_frame`).
    models : list
        The model of each row (None where no model was found).
    kind : str
        ``"risk_score"`` or ``"checklist"``.
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    models: list[Any] = field(default_factory=list)
    kind: str = "risk_score"

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.to_records())

    def to_records(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.rows]

    def to_frame(self, include_models: bool = False) -> pd.DataFrame:
        """One row per size limit.

        Risk scores: ``size`` (the limit R), ``model_size``, ``loss``, ``objective``,
        ``lower_bound``, ``upper_bound``, ``gap``, ``status`` (the certificate of that
        solve), ``objective_lower``/``objective_upper`` and ``loss_lower``/``loss_upper``
        (certified intervals on the optimal objective and loss at limit R, tightened
        along the path; see the module notes), ``train_cal``, ``train_auc`` and (with
        test data) ``test_cal``, ``test_auc``, ``test_loss``, and ``time``, ``nodes``,
        ``cuts``. Checklists: ``size`` (limit N), ``model_size``, ``M``, ``objective``,
        the certificate, ``train_error/fnr/fpr`` and test counterparts, and ``time``.
        """
        frame = pd.DataFrame(self.to_records())
        if include_models:
            frame["model"] = list(self.models)
        return frame

    def model(self, size: int):
        """The model fitted with size limit ``size``."""
        for row, model in zip(self.rows, self.models, strict=True):
            if row["size"] == size:
                return model
        raise KeyError(f"no size {size} in this path")

    def pareto(self) -> pd.DataFrame:
        """Rows whose model is not dominated in (model size, training loss or objective).

        A row is dominated when another model is no larger and has no larger loss
        (checklists: objective), with at least one strictly smaller. Of identical
        models (e.g. several limits returning the same model) the first row is kept.
        """
        frame = self.to_frame()
        if frame.empty:
            return frame
        metric = "loss" if self.kind == "risk_score" else "objective"
        frame = frame[frame["model_size"].notna() & frame[metric].notna()]
        keep = []
        seen: set[tuple[float, float]] = set()
        sizes = frame["model_size"].to_numpy(float)
        values = frame[metric].to_numpy(float)
        for i in range(len(frame)):
            dominated = np.any(
                (sizes <= sizes[i])
                & (values <= values[i])
                & ((sizes < sizes[i]) | (values < values[i]))
            )
            key = (sizes[i], values[i])
            keep.append(not dominated and key not in seen)
            seen.add(key)
        return frame[np.array(keep, dtype=bool)].reset_index(drop=True)

    def summary(self) -> str:
        """One line per size: the size, loss/objective, certificate and test metrics."""
        lines = []
        for row in self.rows:
            parts = [f"size <= {row['size']}"]
            if row.get("model_size") is None:
                parts.append(f"no model ({row.get('status')})")
            elif self.kind == "risk_score":
                parts.append(
                    f"loss {row['loss']:.4f} in [{row['loss_lower']:.4f}, {row['loss_upper']:.4f}]"
                )
                parts.append(f"gap {100 * row['gap']:.1f}%")
                if row.get("test_auc") is not None:
                    parts.append(
                        f"test AUC {row['test_auc']:.3f}, CAL {100 * row['test_cal']:.1f}%"
                    )
            else:
                parts.append(f"N={row['model_size']}, M={row['M']}")
                parts.append(f"train error {100 * row['train_error']:.1f}%")
                parts.append(f"gap {100 * row['gap']:.1f}%")
            lines.append("  ".join(parts))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


# --- helpers ---------------------------------------------------------------------------
def _sizes(sizes, default_max: int, what: str) -> list[int]:
    if sizes is None:
        sizes = range(1, default_max + 1)
    if isinstance(sizes, (int, np.integer)):
        sizes = range(1, int(sizes) + 1)
    out = []
    for s in sizes:
        if isinstance(s, bool) or not float(s).is_integer() or s < 0:
            raise InputError(f"{what} must be non-negative integers, got {s!r}")
        out.append(int(s))
    out = sorted(set(out))
    if not out:
        raise InputError(f"{what} is empty")
    return out


def _stop_requested(stop) -> bool:
    if stop is None:
        return False
    if isinstance(stop, threading.Event):
        return stop.is_set()
    return bool(stop())


def _check_kwargs(fit_kwargs: dict[str, Any], taken: Iterable[str]) -> None:
    bad = [k for k in taken if k in fit_kwargs]
    if bad:
        raise InputError(
            f"the size path sets {', '.join(bad)} itself; use sizes / time_limit_per_size"
        )


def _metrics(model, X, y, prefix: str, keys: Iterable[str], groups=None) -> dict[str, Any]:
    values = model_metrics(model, X, y, groups)
    return {f"{prefix}_{k}": values.get(k) for k in keys}


def _test_data(X_test, y_test) -> bool:
    if (X_test is None) != (y_test is None):
        raise InputError("give both X_test and y_test, or neither")
    return X_test is not None


def _notify(callback, row: dict[str, Any], model) -> None:
    if callback is not None:
        callback({**row, "model": model})


# --- risk scores -----------------------------------------------------------------------
def _tighten_risk_rows(rows: list[dict[str, Any]]) -> None:
    """Recompute the path-tightened intervals of every row (see the module notes)."""
    have = [r for r in rows if r.get("model_size") is not None]
    running_obj, running_loss = math.inf, math.inf
    for r in have:  # increasing size: upper ends from smaller sizes
        running_obj = min(running_obj, r["upper_bound"])
        running_loss = min(running_loss, r["loss"])
        r["objective_upper"], r["loss_upper"] = running_obj, running_loss
    running_obj, running_loss = -math.inf, -math.inf
    for r in reversed(have):  # decreasing size: lower ends from larger sizes
        running_obj = max(running_obj, r["lower_bound"])
        running_loss = max(running_loss, r["_loss_lower_raw"])
        r["objective_lower"], r["loss_lower"] = running_obj, running_loss


def risk_score_size_path(
    X,
    y,
    *,
    sizes=None,
    time_limit_per_size: float = 60.0,
    X_test=None,
    y_test=None,
    callback: RowCallback | None = None,
    cut_pool=None,
    stop=None,
    **fit_kwargs: Any,
) -> SizePath:
    """Fit the best risk score with at most ``R`` features for every ``R`` in ``sizes``.

    Sizes are solved in increasing order. All solves share one CutPool (``cut_pool`` or a
    new one) and each is warm-started from the previous size's model when it is feasible
    (it is, unless constraints such as a minimum size exclude it).

    Parameters
    ----------
    X, y : training data, as for :func:`~riskexplore.risk_score.fit.fit_risk_score`.
    sizes : iterable of int, or int
        Size limits ``R`` (an int ``R_max`` means ``1..R_max``; default
        ``1..min(d, 10)``). ``0`` gives the intercept-only model.
    time_limit_per_size : float
        Seconds for each solve.
    X_test, y_test : optional
        Held-out data; adds ``test_cal``, ``test_auc`` and ``test_loss``.
    callback : callable ``(row) -> None``, optional
        Called as each size finishes with its row (a dict, ``"model"`` included), so a
        widget can fill progressively. Lower ends of the tightened intervals may still
        rise when larger sizes finish; :meth:`SizePath.to_frame` has the final values.
    cut_pool : CutPool, optional
        A pool already attached to this data (e.g. from earlier explorations).
    stop : threading.Event or callable, optional
        Ends the current solve (keeping its best model) and the path.
    **fit_kwargs
        Other arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score` (``coef_min``,
        ``coef_max``, ``c0``, ``constraints``, ``node_limit``, ``gap_tolerance``, ...).

    Returns
    -------
    SizePath
        Rows as described in :meth:`SizePath.to_frame`; ``path.models`` the models.
    """
    from riskexplore.risk_score.cut_pool import CutPool
    from riskexplore.risk_score.fit import build_problem, solve_problem

    _check_kwargs(fit_kwargs, _PATH_KEYS + ("stop", "cut_pool"))
    has_test = _test_data(X_test, y_test)
    solve_kw = {k: fit_kwargs.pop(k) for k in _SOLVE_KEYS if k in fit_kwargs}
    pool = CutPool() if cut_pool is None else cut_pool
    n_features = build_problem(X, y, **fit_kwargs).n_features
    path = SizePath(kind="risk_score")
    previous = None
    for R in _sizes(sizes, min(n_features, 10), "sizes"):
        if _stop_requested(stop):
            break
        problem = build_problem(X, y, max_size=R, **fit_kwargs)
        warm = None
        if previous is not None and problem.is_feasible(previous.coefficients):
            warm = previous
        start = time.perf_counter()
        try:
            model = solve_problem(
                problem,
                time_limit=time_limit_per_size,
                stop=stop,
                warm_start=warm,
                cut_pool=pool,
                **solve_kw,
            )
        except InfeasibleError as exc:
            _add_infeasible(path, R, exc, start, callback)
            continue
        cert = model.certificate
        c0 = np.sort(np.asarray(problem.c0, dtype=float))[::-1]
        penalty = float(c0[: min(R, len(c0))].sum())
        row: dict[str, Any] = {
            "size": R,
            "model_size": model.size,
            "loss": float(model.loss),
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
        row.update(_metrics(model, X, y, "train", ("cal", "auc")))
        if has_test:
            row.update(_metrics(model, X_test, y_test, "test", ("cal", "auc", "loss")))
        row["time"] = float(model.stats.get("time", time.perf_counter() - start))
        row["nodes"] = int(model.stats.get("nodes", 0))
        row["cuts"] = int(model.stats.get("cuts", 0))
        path.rows.append(row)
        path.models.append(model)
        _tighten_risk_rows(path.rows)
        previous = model
        _notify(callback, _public(row), model)
    _tighten_risk_rows(path.rows)
    path.rows = [_public(r) for r in path.rows]
    return path


def _add_infeasible(
    path: SizePath,
    size: int,
    exc: InfeasibleError,
    start: float,
    callback: RowCallback | None,
) -> None:
    """Add the row (and no model) of a size whose problem is infeasible.

    Parameters
    ----------
    path : SizePath
        The path being built.
    size : int
        The size limit of the failed solve.
    exc : InfeasibleError
        Why it failed (the row's ``"message"``).
    start : float
        ``time.perf_counter()`` when the solve began.
    callback : callable, optional
        Notified of the row, as for a solved size.
    """
    row = {"size": size, "model_size": None, "status": "infeasible", "message": str(exc)}
    row["time"] = time.perf_counter() - start
    path.rows.append(row)
    path.models.append(None)
    _notify(callback, row, None)


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.startswith("_")}


# --- checklists ------------------------------------------------------------------------
def checklist_size_path(
    X,
    y,
    *,
    n_values=None,
    time_limit_per_size: float = 60.0,
    X_test=None,
    y_test=None,
    groups=None,
    test_groups=None,
    callback: RowCallback | None = None,
    stop=None,
    **fit_kwargs: Any,
) -> SizePath:
    """Fit the best checklist with at most ``N`` items for every ``N`` in ``n_values``.

    Uses :func:`~riskexplore.checklist.fit.fit_checklist` with ``max_items=N``, smallest
    first, each warm-started from the previous checklist (the solver ignores a warm start
    that breaks the new problem's constraints).

    Parameters
    ----------
    X, y : training data, as for ``fit_checklist``.
    n_values : iterable of int, or int
        Item limits ``N`` (an int means ``1..N``; default ``1..8``).
    time_limit_per_size : float
        Seconds for each solve.
    X_test, y_test : optional
        Held-out data (adds ``test_error``, ``test_fnr``, ``test_fpr``).
    groups, test_groups : optional
        Groups of the training / test rows; adds the worst FNR/FPR gaps between groups.
        ``groups`` is also passed to ``fit_checklist`` (for group constraints).
    callback : callable ``(row) -> None``, optional
        Called as each size finishes (the row includes ``"model"``).
    stop : threading.Event or callable, optional
        Ends the current solve and the path.
    **fit_kwargs
        Other arguments of ``fit_checklist`` (``binarize``, ``fnr_max``, ``constraints``,
        ``node_limit``, ...).
    """
    try:
        from riskexplore.checklist.fit import fit_checklist
    except ImportError as exc:  # pragma: no cover - depends on the checklist code
        raise InputError(f"checklists are not available: {exc}") from exc

    _check_kwargs(fit_kwargs, _PATH_KEYS + ("stop",))
    has_test = _test_data(X_test, y_test)
    keys = ("error", "fnr", "fpr") + (("max_fnr_gap", "max_fpr_gap") if groups is not None else ())
    test_keys = ("error", "fnr", "fpr", "auc") + (
        ("max_fnr_gap", "max_fpr_gap") if test_groups is not None else ()
    )
    path = SizePath(kind="checklist")
    previous = None
    for N in _sizes(n_values, 8, "n_values"):
        if _stop_requested(stop):
            break
        start = time.perf_counter()
        try:
            model = fit_checklist(
                X,
                y,
                max_items=N,
                time_limit=time_limit_per_size,
                warm_start=previous,
                stop=stop,
                groups=groups,
                **fit_kwargs,
            )
        except InfeasibleError as exc:
            _add_infeasible(path, N, exc, start, callback)
            continue
        cert = model.certificate
        row = {
            "size": N,
            "model_size": model.N,
            "M": model.M,
            "objective": None if model.objective is None else float(model.objective),
            "lower_bound": None if cert is None else float(cert.lower_bound),
            "upper_bound": None if cert is None else float(cert.upper_bound),
            "gap": None if cert is None else float(cert.gap),
            "status": None if cert is None else cert.status,
        }
        row.update(_metrics(model, X, y, "train", keys, groups))
        if has_test:
            row.update(_metrics(model, X_test, y_test, "test", test_keys, test_groups))
        row["time"] = float(model.stats.get("time", time.perf_counter() - start))
        path.rows.append(row)
        path.models.append(model)
        previous = model
        _notify(callback, row, model)
    return path
