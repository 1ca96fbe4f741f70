"""Model-size paths: the best model for every size limit, with certified intervals.

:func:`size_path` solves a family's problem with the size limit (a risk score's
``max_size``, a checklist's ``max_items``) at ``1, 2, ...``, smallest first; the family's
path session (:attr:`~riskexplore.core.registry.ModelFamily.path_session`) solves each size,
warm-started from the previous one (risk scores also share one
:class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool`, since loss cuts depend only on the data),
and reports each size's certificate and certified intervals (see
:mod:`riskexplore.risk_score.size_path`); this module adds the train and test metrics.
:func:`risk_score_size_path`, :func:`checklist_size_path` and
:func:`survival_score_size_path` are the families' paths.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.registry import DEFAULT_FAMILY, ModelFamily, get_family
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.evaluation.metrics import model_metrics

__all__ = [
    "SizePath",
    "checklist_size_path",
    "risk_score_size_path",
    "size_path",
    "survival_score_size_path",
]

RowCallback = Callable[[dict[str, Any]], None]

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
        The model family (``"risk_score"``, ``"checklist"``; see
        :mod:`riskexplore.core.registry`).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    models: list[Any] = field(default_factory=list)
    kind: str = DEFAULT_FAMILY

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.to_records())

    def to_records(self) -> list[dict[str, Any]]:
        """The rows, as copies."""
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
        metric = get_family(self.kind).path_metric
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
            else:
                parts.append(get_family(self.kind).describe_path_row(row))
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


# --- the paths -------------------------------------------------------------------------
def size_path(
    X,
    y,
    *,
    family: str | ModelFamily = DEFAULT_FAMILY,
    sizes=None,
    time_limit_per_size: float = 60.0,
    X_test=None,
    y_test=None,
    groups=None,
    test_groups=None,
    callback: RowCallback | None = None,
    cut_pool=None,
    stop=None,
    **fit_kwargs: Any,
) -> SizePath:
    """Fit the best model with at most ``R`` features (items) for every ``R`` in ``sizes``.

    Parameters
    ----------
    X, y : training data, as for the family's fit function.
    family : str or ModelFamily
        The model family (``"risk_score"``, ``"checklist"``; see
        :mod:`riskexplore.core.registry`).
    sizes : iterable of int, or int
        Size limits (an int ``R`` means ``1..R``; default ``1..`` the family's default,
        e.g. ``min(d, 10)`` features or 8 items). ``0`` gives the intercept-only risk
        score.
    time_limit_per_size : float
        Seconds for each solve.
    X_test, y_test : optional
        Held-out data; adds ``test_*`` metrics.
    groups, test_groups : optional
        Groups of the training / test rows: group-rate constraints (checklists) and the
        worst FNR/FPR gaps between groups.
    callback : callable ``(row) -> None``, optional
        Called as each size finishes with its row (a dict, ``"model"`` included), so a
        widget can fill progressively. Lower ends of tightened intervals may still rise
        when larger sizes finish; :meth:`SizePath.to_frame` has the final values.
    cut_pool : CutPool, optional
        Risk scores: a pool already attached to this data.
    stop : threading.Event or callable, optional
        Ends the current solve (keeping its best model) and the path.
    **fit_kwargs
        Other arguments of the family's fit function (``coef_min``, ``c0``,
        ``binarize``, ``fnr_max``, ``constraints``, ``node_limit``, ...).

    Returns
    -------
    SizePath
        Rows as described in :meth:`SizePath.to_frame`; ``path.models`` the models.
    """
    fam = get_family(family)
    _check_kwargs(fit_kwargs, _PATH_KEYS + ("stop", "cut_pool"))
    has_test = _test_data(X_test, y_test)
    session = fam.path_session(
        X, y, groups=groups, test_groups=test_groups, cut_pool=cut_pool, **fit_kwargs
    )
    path = SizePath(kind=fam.name)
    for size in _sizes(sizes, session.default_max, "sizes"):
        if _stop_requested(stop):
            break
        start = time.perf_counter()
        try:
            model = session.solve(size, time_limit_per_size, stop)
        except InfeasibleError as exc:
            _add_infeasible(path, size, exc, start, callback)
            continue
        row: dict[str, Any] = {"size": size, **session.columns(model, size)}
        row.update(_metrics(model, X, y, "train", session.train_metrics, groups))
        if has_test:
            row.update(_metrics(model, X_test, y_test, "test", session.test_metrics, test_groups))
        row["time"] = float(model.stats.get("time", time.perf_counter() - start))
        row.update(session.work(model))
        path.rows.append(row)
        path.models.append(model)
        session.tighten(path.rows)
        _notify(callback, _public(row), model)
    session.tighten(path.rows)
    path.rows = [_public(r) for r in path.rows]
    return path


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
    """The size path of risk scores (:func:`size_path` with ``family="risk_score"``).

    Sizes are solved in increasing order, sharing one CutPool (``cut_pool`` or a new one);
    each is warm-started from the previous size's model when it is feasible.

    Parameters
    ----------
    X, y, sizes, time_limit_per_size, X_test, y_test, callback, cut_pool, stop
        As for :func:`size_path` (test data add ``test_cal``, ``test_auc`` and
        ``test_loss``).
    **fit_kwargs
        Other arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score`
        (``coef_min``, ``coef_max``, ``c0``, ``constraints``, ``scale``,
        ``multiplier_min``, ``node_limit``, ``gap_tolerance``, ...).

    Returns
    -------
    SizePath
        Rows as described in :meth:`SizePath.to_frame`; ``path.models`` the models.
    """
    return size_path(
        X,
        y,
        family="risk_score",
        sizes=sizes,
        time_limit_per_size=time_limit_per_size,
        X_test=X_test,
        y_test=y_test,
        callback=callback,
        cut_pool=cut_pool,
        stop=stop,
        **fit_kwargs,
    )


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
    """The size path of checklists (:func:`size_path` with ``family="checklist"``).

    Parameters
    ----------
    X, y : training data, as for ``fit_checklist``.
    n_values : iterable of int, or int
        Item limits ``N`` (an int means ``1..N``; default ``1..8``).
    time_limit_per_size, X_test, y_test, groups, test_groups, callback, stop
        As for :func:`size_path` (test data add ``test_error``, ``test_fnr``,
        ``test_fpr`` and ``test_auc``).
    **fit_kwargs
        Other arguments of :func:`~riskexplore.checklist.fit.fit_checklist`
        (``binarize``, ``fnr_max``, ``constraints``, ``node_limit``, ...).

    Returns
    -------
    SizePath
        Rows as described in :meth:`SizePath.to_frame`; ``path.models`` the models.
    """
    return size_path(
        X,
        y,
        family="checklist",
        sizes=n_values,
        time_limit_per_size=time_limit_per_size,
        X_test=X_test,
        y_test=y_test,
        groups=groups,
        test_groups=test_groups,
        callback=callback,
        stop=stop,
        **fit_kwargs,
    )


def survival_score_size_path(
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
    """The size path of survival scores (:func:`size_path` with
    ``family="survival_score"``): the certified best score of each size, its Cox loss
    (``cox_loss`` in ``[loss_lower, loss_upper]``) and Harrell's C (``train_c_index``,
    ``test_c_index``).

    Parameters
    ----------
    X : DataFrame or array
        Training rows (a raw table is binarized once).
    y : structured array
        ``[("event", bool), ("time", float)]``.
    sizes, time_limit_per_size, callback, cut_pool, stop
        As for :func:`size_path`.
    X_test, y_test : optional
        Held-out rows and their survival outcome.
    **fit_kwargs
        Other arguments of :func:`~riskexplore.fit_survival_score` (``horizon``,
        ``coef_min``, ``coef_max``, ``c0``, ``constraints``, ``n_jobs``, ...).

    Returns
    -------
    SizePath
        One row per size; ``path.models`` the survival scores.
    """
    return size_path(
        X,
        y,
        family="survival_score",
        sizes=sizes,
        time_limit_per_size=time_limit_per_size,
        X_test=X_test,
        y_test=y_test,
        callback=callback,
        cut_pool=cut_pool,
        stop=stop,
        **fit_kwargs,
    )
