"""A scikit-learn classifier that fits a RiskSLIM risk score."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from riskexplore.core.classifier import binary_classes
from riskexplore.core.limits import DEFAULT_GAP_TOLERANCE
from riskexplore.risk_score.fit import fit_risk_score
from riskexplore.risk_score.problem import (
    C0,
    COEF_MAX,
    COEF_MIN,
    INTERCEPT_MAX,
    INTERCEPT_MIN,
    MULTIPLIER_MAX,
    MULTIPLIER_MIN,
)
from riskexplore.risk_score.raw_table import resolve_binarize

__all__ = ["RiskSlimClassifier"]


class RiskSlimClassifier(ClassifierMixin, BaseEstimator):
    """Certifiably optimal risk score as a scikit-learn classifier.

    Parameters
    ----------
    max_size : int or None
        Largest number of features with non-zero points.
    min_size : int
        Smallest number of features with non-zero points.
    coef_min, coef_max : int
        Bounds on the points of each feature.
    intercept_min, intercept_max : int
        Bounds on the intercept.
    c0 : float
        Penalty per feature used.
    constraints : list, optional
        Operational constraints (see :mod:`riskexplore.risk_score.constraints`).
    time_limit : float
        Seconds per fit; the best model found so far is kept.
    node_limit : int, optional
        Branch-and-bound nodes per fit.
    gap_tolerance : float
        Stop once the optimality gap is at most this.
    positive_weight : float
        Extra weight on examples of the positive class.
    settings : LCPASettings, optional
        Solver settings.
    scale : {"fixed", "learned"}
        How points become a risk: ``sigma(score)``, or ``sigma(score / m)`` with the
        multiplier ``m`` learned (see :func:`~riskexplore.risk_score.fit.fit_risk_score`).
    multiplier_min, multiplier_max : float
        Bounds on ``m`` for the learned scale.
    n_jobs : int or None
        Threads of the search (``None``: every core; ``1`` inside a cross-validation
        that already runs folds in parallel).
    binarize : "auto", False or Binarizer
        ``"auto"``: a DataFrame is made into 0/1 items (``"age ≥ 75"``, ``"sex = F"``,
        ``"creatinine missing"``) unless every column is 0/1 without missing values; an
        array is used as given. ``False``: the features are used as given (points per
        unit). See :func:`~riskexplore.risk_score.fit.fit_risk_score`.
    thresholds : dict or None
        User cut points per column (``{"age": [65, 75]}``), with ``binarize="auto"``.
    linear : list of str or None
        Columns of a binarized table kept as numbers (points per unit).
    one_per_variable : bool
        With a binarized table, at most one item of each source column.
    bands : list of str or mapping, optional
        Columns of a raw table whose thresholds are monotone bands (``binarize="auto"``;
        see :mod:`riskexplore.risk_score.bands`).

    Attributes
    ----------
    model_ : RiskScore
        The fitted risk score (with certificate and statistics).
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    """

    def __init__(
        self,
        max_size: int | None = 5,
        min_size: int = 0,
        coef_min: int = COEF_MIN,
        coef_max: int = COEF_MAX,
        intercept_min: int = INTERCEPT_MIN,
        intercept_max: int = INTERCEPT_MAX,
        c0: float = C0,
        constraints=None,
        time_limit: float = 60.0,
        node_limit: int | None = None,
        gap_tolerance: float = DEFAULT_GAP_TOLERANCE,
        positive_weight: float = 1.0,
        settings=None,
        scale: str = "fixed",
        multiplier_min: float = MULTIPLIER_MIN,
        multiplier_max: float = MULTIPLIER_MAX,
        n_jobs: int | None = None,
        binarize="auto",
        thresholds: dict | None = None,
        linear: list | None = None,
        one_per_variable: bool = True,
        bands=None,
    ) -> None:
        self.max_size = max_size
        self.min_size = min_size
        self.coef_min = coef_min
        self.coef_max = coef_max
        self.intercept_min = intercept_min
        self.intercept_max = intercept_max
        self.c0 = c0
        self.constraints = constraints
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.gap_tolerance = gap_tolerance
        self.positive_weight = positive_weight
        self.settings = settings
        self.scale = scale
        self.multiplier_min = multiplier_min
        self.multiplier_max = multiplier_max
        self.n_jobs = n_jobs
        self.binarize = binarize
        self.thresholds = thresholds
        self.linear = linear
        self.one_per_variable = one_per_variable
        self.bands = bands

    # --- fitting ---------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> RiskSlimClassifier:
        """Fit the risk score; ``y`` must have exactly two classes."""
        linear = () if self.linear is None else list(self.linear)
        raw = resolve_binarize(X, self.binarize, self.thresholds, linear) is not None
        named = isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns)
        original = X
        X, y = validate_data(self, X, y, accept_sparse=False, **self._checks(raw))
        classes = binary_classes(y, "RiskSlimClassifier")
        self.classes_ = classes
        names = [f"x{j}" for j in range(X.shape[1])]
        if named:
            frame = original
        elif raw:  # the raw columns (their types kept) under the names x0, x1, ...
            frame = original.set_axis(names, axis=1)
        else:
            frame = pd.DataFrame(X, columns=names)
        target = (y == classes[1]).astype(int)
        self.model_ = fit_risk_score(
            frame,
            target,
            max_size=self.max_size,
            min_size=self.min_size,
            coef_min=self.coef_min,
            coef_max=self.coef_max,
            intercept_min=self.intercept_min,
            intercept_max=self.intercept_max,
            c0=self.c0,
            constraints=() if self.constraints is None else list(self.constraints),
            time_limit=self.time_limit,
            node_limit=self.node_limit,
            gap_tolerance=self.gap_tolerance,
            positive_weight=self.positive_weight,
            sample_weight=sample_weight,
            settings=self.settings,
            scale=self.scale,
            multiplier_min=self.multiplier_min,
            multiplier_max=self.multiplier_max,
            n_jobs=self.n_jobs,
            binarize=self.binarize if raw else False,
            thresholds=self.thresholds,
            linear=linear,
            one_per_variable=self.one_per_variable,
            bands=self.bands,
        )
        return self

    @staticmethod
    def _checks(raw: bool) -> dict:
        """What :func:`validate_data` checks: numbers only, unless a raw table is binarized
        (text and missing values are then the binarizer's to read)."""
        if raw:
            return {"dtype": None, "ensure_all_finite": False}
        return {"dtype": "numeric"}

    # --- prediction ------------------------------------------------------------------
    def _features(self, X) -> pd.DataFrame | np.ndarray:
        check_is_fitted(self, "model_")
        if isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_"):
            return X  # columns are matched by name; missing ones are reported
        raw = self.model_.binarizer is not None
        X = validate_data(self, X, reset=False, accept_sparse=False, **self._checks(raw))
        if raw:  # rows of the raw table, in the fitted column order
            names = getattr(self, "feature_names_in_", None)
            if names is None:
                names = [f"x{j}" for j in range(X.shape[1])]
            return pd.DataFrame(X, columns=list(names))
        return X

    def decision_function(self, X) -> np.ndarray:
        """``(intercept + points . x) / m``, the log-odds of the positive class (``m = 1``
        for the fixed scale)."""
        X = self._features(X)
        return self.model_.decision_function(X)

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of ``classes_``, shape ``(n, 2)``."""
        X = self._features(X)
        return self.model_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """The more likely class label (ties go to the positive class)."""
        X = self._features(X)
        risk = self.model_.predict_risk(X)
        return self.classes_[(risk >= 0.5).astype(int)]

    # --- conveniences ----------------------------------------------------------------
    @property
    def certificate(self):
        """The fitted risk score's :class:`~riskexplore.core.certificate.Certificate`."""
        check_is_fitted(self, "model_")
        return self.model_.certificate

    def to_text(self) -> str:
        """The fitted risk score as a printable score card."""
        check_is_fitted(self, "model_")
        return self.model_.to_text()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.classifier_tags.multi_class = False
        return tags
