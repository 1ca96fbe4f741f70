"""``riskexplore validate MODEL.json DATA --target COL``: a saved model on other patients
(a survival score's: ``--time T --event E [--horizon H]``).

Reads a model written by ``riskexplore fit --json`` or ``checklist --json`` (or a model's
own ``to_dict()`` document), validates it on the rows of ``DATA`` with
:func:`~riskexplore.evaluation.validation.validate`, and prints the metrics in plain words
(``--json``: the validation's dict); ``--report FILE.html`` also writes the HTML report,
from the same validation.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from riskexplore.cli.arguments import add_survival_outcome, load_table
from riskexplore.cli.errors import CLIError, one_line
from riskexplore.core.registry import families, family_of
from riskexplore.errors import InputError
from riskexplore.evaluation.validation import validate
from riskexplore.report.page import write_report
from riskexplore.report.performance import NET_BENEFIT_THRESHOLDS, metric_number

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "describe_validation",
    "load_model",
    "run",
    "survival_rows",
    "validate_rows",
    "validation_text",
]

#: The command's description in ``--help``.
DESCRIPTION = (
    "Validate a saved model (the JSON of fit --json or checklist --json) on other patients: "
    "AUC, calibration, Brier score and net benefit, with their intervals; for a survival "
    "score (--time, --event), Harrell's and Uno's C, the time-dependent AUC and calibration "
    "at the horizon."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    parser.add_argument("model", metavar="MODEL.json", help="a model written with --json")
    parser.add_argument("data", metavar="DATA", help="a CSV file (or a bundled dataset's name)")
    parser.add_argument("--target", metavar="COL", help="the 0/1 outcome column")
    add_survival_outcome(parser, one_horizon=True)
    parser.add_argument(
        "--json", action="store_true", help="print the validation as one JSON object"
    )
    parser.add_argument(
        "--report", metavar="FILE.html", help="also write the HTML report (no network needed)"
    )


def _model_document(doc: Any) -> dict[str, Any]:
    """The model's own document: the ``model`` of a ``--json`` report, or ``doc``."""
    if isinstance(doc, dict) and isinstance(doc.get("model"), dict):
        return doc["model"]
    if isinstance(doc, dict):
        return doc
    raise InputError("holds no model document (a JSON object)")


def load_model(path: str) -> Any:
    """The model saved in ``path`` (``fit --json``, ``checklist --json`` or ``to_dict()``),
    read by the family whose document it is.

    Parameters
    ----------
    path : str
        The JSON file.

    Returns
    -------
    fitted model
        The model.

    Raises
    ------
    CLIError
        When the file is missing, is not JSON, or holds no model riskexplore wrote.
    """
    file = Path(path)
    if not file.is_file():
        raise CLIError(f"MODEL {path}: no such file")
    try:
        doc = _model_document(json.loads(file.read_text(encoding="utf-8")))
    except (ValueError, UnicodeDecodeError, InputError) as exc:
        raise CLIError(f"MODEL {path} is not a model's JSON: {one_line(exc)}") from None
    reasons = []
    for family in families():
        try:
            return family.model_type.from_dict(doc)
        except (InputError, KeyError, TypeError, ValueError) as exc:
            reasons.append(f"not a {family.label.lower()} ({one_line(exc)})")
    raise CLIError(
        f"MODEL {path} holds no model riskexplore can read: {'; '.join(reasons)}; write one "
        "with `riskexplore fit --json` or `riskexplore checklist --json`"
    )


def validate_rows(model: Any, X, y, where: str, **options: Any) -> Any:
    """:func:`~riskexplore.evaluation.validation.validate` on rows of a file, its errors
    naming the file.

    Parameters
    ----------
    model : fitted model
        The model.
    X, y
        The rows.
    where : str
        The file (or option and file) the rows come from.
    **options
        More arguments of ``validate`` (a survival score's ``horizon``).

    Returns
    -------
    Validation or SurvivalValidation
        The validation.
    """
    try:
        return validate(model, X, y, **options)
    except InputError as exc:
        raise CLIError(f"{where}: {one_line(exc)}") from None


def validation_text(v: dict[str, Any], where: str) -> str:
    """The validation in plain words, one measure a line.

    Parameters
    ----------
    v : dict
        The validation's dict.
    where : str
        The data's name.

    Returns
    -------
    str
        The text.
    """
    level = f"{100 * float(v.get('confidence') or 0.95):.0f}%"
    n, events = int(v["n"]), int(v.get("events") or 0)
    lines = [
        f"Validation on {where}: {n:,} patients, {events:,} with the outcome "
        f"({100 * events / n if n else 0:.1f}%); {level} intervals in brackets",
        f"  AUC                           {metric_number(v.get('auc'))}  (0.5 is chance)",
        f"  calibration-in-the-large      {metric_number(v.get('calibration_intercept'))}"
        "  (ideal 0)",
        f"  calibration slope             {metric_number(v.get('calibration_slope'))}  (ideal 1)",
        f"  observed / expected events    {metric_number(v.get('observed_expected'))}  (ideal 1)",
        f"  Brier score                   {metric_number(v.get('brier'))}  (lower is better)",
    ]
    by_t = {round(float(r["threshold"]), 2): r for r in v.get("net_benefit") or ()}
    parts = [
        f"{100 * t:.0f}%: {metric_number({'estimate': by_t[t]['model']})} "
        f"(treat all {metric_number({'estimate': by_t[t]['treat_all']})})"
        for t in NET_BENEFIT_THRESHOLDS
        if t in by_t
    ]
    if parts:
        lines.append("  net benefit at threshold      " + "; ".join(parts))
    lines += [f"  note: {note}" for note in v.get("notes") or ()]
    return "\n".join(lines)


def describe_validation(validation: Any, where: str) -> str:
    """A validation in plain words: :func:`validation_text` of a 0/1 outcome's, the
    ``to_text()`` of a survival score's (its figures at a horizon).

    Parameters
    ----------
    validation : Validation or SurvivalValidation
        The validation.
    where : str
        The data's name.

    Returns
    -------
    str
        The text.
    """
    if getattr(validation, "horizon", None) is None:
        return validation_text(validation.to_dict(), where)
    return f"Validation on {where}\n{validation.to_text()}"


def survival_rows(data: str, time: str, event: str) -> tuple[pd.DataFrame, tuple, str]:
    """``(X, (time, event), name)`` of a table with a survival outcome.

    Parameters
    ----------
    data : str
        A CSV file or a bundled dataset's name.
    time, event : str
        The outcome's columns.

    Returns
    -------
    tuple
        The other columns, the outcome as two arrays, the data's name.

    Raises
    ------
    CLIError
        For a column that is not in the table.
    """
    X, t, name = load_table(data, time)
    if event not in [str(c) for c in X.columns]:
        raise CLIError(f"unknown event column {event!r}; columns: {', '.join(map(str, X))}")
    e = X.pop(event)
    return X, (t.to_numpy(), e.to_numpy()), name


def _rows(args: argparse.Namespace):
    """The rows and their outcome: ``--target``, or ``--time`` and ``--event``."""
    if args.time is None and args.event is None:
        if args.target is None:
            raise CLIError("name the outcome: --target COL (0/1), or --time COL --event COL")
        if args.horizon is not None:
            raise CLIError("--horizon is for a survival outcome (--time and --event)")
        return load_table(args.data, args.target)
    if args.time is None or args.event is None or args.target is not None:
        raise CLIError("a survival outcome needs both --time COL and --event COL (no --target)")
    return survival_rows(args.data, args.time, args.event)


def run(args: argparse.Namespace) -> int:
    """Validate the model on the data, print it (or its ``--json``), write the report.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.

    Returns
    -------
    int
        The exit code, 0 (errors raise and are printed by :func:`riskexplore.cli.main`).
    """
    model = load_model(args.model)
    survival = family_of(model).outcome == "survival"
    if survival != (args.time is not None or args.event is not None):
        raise CLIError(
            f"MODEL {args.model} is a {family_of(model).label.lower()}: name its outcome with "
            + ("--time COL --event COL" if survival else "--target COL (0/1)")
        )
    X, y, name = _rows(args)
    options = {} if args.horizon is None else {"horizon": args.horizon}
    validation = validate_rows(model, X, y, f"DATA {args.data}", **options)
    v = validation.to_dict()
    if args.json:
        print(json.dumps(v, allow_nan=False))
    else:
        print(describe_validation(validation, name))
    if args.report:
        path = write_report(model, args.report, validation=(X, y, validation))
        if not args.json:
            print(f"report written to {path}")
    return 0
