"""Cross-validation of model *recipes*, and nested CV to choose free parameters.

A *recipe* is any callable ``recipe(X_train, y_train) -> fitted model``. The model may
be a :class:`~riskexplore.risk_score.model.RiskScore`, a
:class:`~riskexplore.checklist.model.Checklist` or anything with ``predict_risk`` /
``predict_proba`` (risk metrics) or ``predict`` (classifier metrics).

If the recipe accepts a ``cut_pool`` keyword (as the recipes of
:func:`risk_score_recipe` do), it gets one :class:`~riskexplore.risk_score.lcpa.cut_pool.CutPool`
per training set. Cuts depend only on the data, so every solve on the same training
fold -- e.g. every parameter setting of a grid -- shares the pool and starts warm. (The
same holds for every fit argument a family shares between solves on the same data:
:attr:`~riskexplore.core.registry.ModelFamily.shared`.)

Free parameters are chosen the way Section 5.1 of the RiskSLIM paper does: by nested
5-fold CV, maximising the mean test AUC (or minimising the mean test loss). Selection by
CAL is refused: a trivial model that gives everyone the same score has tiny CAL on
imbalanced data ("On the Caveats of CAL", Section 5.2).
"""

from __future__ import annotations

import inspect
import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.registry import families, get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.metrics import as_binary_outcome, model_metrics

__all__ = [
    "NestedCVResult",
    "SELECTION_METRICS",
    "cross_validate_recipe",
    "fold_indices",
    "nested_cv_select",
    "risk_score_recipe",
]

Recipe = Callable[..., Any]

#: metric -> True when larger is better
SELECTION_METRICS = {"auc": True, "loss": False}

#: Metrics recorded per fold for the training and test split, when the model has them.
_FOLD_METRICS = ("cal", "auc", "loss", "brier", "error", "fnr", "fpr", "max_fnr_gap", "max_fpr_gap")


# --- splitting -------------------------------------------------------------------------
def fold_indices(
    y, n_splits: int = 5, seed: int = 0, stratified: bool = True
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train, test)`` row positions (sorted) of each of ``n_splits`` shuffled folds.

    Stratified by the outcome by default: every fold gets the same share of positives
    (up to one example). Deterministic given ``seed``.

    Parameters
    ----------
    y : array-like of shape (n,)
        The outcome.
    n_splits : int
        The number of folds.
    seed : int
        Seed of the shuffle.
    stratified : bool
        Keep the class proportions in every fold.

    Returns
    -------
    list of (ndarray, ndarray)
        Training and test positions of each fold.
    """
    yb = as_binary_outcome(y)
    n_splits = int(n_splits)
    if n_splits < 2:
        raise InputError(f"n_splits must be at least 2, got {n_splits}")
    if n_splits > len(yb):
        raise InputError(f"n_splits = {n_splits} exceeds the number of examples ({len(yb)})")
    rng = np.random.default_rng(seed)
    fold_of = np.empty(len(yb), dtype=np.int64)
    if stratified:
        smallest = int(min(np.sum(yb == 1), np.sum(yb == 0)))
        if smallest < n_splits:
            raise InputError(
                f"the smaller class has {smallest} examples, fewer than n_splits = {n_splits}; "
                "use fewer folds or stratified=False"
            )
        # Deal each class's shuffled rows round-robin, continuing where the previous
        # class stopped, so fold sizes differ by at most one.
        offset = 0
        for label in (1, 0):
            rows = rng.permutation(np.flatnonzero(yb == label))
            fold_of[rows] = (offset + np.arange(len(rows))) % n_splits
            offset += len(rows)
    else:
        fold_of[rng.permutation(len(yb))] = np.arange(len(yb)) % n_splits
    return [(np.flatnonzero(fold_of != k), np.flatnonzero(fold_of == k)) for k in range(n_splits)]


def _take(data, rows: np.ndarray):
    if data is None:
        return None
    if isinstance(data, (pd.DataFrame, pd.Series)):
        return data.iloc[rows]
    return np.asarray(data)[rows]


def _check_xy(X, y) -> int:
    n = len(X)
    if len(y) != n:
        raise InputError(f"X has {n} rows but y has {len(y)}")
    return n


# --- shared fit arguments (cut pools) ------------------------------------------------------
def _accepted(recipe: Recipe, names) -> list[str]:
    """Those of ``names`` that the recipe takes as keywords."""
    try:
        params = inspect.signature(recipe).parameters
    except (TypeError, ValueError):
        return []
    return [name for name in names if name in params]


class _SharedCache:
    """The fit arguments the families share between solves on the same data (a risk
    score's CutPool), one of each per training set (keyed by its row positions)."""

    def __init__(self) -> None:
        self._makers = {k: make for f in families() for k, make in f.shared.items()}
        self._values: dict[bytes, dict[str, Any]] = {}

    def arguments(self, recipe: Recipe, rows: np.ndarray) -> dict[str, Any]:
        names = _accepted(recipe, self._makers)
        if not names:
            return {}
        values = self._values.setdefault(np.asarray(rows, dtype=np.int64).tobytes(), {})
        for name in names:
            if name not in values:
                values[name] = self._makers[name]()
        return {name: values[name] for name in names}


def _fit(recipe: Recipe, X, y, rows: np.ndarray, shared: _SharedCache | None):
    return recipe(X, y, **(shared.arguments(recipe, rows) if shared is not None else {}))


# --- cross-validation ------------------------------------------------------------------
def _split_metrics(model, X, y, groups, prefix: str) -> dict[str, Any]:
    values = model_metrics(model, X, y, groups)
    return {f"{prefix}_{k}": values[k] for k in _FOLD_METRICS if k in values}


def _model_fields(model) -> dict[str, Any]:
    cert = getattr(model, "certificate", None)
    size = getattr(model, "size", None)
    return {
        "size": float(size) if isinstance(size, (int, float, np.integer)) else math.nan,
        "status": None if cert is None else cert.status,
        "gap": math.nan if cert is None else float(cert.gap),
        "lower_bound": math.nan if cert is None else float(cert.lower_bound),
        "upper_bound": math.nan if cert is None else float(cert.upper_bound),
    }


def _run_folds(
    recipe: Recipe,
    X,
    y,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    groups,
    shared: _SharedCache | None,
    return_models: bool,
    base_rows: np.ndarray | None = None,
) -> pd.DataFrame:
    rows = []
    for k, (train, test) in enumerate(folds):
        X_tr, y_tr, X_te, y_te = _take(X, train), _take(y, train), _take(X, test), _take(y, test)
        key = train if base_rows is None else base_rows[train]
        start = time.perf_counter()
        model = _fit(recipe, X_tr, y_tr, key, shared)
        elapsed = time.perf_counter() - start
        row: dict[str, Any] = {"fold": k, "n_train": len(train), "n_test": len(test)}
        row.update(_split_metrics(model, X_tr, y_tr, _take(groups, train), "train"))
        row.update(_split_metrics(model, X_te, y_te, _take(groups, test), "test"))
        row.update(_model_fields(model))
        row["time"] = elapsed
        if return_models:
            row["model"] = model
        rows.append(row)
    return pd.DataFrame(rows)


def cross_validate_recipe(
    recipe: Recipe,
    X,
    y,
    *,
    n_splits: int = 5,
    seed: int = 0,
    stratified: bool = True,
    groups=None,
    return_models: bool = False,
    share_cut_pools: bool = True,
) -> pd.DataFrame:
    """K-fold cross-validation of ``recipe``: one tidy row per fold.

    Parameters
    ----------
    recipe : callable ``(X_train, y_train) -> model``
        Fits a model; if it accepts ``cut_pool=`` it gets one CutPool per training fold.
    X : DataFrame or array (n, d)
    y : array-like (n,)
        Binary outcome.
    n_splits, seed, stratified
        Shuffled K-fold, stratified by the outcome by default.
    groups : array-like (n,) or DataFrame, optional
        Protected groups for per-group error rates of classifiers (``*_max_fnr_gap``,
        ``*_max_fpr_gap``; DataFrame columns are crossed). The folds are not grouped.
    return_models : bool
        Add a ``model`` column with each fold's fitted model.
    share_cut_pools : bool
        Pass a per-fold ``cut_pool`` to recipes that accept one.

    Returns
    -------
    DataFrame
        Columns ``fold, n_train, n_test``; ``train_*`` and ``test_*`` metrics --
        ``cal, auc, loss, brier`` for risk models and ``error, fnr, fpr`` (plus group
        gaps) for models with ``predict``; ``size``; the certificate (``status, gap,
        lower_bound, upper_bound``; NaN/None without one); fit ``time`` in seconds.
    """
    _check_xy(X, y)
    if groups is not None and len(groups) != len(y):
        raise InputError(f"groups has {len(groups)} entries for {len(y)} rows")
    folds = fold_indices(y, n_splits, seed, stratified)
    shared = _SharedCache() if share_cut_pools else None
    return _run_folds(recipe, X, y, folds, groups, shared, return_models)


# --- nested cross-validation -----------------------------------------------------------
def _check_selection(selection: str) -> tuple[str, bool]:
    key = str(selection).lower()
    if key == "cal":
        raise InputError(
            "selection='cal' is not allowed: a trivial model that gives every example the "
            "same score has near-zero CAL on imbalanced data yet AUC 0.5, so choosing by "
            "CAL can select a useless model (Ustun & Rudin 2019, 'On the Caveats of CAL'); "
            "use selection='auc' (their choice) or 'loss'"
        )
    if key not in SELECTION_METRICS:
        raise InputError(f"selection must be 'auc' or 'loss', got {selection!r}")
    return key, SELECTION_METRICS[key]


def _grid(param_grid) -> list[dict[str, Any]]:
    if isinstance(param_grid, Mapping):
        param_grid = [param_grid]
    grid: list[dict[str, Any]] = []
    for part in param_grid:
        if not isinstance(part, Mapping):
            raise InputError("param_grid must be a dict of value lists or a list of such dicts")
        keys = sorted(part)
        values = [list(part[k]) if _is_list(part[k]) else [part[k]] for k in keys]
        grid.extend(dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values))
    if not grid:
        raise InputError("param_grid is empty")
    return grid


def _is_list(value) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping))


def _label(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(defaults)"


def _grid_scores(
    make_recipe,
    grid,
    X,
    y,
    folds,
    shared,
    base_rows,
    metric: str,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-fold rows for every parameter setting, and the per-setting summary."""
    frames = []
    for i, params in enumerate(grid):
        frame = _run_folds(make_recipe(**params), X, y, folds, None, shared, False, base_rows)
        frame.insert(0, "params", _label(params))
        frame.insert(0, "candidate", i)
        frames.append(frame)
    folds_frame = pd.concat(frames, ignore_index=True)
    summary = []
    for i, params in enumerate(grid):
        rows = folds_frame[folds_frame["candidate"] == i]
        entry: dict[str, Any] = {"candidate": i, "params": _label(params), **params}
        for key in ("auc", "loss", "cal"):
            col = rows.get(f"test_{key}")
            if col is not None:
                entry[f"mean_test_{key}"] = float(col.mean())
                entry[f"std_test_{key}"] = float(col.std(ddof=0))
                entry[f"min_test_{key}"] = float(col.min())
                entry[f"max_test_{key}"] = float(col.max())
        for key in ("train_auc", "size", "gap", "time"):
            if key in rows:
                entry[f"mean_{key}"] = float(pd.to_numeric(rows[key], errors="coerce").mean())
        summary.append(entry)
    table = pd.DataFrame(summary)
    col = f"mean_test_{metric}"
    if col not in table or table[col].isna().all():
        raise InputError(
            f"cannot select by {metric}: the fitted models have no test {metric} "
            "(selection needs risk models or models with decision_function)"
        )
    return folds_frame, table


def _best(table: pd.DataFrame, metric: str, larger: bool) -> int:
    """Index of the best candidate (ties: the first in grid order)."""
    values = table[f"mean_test_{metric}"].to_numpy(dtype=float)
    values = np.where(np.isnan(values), -np.inf if larger else np.inf, values)
    return int(np.argmax(values) if larger else np.argmin(values))


@dataclass
class NestedCVResult:
    """Outcome of :func:`nested_cv_select`.

    Attributes
    ----------
    best_params : dict
        Parameters chosen by K-fold CV on the whole dataset.
    model : fitted model or None
        Fitted on the whole dataset with ``best_params`` (None if ``refit=False``).
    grid : DataFrame
        One row per parameter setting: mean/std/min/max test AUC, loss and CAL over
        the K folds of the whole dataset, mean size, gap and time; ``selected`` marks
        the choice.
    cv : DataFrame
        The per-fold rows behind ``grid`` (``candidate`` and ``params`` columns added).
    outer : DataFrame
        One row per outer fold: the parameters chosen by the inner CV on the outer
        training set and the test metrics of the model refit with them. Their means
        estimate the performance of the whole selection procedure (Cawley and Talbot).
    selection : str
        ``"auc"`` or ``"loss"``.
    """

    best_params: dict[str, Any]
    model: Any
    grid: pd.DataFrame
    cv: pd.DataFrame
    outer: pd.DataFrame
    selection: str
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        """A few lines: the chosen parameters and the nested estimate of performance."""
        lines = [f"selected by mean test {self.selection.upper()}: {_label(self.best_params)}"]
        best = self.grid[self.grid["selected"]].iloc[0]
        k = self.cv["fold"].nunique()
        for key in ("auc", "loss", "cal"):
            col = f"mean_test_{key}"
            if col in best and not pd.isna(best[col]):
                lines.append(f"  {k}-CV mean test {key}: {best[col]:.4f}")
        for key in ("auc", "loss", "cal"):
            col = f"test_{key}"
            if col in self.outer and self.outer[col].notna().any():
                lines.append(f"  nested estimate of test {key}: {self.outer[col].mean():.4f}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def nested_cv_select(
    make_recipe: Callable[..., Recipe],
    param_grid,
    X,
    y,
    *,
    n_splits: int = 5,
    inner_splits: int | None = None,
    seed: int = 0,
    stratified: bool = True,
    selection: str = "auc",
    refit: bool = True,
    share_cut_pools: bool = True,
) -> NestedCVResult:
    """Choose free parameters by nested K-fold CV, as in Ustun & Rudin (2019), Section 5.1.

    For each parameter setting ``params`` in ``param_grid``, ``make_recipe(**params)``
    must return a recipe ``(X_train, y_train) -> model``.

    * **Selection** (their procedure, "Parameter Tuning" [1]_): run K-fold CV on the
      whole dataset for each setting and pick the one with the best mean test AUC
      (largest; or smallest mean test loss with ``selection="loss"``); ties go to the
      first setting in grid order, so list simpler settings first. The final model is
      refit on all data.
    * **Estimate**: for each of the K outer folds, repeat the selection with an inner
      CV on the outer training set, refit the chosen setting on the outer training set
      and evaluate it on the outer test fold (``result.outer``). This estimates the
      performance of the whole procedure, selection included.

    Recipes that accept ``cut_pool=`` share one CutPool per training set, i.e. across all
    parameter settings fitted on the same fold.

    Parameters
    ----------
    make_recipe : callable ``(**params) -> recipe``
    param_grid : dict of lists, or list of such dicts (as sklearn's ParameterGrid;
        settings are listed with the keys sorted, values in the given order)
    X, y : data
    n_splits : int
        Folds of the selection CV and of the outer loop (default 5).
    inner_splits : int, optional
        Folds of the inner CV (default ``n_splits``).
    seed, stratified
        Fold shuffling and stratification by the outcome.
    selection : {"auc", "loss"}
        ``"cal"`` raises :class:`InputError`: trivial models can have the lowest CAL.
    refit : bool
        Refit the chosen setting on the whole dataset.

    Returns
    -------
    NestedCVResult

    References
    ----------
    .. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
       Learning Research 20(150):1-75, 2019, Section 5.1.
    """
    metric, larger = _check_selection(selection)
    n = _check_xy(X, y)
    grid = _grid(param_grid)
    inner_splits = n_splits if inner_splits is None else int(inner_splits)
    shared = _SharedCache() if share_cut_pools else None
    everyone = np.arange(n)

    outer_rows = []
    for k, (train, test) in enumerate(fold_indices(y, n_splits, seed, stratified)):
        X_tr, y_tr = _take(X, train), _take(y, train)
        inner = fold_indices(y_tr, inner_splits, seed + 1 + k, stratified)
        _, table = _grid_scores(make_recipe, grid, X_tr, y_tr, inner, shared, train, metric)
        best = _best(table, metric, larger)
        recipe = make_recipe(**grid[best])
        start = time.perf_counter()
        model = _fit(recipe, X_tr, y_tr, train, shared)
        elapsed = time.perf_counter() - start
        row: dict[str, Any] = {"fold": k, "candidate": best, "params": _label(grid[best])}
        row[f"inner_mean_test_{metric}"] = float(table.loc[best, f"mean_test_{metric}"])
        row.update(_split_metrics(model, X_tr, y_tr, None, "train"))
        row.update(_split_metrics(model, _take(X, test), _take(y, test), None, "test"))
        row.update(_model_fields(model))
        row["time"] = elapsed
        outer_rows.append(row)

    folds = fold_indices(y, n_splits, seed, stratified)
    cv, table = _grid_scores(make_recipe, grid, X, y, folds, shared, everyone, metric)
    best = _best(table, metric, larger)
    table["selected"] = table["candidate"] == best
    model = _fit(make_recipe(**grid[best]), X, y, everyone, shared) if refit else None
    return NestedCVResult(
        best_params=dict(grid[best]),
        model=model,
        grid=table,
        cv=cv,
        outer=pd.DataFrame(outer_rows),
        selection=metric,
    )


# --- recipes ---------------------------------------------------------------------------
def risk_score_recipe(**fit_kwargs: Any) -> Recipe:
    """A recipe fitting :func:`~riskexplore.risk_score.fit.fit_risk_score` with ``fit_kwargs``.

    The recipe accepts ``cut_pool=`` so that CV shares one pool per training fold.

    >>> make = lambda max_size: risk_score_recipe(max_size=max_size, time_limit=10)
    >>> result = nested_cv_select(make, {"max_size": [2, 3, 4]}, X, y)  # doctest: +SKIP

    Parameters
    ----------
    **fit_kwargs
        Arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score`.

    Returns
    -------
    callable
        ``recipe(X, y, cut_pool=None) -> RiskScore``.
    """
    if "cut_pool" in fit_kwargs:
        raise InputError("the recipe gets a cut pool per training fold; do not pass cut_pool")
    fit = get_family("risk_score").fit

    def recipe(X, y, cut_pool=None):
        return fit(X, y, cut_pool=cut_pool, **fit_kwargs)

    recipe.fit_kwargs = dict(fit_kwargs)  # type: ignore[attr-defined]
    return recipe
