"""The report's subgroup audit section: each audit's findings in plain words and its
table of groups (an :class:`~riskexplore.evaluation.audit.run.AuditResult` or its dict)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskexplore.evaluation.audit.run import AuditResult
from riskexplore.report.markup import esc, number, paragraph, section, table

__all__ = ["audit_section", "audits"]


def audits(audit: Any) -> dict[str, dict[str, Any]]:
    """The audits given to a report, by name, as dicts.

    Parameters
    ----------
    audit : AuditResult, its dict, a mapping name -> either, or None
        The audit(s).

    Returns
    -------
    dict
        Name -> the audit's ``to_dict()`` (empty for None).
    """
    if audit is None:
        return {}
    if isinstance(audit, AuditResult) or (isinstance(audit, Mapping) and "groups" in audit):
        audit = {"": audit}
    return {
        str(name): a.to_dict() if isinstance(a, AuditResult) else dict(a)
        for name, a in audit.items()
    }


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return number(value, 3)
    return str(value)


def _one_audit(name: str, doc: Mapping[str, Any]) -> str:
    by = " × ".join(str(b) for b in (doc.get("settings") or {}).get("by", ()))
    heading = f"<h3>By {esc(by or 'group')}{esc(f' ({name})' if name else '')}</h3>"
    findings = [f.get("sentence") for f in doc.get("findings") or () if f.get("sentence")]
    found = (
        "<ul>" + "".join(f"<li>{esc(s)}</li>" for s in findings) + "</ul>"
        if findings
        else paragraph("No group differs from the rest beyond chance.")
    )
    groups = doc.get("groups") or []
    headers = list(groups[0]) if groups else []
    rows = [[_cell(g.get(h)) for h in headers] for g in groups]
    return heading + found + (table(headers, rows, "rx-table rx-small") if rows else "")


def audit_section(audit: Any) -> str:
    """The subgroup audit(s), or a note that none was run.

    Parameters
    ----------
    audit : AuditResult, its dict, a mapping name -> either, or None
        The audit(s).

    Returns
    -------
    str
        The section.
    """
    docs = audits(audit)
    if not docs:
        body = paragraph(
            "Not covered: no subgroup audit was run (audit the score by group to add one)."
        )
    else:
        body = "\n".join(_one_audit(name, doc) for name, doc in docs.items())
    return section("audit", "Subgroup audit", body)
