"""Study files in the Explorer: save the exploration, and open a study again.

:class:`StudyFiles` gives the :class:`~riskexplore.widgets.explorer.widget.Explorer` its
:meth:`~StudyFiles.save_study` and :meth:`~StudyFiles.open_study`: the study is made from
and restored into the Explorer's plain-Python state (:meth:`ExplorerState.to_study
<riskexplore.exploration.explorer.ExplorerState.to_study>`, :meth:`ExplorerState.from_study
<riskexplore.exploration.explorer.ExplorerState.from_study>`), then every view is drawn
again (no solve runs). The file format is :mod:`riskexplore.exploration.study.document`.

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

from riskexplore.errors import InputError
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.runner import describe_error
from riskexplore.exploration.study.data import StudyWarning
from riskexplore.exploration.study.document import Study

__all__ = ["StudyFiles"]

log = logging.getLogger(__name__)


class StudyFiles:
    """Saving and opening study files: a mixin of the Explorer.

    It uses the :class:`~riskexplore.widgets.explorer.widget.Explorer`'s state, views and
    messages; the Explorer is its only user.
    """

    def save_study(self, path=None, *, include_data: bool = False) -> Study:
        """Save the exploration as a study file (JSON data, never code).

        The study keeps the data's identity (the bundled dataset's name or the uploaded
        file's name, with a SHA-256 hash of the table), the settings, the active
        constraints, both runs on the current data (models with their certificates and
        solve traces), the size path, the near-optimal set of the Alternatives tab
        (with the model selected in it) and the settings of the By group tab; the
        patients' rows only with ``include_data=True``. :meth:`open_study` restores it
        (the By group tab's audit is computed again).

        Parameters
        ----------
        path : str or Path, optional
            The file to write (e.g. ``"mammo_study.json"``); without it nothing is
            written (``study.to_json()`` gives the text).
        include_data : bool
            Keep the table's rows in the file (for an uploaded file that the person you
            share the study with does not have). Off by default.

        Returns
        -------
        Study
            The study (:class:`~riskexplore.exploration.study.document.Study`).

        Raises
        ------
        InputError
            Before data and outcome are chosen, or when a constraint cannot be saved
            (constraints written as Pyomo models cannot).

        Examples
        --------
        >>> ex = Explorer("mammo", max_size=3, time_limit=5)  # doctest: +SKIP
        >>> ex.solve(wait=True)  # doctest: +SKIP
        >>> study = ex.save_study("mammo_study.json")  # doctest: +SKIP
        >>> Explorer().open_study("mammo_study.json")  # doctest: +SKIP
        True
        """
        view = self.pareto
        finished = view.path is not None and not view.running
        study = self.state.to_study(
            self.constraints,
            size_path=view.path if finished else None,
            selected=view.selected if finished else None,
            alternatives=self._alternatives_to_save(),
            audit=self.audit.state.settings_dict() if self.audit.state.settings["by"] else None,
            include_data=include_data,
        )
        if path is not None:
            study.to_json(path)
        return study

    def _alternatives_to_save(self):
        """The Alternatives tab's set and selection, if it was found for the settings and
        constraints of the page now (else None: a set of other settings is not kept)."""
        view = self.alternatives
        if view.running("set") or not view.sync_source() or view.state.found is None:
            return None
        return view.state.found, view.state.selected

    def open_study(self, source, *, data=None, name: str | None = None) -> bool:
        """Open a study file: data, settings, constraints, both runs, the size path and the
        near-optimal set are restored and drawn (monitors with their traces, reliability,
        AUC/CAL, compare, size path, alternatives). No solve runs.

        The data are the bundled dataset the study names, the rows saved in it, ``data``,
        or — for a study of an uploaded file saved without its rows — the file loaded
        now. When the table differs from the study's (its hash), the study still opens,
        with a warning on the page (and a
        :class:`~riskexplore.exploration.study.data.StudyWarning`). A malformed or edited file is
        refused with a message and nothing changes.

        Parameters
        ----------
        source : str, Path, bytes, dict or Study
            A study file's path, its content, or a study.
        data : DataFrame, bytes, str or Path, optional
            The table to open it on (a CSV file's bytes or path).
        name : str, optional
            The file's name in messages (for bytes, as an upload gives them).

        Returns
        -------
        bool
            Whether the study was opened (else :attr:`last_message` says why).
        """
        alternatives = self.alternatives.running("set") or self.alternatives.running("prices")
        if self.pareto.running or alternatives or any(m.running for m in self.monitors.values()):
            self._show("Stop the running search before opening a study.", "warning")
            return False
        try:
            study = source if isinstance(source, Study) else Study.read(source, name=name)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", StudyWarning)
                state = ExplorerState.from_study(study, data=data, current=self.state)
        except Exception as exc:
            if not isinstance(exc, InputError):
                log.debug("could not open a study", exc_info=True)
            self._show(f"Could not open the study: {describe_error(exc)}")
            return False
        notes = [str(w.message) for w in caught if issubclass(w.category, StudyWarning)]
        for note in notes:  # also in the notebook's output
            warnings.warn(note, StudyWarning, stacklevel=2)
        notes += self._adopt_study(state, study)
        text = f"Opened the study: {study.summary()}."
        if notes:
            self._show(text + " Warning: " + " ".join(notes), "warning")
        else:
            self._show(text, "info")
        return True

    def _adopt_study(self, state: ExplorerState, study: Study) -> list[str]:
        """Show ``state`` (from ``study``): widgets, constraints, runs, views. Returns
        notes on what could not be restored."""
        notes: list[str] = []
        state.data_version += self.state.data_version  # newer than every earlier run
        for record in state.runs.values():
            record.data_version = state.data_version
        state.messages = self.state.messages + state.messages
        self.state = state
        self._builders = {}
        self._syncing = True
        try:
            self.family_picker.value = state.family
            if state.source != "bundled":
                self.dataset_picker.value = ""
        finally:
            self._syncing = False
        self._show_family_settings()
        self._sync_settings()
        for view in (self.reliability, self.metrics, self.compare, self.pareto):
            view.clear()
        self._data_changed()
        builder = self.constraint_builder
        for constraint in study.constraints:
            if builder is None or not builder.add(constraint, quiet=True):
                why = builder.last_error if builder is not None else "no constraint builder"
                notes.append(f"The constraint {constraint.describe()!r} was left out: {why}.")
        if builder is not None:
            builder._refresh_list()
        for run, monitor in self.monitors.items():
            monitor.show_model(state.results.get(run))
        if state.runs:
            try:
                self._refresh_results(next(iter(state.runs)))
            except Exception as exc:
                notes.append(f"Could not draw the results: {describe_error(exc)}.")
        if study.size_path is not None:
            self.pareto.show_path(study.size_path)
            if study.selected is not None:
                self.pareto.select(study.selected)
        self.alternatives.sync_source()  # a set found before is not the study's: cleared
        if study.alternatives is not None:
            notes += self._adopt_alternatives(study)
        # the By group tab: its settings, and the audit computed again on these data
        notes += self.audit.apply_settings(study.audit or {"by": ()})
        return notes

    def _adopt_alternatives(self, study: Study) -> list[str]:
        """Show the study's near-optimal set, unless the data differ from the study's (its
        distances and completeness are certificates about the study's table)."""
        if not self.state.same_data_as_study:
            return ["The near-optimal set was left out: it was found on other data."]
        if not self.alternatives.sync_source():
            return ["The near-optimal set was left out: the Alternatives tab is not ready."]
        try:
            self.alternatives.show_found(study.alternatives, study.alternatives_selected)
        except Exception as exc:
            return [f"The near-optimal set was left out: {describe_error(exc)}."]
        return []
