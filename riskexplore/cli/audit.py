"""The audit of a fitted model group by group (``--audit COLUMN``, ``--audit-min-size N``,
``--audit-data FILE``): checked against the data before the fit, run after it, printed
after the model or put in the ``--json`` report.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from riskexplore.cli.arguments import positive_int
from riskexplore.cli.errors import CLIError, one_line
from riskexplore.data.tables import read_csv_table
from riskexplore.errors import InputError
from riskexplore.evaluation.audit.run import AuditResult, audit, check_by

__all__ = [
    "add_audit",
    "audit_json",
    "audit_report",
    "check_audit",
    "load_audit_data",
    "print_audits",
]


def add_audit(parser: argparse.ArgumentParser) -> None:
    """``--audit COLUMN`` (repeatable: two make the cross) and ``--audit-min-size N``.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    parser.add_argument(
        "--audit",
        action="append",
        metavar="COLUMN",
        help="audit the model group by group on this column of the data (give it twice "
        "for the cross of two columns)",
    )
    parser.add_argument(
        "--audit-min-size",
        type=positive_int,
        default=30,
        metavar="N",
        help="groups with fewer rows are too few to judge (default 30)",
    )
    parser.add_argument(
        "--audit-data",
        metavar="FILE",
        help="also audit the model on this CSV file (e.g. patients kept aside): the outcome "
        "and every column of the training data",
    )


def check_audit(
    args: argparse.Namespace, X: pd.DataFrame, y: pd.Series | None, *, load: bool = True
) -> tuple[pd.DataFrame, pd.Series] | None:
    """Check ``--audit`` and ``--audit-data`` against the data before the fit.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    X : DataFrame
        The features.
    y : Series or None
        The outcome (its name is the outcome column ``--audit-data`` must have).
    load : bool
        Whether to read ``--audit-data`` here (False: the caller reads it, e.g. a survival
        score's rows with their time and event).

    Returns
    -------
    (DataFrame, Series) or None
        The rows of ``--audit-data`` (the training data's columns, in their order, and the
        outcome), or None without it (or with ``load=False``).

    Raises
    ------
    CLIError
        For more than two columns, a column that is not in the data, ``--audit-data``
        without ``--audit``, or an audit file that cannot be read or lacks columns (all
        named).
    """
    path = getattr(args, "audit_data", None)
    if not args.audit:
        if path is not None:
            raise CLIError("--audit-data needs --audit COLUMN: the column to group by")
        return None
    if len(args.audit) > 2:
        raise CLIError(f"--audit is given {len(args.audit)} times; give one column or two")
    check_by(X, args.audit)
    if path is None or not load:
        return None
    return load_audit_data(path, X, y)


def load_audit_data(
    path: str, X: pd.DataFrame, y: pd.Series, flag: str = "--audit-data"
) -> tuple[pd.DataFrame, pd.Series]:
    """The rows of ``--audit-data`` (or another ``flag``'s file): the training data's
    columns and the outcome.

    Parameters
    ----------
    path : str
        A CSV file.
    X : DataFrame
        The training features (the columns the file must have).
    y : Series
        The training outcome (its name: the outcome column the file must have).
    flag : str
        The option that named the file (in the messages).

    Returns
    -------
    (DataFrame, Series)
        The features in ``X``'s column order, and the outcome.

    Raises
    ------
    CLIError
        When the file is missing, unreadable or empty, or lacks columns (all named).
    """
    file = Path(path)
    if not file.is_file():
        raise CLIError(f"{flag} {path}: no such file")
    frame = read_csv_table(file, path)
    if frame.shape[0] == 0:
        raise CLIError(f"{flag} {path} has no rows")
    outcome = str(y.name)
    frame.columns = [str(c) for c in frame.columns]
    wanted = [outcome] + [str(c) for c in X.columns]
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise CLIError(
            f"{flag} {path} lacks the column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(c) for c in missing)}: it needs the outcome and every column "
            "of the training data"
        )
    features = frame[[str(c) for c in X.columns]]
    features.columns = list(X.columns)
    return features, frame[outcome]


def audit_report(
    model: Any,
    X: pd.DataFrame,
    y: Any,
    args: argparse.Namespace,
    audit_data: tuple[pd.DataFrame, Any] | None = None,
) -> dict[str, AuditResult]:
    """The audits asked for by ``--audit``: ``{"train": result}`` (empty without it),
    and ``"audit_data"`` for the rows of ``--audit-data``.

    Parameters
    ----------
    model : fitted model
        The fitted model (a risk score, a checklist, a survival score).
    X, y
        The training data (a survival score's ``y``: the structured time and event).
    args : Namespace
        The parsed arguments.
    audit_data : (DataFrame, Series), optional
        The rows of ``--audit-data`` (:func:`check_audit`).

    Returns
    -------
    dict
        Split name -> :class:`~riskexplore.evaluation.audit.run.AuditResult`.
    """
    if not args.audit:
        return {}
    out = {"train": audit(model, X, y, args.audit, min_size=args.audit_min_size)}
    if audit_data is not None:
        Xa, ya = audit_data
        try:
            out["audit_data"] = audit(model, Xa, ya, args.audit, min_size=args.audit_min_size)
        except InputError as exc:
            raise CLIError(f"--audit-data {args.audit_data}: {one_line(exc)}") from None
    return out


def audit_json(audits: dict[str, AuditResult]) -> dict[str, Any]:
    """The ``"audit"`` object of a ``--json`` report: split name -> the audit's dict.

    Parameters
    ----------
    audits : dict
        Split name -> audit.

    Returns
    -------
    dict
        JSON-safe (``nan`` as None).
    """
    return {split: result.to_dict() for split, result in audits.items()}


def print_audits(audits: dict[str, AuditResult], audit_file: str | None = None) -> None:
    """Print each audit as a text table, after the model.

    Parameters
    ----------
    audits : dict
        Split name -> audit.
    audit_file : str, optional
        The file of ``--audit-data`` (names the ``"audit_data"`` audit).
    """
    for split, result in audits.items():
        print()
        words = f"the {split} data"
        if split == "audit_data":
            words = f"the data of {Path(audit_file).name}" if audit_file else "the audit data"
        print(result.to_text().replace("Audit by", f"Audit of {words} by", 1))
