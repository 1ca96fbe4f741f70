"""Plain-Python state of the "Alternatives" step: the near-optimal set, the model
selected in it, hand edits of that model with their certified distance to the best one,
and the price of each feature (no widgets).

:class:`AlternativesState` is what :class:`AlternativesView
<riskexplore.widgets.alternatives.view.AlternativesView>` shows; tests, scripts and other
front ends can drive it without Jupyter::

    state = AlternativesState()
    state.configure(family="risk_score", X=X, y=y, settings={"max_size": 5, "time_limit": 60})
    state.compute_set()                       # every score within 1% of the best
    state.select(1)                           # the second one
    state.change_points("Age_geq_60", +1)     # an edit: card, metrics and distance anew
    state.model.distance.describe()
    state.compute_prices()                    # the price of each feature

Every method validates and raises :class:`~riskexplore.errors.InputError` with a
readable message; the view shows it on the page and nothing changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from riskexplore.core.distance import attach_problem, percent
from riskexplore.core.params import Interval, validate
from riskexplore.core.registry import AlternativesSpec, get_family
from riskexplore.errors import InputError
from riskexplore.evaluation.near_optimal import NearOptimalSet, alternatives_of, near_optimal_models
from riskexplore.evaluation.prices import FeaturePrice, FeaturePrices, feature_prices

__all__ = ["DEFAULT_MAX_MODELS", "AlternativesState", "EditRow", "closeness"]

#: Most models of a set shown by default.
DEFAULT_MAX_MODELS = 50


def closeness(model, best: bool = False) -> str:
    """How far a model is from the best one, in a few words: ``"the best"``, ``"as good
    as the best"``, ``"0.07% worse"`` (relative) or ``"2 more mistakes"`` (checklists).

    Parameters
    ----------
    model : fitted model
        The model (its ``distance``).
    best : bool
        Whether it is the best model of its set.

    Returns
    -------
    str
        The words.
    """
    d = model.distance
    if d is None:
        return "distance unknown"
    if abs(d.absolute) <= 1e-8 * max(1.0, abs(d.lower_bound)):
        return "the best" if best else "as good as the best"
    if d.unit == "mistakes":
        return f"{d.absolute:g} more mistake{'s' if d.absolute != 1 else ''}"
    return f"{percent(d.relative)} worse" if d.relative == d.relative else f"+{d.absolute:.3g}"


@dataclass(frozen=True)
class EditRow:
    """One row of the edit controls: a feature and its points (risk scores), or an item and
    whether it is on the checklist.

    Attributes
    ----------
    name : str
        The feature or item.
    value : int
        Points (risk scores) or 1/0 (on the checklist or not).
    group : str
        The item's feature group (a feature's own name).
    """

    name: str
    value: int
    group: str


@dataclass
class AlternativesState:
    """The near-optimal set, the selected model, its edits and the feature prices.

    Attributes
    ----------
    family : str or None
        The model family of the data configured.
    settings : dict
        The family's fit settings (with ``time_limit``: seconds for each computation).
    constraints : list
        Constraints every model obeys (the rules of the page).
    found : NearOptimalSet or None
        The set (best first).
    selected : int or None
        Index of the selected model in ``found``.
    model : fitted model or None
        The model shown: the selected one, or an edit of it.
    prices : FeaturePrices or None
        The price of each feature.
    data_version : int
        Changes whenever :meth:`configure` is given other data or settings.

    Examples
    --------
    The near-optimal set and its hand edits without widgets:

    >>> from riskexplore import load_dataset
    >>> from riskexplore.widgets import AlternativesState
    >>> mammo = load_dataset("mammo")
    >>> state = AlternativesState()
    >>> settings = {"max_size": 3, "time_limit": 10}
    >>> state.configure(family="risk_score", X=mammo.X, y=mammo.y, settings=settings)
    True
    >>> found = state.compute_set(tolerance=0.01)  # every score within 1% of the best
    >>> state.model is found.best
    True
    >>> edited = state.change_points("Age_geq_60", +1)  # one more point; its distance is certified
    >>> edited.all_points["Age_geq_60"] == found.best.all_points["Age_geq_60"] + 1
    True
    """

    family: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    constraints: list = field(default_factory=list)
    found: NearOptimalSet | None = None
    selected: int | None = None
    model: Any = None
    prices: FeaturePrices | None = None
    data_version: int = 0
    _data: tuple = (None, None, None, None)
    _key: tuple | None = None
    _shared: dict[str, Any] = field(default_factory=dict)
    _lock: Any = field(default_factory=threading.RLock)

    # --- what is computed on ------------------------------------------------------------
    def configure(
        self,
        *,
        family: str,
        X,
        y,
        X_test=None,
        y_test=None,
        settings: Mapping[str, Any] | None = None,
        constraints: Iterable = (),
        version: Any = None,
    ) -> bool:
        """Set the data, family, settings and constraints of the next computations.

        The set, selection and prices are cleared when any of them changed, the time
        limit apart (``version`` stands for the data, e.g. the Explorer's data version;
        without it the data's identity is used).

        Parameters
        ----------
        family : str
            The model family.
        X, y
            Training data.
        X_test, y_test : optional
            Held-out data (test metrics).
        settings : mapping, optional
            The family's fit settings, with ``time_limit``.
        constraints : iterable
            Constraints every model obeys.
        version : optional
            A token that changes with the data.

        Returns
        -------
        bool
            Whether anything changed (and the results were cleared).

        Raises
        ------
        InputError
            For a family without alternatives.
        """
        spec_family = get_family(family)
        alternatives_of(spec_family)
        settings = dict(settings or {})
        constraints = list(constraints or ())
        token = version if version is not None else (id(X), id(y))
        problem = {k: v for k, v in settings.items() if k != "time_limit"}  # not the problem
        key = (
            spec_family.name,
            token,
            repr(sorted(problem.items(), key=lambda kv: kv[0])),
            repr(constraints),
        )
        with self._lock:
            self.settings = settings  # (a new time limit applies to the next computation)
            if key == self._key:
                return False
            data_changed = self._key is None or self._key[:2] != key[:2]
            self._key = key
            self.family = spec_family.name
            self.settings = settings
            self.constraints = constraints
            self._data = (X, y, X_test, y_test)
            if data_changed:  # loss cuts stay valid for other settings on the same data
                self._shared = spec_family.alternatives.shared()
            self.clear()
            self.data_version += 1
            return True

    def clear(self) -> None:
        """Forget the set, the selection, the edits and the prices."""
        with self._lock:
            self.found, self.selected, self.model, self.prices = None, None, None, None

    @property
    def spec(self) -> AlternativesSpec:
        """The family's near-optimal search, edits and prices."""
        if self.family is None:
            raise InputError("load data and choose the outcome first")
        return alternatives_of(self.family)

    def unsupported(self, words: bool = False) -> str | None:
        """Why the configured settings have no alternatives (a risk score's learned
        scale), or None.

        Parameters
        ----------
        words : bool
            In plain words for a page, rather than the error message naming the option.

        Returns
        -------
        str or None
            The family's reason, or None when they are supported (or nothing is
            configured).
        """
        if self.family is None:
            return None
        return self.spec.unsupported(self._fit_settings()[0], words=words)

    @property
    def data(self) -> tuple:
        """``(X, y, X_test, y_test)`` configured."""
        return self._data

    def _fit_settings(self) -> tuple[dict[str, Any], float]:
        settings = dict(self.settings)
        time_limit = float(settings.pop("time_limit", 60.0))
        return settings, time_limit

    # --- the set ------------------------------------------------------------------------
    def compute_set(
        self,
        *,
        tolerance: float | None = None,
        max_models: int = DEFAULT_MAX_MODELS,
        stop=None,
    ) -> NearOptimalSet:
        """Find every model within ``tolerance`` of the best one (blocking) and select the
        best.

        Parameters
        ----------
        tolerance : float, optional
            Relative (risk scores) or in weighted mistakes (checklists); default: the
            family's.
        max_models : int
            Most models kept.
        stop : threading.Event or callable, optional
            Ends the search early (the set is then marked incomplete).

        Returns
        -------
        NearOptimalSet
            The set.

        Raises
        ------
        InputError
            Without data, or for bad settings.
        InfeasibleError
            If no model obeys the settings and rules.
        """
        X, y, X_test, y_test = self._data
        if X is None:
            raise InputError("load data and choose the outcome first")
        spec = self.spec
        key = self._key
        settings, time_limit = self._fit_settings()
        found = near_optimal_models(
            X,
            y,
            family=self.family,
            tolerance=spec.tolerance if tolerance is None else tolerance,
            max_models=max_models,
            time_limit=time_limit,
            stop=stop,
            constraints=self.constraints,
            X_test=X_test,
            y_test=y_test,
            **self._shared,
            **settings,
        )
        with self._lock:
            if key != self._key:  # the data or settings changed meanwhile
                raise InputError("the data or settings changed during the search; search again")
            self.found, self.prices = found, None
            self.selected, self.model = None, None
            if len(found):
                self.select(0)
        return found

    def select(self, index: int):
        """Show model ``index`` of the set (0 is the best); edits start from it.

        Parameters
        ----------
        index : int
            Its position in the set.

        Returns
        -------
        fitted model
            The model.
        """
        if self.found is None:
            raise InputError("find the alternatives first")
        validate({"index": [Interval(int, 0, len(self.found) - 1)]}, {"index": index})
        with self._lock:
            self.selected = int(index)
            self.model = self.found[self.selected].model
        return self.model

    def adopt(self, found: NearOptimalSet, selected: int | None = None) -> None:
        """Show a set found before (a study's) for the configured family, settings and
        constraints, with model ``selected`` of it.

        Parameters
        ----------
        found : NearOptimalSet
            The set; it must be of the configured family.
        selected : int, optional
            The index of the model to show.
        """
        if found.family != self.family or not len(found):
            raise InputError(f"a set of {found.family} models cannot be shown for {self.family}")
        X, y = self._data[:2]
        if X is None:
            raise InputError("load data and choose the outcome first")
        if self.spec.training_problem is not None:  # hand edits need the training problem
            settings, _ = self._fit_settings()
            problem = self.spec.training_problem(X, y, settings, list(self.constraints))
            for alternative in found:
                attach_problem(alternative.model, problem)
        with self._lock:
            self.found, self.prices = found, None
            self.selected, self.model = None, None
        if selected is not None:
            self.select(selected)

    @property
    def best(self):
        """The best model of the set (None before it is found)."""
        return None if self.found is None or not len(self.found) else self.found.best

    @property
    def edited(self) -> bool:
        """Whether the model shown is a hand edit of the selected one."""
        return self.model is not None and self.model is not self._selected_model()

    def _selected_model(self):
        if self.found is None or self.selected is None:
            return None
        return self.found[self.selected].model

    def card_label(self, index: int, size_noun: str | None = None) -> str:
        """A one-line summary of model ``index`` for its card in the list.

        Parameters
        ----------
        index : int
            Its position in the set.
        size_noun : str, optional
            What its size counts (default: the family's, ``"features"``, ``"items"``).

        Returns
        -------
        str
            ``"#3 · 5 features · 0.07% worse"``, ``"#2 · 4 items · 1 more mistake"``.
        """
        model = self.found[index].model
        noun = size_noun or get_family(self.family).size_noun
        return f"#{index + 1} · {model.size} {noun} · {closeness(model, index == 0)}"

    # --- hand edits ---------------------------------------------------------------------
    def edit(self, change: Mapping[str, Any]):
        """Apply a hand edit to the model shown (see
        the ``edit`` of the family's
        :class:`~riskexplore.core.registry.AlternativesSpec`).

        Parameters
        ----------
        change : mapping
            ``{"points": {...}}`` (risk scores) or ``{"add": [...], "remove": [...],
            "M": m}`` (checklists).

        Returns
        -------
        fitted model
            The edited model (now shown).
        """
        if self.model is None:
            raise InputError("select a model first")
        model = self.spec.edit(self.model, change)
        with self._lock:
            self.model = model
        return model

    def change_points(self, feature: str, delta: int):
        """Add ``delta`` points to ``feature`` (risk scores; the intercept is chosen anew).

        Parameters
        ----------
        feature : str
            The feature.
        delta : int
            Points to add (``+1``, ``-1``).

        Returns
        -------
        RiskScore
            The edited model.
        """
        self._require("points")
        current = self.model.all_points.get(feature)
        if current is None:
            raise InputError(f"unknown feature {feature!r}")
        return self.edit({"points": {feature: current + int(delta)}})

    def set_item(self, item: str, on: bool):
        """Put ``item`` on the checklist or take it off (checklists).

        Parameters
        ----------
        item : str
            The item.
        on : bool
            On the checklist or not.

        Returns
        -------
        Checklist
            The edited checklist (the same one when nothing changes).
        """
        self._require("items")
        if (item in self.model.items) == bool(on):
            return self.model
        return self.edit({"add": [item]} if on else {"remove": [item]})

    def change_threshold(self, delta: int):
        """Add ``delta`` to the checklist's threshold ``M`` (checklists).

        Parameters
        ----------
        delta : int
            ``+1`` or ``-1``.

        Returns
        -------
        Checklist
            The edited checklist.
        """
        self._require("items")
        return self.edit({"M": self.model.M + int(delta)})

    def reset(self):
        """Undo the edits: show the selected model again.

        Returns
        -------
        fitted model
            The selected model.
        """
        with self._lock:
            self.model = self._selected_model()
        return self.model

    def _require(self, kind: str) -> None:
        if self.model is None:
            raise InputError("select a model first")
        if self.spec.edit_kind != kind:
            raise InputError(f"{get_family(self.family).label} models are not edited by {kind}")

    def edit_rows(self) -> list[EditRow]:
        """The edit controls of the model shown: every feature with its points (risk
        scores) or every item with whether it is on the checklist, in the data's order.

        Returns
        -------
        list of EditRow
            The rows (empty without a model).
        """
        model = self.model
        if model is None:
            return []
        if self.spec.edit_kind == "points":
            return [EditRow(n, int(p), n) for n, p in model.all_points.items()]
        groups = model.item_groups or {}
        chosen = set(model.items)
        return [EditRow(i, int(i in chosen), groups.get(i, i)) for i in model.item_names]

    # --- prices -------------------------------------------------------------------------
    def compute_prices(
        self, *, stop=None, callback: Callable[[FeaturePrice], None] | None = None
    ) -> FeaturePrices:
        """The certified price of leaving out each feature of the best model and of
        forcing in each other one (blocking; within the time limit in all).

        Parameters
        ----------
        stop : threading.Event or callable, optional
            Ends the work early (the features priced so far are kept).
        callback : callable, optional
            Called with each feature's price as it is found.

        Returns
        -------
        FeaturePrices
            The prices.
        """
        X, y, _, _ = self._data
        if X is None:
            raise InputError("load data and choose the outcome first")
        key = self._key
        settings, time_limit = self._fit_settings()
        prices = feature_prices(
            X,
            y,
            family=self.family,
            best=self.best,  # the set's best model, when it was found
            time_limit=time_limit,
            stop=stop,
            constraints=self.constraints,
            callback=callback,
            **self._shared,
            **settings,
        )
        with self._lock:
            if key != self._key:
                raise InputError("the data or settings changed meanwhile; compute again")
            self.prices = prices
        return prices
