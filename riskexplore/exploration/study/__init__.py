"""Study files: a whole exploration saved as one JSON document and opened again.

* :mod:`~riskexplore.exploration.study.document` -- :class:`Study`, written and read back
  checked.
* :mod:`~riskexplore.exploration.study.codec` -- the JSON of its parts (constraints over a
  whitelist, values, models, settings).
* :mod:`~riskexplore.exploration.study.alternatives` -- the near-optimal set's part.
* :mod:`~riskexplore.exploration.study.data` -- the data's identity and the table a study is
  opened on.
"""

from __future__ import annotations

from riskexplore.exploration.study.document import Study

__all__ = ["Study"]
