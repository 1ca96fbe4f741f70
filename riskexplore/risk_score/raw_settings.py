"""The raw-table settings of a fit for the solves that build their problem themselves.

:func:`~riskexplore.risk_score.fit.fit_risk_score` takes a raw table with ``binarize``,
``thresholds``, ``linear`` and ``one_per_variable``; the size path
(:mod:`riskexplore.risk_score.size_path`), the near-optimal sets and the training problem
of hand edits (:mod:`riskexplore.risk_score.family`) build their problem with
:func:`~riskexplore.risk_score.fit.build_problem`, which takes features. :func:`split_raw`
turns the same settings into those features (the items of the table, with the
one-per-variable rule added to the constraints) and the binarizer their models keep, so
that every solve of the Explorer reads the same raw table in the same way.
:func:`raw_features` is the one place a fit's raw-table settings become features and
constraints: ``build_problem`` and :func:`split_raw` both call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskexplore.errors import InputError
from riskexplore.risk_score.bands import apply_bands
from riskexplore.risk_score.raw_table import binarize_table, resolve_binarize

__all__ = ["RAW_SETTINGS", "raw_features", "split_raw"]

#: The fit arguments about a raw table.
RAW_SETTINGS = ("binarize", "thresholds", "linear", "one_per_variable", "bands")


def raw_features(
    X, y, binarize, thresholds, linear, one_per_variable, bands, constraints, problem_kwargs
):
    """``(features, binarizer or None, constraints, band record or None)`` of a fit.

    For a table to binarize (see :func:`~riskexplore.risk_score.raw_table.resolve_binarize`):
    its items (see :func:`~riskexplore.risk_score.raw_table.binarize_table`) and the
    constraints with the one-per-variable rule and the bands
    (:func:`~riskexplore.risk_score.bands.apply_bands`, which adds their signs to
    ``problem_kwargs``); otherwise ``X`` and the constraints as given. The arguments are
    those of :func:`~riskexplore.risk_score.fit.build_problem`.

    Parameters
    ----------
    X : DataFrame or array
        The table as given to the fit.
    y : array-like
        The outcome (the bands' automatic directions read it).
    binarize, thresholds, linear, one_per_variable, bands
        The fit's raw-table settings.
    constraints : sequence
        The user's constraints.
    problem_kwargs : dict
        The other problem arguments (``apply_bands`` adds the bands' signs to it).

    Returns
    -------
    tuple
        ``(features, binarizer or None, constraints, band record or None)``.
    """
    binarize = resolve_binarize(X, binarize, thresholds, linear)
    if binarize is None:
        if bands:
            raise InputError("bands need a binarized table: binarize='auto' or a Binarizer")
        return X, None, constraints, None
    if "feature_names" in problem_kwargs:
        raise InputError(
            "feature_names cannot rename the items of a raw table; rename the columns of X, "
            "or pass binarize=False to use the features as given"
        )
    raw = binarize_table(
        X,
        binarize,
        thresholds=thresholds,
        linear=linear,
        one_per_variable_rule=one_per_variable,
        sample_weight=problem_kwargs.get("sample_weight"),
    )
    rules, band_record = apply_bands(bands, raw, X, y, linear, problem_kwargs)
    return raw.X, raw.binarizer, [*constraints, *rules], band_record


def split_raw(X, settings: Mapping[str, Any], y=None) -> tuple[Any, dict[str, Any], Any]:
    """The features of ``X`` for these fit settings, the other settings, and the binarizer.

    Parameters
    ----------
    X : DataFrame or array
        The training table (raw when ``settings`` has ``binarize``).
    settings : mapping
        Arguments of :func:`~riskexplore.risk_score.fit.fit_risk_score` (without
        ``binarize``: its default, ``"auto"``).
    y : array-like, optional
        The outcome (the direction of ``bands`` set to ``"auto"`` needs it).

    Returns
    -------
    (features, settings, binarizer or None)
        For a table used as given: ``X``, the settings without the raw-table ones (and
        ``binarize=False``), None. For a table to binarize: the items (and linear
        columns) of ``X``, the settings with the one-per-variable and band constraints
        added to ``constraints`` (and ``binarize=False``: the features are final), and
        the fitted binarizer.

    Raises
    ------
    InputError
        For ``thresholds``, ``linear`` or ``bands`` without binarization, and what
        :func:`~riskexplore.risk_score.raw_table.binarize_table` refuses.
    """
    rest = {k: v for k, v in settings.items() if k not in RAW_SETTINGS}
    features, binarizer, constraints, _record = raw_features(
        X,
        y,
        settings.get("binarize", "auto"),
        settings.get("thresholds"),
        tuple(settings.get("linear") or ()),
        bool(settings.get("one_per_variable", True)),
        settings.get("bands"),
        list(rest.get("constraints") or ()),
        rest,
    )
    if binarizer is not None:
        rest["constraints"] = constraints
    rest["binarize"] = False  # the features returned are final
    return features, rest, binarizer
