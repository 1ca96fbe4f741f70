"""``riskexplore checklist DATA``: fit a certifiably optimal predictive checklist.

The checklists' command (:attr:`~riskexplore.core.registry.PlugIns.command`), also with
their side of ``near-optimal`` (:func:`add_near_optimal_arguments`,
:func:`near_optimal_problem`).
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path
from typing import Any

from riskexplore.checklist.fit import iter_fit_checklist
from riskexplore.cli.arguments import (
    add_data,
    add_parallel,
    add_time_limit,
    load_table,
    positive_float,
    positive_int,
    rate,
)
from riskexplore.cli.audit import add_audit, audit_json, audit_report, check_audit, print_audits
from riskexplore.cli.binarization import add_binarization, bundled_categorical, thresholds
from riskexplore.cli.errors import CLIError
from riskexplore.cli.near_optimal import check_range
from riskexplore.cli.output import ProgressPrinter, finite, print_model
from riskexplore.cli.reporting import add_reporting, check_reporting, finish_reporting
from riskexplore.cli.solving import dask_client, run_solve
from riskexplore.datasets import dataset_info, list_datasets

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "add_near_optimal_arguments",
    "checklist_report",
    "load_checklist_table",
    "near_optimal_problem",
    "run",
]

#: The command's description in ``--help``.
DESCRIPTION = "Fit a certifiably optimal predictive checklist and print it."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    add_data(parser)
    parser.add_argument(
        "--max-items", type=positive_int, metavar="N", help="most items on the list"
    )
    parser.add_argument(
        "--min-m", type=positive_int, default=1, metavar="M", help="least threshold M"
    )
    parser.add_argument("--max-m", type=positive_int, metavar="M", help="largest threshold M")
    parser.add_argument(
        "--binarize",
        choices=("adaptive", "fixed", "none"),
        default="adaptive",
        help="how raw columns become items (none: the columns are 0/1 items already)",
    )
    add_binarization(parser, linear=False)
    parser.add_argument(
        "--fnr-max", type=rate, metavar="G", help="largest training false negative rate"
    )
    parser.add_argument(
        "--fpr-max", type=rate, metavar="G", help="largest training false positive rate"
    )
    parser.add_argument(
        "--fp-weight",
        type=positive_float,
        default=1.0,
        metavar="W",
        help="cost of a false positive relative to a false negative (default 1)",
    )
    add_time_limit(parser, "checklist")
    add_audit(parser)
    add_reporting(parser)
    parser.add_argument(
        "--method",
        choices=("exact", "mip"),
        default="exact",
        help="exact search over item subsets (default) or the HiGHS integer program",
    )
    add_parallel(parser)
    parser.add_argument("--ascii", action="store_true", help="print boxes as [ ] and >= for ≥")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the checklist"
    )


def _short_outcome(text: str | None) -> str | None:
    """``"heart disease (target = 1 ...)"`` -> ``"heart disease"`` for the title."""
    if not text:
        return text
    short = text.split(" (", 1)[0].strip()
    return short or text


def load_checklist_table(data: str, target: str | None):
    """``(X, y, name, outcome, categorical)``: like :func:`load_table`, plus the outcome
    wording and categorical columns of a bundled dataset.

    Parameters
    ----------
    data : str
        A CSV path or a bundled dataset name.
    target : str or None
        The outcome column.

    Returns
    -------
    tuple
        ``(X, y, name, outcome, categorical)``.
    """
    X, y, name = load_table(data, target)
    outcome = None
    categorical = bundled_categorical(data, name, X) or "auto"
    if not Path(data).is_file() and data.strip().lower() in list_datasets():
        info = dataset_info(name)
        if target is None or str(target) == info["outcome_column"]:
            outcome = _short_outcome(info["outcome"])
    if outcome is None:
        outcome = f"{y.name} = 1" if getattr(y, "name", None) is not None else None
    return X, y, name, outcome, categorical


def run(args: argparse.Namespace) -> int:
    """Fit the checklist, print it (or the ``--json`` report); the exit code.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.

    Returns
    -------
    int
        The exit code, 0 (errors raise and are printed by :func:`riskexplore.cli.main`).
    """
    if args.max_m is not None and args.min_m > args.max_m:
        raise CLIError(f"--min-m {args.min_m} exceeds --max-m {args.max_m}")
    if args.max_items is not None and args.min_m > args.max_items:
        raise CLIError(f"--min-m {args.min_m} exceeds --max-items {args.max_items}")
    X, y, name, outcome, categorical = load_checklist_table(args.data, args.target)
    audit_data = check_audit(args, X, y)
    validation_data = check_reporting(args, X, y)
    binarize = None if args.binarize == "none" else args.binarize
    progress = None if args.json else ProgressPrinter()
    options: dict[str, Any] = {}
    if binarize is not None:
        options["categorical"] = categorical
        options["thresholds"] = thresholds(args.cuts, X)
        options["one_item_per_group"] = not args.any_items_per_variable
    elif args.cuts or args.any_items_per_variable:
        flag = "--cuts" if args.cuts else "--any-items-per-variable"
        raise CLIError(f"{flag} needs items made from raw columns; leave out --binarize none")

    client = dask_client(args.scheduler)

    def start(stop: threading.Event):
        return iter_fit_checklist(
            X,
            y,
            binarize=binarize,
            max_items=args.max_items,
            min_m=args.min_m,
            max_m=args.max_m,
            fnr_max=args.fnr_max,
            fpr_max=args.fpr_max,
            fp_weight=args.fp_weight,
            time_limit=args.time_limit,
            stop=stop,
            outcome_name=outcome,
            method=args.method,
            n_jobs=args.n_jobs,
            client=client,
            **options,
        )

    model = run_solve(start, progress, client)
    audits = audit_report(model, X, y, args, audit_data)
    if args.json:
        report = checklist_report(model, name, len(y))
        if audits:
            report["audit"] = audit_json(audits)
        finish_reporting(model, X, y, args, validation_data, audits=audits, report=report)
        return print_model(model, report)
    print_model(model, None, ascii=args.ascii)
    print_audits(audits, args.audit_data)
    finish_reporting(model, X, y, args, validation_data, audits=audits)
    return 0


def checklist_report(model, dataset: str, n_samples: int) -> dict[str, Any]:
    """The ``--json`` object of ``checklist``: certificate, checklist and statistics.

    Parameters
    ----------
    model : Checklist
        The fitted checklist.
    dataset : str
        The dataset's name.
    n_samples : int
        Training rows (when the statistics do not say).

    Returns
    -------
    dict
        The report (non-finite numbers as None), with the checklist (``model``: the
        document of :meth:`Checklist.to_dict`, read back by ``Checklist.from_dict`` and
        ``riskexplore validate``) and the ``binarizer`` of raw columns
        (:meth:`Binarizer.to_dict`).
    """
    cert = model.certificate
    stats = model.stats
    report = {
        "dataset": dataset,
        "status": cert.status,
        "objective": finite(stats.get("objective", cert.upper_bound)),
        "lower_bound": finite(cert.lower_bound),
        "upper_bound": finite(cert.upper_bound),
        "gap": finite(cert.gap),
        "M": model.M,
        "N": model.N,
        "items": list(model.items),
        "train_errors": stats.get("train_errors"),
        "train_error": finite(stats.get("train_error")),
        "fp": stats.get("fp"),
        "fn": stats.get("fn"),
        "fnr": finite(stats.get("fnr")),
        "fpr": finite(stats.get("fpr")),
        "nodes": stats.get("nodes"),
        "time": stats.get("time"),
        "n_items": stats.get("n_items"),
        "n_samples": int(stats.get("n_samples", n_samples)),
        "model": model.to_dict(),
    }
    if model.binarizer is not None:  # how raw columns became items (Binarizer.to_dict)
        report["binarizer"] = model.binarizer
    return report


# --- near-optimal --family checklist ---------------------------------------------------
def add_near_optimal_arguments(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The checklists' options of ``near-optimal`` (as for ``checklist``, without
    defaults: an option given with another family is refused).

    Parameters
    ----------
    parser : ArgumentParser
        The ``near-optimal`` parser.

    Returns
    -------
    tuple of str
        The options' names (``args`` attributes).
    """
    checklist = parser.add_argument_group("checklists (as for checklist)")
    checklist.add_argument("--max-items", type=positive_int, metavar="N")
    checklist.add_argument("--min-m", type=positive_int, metavar="M")
    checklist.add_argument("--max-m", type=positive_int, metavar="M")
    checklist.add_argument("--binarize", choices=("adaptive", "fixed", "none"))
    checklist.add_argument("--fnr-max", type=rate, metavar="G")
    checklist.add_argument("--fpr-max", type=rate, metavar="G")
    checklist.add_argument("--fp-weight", type=positive_float, metavar="W")
    return ("max_items", "min_m", "max_m", "binarize", "fnr_max", "fpr_max", "fp_weight")


def near_optimal_problem(args: argparse.Namespace, settings: dict[str, Any]):
    """Check the checklist settings given to ``near-optimal``, read the data and add the
    outcome's wording and the categorical columns to the settings.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    settings : dict
        The settings given (completed in place).

    Returns
    -------
    tuple
        ``(X, y, name)``.

    Raises
    ------
    CLIError
        For a range of ``M`` given the wrong way round.
    """
    check_range(settings, "min_m", "max_m", "m")
    if settings.get("binarize") == "none":
        settings["binarize"] = None
    X, y, name, outcome, categorical = load_checklist_table(args.data, args.target)
    settings["outcome_name"] = outcome
    if settings.get("binarize", "adaptive") is not None:
        settings["categorical"] = categorical
    return X, y, name
