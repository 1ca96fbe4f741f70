"""A scikit-learn classifier that fits a certifiably optimal predictive checklist."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from riskexplore.checklist.fit import fit_checklist
from riskexplore.core.classifier import binary_classes
from riskexplore.core.limits import DEFAULT_GAP_TOLERANCE
from riskexplore.errors import InputError

__all__ = ["ChecklistClassifier"]


class ChecklistClassifier(ClassifierMixin, BaseEstimator):
    """Predictive checklist (M-of-N rule) as a scikit-learn classifier.

    Raw features (numeric or categorical columns of a DataFrame) are binarized into
    items inside :meth:`fit`, so the estimator can be cross-validated on raw data; the
    binarizer is refitted on each training fold.

    Parameters
    ----------
    binarize : {"adaptive", "fixed"}, None or Binarizer
        How raw columns become items; ``None`` uses the columns as 0/1 items.
    thresholds : dict, optional
        User cut-offs per column (see :class:`~riskexplore.data.binarize.Binarizer`).
    categorical : "auto" or list of str
        Columns to one-hot encode.
    max_items : int or None
        Largest number of items ``N``.
    min_m, max_m : int
        Range of the threshold ``M``.
    one_item_per_group : bool
        At most one item per source column.
    fnr_max, fpr_max : float, optional
        Limits on the training false negative / false positive rates.
    fp_weight : float
        Cost of a false positive relative to a false negative.
    constraints : list, optional
        Checklist constraints (see :mod:`riskexplore.checklist.constraints`).
    time_limit : float
        Seconds per fit; the best checklist found so far is kept.
    node_limit : int, optional
        Branch-and-bound nodes per fit.
    gap_tolerance : float
        Stop once the optimality gap is at most this.
    use_heuristics : bool, optional
        Warm-start the solver with heuristic checklists (default: only for the MIP).
    settings : optional
        Engine settings.
    method : {"exact", "mip"}
        The exact search (default) or the integer program (2) of Zhang et al. [1]_
        (Section 3) on HiGHS.
    n_jobs : int or None
        Cores of the exact search (``None``: every core; ``1`` inside a cross-validation
        that already runs folds in parallel).

    Attributes
    ----------
    model_ : Checklist
        The fitted checklist (with certificate, statistics and binarizer).
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is what the checklist predicts when checked.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.

    References
    ----------
    .. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.
    """

    def __init__(
        self,
        binarize="adaptive",
        thresholds: dict | None = None,
        categorical="auto",
        max_items: int | None = 5,
        min_m: int = 1,
        max_m: int | None = None,
        one_item_per_group: bool = True,
        fnr_max: float | None = None,
        fpr_max: float | None = None,
        fp_weight: float = 1.0,
        constraints=None,
        time_limit: float = 60.0,
        node_limit: int | None = None,
        gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
        use_heuristics: bool | None = None,
        settings=None,
        method: str = "exact",
        n_jobs: int | None = None,
    ) -> None:
        self.binarize = binarize
        self.thresholds = thresholds
        self.categorical = categorical
        self.max_items = max_items
        self.min_m = min_m
        self.max_m = max_m
        self.one_item_per_group = one_item_per_group
        self.fnr_max = fnr_max
        self.fpr_max = fpr_max
        self.fp_weight = fp_weight
        self.constraints = constraints
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.gap_tolerance = gap_tolerance
        self.use_heuristics = use_heuristics
        self.settings = settings
        self.method = method
        self.n_jobs = n_jobs

    # --- fitting ---------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None, groups=None) -> ChecklistClassifier:
        """Fit the checklist; ``y`` must have exactly two classes.

        ``groups`` (one label per row) feeds group-rate constraints and statistics.
        """
        if y is None:
            raise InputError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        frame = self._frame(X, reset=True)
        y_name = getattr(y, "name", None)
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim != 1 or len(y) != len(frame):
            raise InputError(f"y must be one label per row of X ({len(frame)}), got {y.shape}")
        classes = binary_classes(y, "ChecklistClassifier")
        self.classes_ = classes
        target = (y == classes[1]).astype(int)
        kw = {}
        if sample_weight is not None:
            kw["sample_weight"] = np.asarray(sample_weight, dtype=float)
        self.model_ = fit_checklist(
            frame,
            target,
            binarize=self.binarize,
            thresholds=self.thresholds,
            categorical=self.categorical,
            max_items=self.max_items,
            min_m=self.min_m,
            max_m=self.max_m,
            one_item_per_group=self.one_item_per_group,
            fnr_max=self.fnr_max,
            fpr_max=self.fpr_max,
            fp_weight=self.fp_weight,
            constraints=() if self.constraints is None else list(self.constraints),
            groups=groups,
            time_limit=self.time_limit,
            node_limit=self.node_limit,
            gap_tolerance=self.gap_tolerance,
            use_heuristics=self.use_heuristics,
            settings=self.settings,
            method=self.method,
            n_jobs=self.n_jobs,
            outcome_name=f"{y_name} = {classes[1]}" if y_name else f"class {classes[1]}",
            **kw,
        )
        return self

    def _frame(self, X, *, reset: bool) -> pd.DataFrame:
        """``X`` as a DataFrame (raw columns keep their dtypes, strings included)."""
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, skip_check_array=True)
            if all(isinstance(c, str) for c in X.columns):
                return X
            return X.set_axis([str(c) for c in X.columns], axis=1)
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise TypeError("ChecklistClassifier does not accept sparse input")
        arr = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        names = getattr(self, "feature_names_in_", None)
        columns = [str(c) for c in names] if names is not None else None
        if columns is None or len(columns) != arr.shape[1]:
            columns = [f"x{j}" for j in range(arr.shape[1])]
        return pd.DataFrame(arr, columns=columns)

    # --- prediction ------------------------------------------------------------------
    def _features(self, X) -> pd.DataFrame:
        check_is_fitted(self, "model_")
        return self._frame(X, reset=False)

    def count_checked(self, X) -> np.ndarray:
        """Number of the checklist's items checked in each row."""
        X = self._features(X)
        return self.model_.count_checked(X)

    def decision_function(self, X) -> np.ndarray:
        """``count_checked - M + 0.5``: positive exactly when ``classes_[1]`` is predicted."""
        X = self._features(X)
        return self.model_.decision_function(X)

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where at least ``M`` items are checked, else ``classes_[0]``."""
        X = self._features(X)
        return self.classes_[self.model_.predict(X)]

    # --- conveniences ----------------------------------------------------------------
    @property
    def certificate(self):
        """The fitted checklist's :class:`~riskexplore.core.certificate.Certificate`."""
        check_is_fitted(self, "model_")
        return self.model_.certificate

    def to_text(self, ascii: bool = False) -> str:
        """The fitted checklist as printed text (``ascii=True``: ``[ ]`` boxes and ``>=``).

        Parameters
        ----------
        ascii : bool
            Plain ASCII instead of Unicode symbols.

        Returns
        -------
        str
            The checklist.
        """
        check_is_fitted(self, "model_")
        return self.model_.to_text(ascii=ascii)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.classifier_tags.multi_class = False
        return tags
