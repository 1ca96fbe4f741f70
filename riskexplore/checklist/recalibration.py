"""A checklist recalibrated to other rows: every item and ``M`` kept, its risk per number of
items checked re-estimated on the new rows (see :mod:`riskexplore.checklist.count_risk`)."""

from __future__ import annotations

from riskexplore.checklist.count_risk import count_risks
from riskexplore.checklist.model import Checklist
from riskexplore.core.recalibration import checked_outcome, recalibration_record
from riskexplore.errors import InputError

__all__ = ["recalibrate_checklist"]


def recalibrate_checklist(model: Checklist, X, y) -> Checklist:
    """The checklist with its outcome rate per number of items checked refitted to
    ``(X, y)``.

    Parameters
    ----------
    model : Checklist
        A fitted checklist.
    X : DataFrame or array
        The rows (raw columns when the checklist keeps its binarizer, or items).
    y : array-like (n,)
        Their 0/1 outcome.

    Returns
    -------
    Checklist
        A new checklist with the same items and ``M``, its ``count_risk`` estimated on the
        rows (monotone, so O/E = 1 on them) and ``stats["recalibrated"] = {"rows": n,
        "events": e}``. The certificate is the development fit's.

    Raises
    ------
    InputError
        For rows the checklist cannot read, an outcome that is not 0/1 or of another
        length, or no rows.
    """
    counts = model.count_checked(X)
    yv = checked_outcome(y, len(counts))
    if len(yv) == 0:
        raise InputError("recalibrate needs at least one row")
    doc = model.to_dict(include_trace=True)
    doc["count_risk"] = count_risks(counts, yv, model.N)
    doc["stats"] = {**model.stats, "recalibrated": recalibration_record(yv)}
    out = Checklist.from_dict(doc)
    out._problem = model._problem  # hand edits still start from the development rows
    return out
