"""Pieces shared by the scikit-learn classifiers (risk scores and checklists)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from riskexplore.errors import InputError

__all__ = ["binary_classes"]


def binary_classes(y: np.ndarray, estimator: str) -> np.ndarray:
    """The two class labels of a binary target, sorted.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Class labels.
    estimator : str
        Name of the classifier, for the error message.

    Returns
    -------
    ndarray of shape (2,)
        The labels; ``classes[1]`` is the positive class.

    Raises
    ------
    InputError
        If ``y`` has one class only or is not a binary target.
    """
    check_classification_targets(y)
    kind = type_of_target(y)
    classes = np.unique(y)
    if len(classes) < 2:
        raise InputError(f"{estimator} needs two classes, got 1 class ({classes.tolist()})")
    if kind != "binary":
        raise InputError(
            "Only binary classification is supported; the type of the target is "
            f"{kind} with {len(classes)} classes"
        )
    return classes
