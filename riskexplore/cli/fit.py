"""``riskexplore fit DATA``: fit a certifiably optimal risk score and print its card.

The risk scores' command (:attr:`~riskexplore.core.registry.PlugIns.command`), also with
their side of ``near-optimal`` (:func:`add_near_optimal_arguments`,
:func:`near_optimal_problem`).
"""

from __future__ import annotations

import argparse
import threading
from typing import Any

from riskexplore.cli.arguments import (
    add_data,
    add_parallel,
    add_survival_outcome,
    add_time_limit,
    load_table,
    nonnegative_float,
    nonnegative_int,
    positive_finite_float,
    rate,
)
from riskexplore.cli.audit import add_audit, audit_json, audit_report, check_audit, print_audits
from riskexplore.cli.binarization import (
    add_binarization,
    all_binary,
    bundled_categorical,
    linear_columns,
    print_summary,
    thresholds,
)
from riskexplore.cli.errors import CLIError
from riskexplore.cli.near_optimal import check_range
from riskexplore.cli.output import ProgressPrinter, finite, print_model
from riskexplore.cli.reporting import add_reporting, check_reporting, finish_reporting
from riskexplore.cli.solving import dask_client, run_solve
from riskexplore.core.registry import load_plugin
from riskexplore.data.binarize import Binarizer
from riskexplore.risk_score.fit import iter_fit_risk_score
from riskexplore.risk_score.operating_point import OperatingPoint
from riskexplore.risk_score.problem import (
    C0,
    COEF_MAX,
    COEF_MIN,
    INTERCEPT_MAX,
    INTERCEPT_MIN,
    MULTIPLIER_MAX,
    MULTIPLIER_MIN,
    SCALES,
)
from riskexplore.risk_score.raw_table import BINARIZE_OPTIONS

__all__ = [
    "DESCRIPTION",
    "SURVIVAL_COMMAND",
    "add_arguments",
    "add_points_range",
    "add_near_optimal_arguments",
    "binarization_arguments",
    "fit_report",
    "near_optimal_problem",
    "run",
]

#: The command's description in ``--help``.
DESCRIPTION = (
    "Fit a certifiably optimal risk score and print its score card (with --time and "
    "--event: a survival score)."
)
#: The command that fits a survival score (``fit --time T --event E`` runs it).
SURVIVAL_COMMAND = "riskexplore.cli.survival"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    add_data(parser)
    parser.add_argument(
        "--max-size", type=nonnegative_int, metavar="R", help="most features with points"
    )
    add_points_range(parser)
    parser.add_argument("--intercept-min", type=int, default=INTERCEPT_MIN, metavar="A0")
    parser.add_argument("--intercept-max", type=int, default=INTERCEPT_MAX, metavar="B0")
    parser.add_argument(
        "--c0", type=nonnegative_float, default=C0, metavar="C", help="penalty per feature"
    )
    parser.add_argument(
        "--scale",
        choices=SCALES,
        default="fixed",
        help="how points become a risk: fixed, risk = sigma(score) (default), or learned, "
        "risk = sigma(score / m) with the multiplier m learned (fits risks better)",
    )
    parser.add_argument(
        "--multiplier-min",
        type=positive_finite_float,
        metavar="A",
        help=f"smallest multiplier m of the learned scale (default {MULTIPLIER_MIN:g})",
    )
    parser.add_argument(
        "--multiplier-max",
        type=positive_finite_float,
        metavar="B",
        help=f"largest multiplier m of the learned scale (default {MULTIPLIER_MAX:g})",
    )
    _add_operating_point(parser)
    add_survival_outcome(parser)
    add_binarization(parser, linear=True)
    add_time_limit(parser, "model")
    add_parallel(parser, "the search", "fit the support screen")
    add_audit(parser)
    add_reporting(parser)
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the card"
    )


def run(args: argparse.Namespace) -> int:
    """Fit the risk score, print it (or the ``--json`` report); the exit code.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.

    Returns
    -------
    int
        The exit code, 0 (errors raise and are printed by :func:`riskexplore.cli.main`).
    """
    if args.time is not None or args.event is not None:  # a survival outcome
        return load_plugin(SURVIVAL_COMMAND).run(args)
    check_range(vars(args), "coef_min", "coef_max", "coef")
    check_range(vars(args), "intercept_min", "intercept_max", "intercept")
    scale_kwargs = _scale_arguments(args)
    rules = _operating_point(args)
    X, y, name = load_table(args.data, args.target)
    binarization = binarization_arguments(args, X, name)
    audit_data = check_audit(args, X, y)
    validation_data = check_reporting(args, X, y)
    progress = None if args.json else ProgressPrinter()
    client = dask_client(args.scheduler)

    def start(stop: threading.Event):
        return iter_fit_risk_score(
            X,
            y,
            max_size=args.max_size,
            coef_min=args.coef_min,
            coef_max=args.coef_max,
            intercept_min=args.intercept_min,
            intercept_max=args.intercept_max,
            c0=args.c0,
            time_limit=args.time_limit,
            stop=stop,
            n_jobs=args.n_jobs,
            client=client,
            constraints=rules,
            **scale_kwargs,
            **binarization,
        )

    model = run_solve(start, progress, client)
    audits = audit_report(model, X, y, args, audit_data)
    if args.json:
        report = fit_report(model, name, len(y))
        if audits:
            report["audit"] = audit_json(audits)
        finish_reporting(model, X, y, args, validation_data, audits=audits, report=report)
        return print_model(model, report)
    print_summary(model, binarization)
    print_model(model, None)
    print_audits(audits, args.audit_data)
    finish_reporting(model, X, y, args, validation_data, audits=audits)
    return 0


def add_points_range(parser: argparse.ArgumentParser) -> None:
    """``--coef-min`` and ``--coef-max``, the points range (survival scores' too).

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    parser.add_argument("--coef-min", type=int, default=COEF_MIN, metavar="A", help="least points")
    parser.add_argument("--coef-max", type=int, default=COEF_MAX, metavar="B", help="most points")


def binarization_arguments(args: argparse.Namespace, X, name: str) -> dict[str, Any]:
    """The raw-table arguments of ``fit_risk_score`` (``binarize``, ``thresholds``,
    ``linear``, ``one_per_variable``) from the flags, checked against the data.

    A table of 0/1 columns is used as it is (no binarizer: the same model and card as
    before raw tables were read), as is any table with ``--no-binarize``; every other
    table is binarized (``binarize="auto"``; a bundled dataset's category codes, such as
    heart's ``cp``, as categories). Survival scores binarize the same way.

    Parameters
    ----------
    args : Namespace
        The parsed arguments (``--cuts``, ``--linear``, ``--no-binarize``, ...).
    X : DataFrame
        The features.
    name : str
        The dataset's name.

    Returns
    -------
    dict
        ``binarize`` and, for a binarized table, ``thresholds``, ``linear`` and
        ``one_per_variable``.
    """
    cuts = thresholds(args.cuts, X)
    linear = linear_columns(args.linear, X)
    if args.no_binarize:
        given = [
            flag
            for flag, value in (
                ("--cuts", cuts),
                ("--linear", linear),
                ("--any-items-per-variable", args.any_items_per_variable),
            )
            if value
        ]
        if given:
            raise CLIError(f"{' and '.join(given)} cannot be used with --no-binarize")
        return {"binarize": None}
    if cuts is None and not linear and all_binary(X):
        return {"binarize": None}
    options: dict[str, Any] = {
        "linear": linear,
        "one_per_variable": not args.any_items_per_variable,
    }
    categorical = bundled_categorical(args.data, name, X)
    if categorical:
        binarizer = Binarizer(**BINARIZE_OPTIONS, thresholds=cuts, categorical=categorical)
        return {"binarize": binarizer, **options}
    return {"binarize": "auto", "thresholds": cuts, **options}


def _add_operating_point(parser: argparse.ArgumentParser) -> None:
    """The options of an operating-point rule (``--at-score`` with its rates)."""
    rule = parser.add_argument_group(
        "operating point (a certified rule: at total score >= S, e.g. sensitivity >= 0.9)"
    )
    rule.add_argument("--at-score", type=int, metavar="S", help="the total score of the rule")
    rule.add_argument(
        "--min-sensitivity", type=rate, metavar="P", help="least share of positives at >= S"
    )
    rule.add_argument(
        "--min-specificity", type=rate, metavar="P", help="least share of negatives below S"
    )
    rule.add_argument(
        "--max-fpr", type=rate, metavar="P", help="largest share of negatives at >= S"
    )


def _operating_point(args: argparse.Namespace) -> list[OperatingPoint]:
    """The operating-point rule of the options (none without ``--at-score``), checked."""
    limits = {
        "min_sensitivity": args.min_sensitivity,
        "min_specificity": args.min_specificity,
        "max_false_positive_rate": args.max_fpr,
    }
    given = {name: value for name, value in limits.items() if value is not None}
    if args.at_score is None:
        if given:
            raise CLIError(
                "--min-sensitivity, --min-specificity and --max-fpr need --at-score S "
                "(the total score the rule is about)"
            )
        return []
    if not given:
        raise CLIError("--at-score needs --min-sensitivity, --min-specificity or --max-fpr")
    return [OperatingPoint(args.at_score, **given)]


def _scale_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """``scale`` (and the multiplier's bounds) of ``fit_risk_score``, checked."""
    given = [
        flag
        for flag, value in (
            ("--multiplier-min", args.multiplier_min),
            ("--multiplier-max", args.multiplier_max),
        )
        if value is not None
    ]
    if args.scale == "fixed":
        if given:
            verb = "needs" if len(given) == 1 else "need"
            raise CLIError(
                f"{' and '.join(given)} {verb} --scale learned (the fixed scale has m = 1)"
            )
        return {"scale": "fixed"}
    low = MULTIPLIER_MIN if args.multiplier_min is None else args.multiplier_min
    high = MULTIPLIER_MAX if args.multiplier_max is None else args.multiplier_max
    if low >= high:
        raise CLIError(f"--multiplier-min {low:g} must be less than --multiplier-max {high:g}")
    return {"scale": "learned", "multiplier_min": low, "multiplier_max": high}


def fit_report(model, dataset: str, n_samples: int) -> dict[str, Any]:
    """The ``--json`` object of ``fit``: certificate, model and solve statistics.

    Parameters
    ----------
    model : RiskScore
        The fitted risk score.
    dataset : str
        The dataset's name.
    n_samples : int
        Training rows (when the statistics do not say).

    Returns
    -------
    dict
        The report (non-finite numbers as None), with the model (``model``: the document
        of :meth:`RiskScore.to_dict`, read back by ``RiskScore.from_dict``) and, for a raw
        table, its ``binarizer`` (:meth:`Binarizer.to_dict`).
    """
    cert = model.certificate
    stats = model.stats
    report = {
        "dataset": dataset,
        "status": cert.status,
        "objective": finite(stats.get("objective", cert.upper_bound)),
        "loss": finite(stats.get("loss")),
        "lower_bound": finite(cert.lower_bound),
        "upper_bound": finite(cert.upper_bound),
        "gap": finite(cert.gap),
        "intercept": model.intercept,
        "coefficients": model.points,
        "scale": model.scale,
        "multiplier": model.multiplier,
        "size": model.size,
        "nodes": stats.get("nodes"),
        "cuts": stats.get("cuts"),
        "time": stats.get("time"),
        "n_samples": int(stats.get("n_samples", n_samples)),
        "model": model.to_dict(),
    }
    if model.binarizer is not None:  # absent for a table used as it is
        report["binarizer"] = model.binarizer.to_dict()
    return report


# --- near-optimal --family risk_score --------------------------------------------------
def add_near_optimal_arguments(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The risk scores' options of ``near-optimal`` (as for ``fit``, without defaults: an
    option given with another family is refused).

    Parameters
    ----------
    parser : ArgumentParser
        The ``near-optimal`` parser.

    Returns
    -------
    tuple of str
        The options' names (``args`` attributes).
    """
    risk = parser.add_argument_group("risk scores (as for fit)")
    risk.add_argument("--max-size", type=nonnegative_int, metavar="R")
    risk.add_argument("--coef-min", type=int, metavar="A")
    risk.add_argument("--coef-max", type=int, metavar="B")
    risk.add_argument("--intercept-min", type=int, metavar="A0")
    risk.add_argument("--intercept-max", type=int, metavar="B0")
    risk.add_argument("--c0", type=nonnegative_float, metavar="C")
    risk.add_argument(
        "--scale",
        choices=("fixed", "learned"),
        help="fixed only: near-optimal sets are certified with risk = sigma(score) "
        "(--scale learned is refused)",
    )
    return ("max_size", "coef_min", "coef_max", "intercept_min", "intercept_max", "c0", "scale")


def near_optimal_problem(args: argparse.Namespace, settings: dict[str, Any]):
    """Check the risk-score settings given to ``near-optimal`` and read the data.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    settings : dict
        The settings given.

    Returns
    -------
    tuple
        ``(X, y, name)``.

    Raises
    ------
    CLIError
        For the learned scale or a range given the wrong way round.
    """
    if settings.get("scale") == "learned":
        raise CLIError(
            "--scale learned: near-optimal sets are certified with the fixed scale only "
            "(risk = sigma(score)); leave out --scale or pass --scale fixed"
        )
    check_range(settings, "coef_min", "coef_max", "coef")
    check_range(settings, "intercept_min", "intercept_max", "intercept")
    return load_table(args.data, args.target)
