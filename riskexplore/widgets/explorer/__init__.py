"""The Explorer: one page from the data to every result view, over
:class:`~riskexplore.exploration.explorer.ExplorerState`.

* :mod:`~riskexplore.widgets.explorer.widget` -- :class:`Explorer`, the widget.
* :mod:`~riskexplore.widgets.explorer.layout` -- its page and its results' tabs.
* :mod:`~riskexplore.widgets.explorer.settings` -- the settings' controls.
* :mod:`~riskexplore.widgets.explorer.runs` -- the runs' Solve buttons and monitors.
* :mod:`~riskexplore.widgets.explorer.results` -- the result views.
* :mod:`~riskexplore.widgets.explorer.study` -- Save and Open of study files.
"""

from __future__ import annotations

from riskexplore.widgets.explorer.widget import Explorer

__all__ = ["Explorer"]
