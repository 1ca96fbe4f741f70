"""How diverse a set of models is: which features they use, and how often.

Both families' near-optimal sets (and :class:`NearOptimalSet
<riskexplore.evaluation.near_optimal.NearOptimalSet>`) count features and group models by
the features they use with these two functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

__all__ = ["feature_counts", "group_by_features"]

T = TypeVar("T")


def feature_counts(feature_sets: Iterable[Iterable[str]]) -> dict[str, int]:
    """How many of the sets contain each feature, most frequent first (ties by name).

    Parameters
    ----------
    feature_sets : iterable of iterables of str
        The features of each model.

    Returns
    -------
    dict
        Feature -> number of models using it.
    """
    counts: dict[str, int] = {}
    for features in feature_sets:
        for name in set(features):
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def group_by_features(
    models: Iterable[T], features_of: Callable[[T], Iterable[str]]
) -> dict[tuple[str, ...], list[T]]:
    """The models grouped by the set of features they use: largest groups first, ties in
    the order of their first model (so a list sorted best first keeps the best group
    first).

    Parameters
    ----------
    models : iterable
        The models, in order.
    features_of : callable
        The features a model uses.

    Returns
    -------
    dict
        Sorted feature names -> the models that use exactly them, in order.
    """
    groups: dict[tuple[str, ...], list[T]] = {}
    for model in models:
        groups.setdefault(tuple(sorted(set(features_of(model)))), []).append(model)
    first = {key: i for i, key in enumerate(groups)}
    return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), first[kv[0]])))
