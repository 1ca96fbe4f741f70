"""Binarization of raw features into 0/1 items, shared by both model families.

:class:`Binarizer` turns a table of real-valued, ordinal, categorical and binary columns
into binary *items* such as ``"age ≥ 58"``, ``"cp = 2"``, ``"not fbs"`` or
``"creatinine missing"``, the inputs of a predictive checklist (an M-of-N rule) or of a
risk score fitted on a raw table (:mod:`riskexplore.risk_score.raw_table`). It implements
the two binarizations of the predictive checklists paper (section 5):

- ``method="adaptive"``: every real/ordinal column gives one item per quantile cut point
  (quintiles by default: 4 thresholds) and every categorical column gives one item per
  category (one-hot), so that the learner chooses the threshold / category;
- ``method="fixed"``: one item per column -- real/ordinal columns at the median,
  categorical columns for the most common category;

plus user (e.g. clinical) cut-offs per column through ``thresholds``, and, with
``round_cuts=True`` (the risk-score default), quantile cut points moved to clinically
round numbers nearby (:mod:`riskexplore.data.round_cuts`). Every item belongs to the
*feature group* of its source column (:attr:`Binarizer.item_groups_`), so that a checklist
(or a risk score) can be limited to one item per column (paper section 3). Columns that
cannot give items (all missing, an identifier, constant) are skipped with a
:class:`~riskexplore.errors.DataWarning` (:mod:`riskexplore.data.column_screen`).

This module is the transformer; the items themselves and their names are
:mod:`riskexplore.data.items`, the cut points of threshold items
:mod:`riskexplore.data.thresholds`, the categories :mod:`riskexplore.data.categories`.

>>> import pandas as pd
>>> X = pd.DataFrame({"pH": [7.1, 7.3, 7.4, 7.2], "sex": ["F", "M", "M", "F"]})
>>> b = Binarizer(thresholds={"pH": [("<=", 7.29)]}).fit(X)
>>> list(b.get_feature_names_out())
['pH ≤ 7.29', 'pH > 7.29', 'sex = F', 'sex = M']
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError

from riskexplore.data.categories import (
    as_fitted_categories,
    category_counts,
    sorted_levels,
)
from riskexplore.data.column_screen import skip_column, unusable_reason
from riskexplore.data.items import (
    COMPLEMENT,
    Item,
    compare,
    format_value,
    name_items,
    plain_value,
)
from riskexplore.data.thresholds import parse_thresholds, threshold_cuts
from riskexplore.data.validation import check_unique_names, listing
from riskexplore.errors import InputError

__all__ = ["Binarizer", "Item"]

_FORMAT = "riskexplore.Binarizer"
_VERSION = 1

_KINDS = ("numeric", "categorical", "binary", "thresholds")
_MISSING_POLICIES = ("zero", "indicator", "error")


class Binarizer(TransformerMixin, BaseEstimator):
    """Turn a raw table into 0/1 checklist items (scikit-learn transformer).

    Parameters
    ----------
    method : {"adaptive", "fixed"}, default "adaptive"
        ``"adaptive"``: a real-valued or ordinal column gives the items ``col ≥ v`` for
        the ``n_quantiles``-quantile cut points ``v`` (quintiles by default, i.e. up to 4
        thresholds); a categorical column gives one item ``col = c`` per category seen
        at fit (one-hot). ``"fixed"``: one item ``col ≥ median`` per real/ordinal
        column and one item ``col = c`` per categorical column for its most common
        category (ties: the smallest category).
    n_quantiles : int, default 5
        Number of quantile bins of the adaptive method (``n_quantiles - 1`` cut points).
    complements : bool, default True
        Also add the complement of each item, in the same group: ``col < v`` for
        ``col ≥ v``, ``col ≤ v`` for ``col > v``, ``col ≠ c`` for ``col = c`` and
        ``not col`` for a binary column ``col``. In the adaptive method a categorical
        column with exactly two categories gets no ``≠`` items (``col = a`` and
        ``col = b`` already are each other's complement); without complements it gives
        ONE item, ``col = c`` for its less common category ``c`` (a tie: the later of
        the two sorted; ``sex`` of ``F``/``M`` gives ``sex = M``), since the other item
        would only be its complement.
    thresholds : dict or None
        User (e.g. clinical) cut-offs that replace the method for the listed columns:
        ``{col: [v1, v2]}`` gives ``col ≥ v1``, ``col ≥ v2``; ``{col: [("<=", 7.29),
        (">=", 140)]}`` gives exactly these items. Operators: ``≥``/``>=``, ``>``,
        ``≤``/``<=``, ``<``. These items are kept even if constant on the training data.
    categorical : "auto" or list of column names, default "auto"
        Columns to treat as categorical (one-hot) in addition to the auto-detected ones.
        Auto-detection: object, string and category dtypes are categorical, as are
        integer columns with at most ``max_categories_auto`` distinct values. For the
        bundled ``heart`` data pass ``categorical=["cp", "thal", "ca", "slope",
        "restecg"]`` (or ``max_categories_auto=5``), since these are integer codes.
    max_categories_auto : int, default 0
        Integer columns with at most this many distinct values are treated as
        categorical (0: never).
    missing : {"zero", "indicator", "error"}, default "zero"
        Missing values (NaN/None/NA). At fit, thresholds and categories are computed on
        the non-missing values. At transform, with ``"zero"`` a missing value sets every
        item of its column to 0 (also the complements). With ``"indicator"`` a column
        that has missing values at fit also gets the item ``"col missing"`` (operator
        ``"missing"``, last in the column's group): 1 where the value is missing, while
        every other item of the column is 0 there; a column without missing values at
        fit gets no such item, so missing values met at transform set its items to 0
        (as ``"zero"`` does). With ``"error"`` missing values raise
        :class:`~riskexplore.errors.InputError` naming the column and the number of rows
        (at fit and at transform).
    unknown : {"ignore", "error"}, default "ignore"
        Categories not seen at fit (at transform): with ``"ignore"`` every ``col = c``
        item is 0 and every ``col ≠ c`` item is 1 for such a row (binary columns: ``col``
        is 0 and ``not col`` is 1); with ``"error"`` they raise InputError.
    round_cuts : bool, default False
        Move each quantile (or median) cut point to a clinically round number nearby
        (``age ≥ 57.3`` -> ``age ≥ 55``): the roundest number of the grids
        ``5, 2.5, 2, 1 × 10^k``, coarsest first, whose share of training rows below it
        stays within 5 percentage points of the quantile's and strictly between its
        neighbours' (cut points never merge); see :mod:`riskexplore.data.round_cuts`.
        User ``thresholds`` are never moved. On in the risk-score options
        (:data:`~riskexplore.risk_score.raw_table.BINARIZE_OPTIONS`); off by default, so
        checklists keep the paper's quantile cut points.
    min_rows : int, default 1
        A category gives its item ``col = c``, and a column its ``"col missing"`` item,
        only when at least this many training rows have it: an item true for a handful
        of patients lets a score give points to those few rows. The rows of a rarer
        category (or missing value) get 0 in every item of the column, as a category not
        seen at fit does. Thresholds and 0/1 columns are not affected. 10 in the
        risk-score options; 1 (every category) by default.

    Notes
    -----
    Other policies:

    - Binary columns (non-missing values exactly {0, 1} or {False, True}, and not listed
      in ``categorical``) pass through as one item named ``col`` (plus ``not col``).
    - Adaptive thresholds are rounded to 4 significant digits (at least integer
      precision) so that names show them exactly; on integer-valued columns they are
      rounded up to integers (``age ≥ 47.5`` is ``age ≥ 48`` on integers). A cut point
      at the minimum becomes ``col > min`` (e.g. ``capital_gain > 0``); cut points that
      would give a constant item, or the same split of the training data as an earlier
      one, are skipped. The fixed method follows the same rules at the median.
    - Columns that cannot give items are skipped with a
      :class:`~riskexplore.errors.DataWarning` naming the column and the reason, and
      recorded in :attr:`dropped_columns_` (see :mod:`riskexplore.data.column_screen`): a
      column with every value missing; an identifier (text or categories with a
      different value in every row of at least 20 rows, or whole numbers with a
      different value in every row and a name like ``id``, ``patient_id``,
      ``PatientID``; not a column with ``thresholds``); a constant column (one distinct
      non-missing value). If no column is left, fitting raises InputError.
    - Input that is not a DataFrame gets column names ``x0, x1, ...``. At transform the
      columns are matched by name (extra columns are ignored; missing ones that have
      items raise InputError naming them); a 2-D array of the fitted width is taken in the
      fitted column order.
    - Fitted thresholds and categories are reused at transform; they are never refit.
    - Item names are unique: a clash (e.g. a column literally named ``"not x"``) gets a
      suffix `` #2``.

    Attributes
    ----------
    items_ : list of :class:`Item`
        The items in output order, with column, operator and value.
    item_groups_ : dict
        Item name -> source column (the feature group of the item).
    column_kinds_ : dict
        Column -> ``"numeric"``, ``"categorical"``, ``"binary"`` or ``"thresholds"``.
    categories_ : dict
        Categorical or binary column -> categories seen at fit (sorted).
    thresholds_ : dict
        Numeric or thresholds column -> list of ``(op, value)`` of its (non-complement)
        items.
    dropped_columns_ : dict
        Column -> reason it gave no items (all missing, an identifier, constant).
    feature_names_in_, n_features_in_ : as in scikit-learn.

    Output of :meth:`transform`: a DataFrame of ``uint8`` with the item names as columns
    and the index of the input.
    """

    def __init__(
        self,
        method: str = "adaptive",
        n_quantiles: int = 5,
        complements: bool = True,
        thresholds: dict | None = None,
        categorical="auto",
        max_categories_auto: int = 0,
        missing: str = "zero",
        unknown: str = "ignore",
        round_cuts: bool = False,
        min_rows: int = 1,
    ):
        self.method = method
        self.n_quantiles = n_quantiles
        self.complements = complements
        self.thresholds = thresholds
        self.categorical = categorical
        self.max_categories_auto = max_categories_auto
        self.missing = missing
        self.unknown = unknown
        self.round_cuts = round_cuts
        self.min_rows = min_rows

    # --- parameters --------------------------------------------------------------------
    def _check_params(self) -> None:
        if isinstance(self.min_rows, bool) or not isinstance(self.min_rows, numbers.Integral):
            raise InputError(f"min_rows must be a whole number >= 1, not {self.min_rows!r}")
        if self.min_rows < 1:
            raise InputError(f"min_rows must be >= 1, not {self.min_rows}")
        if self.method not in ("adaptive", "fixed"):
            raise InputError(f"method must be 'adaptive' or 'fixed', not {self.method!r}")
        if self.missing not in _MISSING_POLICIES:
            raise InputError(
                f"missing must be 'zero', 'indicator' or 'error', not {self.missing!r}"
            )
        if self.unknown not in ("ignore", "error"):
            raise InputError(f"unknown must be 'ignore' or 'error', not {self.unknown!r}")
        n = self.n_quantiles
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
            raise InputError(f"n_quantiles must be an integer >= 2, not {n!r}")
        m = self.max_categories_auto
        if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 0:
            raise InputError(f"max_categories_auto must be an integer >= 0, not {m!r}")

    def _user_thresholds(self, columns) -> dict:
        return parse_thresholds(self.thresholds or {}, columns)

    # --- fit ---------------------------------------------------------------------------
    @staticmethod
    def _as_frame(X) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
            check_unique_names(names)
            if names != list(X.columns):
                X = X.set_axis(names, axis=1)
            return X
        if isinstance(X, pd.Series):
            return X.to_frame(name=str(X.name) if X.name is not None else "x0")
        arr = np.asarray(X)
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2:
            raise InputError(f"X must be a 2-D table, got an array with {arr.ndim} dimensions")
        return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])

    def fit(self, X, y=None, sample_weight=None):
        """Compute the items (thresholds, categories) from the training table ``X``.

        Parameters
        ----------
        X : DataFrame or array of shape (n, d)
            The training table.
        y : ignored
            Present for scikit-learn pipelines.
        sample_weight : array-like of shape (n,), optional
            Weights of the rows: a row of weight 0 is left out, and whole-number weights
            count as repeated rows (so fitting with weights is fitting on the repeated
            rows). Other weights do not change the cut points.

        Returns
        -------
        Binarizer
            ``self``.
        """
        self._check_params()
        X = self._as_frame(X)
        if sample_weight is not None:
            X = _weighted_rows(X, sample_weight)
        if X.shape[0] == 0:
            raise InputError("X has no rows; binarization needs at least one example")
        columns = list(X.columns)
        user = self._user_thresholds(columns)
        forced = self._forced_categorical(columns)
        clash = [c for c in user if c in forced]
        if clash:
            raise InputError(
                f"columns {listing(clash)} have thresholds and are listed as categorical; "
                "choose one"
            )

        items, kinds, categories, thresholds, dropped = [], {}, {}, {}, {}
        for col in columns:
            series = X[col]
            reason = unusable_reason(col, series, may_be_id=col not in user)
            if reason is not None:
                skip_column(dropped, col, reason)
                continue
            present = series.notna().to_numpy()
            if self.missing == "error" and not present.all():
                raise self._missing_error(col, int((~present).sum()))
            values = series[present]
            kind = self._kind(col, values, user, forced)
            if kind in ("numeric", "thresholds"):
                numbers_ = self._numeric(col, values)
                levels = np.unique(numbers_)
            else:
                levels = sorted_levels(values)
            if len(levels) == 1:
                reason = f"constant (every non-missing value is {format_value(levels[0])})"
                skip_column(dropped, col, reason)
                continue
            kinds[col] = kind
            if self.missing == "indicator" and (~present).sum() >= self.min_rows:
                items.append((col, "missing", None))  # sorted last in its column below
            if kind == "thresholds":
                cuts = list(user[col])
            elif kind == "numeric":
                cuts = threshold_cuts(
                    numbers_, levels, self.method, self.n_quantiles, self.round_cuts
                )
            else:
                categories[col] = [plain_value(v) for v in levels]
                items += self._categorical_items(col, kind, categories[col], values)
                continue
            thresholds[col] = cuts
            items += [(col, op, value) for op, value in cuts]
            if self.complements:
                items += [(col, COMPLEMENT[op], value) for op, value in cuts]

        if not kinds:
            why = "; ".join(f"{c!r} is {r}" for c, r in dropped.items()) or "X has no columns"
            raise InputError(f"no column of X can give items: {why}")
        # items grouped by column in input order; in a column, complements come after the
        # items and the missing-value item last
        order = {c: j for j, c in enumerate(columns)}
        items.sort(key=lambda it: (order[it[0]], it[1] == "missing"))
        self.items_ = name_items(items, kinds)
        self.item_groups_ = {item.name: item.column for item in self.items_}
        self.column_kinds_ = kinds
        self.categories_ = categories
        self.thresholds_ = thresholds
        self.dropped_columns_ = dropped
        self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = len(columns)
        return self

    def _forced_categorical(self, columns) -> list:
        spec = self.categorical
        if spec is None or (isinstance(spec, str) and spec == "auto"):
            return []
        if isinstance(spec, str):
            spec = [spec]
        spec = [str(c) for c in spec]
        unknown = [c for c in spec if c not in columns]
        if unknown:
            raise InputError(
                f"categorical names columns not in the data: {listing(unknown)}; "
                f"columns are {listing(columns)}"
            )
        return spec

    def _kind(self, col, values: pd.Series, user, forced) -> str:
        dtype = values.dtype
        if col in user:
            if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_object_dtype(dtype)):
                raise InputError(
                    f"column {col!r} has thresholds but is not numeric (dtype {dtype}); "
                    "remove its thresholds or convert it to numbers"
                )
            return "thresholds"
        if col in forced:
            return "categorical"
        if pd.api.types.is_bool_dtype(dtype):
            return "binary"
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
            uniq = pd.unique(values.to_numpy(dtype=float))
            if set(uniq.tolist()) == {0.0, 1.0}:
                return "binary"
            if (
                pd.api.types.is_integer_dtype(dtype)
                and self.max_categories_auto
                and len(uniq) <= self.max_categories_auto
            ):
                return "categorical"
            return "numeric"
        if (
            pd.api.types.is_object_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype)
            or isinstance(dtype, pd.CategoricalDtype)
        ):
            return "categorical"
        raise InputError(
            f"column {col!r} is neither numeric nor categorical (dtype {dtype}); "
            "convert it or list it in categorical"
        )

    @staticmethod
    def _numeric(col, values: pd.Series) -> np.ndarray:
        converted = pd.to_numeric(values, errors="coerce")
        bad = converted.isna().to_numpy() & values.notna().to_numpy()
        if bad.any():
            example = values[bad].iloc[0]
            raise InputError(
                f"column {col!r} has {int(bad.sum())} non-numeric values (e.g. {example!r}); "
                "convert it to numbers or list it in categorical"
            )
        out = converted.to_numpy(dtype=float, na_value=np.nan)
        if not np.isfinite(out[~np.isnan(out)]).all():
            raise InputError(f"column {col!r} has infinite values; replace them")
        return out

    def _categorical_items(self, col, kind, levels, values) -> list:
        if kind == "binary":
            one = True if isinstance(levels[-1], bool) else 1
            out = [(col, "==", one)]
            return out + ([(col, "!=", one)] if self.complements else [])
        two_valued = self.method == "adaptive" and len(levels) == 2
        if self.method == "fixed" or (two_valued and not self.complements):
            counts = category_counts(values)
            # fixed: the most common category (ties: the smallest); two values without
            # complements: the less common one (ties: the later sorted), as one item
            pick = max if self.method == "fixed" else min
            top = pick(counts.get(v, 0) for v in levels)
            chosen = [v for v in levels if counts.get(v, 0) == top]
            chosen = chosen[:1] if self.method == "fixed" else chosen[-1:]
        else:
            chosen = levels
        if self.min_rows > 1:  # a category of a few rows would let points fit those rows
            counts = category_counts(values)
            chosen = [v for v in chosen if counts.get(v, 0) >= self.min_rows]
        out = [(col, "==", v) for v in chosen]
        if self.complements and not two_valued:
            out += [(col, "!=", v) for v in chosen]
        return out

    # --- transform ---------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "items_"):
            raise NotFittedError("this Binarizer is not fitted yet; call fit first")

    def transform(self, X) -> pd.DataFrame:
        """0/1 items of ``X`` with the fitted thresholds and categories (never refit)."""
        self._check_fitted()
        X = self._input_for_transform(X)
        n = X.shape[0]
        out = {}
        by_column: dict[str, list[Item]] = {}
        for item in self.items_:
            by_column.setdefault(item.column, []).append(item)
        for col, items in by_column.items():
            series = X[col]
            missing = series.isna().to_numpy()
            if self.missing == "error" and missing.any():
                raise self._missing_error(col, int(missing.sum()))
            for item in items:
                if item.op == "missing":
                    out[item.name] = missing
            items = [item for item in items if item.op != "missing"]
            kind = self.column_kinds_[col]
            if kind in ("numeric", "thresholds"):
                values = self._numeric(col, series)
                with np.errstate(invalid="ignore"):
                    for item in items:
                        hit = compare(values, item.op, float(item.value))
                        out[item.name] = hit & ~missing
                continue
            series = as_fitted_categories(series, self.categories_[col])
            known = series.isin(self.categories_[col]).to_numpy()
            unseen = ~known & ~missing
            if self.unknown == "error" and unseen.any():
                examples = pd.unique(series[unseen].to_numpy(dtype=object))
                raise InputError(
                    f"column {col!r} has {int(unseen.sum())} rows with categories not seen "
                    f"at fit: {listing(examples)}; use unknown='ignore' or refit"
                )
            for item in items:
                equal = series.isin([item.value]).to_numpy() & ~missing
                out[item.name] = equal if item.op == "==" else ~equal & ~missing
        names = [item.name for item in self.items_]
        data = np.zeros((n, len(names)), dtype=np.uint8)
        for j, name in enumerate(names):
            data[:, j] = out[name]
        return pd.DataFrame(data, columns=names, index=X.index)

    def _input_for_transform(self, X) -> pd.DataFrame:
        fitted = list(self.feature_names_in_)
        if not isinstance(X, (pd.DataFrame, pd.Series)):
            arr = np.asarray(X)
            if arr.ndim == 1:
                arr = arr.reshape(-1, 1)
            if arr.ndim != 2 or arr.shape[1] != len(fitted):
                raise InputError(
                    f"X has {arr.shape[1] if arr.ndim == 2 else arr.ndim} columns but the "
                    f"Binarizer was fitted on {len(fitted)}; pass a DataFrame with the "
                    "fitted column names"
                )
            return pd.DataFrame(arr, columns=fitted)
        X = self._as_frame(X)
        needed = [c for c in fitted if c in self.column_kinds_]
        absent = [c for c in needed if c not in X.columns]
        if absent:
            raise InputError(
                f"X is missing {len(absent)} column(s) used at fit: {listing(absent)}; "
                "pass the same columns as at fit"
            )
        return X

    def _missing_error(self, col, k) -> InputError:
        rows = "row" if k == 1 else "rows"
        return InputError(
            f"column {col!r} has missing values in {k} {rows}; fill or drop them, "
            "or use missing='zero' or 'indicator'"
        )

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """The item names, in output column order."""
        self._check_fitted()
        return np.asarray([item.name for item in self.items_], dtype=object)

    # --- description and serialisation -------------------------------------------------
    def describe(self) -> pd.DataFrame:
        """One row per item: name, column (group), operator and value."""
        self._check_fitted()
        return pd.DataFrame(
            [item.to_dict() for item in self.items_], columns=["name", "column", "op", "value"]
        )

    def to_dict(self) -> dict:
        """A JSON-serialisable description of the fitted binarizer (see :meth:`from_dict`)."""
        self._check_fitted()
        params = self.get_params()
        if params["thresholds"] is not None:  # normalised to [[op, value], ...]
            user = self._user_thresholds(list(self.feature_names_in_))
            params["thresholds"] = {col: [[op, v] for op, v in cuts] for col, cuts in user.items()}
        if not isinstance(params["categorical"], str) and params["categorical"] is not None:
            params["categorical"] = [str(c) for c in params["categorical"]]
        return {
            "format": _FORMAT,
            "version": _VERSION,
            "params": params,
            "columns": [str(c) for c in self.feature_names_in_],
            "column_kinds": dict(self.column_kinds_),
            "categories": {c: list(v) for c, v in self.categories_.items()},
            "thresholds": {c: [[op, v] for op, v in cuts] for c, cuts in self.thresholds_.items()},
            "dropped_columns": dict(self.dropped_columns_),
            "items": [item.to_dict() for item in self.items_],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Binarizer:
        """A fitted Binarizer from the output of :meth:`to_dict` (e.g. read from JSON)."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise InputError(f"not a serialised Binarizer (expected format {_FORMAT!r})")
        if data.get("version") != _VERSION:
            raise InputError(
                f"unsupported Binarizer version {data.get('version')!r}; expected {_VERSION}"
            )
        params = dict(data["params"])
        if params.get("thresholds") is not None:
            params["thresholds"] = {
                col: [tuple(c) if isinstance(c, list) else c for c in cuts]
                for col, cuts in params["thresholds"].items()
            }
        self = cls(**params)
        self.column_kinds_ = dict(data["column_kinds"])
        bad = [k for k in self.column_kinds_.values() if k not in _KINDS]
        if bad:
            raise InputError(f"serialised Binarizer has unknown column kinds: {listing(bad)}")
        self.categories_ = {c: list(v) for c, v in data["categories"].items()}
        self.thresholds_ = {c: [tuple(x) for x in v] for c, v in data["thresholds"].items()}
        self.dropped_columns_ = dict(data["dropped_columns"])
        self.items_ = [Item.from_dict(d) for d in data["items"]]
        self.item_groups_ = {item.name: item.column for item in self.items_}
        self.feature_names_in_ = np.asarray(data["columns"], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        return self


def _weighted_rows(X: pd.DataFrame, sample_weight) -> pd.DataFrame:
    """The rows of ``X`` as the weights count them: without the rows of weight 0, and each
    row repeated by its weight when every weight is a whole number."""
    w = np.asarray(sample_weight, dtype=float).ravel()
    if w.shape != (len(X),):
        raise InputError(f"sample_weight has {w.size} entries for {len(X)} rows")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InputError("sample_weight must be finite and non-negative")
    if not np.any(w > 0):
        raise InputError("every sample_weight is zero; at least one row needs a positive weight")
    if np.all(w == np.round(w)):
        return X.iloc[np.repeat(np.arange(len(X)), w.astype(np.int64))]
    return X.iloc[np.flatnonzero(w > 0)]
