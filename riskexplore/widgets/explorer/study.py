"""Study files in the Explorer: save the exploration, and open a study again.

:class:`StudyFiles` is the collaborator behind :meth:`Explorer.save_study
<riskexplore.widgets.explorer.widget.Explorer.save_study>` and :meth:`Explorer.open_study
<riskexplore.widgets.explorer.widget.Explorer.open_study>`. The study is made from and
opened into the Explorer's plain-Python state (:meth:`ExplorerState.to_study
<riskexplore.exploration.explorer.ExplorerState.to_study>`, :meth:`ExplorerState.open_study
<riskexplore.exploration.explorer.ExplorerState.open_study>`); this module adds what the
views hold (the size path, the near-optimal set, the "By group" settings) and draws every
view again (no solve runs). The file format is :mod:`riskexplore.exploration.study.document`.

Examples
--------
>>> from riskexplore.widgets import Explorer
>>> ex = Explorer("mammo", max_size=3, time_limit=5)  # doctest: +SKIP
>>> study = ex.save_study("mammo_study.json")  # doctest: +SKIP
>>> Explorer().open_study("mammo_study.json")  # doctest: +SKIP
True
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from riskexplore.errors import InputError
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.runner import describe_error
from riskexplore.exploration.study.data import StudyWarning
from riskexplore.exploration.study.document import Study

if TYPE_CHECKING:
    from riskexplore.widgets.alternatives.view import AlternativesView
    from riskexplore.widgets.audit.view import AuditView
    from riskexplore.widgets.explorer.results import ResultViews
    from riskexplore.widgets.explorer.runs import RunControls

__all__ = ["StudyFiles"]

log = logging.getLogger(__name__)


class StudyFiles:
    """Save and open study files for an Explorer (a collaborator it holds).

    Parameters
    ----------
    state : callable
        ``() -> ExplorerState``: the state shown now.
    adopt : callable
        ``(ExplorerState) -> None``: the Explorer shows this state instead (its data and
        settings' widgets, new constraint builders, the result views cleared).
    builder : callable
        ``() -> builder or None``: the constraint builder of the current family and data.
    show : callable
        ``(text, level) -> None``: a message on the page.
    runs : RunControls
        The runs' monitors (their models are shown again).
    results : ResultViews
        The result views (the size path is saved and shown again).
    alternatives : AlternativesView
        The Alternatives tab (its near-optimal set is saved and shown again).
    audit : AuditView
        The "By group" tab (its settings are saved; its audit is computed again).
    """

    def __init__(
        self,
        *,
        state: Callable[[], ExplorerState],
        adopt: Callable[[ExplorerState], None],
        builder: Callable[[], Any],
        show: Callable[..., None],
        runs: RunControls,
        results: ResultViews,
        alternatives: AlternativesView,
        audit: AuditView,
    ) -> None:
        self._state, self._adopt, self._builder, self._show = state, adopt, builder, show
        self._runs, self._results = runs, results
        self._alternatives, self._audit = alternatives, audit

    # --- saving -----------------------------------------------------------------------
    def save(self, path=None, *, include_data: bool = False) -> Study:
        """The study of the exploration, written to ``path`` if given (see
        :meth:`Explorer.save_study <riskexplore.widgets.explorer.widget.Explorer.save_study>`).

        Parameters
        ----------
        path : str or Path, optional
            The file to write.
        include_data : bool
            Keep the table's rows in the file.

        Returns
        -------
        Study
            The study.
        """
        view = self._results.pareto
        finished = view.path is not None and not view.running
        builder = self._builder()
        audit = self._audit.state
        study = self._state().to_study(
            [] if builder is None else builder.constraints,
            size_path=view.path if finished else None,
            selected=view.selected if finished else None,
            alternatives=self._alternatives_to_save(),
            audit=audit.settings_dict() if audit.settings["by"] else None,
            include_data=include_data,
        )
        if path is not None:
            study.to_json(path)
        return study

    def _alternatives_to_save(self):
        """The Alternatives tab's set and selection, if it was found for the settings and
        constraints of the page now (else None: a set of other settings is not kept)."""
        view = self._alternatives
        if view.running("set") or not view.sync_source() or view.state.found is None:
            return None
        return view.state.found, view.state.selected

    # --- opening ----------------------------------------------------------------------
    def open(self, source, *, data=None, name: str | None = None) -> bool:
        """Open a study and draw it (see :meth:`Explorer.open_study
        <riskexplore.widgets.explorer.widget.Explorer.open_study>`).

        Parameters
        ----------
        source : str, Path, bytes, dict or Study
            A study file's path, its content, or a study.
        data : DataFrame, bytes, str or Path, optional
            The table to open it on.
        name : str, optional
            The file's name in messages.

        Returns
        -------
        bool
            Whether the study was opened (else a message says why).
        """
        alternatives = self._alternatives.running("set") or self._alternatives.running("prices")
        if self._results.pareto.running or alternatives or self._runs.running:
            self._show("Stop the running search before opening a study.", "warning")
            return False
        try:
            state, study, notes = self._state().open_study(source, data=data, name=name)
        except Exception as exc:
            if not isinstance(exc, InputError):
                log.debug("could not open a study", exc_info=True)
            self._show(f"Could not open the study: {describe_error(exc)}")
            return False
        for note in notes:  # also in the notebook's output (at the Explorer's caller)
            warnings.warn(note, StudyWarning, stacklevel=3)
        notes += self._draw(state, study)
        text = f"Opened the study: {study.summary()}."
        if notes:
            self._show(text + " Warning: " + " ".join(notes), "warning")
        else:
            self._show(text, "info")
        return True

    def _draw(self, state: ExplorerState, study: Study) -> list[str]:
        """Show ``state`` (from ``study``): widgets, constraints, runs, views. Returns
        notes on what could not be restored."""
        self._adopt(state)
        notes = self._add_constraints(study.constraints)
        self._runs.show_models(state.results)
        if state.runs:
            try:
                self._results.refresh(next(iter(state.runs)))
            except Exception as exc:
                notes.append(f"Could not draw the results: {describe_error(exc)}.")
        if study.size_path is not None:
            self._results.pareto.show_path(study.size_path)
            if study.selected is not None:
                self._results.pareto.select(study.selected)
        self._alternatives.sync_source()  # a set found before is not the study's: cleared
        if study.alternatives is not None:
            notes += self._draw_alternatives(study)
        # the By group tab: its settings, and the audit computed again on these data
        notes += self._audit.apply_settings(study.audit or {"by": ()})
        return notes

    def _add_constraints(self, constraints) -> list[str]:
        """Add the study's constraints to the new builder; notes on those left out."""
        notes: list[str] = []
        builder = self._builder()
        for constraint in constraints:
            if builder is None or not builder.add(constraint, quiet=True):
                why = builder.last_error if builder is not None else "no constraint builder"
                notes.append(f"The constraint {constraint.describe()!r} was left out: {why}.")
        if builder is not None:
            builder._refresh_list()
        return notes

    def _draw_alternatives(self, study: Study) -> list[str]:
        """Show the study's near-optimal set, unless the data differ from the study's (its
        distances and completeness are certificates about the study's table)."""
        if not self._state().same_data_as_study:
            return ["The near-optimal set was left out: it was found on other data."]
        if not self._alternatives.sync_source():
            return ["The near-optimal set was left out: the Alternatives tab is not ready."]
        try:
            self._alternatives.show_found(study.alternatives, study.alternatives_selected)
        except Exception as exc:
            return [f"The near-optimal set was left out: {describe_error(exc)}."]
        return []
