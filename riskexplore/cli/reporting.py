"""``--validate-data FILE`` and ``--report FILE.html`` of ``fit`` and ``checklist``: the
fitted model validated on other patients (same outcome column, every column of the
training data) and the HTML report of the development and validation data."""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from riskexplore.cli.audit import load_audit_data
from riskexplore.cli.validate import describe_validation, validate_rows
from riskexplore.report.page import write_report

__all__ = ["add_reporting", "check_reporting", "finish_reporting", "fit_settings"]

#: Arguments that are not settings of the fit (left out of the report's settings).
_NOT_SETTINGS = ("handler", "json", "report", "validate_data", "data", "target", "audit_data")


def add_reporting(parser: argparse.ArgumentParser) -> None:
    """``--validate-data FILE`` and ``--report FILE.html``.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    parser.add_argument(
        "--validate-data",
        metavar="FILE",
        help="validate the fitted model on this CSV file (other patients: the outcome "
        "column and every column of the training data): AUC, calibration, net benefit",
    )
    parser.add_argument(
        "--report",
        metavar="FILE.html",
        help="write a self-contained HTML report (the model, its certificate, the data, "
        "the metrics and figures of the training data and of --validate-data)",
    )


def check_reporting(
    args: argparse.Namespace, X: pd.DataFrame, y: pd.Series
) -> tuple[pd.DataFrame, pd.Series] | None:
    """Read ``--validate-data`` before the fit (a missing file or column fails early).

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    X, y
        The training data.

    Returns
    -------
    (DataFrame, Series) or None
        The validation rows, or None without ``--validate-data``.
    """
    if args.validate_data is None:
        return None
    return load_audit_data(args.validate_data, X, y, flag="--validate-data")


def fit_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The fit's settings as given on the command line (for the report).

    Parameters
    ----------
    args : Namespace
        The parsed arguments.

    Returns
    -------
    dict
        Option (as typed, ``max-size``) -> value, for the options given.
    """
    return {
        k.replace("_", "-"): v
        for k, v in vars(args).items()
        if k not in _NOT_SETTINGS and v not in (None, False, [], ())
    }


def finish_reporting(
    model: Any,
    X: pd.DataFrame,
    y: pd.Series,
    args: argparse.Namespace,
    validation_data: tuple[pd.DataFrame, Any] | None,
    *,
    audits: dict[str, Any] | None = None,
    report: dict[str, Any] | None = None,
) -> None:
    """Validate on ``--validate-data`` (printed, or put in the ``--json`` ``report``) and
    write ``--report``.

    Parameters
    ----------
    model : fitted model
        The model.
    X, y
        The training data.
    args : Namespace
        The parsed arguments.
    validation_data : (DataFrame, Series) or None
        The rows of ``--validate-data`` (a survival score's: ``(X, (time, event))``).
    audits : dict, optional
        The audits of ``--audit`` (shown in the report).
    report : dict, optional
        The ``--json`` object (gets ``"validation"``); None: print as text.
    """
    v = None
    if validation_data is not None:
        where = f"--validate-data {args.validate_data}"
        v = validate_rows(model, *validation_data, where)
        if report is not None:
            report["validation"] = v.to_dict()
        else:
            print()
            print(describe_validation(v, args.validate_data))
    if args.report:
        path = write_report(
            model,
            args.report,
            development=(X, y),
            validation=None if v is None else (*validation_data, v),
            audit=audits or None,
            settings=fit_settings(args),
        )
        if report is None:
            print(f"\nreport written to {path}")
