"""Loading the bundled datasets (see ``README.md`` in this folder for provenance)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

from riskexplore.datasets._catalog import CATALOG, DatasetInfo
from riskexplore.errors import InputError


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A bundled dataset: features ``X`` and a 0/1 outcome ``y`` (1 = :attr:`outcome`).

    A survival table (``heart_followup``) also has the follow-up ``time``; ``y`` is then
    the event indicator (1 = the event was observed, 0 = censored at ``time``).
    """

    X: pd.DataFrame
    y: pd.Series
    name: str
    outcome: str
    source: str
    description: str
    split: str | None = None
    time: pd.Series | None = None

    @property
    def frame(self) -> pd.DataFrame:
        """The outcome (time first for a survival table) then the features (a new DataFrame)."""
        outcome = [self.y] if self.time is None else [self.time, self.y]
        return pd.concat([*outcome, self.X], axis=1)

    @property
    def survival(self) -> np.ndarray:
        """The survival outcome as scikit-survival's structured array
        ``[("event", bool), ("time", float)]`` (what the survival family's ``fit(X, y)``
        takes); an ``AttributeError`` for a table without follow-up time."""
        if self.time is None:
            raise AttributeError(f"dataset {self.name!r} has no follow-up time")
        y = np.empty(len(self.y), dtype=[("event", bool), ("time", float)])
        y["event"] = self.y.to_numpy() == 1
        y["time"] = self.time.to_numpy(float)
        return y

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    def __repr__(self) -> str:
        split = f", split={self.split!r}" if self.split else ""
        time = "" if self.time is None else f", follow-up in {self.time.name!r}"
        return (
            f"Dataset({self.name!r}{split}: {len(self.y)} rows, {self.X.shape[1]} features, "
            f"{int(self.y.sum())} with {self.y.name} = 1{time})"
        )


def list_datasets() -> list[str]:
    """Names accepted by :func:`load_dataset`, sorted."""
    return sorted(CATALOG)


def _info(name) -> DatasetInfo:
    key = name.strip().lower() if isinstance(name, str) else name
    if not isinstance(key, str) or key not in CATALOG:
        raise InputError(f"unknown dataset {name!r}; choose one of: {', '.join(list_datasets())}")
    return CATALOG[key]


def _resolve_split(info: DatasetInfo, split) -> str:
    if split is None:
        return info.default_split
    choices = [*info.splits, "all"] if info.has_splits else ["all"]
    if split not in choices:
        if not info.has_splits:
            raise InputError(
                f"dataset {info.name!r} has no train/test split; use split=None (got {split!r})"
            )
        raise InputError(
            f"unknown split {split!r} for dataset {info.name!r}; choose one of: "
            f"{', '.join(choices)}"
        )
    return split


@functools.cache
def _read(file: str, categorical: tuple[str, ...]) -> pd.DataFrame:
    resource = resources.files("riskexplore.datasets").joinpath("files", file)
    with resource.open("rb") as handle:
        return pd.read_csv(handle, compression="gzip", dtype=dict.fromkeys(categorical, str))


def _frame(info: DatasetInfo, split: str) -> pd.DataFrame:
    categorical = info.categorical if info.name == "adult_raw" else ()
    if split == "all" and info.has_splits:
        parts = [_read(s.file, categorical) for s in info.splits.values()]
        return pd.concat(parts, ignore_index=True)
    return _read(info.splits[split].file, categorical).copy()


def load_dataset(name: str, split: str | None = None) -> Dataset:
    """Load a bundled dataset by name (see :func:`list_datasets`).

    Parameters
    ----------
    name : str
        ``"mammo"``, ``"breastcancer"``, ``"income"``, ``"heart"``, ``"adult_raw"`` or
        ``"heart_followup"`` (simulated survival table).
    split : {"train", "test", "all"}, optional
        Only for ``adult_raw`` (default ``"train"``; ``"all"`` stacks train then test).
        Other datasets have a single table and accept only ``None`` or ``"all"``.

    Returns
    -------
    Dataset
        ``X`` (features, a DataFrame) and ``y`` (0/1 int Series named after the outcome
        column), with provenance in ``source`` and the meaning of ``y = 1`` in
        ``outcome``. Each call returns fresh copies that are safe to modify. A survival
        table (``heart_followup``) also has ``time`` (follow-up, a Series), ``y`` is its
        event indicator and ``survival`` the structured array: fit it with
        ``fit_survival_score(data.X, data.time, data.y)``.
    """
    info = _info(name)
    split = _resolve_split(info, split)
    frame = _frame(info, split)
    time = None if info.time_column is None else frame.pop(info.time_column)
    y = frame.pop(info.outcome_column).astype("int64")
    return Dataset(
        X=frame,
        y=y,
        name=info.name,
        outcome=info.outcome,
        source=info.source,
        description=info.description,
        split=split if info.has_splits else None,
        time=time,
    )


def dataset_info(name: str) -> dict:
    """Metadata of a dataset without loading it.

    ``n_rows`` and ``n_positive`` describe what ``load_dataset(name)`` returns (for
    ``adult_raw``: the train split; for a survival table ``n_positive`` counts the
    events); ``splits`` gives the counts of every split; ``time_column`` is None except
    for survival tables.
    """
    info = _info(name)
    default = info.splits.get(info.default_split)
    splits = {k: {"n_rows": s.n_rows, "n_positive": s.n_positive} for k, s in info.splits.items()}
    return {
        "name": info.name,
        "outcome": info.outcome,
        "outcome_column": info.outcome_column,
        "time_column": info.time_column,
        "n_rows": default.n_rows,
        "n_features": info.n_features,
        "n_positive": default.n_positive,
        "splits": splits,
        "default_split": info.default_split,
        "categorical": list(info.categorical),
        "source": info.source,
        "license": info.license,
        "description": info.description,
        "files": [s.file for s in info.splits.values()],
    }
