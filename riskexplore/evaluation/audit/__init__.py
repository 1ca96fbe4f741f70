"""Subgroup audits: does a fitted model work for every group of rows?

* :mod:`~riskexplore.evaluation.audit.run` -- :func:`audit`, the entry point, and
  :class:`AuditResult` (a table, findings in plain words, the settings);
* :mod:`~riskexplore.evaluation.audit.groups` -- groups from one column or the cross of
  two, numeric columns cut into bins labelled in plain words;
* :mod:`~riskexplore.evaluation.audit.metrics` -- the metrics of one group;
* :mod:`~riskexplore.evaluation.audit.findings` -- gaps to the rest and the findings;
* :mod:`~riskexplore.evaluation.intervals` (shared with the validation) -- Wilson,
  Newcombe, DeLong and bootstrap intervals;
* :mod:`~riskexplore.evaluation.audit.rules` -- from a finding to the rule that limits it;
* :mod:`~riskexplore.evaluation.audit.binned` -- a column cut into ranges as a group
  column (``"age (ranges at 40, 60)"``), for the rules of binned findings.

Names are imported on first use (``audit`` here is the function; its module is
:mod:`riskexplore.evaluation.audit.run`, so that importing it never hides the
function behind a module of the same name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.evaluation.audit.binned import binned_column_name as binned_column_name
    from riskexplore.evaluation.audit.binned import group_data as group_data
    from riskexplore.evaluation.audit.findings import Finding as Finding
    from riskexplore.evaluation.audit.groups import Grouping as Grouping
    from riskexplore.evaluation.audit.groups import make_groups as make_groups
    from riskexplore.evaluation.audit.run import AuditResult as AuditResult
    from riskexplore.evaluation.audit.run import audit as audit
    from riskexplore.evaluation.intervals import delong_auc as delong_auc
    from riskexplore.evaluation.intervals import newcombe_interval as newcombe_interval
    from riskexplore.evaluation.intervals import wilson_interval as wilson_interval

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
