"""The Explorer's state and the raw table's items (step 2): the family's binarizer with
the user's cut points and column uses, the features the fit sees, what each column became,
and rules on a column in plain words.

:class:`ItemChoices` is a base of :class:`~riskexplore.exploration.explorer.ExplorerState`;
the choices themselves are a :class:`~riskexplore.exploration.binarization.Binarization`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from riskexplore.core.registry import ModelFamily
from riskexplore.errors import InputError
from riskexplore.exploration.binarization import Binarization, changes_nothing
from riskexplore.exploration.variable_rules import describe_rule, variable_rule

__all__ = ["ItemChoices"]


class ItemChoices:
    """How the raw table becomes the family's items, and rules on its columns (a base of
    :class:`~riskexplore.exploration.explorer.ExplorerState`)."""

    def binarizer(self, family: ModelFamily | None = None):
        """The family's binarizer with the user's choices, fitted on the training rows.

        Parameters
        ----------
        family : ModelFamily, optional
            The family (default: the one chosen).

        Returns
        -------
        Binarizer or None
            None before the outcome is chosen, or when the family binarizes nothing
            (no :attr:`~riskexplore.core.registry.ModelFamily.raw_table` spec, or a
            checklist without binarization).

        Raises
        ------
        InputError
            When the table cannot be binarized with these choices.
        """
        family = self.model_family if family is None else family
        if self.X is None:
            return None
        return self.binarization.fitted(
            family, self.X, self.settings, self.categorical_columns(), self.data_version
        )

    def _raw_arguments(self, family: ModelFamily) -> dict[str, Any]:
        """``binarizer`` and ``linear`` for the family's fit arguments (nothing for a family
        without a raw-table spec): no binarizer when it would change nothing."""
        if family.raw_table is None or self.X is None:
            return {}
        binarizer = self.binarizer(family)
        linear = self.binarization.linear_for(family, self.X)
        if binarizer is not None and not linear and changes_nothing(binarizer):
            binarizer = None  # an all-yes/no table: its columns, as they are
        if binarizer is not None and not binarizer.items_ and set(linear) == set(self.X):
            binarizer, linear = None, ()  # every column a number: the table as it is
        return {"binarizer": binarizer, "linear": linear if binarizer is not None else ()}

    def features(self):
        """The training features as the family's fit sees them: the items of the raw
        table and its linear columns (or the table as it is).

        Returns
        -------
        DataFrame or None
            None before the outcome is chosen.
        """
        if self.X is None:
            return None
        raw = self._raw_arguments(self.model_family)
        binarizer, linear = raw.get("binarizer"), list(raw.get("linear", ()))
        if binarizer is None:
            return self.X
        items = binarizer.transform(self.X.drop(columns=linear))
        return pd.concat([items, self.X[linear]], axis=1)

    def item_groups(self) -> dict[str, str]:
        """Each feature of the family's fit -> the column of the table it comes from.

        Returns
        -------
        dict
            Item name -> column (a column used as it is is its own).
        """
        if self.X is None:
            return {}
        raw = self._raw_arguments(self.model_family)
        binarizer = raw.get("binarizer")
        if binarizer is None:
            return {str(c): str(c) for c in self.X.columns}
        groups = {item.name: item.column for item in binarizer.items_}
        return groups | {str(c): str(c) for c in raw.get("linear", ())}

    def column_views(self) -> list:
        """What each feature column became (kind, cut points, items, or why skipped).

        Returns
        -------
        list of ColumnView
            One per feature column (empty before the outcome is chosen).

        Raises
        ------
        InputError
            When the table cannot be binarized with these choices.
        """
        if self.X is None:
            return []
        family = self.model_family
        linear = self.binarization.linear_for(family, self.X)
        return self.binarization.columns(self.binarizer(), self.feature_names, linear)

    def set_cut_points(self, column: str, cuts) -> None:
        """Replace a numeric column's cut points (``"65, 75"``; None or ``""``: the data's
        own). The runs so far are of other items: the data version changes.

        Parameters
        ----------
        column : str
            A numeric feature column.
        cuts : str, sequence or None
            The cut points (see :func:`~riskexplore.exploration.binarization.parse_cut_points`).
        """
        self._choose(self.binarization.with_cut_points(column, cuts), column, "cuts")

    def set_column_use(self, column: str, use: str) -> None:
        """How a column is used: ``"items"`` (as the data say), ``"categories"`` (one item
        per value) or ``"number"`` (points per unit, for families whose models can).

        Parameters
        ----------
        column : str
            A feature column.
        use : {"items", "categories", "number"}
            The use.
        """
        self._choose(self.binarization.with_use(column, use), column, use)

    def _choose(self, choices: Binarization, column: str | None = None, what: str = "") -> None:
        """Adopt new choices if the table can be binarized with them (else nothing
        changes and an InputError says why); the runs so far are of other items."""
        if self.X is None:
            raise InputError("load data and choose the outcome first")
        choices.check_columns(self.feature_names)
        family = self.model_family
        if what == "number" and (family.raw_table is None or not family.raw_table.linear):
            raise InputError(f"a {family.label.lower()} cannot use {column!r} as a number")
        numeric = column is None or pd.api.types.is_numeric_dtype(self.X[column])
        categories = {*self.categorical_columns(), *choices.categorical}
        if what in ("number", "cuts", "categories") and not numeric:
            raise InputError(f"{column!r} holds categories, not numbers: use its items")
        if what == "cuts" and column in categories and column in choices.cut_points:
            raise InputError(f"{column!r} is read as categories, so it has no cut points")
        try:
            choices.fitted(family, self.X, self.settings, self.categorical_columns())
        except InputError as exc:
            raise InputError(f"{column!r}: {exc}" if column else str(exc)) from None
        self.binarization = choices.copy()
        self.data_version += 1

    def describe_rule(self, constraint) -> str:
        """A rule in plain words ("Do not use age", "Use age only as age ≥ 65").

        Parameters
        ----------
        constraint : object
            A readable constraint of the family.

        Returns
        -------
        str
            The words.
        """
        try:
            groups = self.item_groups()
        except InputError:
            groups = {}
        return describe_rule(constraint, self.model_family, groups)

    def variable_rule(self, column: str, keep=None):
        """The rule "do not use ``column``" (or "use it only as ``keep``") of the family.

        Parameters
        ----------
        column : str
            A feature column.
        keep : str or sequence of str, optional
            Its items that stay allowed.

        Returns
        -------
        constraint
            A readable constraint (see :mod:`riskexplore.exploration.variable_rules`).
        """
        return variable_rule(self.model_family, self.item_groups(), column, keep)
