"""Validation of features, outcome and weights before fitting or predicting.

Every check raises :class:`~riskexplore.errors.InputError` with a one-line message that
names what is wrong (column, count, value) and how to fix it, before any solver runs.

- :func:`check_training_data` -- features, binary outcome and sample weights for fitting.
- :func:`check_features` -- features at prediction time, matched to the training names.
- :func:`split_outcome` -- split a table into features and an outcome column.
- :func:`check_unique_names` -- refuse repeated column names (DataFrames, CSV headers).
- :func:`check_magnitude` -- refuse feature values too large for a solver to handle.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from riskexplore.errors import InputError

__all__ = [
    "check_features",
    "check_magnitude",
    "check_training_data",
    "check_training_features",
    "check_unique_names",
    "listing",
    "split_outcome",
]

_SHOW = 5  # how many names or values an error message lists before "..."


def listing(items, limit: int = _SHOW) -> str:
    """Names or values for a message: ``'a', 'b', 3, ... (4 more)``.

    Parameters
    ----------
    items : iterable
        The names or values (strings quoted).
    limit : int
        How many are written before ``... (N more)``.

    Returns
    -------
    str
        The text.
    """
    items = list(items)
    shown = [repr(x) if isinstance(x, str) else str(x) for x in items[:limit]]
    more = len(items) - limit
    return ", ".join(shown) + (f", ... ({more} more)" if more > 0 else "")


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"


# --- features --------------------------------------------------------------------------
def _numbers(positions: list[int]) -> str:
    """``[1, 3, 5]`` -> ``"1, 3 and 5"``."""
    shown = [str(p) for p in positions]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def check_unique_names(names, where: str = "X") -> None:
    """Refuse repeated column names, naming each one and its columns (counted from 1).

    ``where`` is what holds the columns, for the message (``"X"``, a file name). Used
    for DataFrames (features, tables to binarize) and for a CSV file's header row, which
    pandas would otherwise silently rename (the second ``a`` becomes ``a.1``).

    Parameters
    ----------
    names : sequence of str
        The column names.
    where : str
        The table, for the message.

    Raises
    ------
    InputError
        Naming every repeated name and its columns.
    """
    columns: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        if str(name).strip():  # blank names are reported where they matter
            columns.setdefault(str(name), []).append(j + 1)
    repeated = [f"{n!r} (columns {_numbers(p)})" for n, p in columns.items() if len(p) > 1]
    if repeated:
        more = len(repeated) - _SHOW
        listed = ", ".join(repeated[:_SHOW]) + (f", ... ({more} more)" if more > 0 else "")
        noun = "name" if len(repeated) == 1 else "names"
        raise InputError(
            f"{where} repeats the column {noun} {listed}; rename the repeated columns so "
            "that each column has a unique name"
        )


def _check_names(names, where: str = "X") -> list[str]:
    out = []
    for j, name in enumerate(names):
        text = "" if name is None else str(name)
        if not text.strip():
            raise InputError(
                f"feature name at position {j} is empty; give every feature a non-blank name"
            )
        out.append(text)
    check_unique_names(out, where)
    return out


def _not_numeric(name: str, dtype, example=None) -> InputError:
    shown = f", e.g. {example!r}" if example is not None else ""
    fix = "encode or binarize it into numeric (e.g. 0/1) columns first"
    if isinstance(example, str) and not pd.isna(pd.to_numeric(example, errors="coerce")):
        fix = "it holds numbers stored as text: convert it with pd.to_numeric first"
    return InputError(f"feature {name!r} is not numeric (dtype {dtype}{shown}); {fix}")


def _column_to_float(values, name: str) -> np.ndarray:
    """One feature column (Series or 1-D array) as float, or an error naming it."""
    if isinstance(values, pd.Series):
        dtype = values.dtype
        if pd.api.types.is_bool_dtype(dtype) or (
            pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
        ):
            return values.to_numpy(dtype=float, na_value=np.nan)
        values = values.to_numpy(dtype=object)
        if not pd.api.types.is_object_dtype(dtype):  # str, category, datetime, ...
            example = next((v for v in values if not pd.isna(v)), None)
            raise _not_numeric(name, dtype, example)
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        return values.astype(float)
    if values.dtype.kind == "O":
        for v in values:
            if v is None or v is pd.NA or isinstance(v, numbers.Real):
                continue
            raise _not_numeric(name, f"object with {type(v).__name__} values", v)
        return np.array([np.nan if pd.isna(v) else float(v) for v in values], dtype=float)
    example = values[0] if values.size else None
    if isinstance(example, np.generic):
        example = example.item()
    raise _not_numeric(name, values.dtype, example)


def _check_finite(X: np.ndarray, names: list[str]) -> None:
    for kind, bad in (("missing (NaN)", np.isnan(X)), ("infinite", np.isinf(X))):
        counts = bad.sum(axis=0)
        columns = np.flatnonzero(counts)
        if columns.size:
            j = int(columns[0])
            first = int(np.flatnonzero(bad[:, j])[0])
            others = [names[k] for k in columns[1:]]
            also = f" (also in {listing(others)})" if others else ""
            raise InputError(
                f"feature {names[j]!r} has {kind} values in {int(counts[j])} of {X.shape[0]} "
                f"rows (first at row position {first}){also}; drop or impute those rows, "
                "or drop the column"
            )


def check_magnitude(X: np.ndarray, names: list[str], limit: float, model: str) -> None:
    """Refuse feature values larger than ``limit`` in absolute value.

    A model whose points multiply the features (a risk score) is solved by linear programs
    whose numbers grow with the features; beyond about 1e15 the solver's arithmetic fails.

    Parameters
    ----------
    X : float ndarray (n, d)
        Finite features (after :func:`check_training_data`).
    names : list of str
        Their column names.
    limit : float
        The largest absolute value allowed.
    model : str
        The model, in words, for the message (e.g. ``"a risk score"``).

    Raises
    ------
    InputError
        Naming the first column at fault, its largest value and its row, and the fix.
    """
    if X.size == 0:
        return
    biggest = np.abs(X).max(axis=0)
    columns = np.flatnonzero(biggest > limit)
    if not columns.size:
        return
    j = int(columns[0])
    row = int(np.argmax(np.abs(X[:, j])))
    others = [names[k] for k in columns[1:]]
    also = f" (also {listing(others)})" if others else ""
    raise InputError(
        f"feature {names[j]!r} has a value of {X[row, j]:,.6g} (row position {row}){also}; "
        f"{model} allows values between -{limit:,.0f} and {limit:,.0f}: rescale the column "
        "(for example to thousands, or its logarithm) or drop it"
    )


def _frame_to_array(X: pd.DataFrame, names: list[str]) -> np.ndarray:
    out = np.empty((X.shape[0], X.shape[1]), dtype=float)
    for j, name in enumerate(names):
        out[:, j] = _column_to_float(X.iloc[:, j], name)
    return out


def _array_to_float(X: np.ndarray, names: list[str]) -> np.ndarray:
    if X.dtype.kind in "biuf":
        return X.astype(float)
    out = np.empty(X.shape, dtype=float)
    for j, name in enumerate(names):
        out[:, j] = _column_to_float(X[:, j], name)
    return out


def _as_2d_array(X, what: str = "X") -> np.ndarray:
    if isinstance(X, pd.Series):
        raise InputError(
            f"{what} is a single Series; pass a DataFrame (e.g. {what}.to_frame()) with one "
            "column per feature"
        )
    try:
        array = np.asarray(X)
    except ValueError:
        raise InputError(
            f"{what} could not be read as a table: rows have different lengths; give every "
            "row one value per feature"
        ) from None
    if array.ndim != 2:
        hint = " (use X.reshape(-1, 1) for a single feature)" if array.ndim == 1 else ""
        raise InputError(
            f"{what} must be 2-D (rows x features), got {array.ndim}-D with shape "
            f"{array.shape}{hint}"
        )
    return array


def _check_not_empty(n: int, d: int) -> None:
    if n == 0:
        raise InputError("X has no rows; need at least one example per class")
    if d == 0:
        raise InputError("X has no feature columns; give at least one feature")


def _features(X, feature_names) -> tuple[np.ndarray, list[str]]:
    """Training features as a float array and their names."""
    if isinstance(X, pd.DataFrame):
        if feature_names is not None:
            names = _check_names(feature_names, "feature_names")
            X = _select_columns(X, names, "selected by feature_names")
        names = _check_names(X.columns)
        _check_not_empty(*X.shape)
        return _frame_to_array(X, names), names
    array = _as_2d_array(X)
    _check_not_empty(*array.shape)
    d = array.shape[1]
    if feature_names is None:
        names = [f"x{j}" for j in range(d)]
    else:
        names = _check_names(list(feature_names), "feature_names")
        if len(names) != d:
            raise InputError(
                f"got {len(names)} feature names for {d} columns of X; give one name per column"
            )
    return _array_to_float(array, names), names


def _select_columns(X: pd.DataFrame, names: list[str], role: str) -> pd.DataFrame:
    """Columns of ``X`` named ``names`` (compared as strings), in that order."""
    labels: dict[str, object] = {}
    for label in X.columns:
        labels.setdefault(str(label), label)
    missing = [n for n in names if n not in labels]
    if missing:
        raise InputError(
            f"X is missing {len(missing)} feature column(s) {role}: {listing(missing)}; "
            "add them with the same names"
        )
    positions = []
    for name in names:
        hits = [i for i, label in enumerate(X.columns) if str(label) == name]
        if len(hits) > 1:
            raise InputError(f"X has {len(hits)} columns named {name!r}; keep only one")
        positions.append(hits[0])
    return X.iloc[:, positions]


# --- outcome ---------------------------------------------------------------------------
def _outcome(y, n: int) -> np.ndarray:
    """The outcome as {-1, +1} ints; the larger value (True for booleans) is +1."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise InputError(
                f"y has {y.shape[1]} columns; give a single outcome column (e.g. df['target'])"
            )
        y = y.iloc[:, 0]
    order = None
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype) and y.cat.ordered:
        order = list(y.cat.categories)
    values = y.to_numpy(dtype=object) if isinstance(y, pd.Series) else np.asarray(y, dtype=object)
    if values.ndim == 2 and 1 in values.shape:
        values = values.ravel()
    if values.ndim != 1:
        raise InputError(f"y must be 1-D (one outcome per row), got shape {values.shape}")
    if len(values) != n:
        raise InputError(f"X has {n} rows but y has {len(values)} values; give one outcome per row")
    missing = np.array([_is_missing(v) for v in values], dtype=bool)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise InputError(
            f"outcome has {_count(int(missing.sum()), 'missing value')} (first at row "
            f"position {first}); drop those rows before fitting"
        )
    labels = pd.unique(pd.Series(values, dtype=object))
    if len(labels) == 1:
        raise InputError(
            f"constant outcome: all rows are {labels[0]!r}; need examples of both classes"
        )
    if len(labels) > 2:
        try:
            shown = sorted(labels)
        except TypeError:
            shown = list(labels)
        raise InputError(
            f"outcome has {len(labels)} distinct values ({listing(shown)}) but must be "
            "binary; group or threshold it into two classes"
        )
    if order is not None:
        positive = max(labels, key=order.index)
    else:
        try:
            positive = max(labels)
        except TypeError:
            raise InputError(
                f"outcome mixes value types ({labels[0]!r} and {labels[1]!r}); use two labels "
                "of one type, e.g. 0/1"
            ) from None
    return np.where(values == positive, 1, -1).astype(np.int64)


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    return False


# --- weights ---------------------------------------------------------------------------
def _weights(sample_weight, n: int, y: np.ndarray) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise InputError("sample_weight must be numbers, one per row") from None
    if w.ndim == 2 and 1 in w.shape:
        w = w.ravel()
    if w.ndim != 1 or len(w) != n:
        raise InputError(
            f"sample_weight has shape {w.shape} but X has {n} rows; give one weight per row"
        )
    bad = ~np.isfinite(w)
    if bad.any():
        raise InputError(
            f"sample_weight has {_count(int(bad.sum()), 'NaN or infinite value')} (first at "
            f"row position {int(np.flatnonzero(bad)[0])}); weights must be finite"
        )
    negative = w < 0
    if negative.any():
        raise InputError(
            f"sample_weight has {_count(int(negative.sum()), 'negative value')} "
            f"(smallest {w.min():g}); weights must be >= 0"
        )
    if not (w > 0).any():
        raise InputError("sample_weight is zero for every row; give some rows a positive weight")
    for label, text in ((1, "positive"), (-1, "negative")):
        if not (w[y == label] > 0).any():
            raise InputError(
                f"every {text} example has zero sample_weight; the weighted outcome is "
                "constant, so give both classes some weight"
            )
    return w.copy()


# --- public API ------------------------------------------------------------------------
def check_training_data(X, y, sample_weight=None, feature_names=None):
    """Validate training data for a risk score.

    Parameters
    ----------
    X : DataFrame, ndarray or nested list, shape (n, d)
        Numeric (or boolean) features without missing or infinite values. With a
        DataFrame, ``feature_names`` (optional) selects and orders columns by name.
    y : Series, ndarray or list, shape (n,)
        Binary outcome of any type (0/1, -1/+1, booleans, ``"yes"``/``"no"``, ...). The
        positive class is the larger value after sorting (``True`` for booleans, the
        last category of an ordered categorical).
    sample_weight : array-like (n,), optional
        Finite, non-negative weights, positive for at least one row of each class.
    feature_names : list of str, optional
        Names of the columns of an array ``X`` (default ``x0, x1, ...``).

    Returns
    -------
    X : float ndarray (n, d)
    y : int ndarray (n,) with values in {-1, +1}
    w : float ndarray (n,)
    names : list of str

    Raises
    ------
    InputError
        With a one-line message naming the column, value or argument at fault.
    """
    X_array, names = _features(X, feature_names)
    n = X_array.shape[0]
    if y is None:
        raise InputError("y is missing; give the outcome, one value per row of X")
    y_pm = _outcome(y, n)
    _check_finite(X_array, names)
    w = _weights(sample_weight, n, y_pm)
    return np.ascontiguousarray(X_array), y_pm, w, names


def check_training_features(X, feature_names=None) -> tuple[np.ndarray, list[str]]:
    """Validate the features of a model whose outcome is checked elsewhere (a survival
    outcome, :func:`~riskexplore.data.survival.check_survival_outcome`).

    Parameters
    ----------
    X : DataFrame, ndarray or nested list, shape (n, d)
        Numeric (or boolean) features without missing or infinite values.
    feature_names : list of str, optional
        As for :func:`check_training_data`.

    Returns
    -------
    X : float ndarray (n, d)
    names : list of str

    Raises
    ------
    InputError
        Naming the column or value at fault.
    """
    X_array, names = _features(X, feature_names)
    _check_finite(X_array, names)
    return np.ascontiguousarray(X_array), names


def check_features(X, feature_names) -> np.ndarray:
    """Validate features at prediction time against the training ``feature_names``.

    A DataFrame is matched by column name: columns are reordered to ``feature_names``,
    extra columns are ignored and missing ones are reported by name. An array or list
    must have one column per feature, in training order; a 1-D array of length ``d`` is
    taken as a single row. Returns a float ndarray of shape (n, d).

    Parameters
    ----------
    X : DataFrame or array
        Features to predict on (a DataFrame's columns are matched by name).
    feature_names : sequence of str
        The training features.

    Returns
    -------
    ndarray of shape (n, d)
        The features, in training order.

    Raises
    ------
    InputError
        For missing or non-numeric columns, missing values or a wrong shape.
    """
    names = _check_names(list(feature_names), "feature_names")
    if isinstance(X, pd.DataFrame):
        X = _select_columns(X, names, "used in training")
        if X.shape[0] == 0:
            raise InputError("X has no rows; give at least one row to predict")
        out = _frame_to_array(X, names)
    else:
        if not isinstance(X, pd.Series):
            try:
                flat = np.asarray(X)
            except ValueError:
                flat = None  # ragged; reported by _as_2d_array
            if flat is not None and flat.ndim == 1 and flat.shape[0] == len(names):
                X = flat.reshape(1, -1)  # a single row
        array = _as_2d_array(X)
        if array.shape[0] == 0:
            raise InputError("X has no rows; give at least one row to predict")
        if array.shape[1] != len(names):
            raise InputError(
                f"X has {array.shape[1]} columns but the model uses {len(names)} features "
                f"({listing(names)}); give them in training order or pass a DataFrame"
            )
        out = _array_to_float(array, names)
    _check_finite(out, names)
    return np.ascontiguousarray(out)


def split_outcome(frame, target=None):
    """Split a table into ``(X, y)``: ``y`` is column ``target`` (default: the first).

    ``X`` is a DataFrame with the remaining columns in their order and ``y`` a Series;
    values are not converted (pass them to :func:`check_training_data`).

    Parameters
    ----------
    frame : DataFrame
        The table.
    target : str, optional
        The outcome column.

    Returns
    -------
    tuple
        ``(X, y)``.

    Raises
    ------
    InputError
        For an unknown target or a table of one column.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            f"expected a pandas DataFrame with the outcome and features, got {type(frame).__name__}"
        )
    if frame.shape[1] < 2:
        raise InputError(
            f"the table has {frame.shape[1]} column(s); need an outcome column and at least "
            "one feature"
        )
    if target is None:
        position = 0
    else:
        matches = [i for i, c in enumerate(frame.columns) if c == target]
        if not matches:
            matches = [i for i, c in enumerate(frame.columns) if str(c) == str(target)]
        if not matches:
            raise InputError(
                f"unknown outcome column {target!r}; available columns: "
                f"{listing([str(c) for c in frame.columns], limit=20)}"
            )
        if len(matches) > 1:
            raise InputError(f"{len(matches)} columns are named {target!r}; keep only one")
        position = matches[0]
    y = frame.iloc[:, position]
    X = frame.iloc[:, [i for i in range(frame.shape[1]) if i != position]]
    return X, y
