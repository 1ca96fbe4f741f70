"""The Alternatives view: the near-optimal set, hand edits and feature prices, over
:class:`~riskexplore.exploration.alternatives.AlternativesState`.

* :mod:`~riskexplore.widgets.alternatives.view` -- :class:`AlternativesView`.
* :mod:`~riskexplore.widgets.alternatives.html` -- its HTML (distance, set summary, price
  table, card text).
* :mod:`~riskexplore.widgets.alternatives.edit` -- the hand-edit controls.
* :mod:`~riskexplore.widgets.alternatives.layout` -- its page's boxes.
"""

from __future__ import annotations

from riskexplore.widgets.alternatives.view import AlternativesView

__all__ = ["AlternativesView"]
