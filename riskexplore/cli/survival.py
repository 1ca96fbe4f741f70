"""``riskexplore survival DATA --time T --event E --horizon H`` (also ``riskexplore fit DATA
--time T --event E``): fit a certifiably optimal survival score and print its card.

The survival scores' command (:attr:`~riskexplore.core.registry.PlugIns.command`).
"""

from __future__ import annotations

import argparse
import threading
from typing import Any

from riskexplore.cli.arguments import (
    add_data,
    add_survival_outcome,
    add_time_limit,
    n_jobs_argument,
    nonnegative_float,
    nonnegative_int,
)
from riskexplore.cli.audit import add_audit, audit_json, audit_report, check_audit, print_audits
from riskexplore.cli.binarization import add_binarization, print_summary
from riskexplore.cli.errors import CLIError
from riskexplore.cli.fit import add_points_range, binarization_arguments
from riskexplore.cli.near_optimal import check_range
from riskexplore.cli.output import ProgressPrinter, finite, print_model
from riskexplore.cli.reporting import add_reporting, finish_reporting
from riskexplore.cli.solving import run_solve
from riskexplore.cli.validate import survival_rows
from riskexplore.data.survival import time_unit_of
from riskexplore.risk_score.problem import C0, COEF_MAX, COEF_MIN
from riskexplore.risk_score.survival.fit import iter_fit_survival_score
from riskexplore.risk_score.survival.problem import survival_outcome

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "add_near_optimal_arguments",
    "near_optimal_problem",
    "run",
    "survival_report",
]

#: The command's description in ``--help``.
DESCRIPTION = (
    "Fit a certifiably optimal survival score (integer points, Cox partial likelihood) "
    "and print its card: the risk of the event by each horizon per total score."
)

#: Flags of ``fit`` that a survival score does not take, with the value that means unset.
_RISK_SCORE_ONLY = {
    "target": None,
    "scale": "fixed",
    "multiplier_min": None,
    "multiplier_max": None,
    "at_score": None,
    "scheduler": None,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    add_data(parser)
    add_survival_outcome(parser)
    parser.add_argument("--max-size", type=nonnegative_int, metavar="R", help="most items")
    add_points_range(parser)
    parser.add_argument(
        "--c0", type=nonnegative_float, default=C0, metavar="C", help="penalty per item"
    )
    add_binarization(parser, linear=True)
    add_time_limit(parser, "model")
    parser.add_argument(
        "--n-jobs",
        type=n_jobs_argument,
        default=None,
        metavar="N",
        help="cores of the search (default: every core; -1 likewise)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the card"
    )
    add_audit(parser)
    add_reporting(parser)


def _other_rows(args: argparse.Namespace, X, flag: str) -> tuple[Any, tuple] | None:
    """The rows of ``--validate-data`` or ``--audit-data`` (``flag``): the training data's
    columns and the time and event (read before the fit: a bad file fails early)."""
    path = getattr(args, flag.removeprefix("--").replace("-", "_"))
    if path is None:
        return None
    rows, outcome, _ = survival_rows(path, args.time, args.event)
    missing = [str(c) for c in X.columns if str(c) not in [str(k) for k in rows.columns]]
    if missing:
        raise CLIError(
            f"{flag} {path} lacks the columns {', '.join(missing)}: it needs the time, the "
            "event and every column of the training data"
        )
    return rows[list(X.columns)], outcome


def _check(args: argparse.Namespace) -> None:
    if args.time is None or args.event is None:
        raise CLIError("a survival score needs both --time COL and --event COL")
    given = [
        "--" + name.replace("_", "-")
        for name, unset in _RISK_SCORE_ONLY.items()
        if getattr(args, name, unset) not in (unset, False)
    ]
    for name in ("intercept_min", "intercept_max"):
        if getattr(args, name, None) not in (None, -100, 100):
            given.append("--" + name.replace("_", "-"))
    if given:
        raise CLIError(f"{', '.join(given)}: not offered for survival scores (--time)")
    check_range(vars(args), "coef_min", "coef_max", "coef")


def run(args: argparse.Namespace) -> int:
    """Fit the survival score, print it (or the ``--json`` report); the exit code.

    Parameters
    ----------
    args : Namespace
        The parsed arguments (of this command or of ``fit``).

    Returns
    -------
    int
        The exit code, 0 (errors raise and are printed by :func:`riskexplore.cli.main`).
    """
    _check(args)
    X, (time, event), name = survival_rows(args.data, args.time, args.event)
    check_audit(args, X, None, load=False)  # (--audit-data: its rows have a time too)
    audit_data = _other_rows(args, X, "--audit-data") if args.audit else None
    validation_data = _other_rows(args, X, "--validate-data")
    binarization = binarization_arguments(args, X, name)

    def start(stop: threading.Event):
        return iter_fit_survival_score(
            X,
            time,
            event,
            max_size=args.max_size,
            coef_min=args.coef_min,
            coef_max=args.coef_max,
            c0=args.c0,
            horizon=args.horizon,
            time_unit=time_unit_of(args.time),  # "days" for a column named so; else none
            time_limit=args.time_limit,
            stop=stop,
            n_jobs=args.n_jobs,
            **binarization,
        )

    model = run_solve(start, None if args.json else ProgressPrinter())
    if audit_data is not None:
        audit_data = (audit_data[0], survival_outcome(*audit_data[1]))
    audits = audit_report(model, X, survival_outcome(time, event), args, audit_data)
    if args.json:
        report = survival_report(model, name, len(X))
        if audits:
            report["audit"] = audit_json(audits)
        finish_reporting(
            model, X, (time, event), args, validation_data, audits=audits, report=report
        )
        return print_model(model, report)
    print_summary(model, binarization)
    print_model(model, None)
    print_audits(audits, args.audit_data)
    finish_reporting(model, X, (time, event), args, validation_data, audits=audits)
    return 0


def survival_report(model, dataset: str, n_samples: int) -> dict[str, Any]:
    """The ``--json`` object: certificate, points, the risk table and the model.

    Parameters
    ----------
    model : SurvivalScore
        The fitted survival score.
    dataset : str
        The dataset's name.
    n_samples : int
        Training rows.

    Returns
    -------
    dict
        The report (non-finite numbers as None); ``model`` is the document of
        :meth:`SurvivalScore.to_dict`.
    """
    cert, stats = model.certificate, model.stats
    report = {
        "dataset": dataset,
        "status": cert.status,
        "objective": finite(stats.get("objective")),
        "loss": finite(stats.get("loss")),
        "lower_bound": finite(cert.lower_bound),
        "upper_bound": finite(cert.upper_bound),
        "gap": finite(cert.gap),
        "points": model.points,
        "size": len(model.points),
        "horizons": list(model.horizons),
        "risk_table": model.risk_table().to_dict("records") if model.horizons else None,
        "nodes": stats.get("nodes"),
        "cuts": stats.get("cuts"),
        "time": stats.get("time"),
        "n_samples": int(stats.get("n_samples", n_samples)),
        "n_events": stats.get("n_events"),
        "model": model.to_dict(),
    }
    if model.binarizer is not None:
        report["binarizer"] = model.binarizer.to_dict()
    return report


# --- near-optimal --family survival_score ----------------------------------------------
#: The survival scores' options of ``near-optimal``: their own, and those they share with
#: risk scores (``--max-size``, ``--coef-min``, ``--coef-max``, ``--c0``).
_NEAR_OPTIMAL_OPTIONS = ("time", "event", "horizon", "max_size", "coef_min", "coef_max", "c0")


def add_near_optimal_arguments(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The survival scores' options of ``near-optimal``: ``--time``, ``--event``,
    ``--horizon``, and the size, points and penalty options (added here unless another
    family already added them).

    Parameters
    ----------
    parser : ArgumentParser
        The ``near-optimal`` parser.

    Returns
    -------
    tuple of str
        The options' names (``args`` attributes).
    """
    add_survival_outcome(parser)
    group = parser.add_argument_group("survival scores (as for survival)")
    for flag, kind, metavar in (
        ("--max-size", nonnegative_int, "R"),
        ("--coef-min", int, "A"),
        ("--coef-max", int, "B"),
        ("--c0", nonnegative_float, "C"),
    ):
        try:
            group.add_argument(flag, type=kind, metavar=metavar)
        except argparse.ArgumentError:  # the risk scores' option of the same meaning
            pass
    return _NEAR_OPTIMAL_OPTIONS


def near_optimal_problem(args: argparse.Namespace, settings: dict[str, Any]):
    """Check the survival settings given to ``near-optimal`` and read the rows: the time
    and event columns leave ``settings`` (they are the outcome).

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    settings : dict
        The settings given (changed in place).

    Returns
    -------
    tuple
        ``(X, y, name)``, ``y`` the structured survival outcome.

    Raises
    ------
    CLIError
        Without ``--time`` and ``--event``, with ``--target``, or for a points range given
        the wrong way round.
    """
    if args.time is None or args.event is None:
        raise CLIError("--family survival_score needs both --time COL and --event COL")
    if getattr(args, "target", None) is not None:
        raise CLIError("--target: a survival score's outcome is --time and --event")
    settings.pop("time"), settings.pop("event")
    lo, hi = settings.get("coef_min", COEF_MIN), settings.get("coef_max", COEF_MAX)
    if lo > hi:
        raise CLIError(f"--coef-min {lo} exceeds --coef-max {hi}")
    X, (time, event), name = survival_rows(args.data, args.time, args.event)
    return X, survival_outcome(time, event), name
