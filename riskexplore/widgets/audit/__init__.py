"""The By group view: a subgroup audit in plain words, over
:class:`~riskexplore.exploration.audit.AuditState`
(:mod:`~riskexplore.widgets.audit.view`)."""

from __future__ import annotations

from riskexplore.widgets.audit.view import AuditView

__all__ = ["AuditView"]
