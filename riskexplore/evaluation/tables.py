"""Tables of fitted models on data, for views, reports and papers (no plotly needed).

* :func:`reliability_tables` -- the reliability table of a model on its training and
  held-out data;
* :func:`metrics_table` -- train/test AUC, CAL, loss, size, gap and status of models;
* :func:`path_frame` -- a size path as a DataFrame.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.errors import InputError
from riskexplore.evaluation.metrics import (
    model_metrics,
    model_scores,
    predicted_risk,
    predicts_risk,
    reliability_table,
)

__all__ = [
    "METRIC_COLUMNS",
    "as_models",
    "model_scores_or_predictions",
    "metrics_table",
    "path_frame",
    "reliability_tables",
]

#: Columns of :func:`metrics_table`, in order.
METRIC_COLUMNS = (
    "train AUC",
    "test AUC",
    "train CAL",
    "test CAL",
    "train loss",
    "test loss",
    "size",
    "gap",
    "status",
)


def _reliability_table(model, X, y):
    if predicts_risk(model):
        risk = predicted_risk(model, X)
        return reliability_table(y, risk, model_scores(model, X, risk))
    if hasattr(model, "predict"):
        pred = np.asarray(model.predict(X), dtype=float).ravel()
        scores = (
            np.asarray(model.decision_function(X), dtype=float).ravel()
            if hasattr(model, "decision_function")
            else pred
        )
        return reliability_table(y, pred, scores)
    raise InputError(f"{type(model).__name__} has no predict_risk, predict_proba or predict")


def reliability_tables(model, X, y, X_test=None, y_test=None) -> dict[str, pd.DataFrame]:
    """The reliability tables of a fitted model on its training and held-out data.

    Risk models are grouped by score; classifiers without a risk (checklists) by their
    ``decision_function`` (the number of items checked), with their 0/1 prediction as
    the "predicted risk".

    Parameters
    ----------
    model : object
        A fitted model.
    X, y
        Training data.
    X_test, y_test : optional
        Held-out data.

    Returns
    -------
    dict
        ``{"train": table, "test": table}`` of
        :func:`~riskexplore.evaluation.metrics.reliability_table` (``"test"`` only with
        test data).
    """
    if X is None or y is None:
        raise InputError("a reliability diagram needs the data X and y")
    out = {"train": _reliability_table(model, X, y)}
    if X_test is not None and y_test is not None and len(y_test):
        out["test"] = _reliability_table(model, X_test, y_test)
    return out


def model_scores_or_predictions(model, X) -> np.ndarray:
    """The model's scores (``decision_function``), else its risk, else its predictions
    (what a ROC curve of the model ranks by).

    Parameters
    ----------
    model : object
        A fitted model.
    X : DataFrame or array
        Features.

    Returns
    -------
    ndarray of shape (n,)
        The scores.
    """
    risk = predicted_risk(model, X)
    scores = model_scores(model, X, risk)
    if scores is None:
        scores = model.predict(X)
    return np.asarray(scores, dtype=float).ravel()


def _as_models(models) -> dict[str, Any]:
    if models is None:
        return {}
    if isinstance(models, Mapping):
        return {str(k): m for k, m in models.items() if m is not None}
    if isinstance(models, (list, tuple)):
        return {f"model {i + 1}": m for i, m in enumerate(models) if m is not None}
    return {"model": models}


def as_models(models) -> dict[str, Any]:
    """``{name: model}`` of a model, a list of models or a dict (None entries dropped).

    Parameters
    ----------
    models : model, list, dict or None
        The models.

    Returns
    -------
    dict
        Names (``"model 1"``, ... for a list) to models.
    """
    if models is None:
        return {}
    if isinstance(models, Mapping):
        return {str(k): m for k, m in models.items() if m is not None}
    if isinstance(models, (list, tuple)):
        return {f"model {i + 1}": m for i, m in enumerate(models) if m is not None}
    return {"model": models}


def metrics_table(models, X, y, X_test=None, y_test=None) -> pd.DataFrame:
    """One row per model: train/test AUC, CAL, loss (checklists: error), size, gap, status.

    Parameters
    ----------
    models : model, list or dict
        A model, a list of models or a ``{name: model}`` dict.
    X, y
        Training data.
    X_test, y_test : optional
        Held-out data.

    Returns
    -------
    DataFrame
        Indexed by model name, columns :data:`METRIC_COLUMNS`. Checklists have no CAL or
        logistic loss; their ``loss`` columns hold the 0/1 error instead.
    """
    rows = []
    names = []
    for name, model in as_models(models).items():
        row: dict[str, Any] = {}
        splits = [("train", X, y)]
        if X_test is not None and y_test is not None:
            splits.append(("test", X_test, y_test))
        train = None
        for split, Xs, ys in splits:
            m = model_metrics(model, Xs, ys)
            train = m if split == "train" else train
            row[f"{split} AUC"] = m.get("auc", math.nan)
            row[f"{split} CAL"] = m.get("cal", math.nan)
            row[f"{split} loss"] = m.get("loss", m.get("error", math.nan))
        row["size"] = train.get("size") if train else math.nan
        row["gap"] = train.get("gap") if train else math.nan
        row["status"] = train.get("status") if train else None
        rows.append(row)
        names.append(name)
    frame = pd.DataFrame(rows, index=names, columns=list(METRIC_COLUMNS))
    frame.index.name = "model"
    return frame


def path_frame(path) -> pd.DataFrame:
    """A size path as a DataFrame, sorted by size.

    Parameters
    ----------
    path : SizePath, DataFrame, list of dict or None
        A :class:`~riskexplore.evaluation.paths.SizePath`, its frame or a list of rows
        (``"model"`` entries are dropped).

    Returns
    -------
    DataFrame
        One row per size.
    """
    if path is None:
        return pd.DataFrame()
    if isinstance(path, pd.DataFrame):
        frame = path.copy()
    elif hasattr(path, "to_frame"):
        frame = path.to_frame()
    else:
        frame = pd.DataFrame([{k: v for k, v in dict(r).items() if k != "model"} for r in path])
    if "model" in frame.columns:
        frame = frame.drop(columns=["model"])
    if "size" in frame.columns and len(frame):
        frame = frame.sort_values("size", kind="mergesort").reset_index(drop=True)
    return frame
