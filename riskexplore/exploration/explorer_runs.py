"""The Explorer's finished runs: what each used (:class:`RunRecord`), the models of the
runs on the current data, their comparison, and the certified price of a fixed scale.

:class:`RunResults` is a base of :class:`~riskexplore.exploration.explorer.ExplorerState`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from riskexplore.core.registry import get_family
from riskexplore.evaluation.compare import comparison_from_models

__all__ = ["RunRecord", "RunResults"]


@dataclass
class RunRecord:
    """What a finished run used: model, family, settings, constraints, data version."""

    model: Any
    family: str
    settings: dict[str, Any]
    constraints: list
    data_version: int
    dataset: str | None
    outcome: str | None


class RunResults:
    """The runs' models, their comparison and the price of a fixed scale (a base of
    :class:`~riskexplore.exploration.explorer.ExplorerState`)."""

    def record(self, run: str, model, family, settings, constraints, data_version) -> None:
        """Keep a finished run's model and what it used (see :class:`RunRecord`).

        Parameters
        ----------
        run : {"unconstrained", "constrained"}
            The run.
        model : RiskScore or Checklist
            Its model.
        family : str
            Its model family.
        settings : dict
            The settings it used.
        constraints : list
            Its constraints.
        data_version : int
            The data it was fitted on.
        """
        self.results[run] = model
        self.runs[run] = RunRecord(
            model,
            family,
            dict(settings),
            list(constraints),
            data_version,
            self.dataset,
            self.outcome,
        )

    def current_results(self) -> dict[str, Any]:
        """The models of the runs on the current data (a run on earlier data is kept in
        :attr:`runs` but never shown as a result of these data).

        Returns
        -------
        dict
            ``"unconstrained"`` / ``"constrained"`` -> fitted model.
        """
        v = self.data_version
        return {r: rec.model for r, rec in self.runs.items() if rec.data_version == v}

    def comparison(self):
        """The :class:`~riskexplore.evaluation.compare.Comparison` of the two runs, with
        the certified price when they solved the same problem apart from the
        constraints; None until both ran on the current data."""
        free, bound = self.runs.get("unconstrained"), self.runs.get("constrained")
        if free is None or bound is None:
            return None
        if not free.data_version == bound.data_version == self.data_version:
            return None
        nested = (
            free.family == bound.family
            and not free.constraints
            and _problem_settings(free) == _problem_settings(bound)
        )
        comparison = comparison_from_models(
            free.model,
            bound.model,
            self.X,
            self.y,
            X_test=self.X_test,
            y_test=self.y_test,
            constraints=bound.constraints,
            nested=nested,
        )
        if not nested:
            comparison.notes.append(
                "the runs used different settings, so the price of the constraints is not "
                "certified; solve both with the same settings"
            )
        return comparison

    # --- the price of a fixed scale (risk scores) -------------------------------------
    def scale_price_function(self):
        """A ``solve(callbacks=(), stop=None) -> ScalePrice`` that certifies what a fixed
        scale costs for the unconstrained run, or None when there is nothing to price.

        The run's model is one side of the price; the other scale is solved with the
        run's data, settings and time limit (see
        :func:`~riskexplore.risk_score.scale_price.price_of_fixed_scale`). Only families
        with such a price (:attr:`~riskexplore.core.registry.ModelFamily.scale_price`:
        risk scores) are priced.

        Returns
        -------
        callable or None
            The job; pass its result to :meth:`record_scale_price`.
        """
        run = self.runs.get("unconstrained")
        if run is None or run.data_version != self.data_version or run.constraints:
            return None
        family = get_family(run.family)
        if family.scale_price is None or self.X is None:
            return None
        settings = run.settings
        kwargs = family.fit_arguments(
            settings,
            categorical=self.categorical_columns(),
            groups=self.groups(),
            **self._raw_arguments(family),
        )
        kwargs["time_limit"] = float(settings["time_limit"])
        X, y, price = self.X, self.y, family.scale_price.of_run

        def solve(callbacks=(), stop=None):
            return price(X, y, run.model, settings, kwargs, callbacks=callbacks, stop=stop)

        solve.run = run  # type: ignore[attr-defined]
        return solve

    def record_scale_price(self, run: RunRecord, price) -> None:
        """Keep the price computed by :meth:`scale_price_function` for ``run``.

        Parameters
        ----------
        run : RunRecord
            The unconstrained run it prices (the job's ``run`` attribute).
        price : ScalePrice
            The result.
        """
        self.scale_price, self._scale_price_run = price, run

    def current_scale_price(self):
        """The price of a fixed scale for the current unconstrained run, or None.

        Returns
        -------
        ScalePrice or None
            The price, if it was computed for the run on the current data.
        """
        run = self.runs.get("unconstrained")
        if run is None or self._scale_price_run is not run:
            return None
        return self.scale_price if run.data_version == self.data_version else None


def _problem_settings(run: RunRecord) -> dict[str, Any]:
    """The settings that define a run's problem (apart from its constraints)."""
    return {k: run.settings.get(k) for k in get_family(run.family).comparable}
