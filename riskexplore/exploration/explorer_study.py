"""The Explorer's state and study files: the exploration written as a
:class:`~riskexplore.exploration.study.document.Study`, and a state opened from one (on its
data, with its settings, binarization and runs).

:class:`StudyFiles` is a base of :class:`~riskexplore.exploration.explorer.ExplorerState`;
it uses the state's data, settings and runs.
"""

from __future__ import annotations

import warnings
from typing import Self

from riskexplore.errors import InputError
from riskexplore.exploration.study.data import StudyWarning, resolve_data
from riskexplore.exploration.study.document import Study

__all__ = ["StudyFiles"]


class StudyFiles:
    """Writing the state as a study, and a state from a study (a base of
    :class:`~riskexplore.exploration.explorer.ExplorerState`)."""

    def to_study(
        self,
        constraints=(),
        *,
        size_path=None,
        selected: int | None = None,
        alternatives=None,
        audit=None,
        include_data: bool = False,
    ) -> Study:
        """The exploration as a :class:`~riskexplore.exploration.study.Study` (data's identity,
        settings, constraints, the runs on the current data with their models,
        certificates and traces, the size path, the near-optimal set and the settings of
        the "By group" view).

        Parameters
        ----------
        constraints : sequence
            The active constraints (the Explorer's builder holds them).
        size_path : SizePath, optional
            The size path shown.
        selected : int, optional
            The size selected on the path.
        alternatives : (NearOptimalSet, int or None), optional
            The near-optimal set of the current settings and constraints, and the index
            of the model selected in it.
        audit : dict, optional
            The settings of the "By group" view
            (:meth:`~riskexplore.exploration.audit.AuditState.settings_dict`).
        include_data : bool
            Keep the patients' rows in the study (never by default: the study names the
            data and keeps a hash of the table).

        Returns
        -------
        Study
            Write it with :meth:`~riskexplore.exploration.study.Study.to_json`.

        Raises
        ------
        InputError
            Without data and outcome, or for a constraint that cannot be saved (a Pyomo
            model).
        """
        return Study.capture(
            self,
            constraints,
            size_path=size_path,
            selected=selected,
            alternatives=alternatives,
            audit=audit,
            include_data=include_data,
        )

    @classmethod
    def from_study(cls, study, *, data=None, data_name: str | None = None, current=None) -> Self:
        """A state with the data, settings and runs of a study.

        The data are, in order: ``data`` when given, the rows saved in the study, the
        bundled dataset it names, or the table of ``current`` (an uploaded file loaded
        before opening a study saved without its rows). When the table's hash differs
        from the study's, a :class:`~riskexplore.exploration.study.document.StudyWarning` is issued
        (and kept in :attr:`messages`); the models are then shown on these data.

        Parameters
        ----------
        study : Study, str, Path, bytes or dict
            The study, a study file, its text or its document.
        data : DataFrame, bytes, str or Path, optional
            The table to open it on (a CSV file's bytes or path).
        data_name : str, optional
            The name of ``data``.
        current : ExplorerState, optional
            The state open now (its table is used for a study of an uploaded file).

        Returns
        -------
        ExplorerState
            The state; the study's constraints and size path are
            ``study.constraints`` and ``study.size_path``.

        Raises
        ------
        InputError
            For a malformed or edited study, missing data, or settings this version
            refuses.
        """
        study = study if isinstance(study, Study) else Study.read(study)
        now = None
        if current is not None and current.frame is not None:
            now = (current.frame, current.dataset, current.source)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resolved = resolve_data(study, data, data_name=data_name, current=now)
        state = cls(same_data_as_study=resolved.same)
        for w in caught:
            state.messages.append(("warning", str(w.message)))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        state.set_family(study.family)
        state._set_frame(resolved.frame, resolved.name, resolved.source)
        state.categorical = resolved.categorical
        try:
            state.update_settings(**study.settings)
        except InputError as exc:
            raise InputError(f"the study's settings cannot be used: {exc}") from None
        state.set_outcome(study.data.outcome)
        if not study.binarization.is_default():
            try:
                state._choose(study.binarization)
            except InputError as exc:
                raise InputError(f"the study's binarization cannot be used: {exc}") from None
        for run, saved in study.runs.items():
            state.record(
                run,
                saved.model,
                saved.family,
                saved.settings,
                saved.constraints,
                state.data_version,
            )
        if study.scale_price is not None and "unconstrained" in state.runs:
            state.record_scale_price(state.runs["unconstrained"], study.scale_price)
        return state

    def open_study(
        self, source, *, data=None, name: str | None = None
    ) -> tuple[Self, Study, list[str]]:
        """The state of a study, to show instead of this one (which stays as it is).

        The study is read (:meth:`Study.read
        <riskexplore.exploration.study.document.Study.read>`) and opened on its data
        (:meth:`from_study`; this state's table for a study of an uploaded file saved
        without its rows). The new state follows this one: its data version is newer than
        every run of this state (their results are never shown as the study's) and its
        messages come after this state's.

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
        (ExplorerState, Study, list of str)
            The new state, the study (its constraints, size path, near-optimal set and
            "By group" settings are for the views), and the texts of the
            :class:`~riskexplore.exploration.study.data.StudyWarning` issued while opening
            it (e.g. the data differ from the study's); they are not issued again.

        Raises
        ------
        InputError
            For a malformed or edited study, missing data, or settings this version
            refuses.
        """
        study = source if isinstance(source, Study) else Study.read(source, name=name)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", StudyWarning)
            state = type(self).from_study(study, data=data, current=self)
        notes = [str(w.message) for w in caught if issubclass(w.category, StudyWarning)]
        state.data_version += self.data_version  # newer than every earlier run
        for record in state.runs.values():
            record.data_version = state.data_version
        state.messages = self.messages + state.messages
        return state, study, notes
