"""``riskexplore near-optimal DATA``: every model within a tolerance of the optimum, with a
certificate that none is missing.

Takes the options of ``fit`` (risk scores) or of ``checklist`` (``--family checklist``);
an option of the other family is refused. Prints the set as a list (rank, distance to the
best model, the model), or with ``--json`` one object
``{"complete": ..., "optimum": ..., "models": [...]}`` (see
:meth:`~riskexplore.evaluation.near_optimal.NearOptimalSet.to_dict`). Ctrl-C stops the
search and prints the models found so far, marked incomplete.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from riskexplore.cli.arguments import (
    add_data,
    add_time_limit,
    load_table,
    nonnegative_float,
    nonnegative_int,
    positive_float,
    positive_int,
    rate,
)
from riskexplore.cli.checklist import load_checklist_table
from riskexplore.cli.errors import CLIError
from riskexplore.cli.solving import run_with_interrupt, stdout_to_stderr
from riskexplore.core.registry import families
from riskexplore.evaluation.near_optimal import NearOptimalSet, alternatives_of, near_optimal_models

__all__ = ["DESCRIPTION", "add_arguments", "near_optimal_report", "run"]

#: The command's description in ``--help``.
DESCRIPTION = (
    "List every model within a tolerance of the optimum (relative for risk scores, in "
    "weighted mistakes for checklists), best first, with a certificate that the list is "
    "complete unless --max-models or the time limit cut it short."
)

#: The options of each family (as ``args`` attributes); the others' are refused.
OPTIONS: dict[str, tuple[str, ...]] = {
    "risk_score": (
        "max_size",
        "coef_min",
        "coef_max",
        "intercept_min",
        "intercept_max",
        "c0",
        "scale",
    ),
    "checklist": ("max_items", "min_m", "max_m", "binarize", "fnr_max", "fpr_max", "fp_weight"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    add_data(parser)
    parser.add_argument(
        "--family",
        choices=[f.name for f in families() if f.alternatives is not None],
        default="risk_score",
        help="the kind of model (default risk_score)",
    )
    parser.add_argument(
        "--tolerance",
        type=nonnegative_float,
        metavar="T",
        help="risk scores: relative (0.01 = objectives within 1%% of the optimum, the "
        "default); checklists: weighted mistakes above the optimum (default 2)",
    )
    parser.add_argument(
        "--max-models", type=positive_int, default=100, metavar="K", help="most models listed"
    )
    add_time_limit(parser, "models")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
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
    checklist = parser.add_argument_group("checklists (as for checklist)")
    checklist.add_argument("--max-items", type=positive_int, metavar="N")
    checklist.add_argument("--min-m", type=positive_int, metavar="M")
    checklist.add_argument("--max-m", type=positive_int, metavar="M")
    checklist.add_argument("--binarize", choices=("adaptive", "fixed", "none"))
    checklist.add_argument("--fnr-max", type=rate, metavar="G")
    checklist.add_argument("--fpr-max", type=rate, metavar="G")
    checklist.add_argument("--fp-weight", type=positive_float, metavar="W")


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The family's settings that were given; an option of another family is an error."""
    for family, options in OPTIONS.items():
        if family == args.family:
            continue
        for option in options:
            if getattr(args, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise CLIError(f"{flag} is an option of --family {family}, not {args.family}")
    settings = {k: getattr(args, k) for k in OPTIONS[args.family] if getattr(args, k) is not None}
    if settings.get("scale") == "learned":
        raise CLIError(
            "--scale learned: near-optimal sets are certified with the fixed scale only "
            "(risk = sigma(score)); leave out --scale or pass --scale fixed"
        )
    for low, high, what in (
        ("coef_min", "coef_max", "coef"),
        ("intercept_min", "intercept_max", "intercept"),
        ("min_m", "max_m", "m"),
    ):
        if low in settings and high in settings and settings[low] > settings[high]:
            raise CLIError(f"--{what}-min {settings[low]} exceeds --{what}-max {settings[high]}")
    if settings.get("binarize") == "none":
        settings["binarize"] = None
    return settings


def run(args: argparse.Namespace) -> int:
    """Search the set and print it (or the ``--json`` report); the exit code.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.

    Returns
    -------
    int
        The exit code, 0 (errors raise and are printed by :func:`riskexplore.cli.main`).
    """
    settings = _settings(args)
    if args.family == "checklist":
        X, y, name, outcome, categorical = load_checklist_table(args.data, args.target)
        settings["outcome_name"] = outcome
        if settings.get("binarize", "adaptive") is not None:
            settings["categorical"] = categorical
    else:
        X, y, name = load_table(args.data, args.target)
    tolerance = alternatives_of(args.family).tolerance if args.tolerance is None else args.tolerance

    def search(stop):
        found = near_optimal_models(
            X,
            y,
            family=args.family,
            tolerance=tolerance,
            max_models=args.max_models,
            time_limit=args.time_limit,
            stop=stop,
            **settings,
        )
        return found
        yield  # a generator without events: its return value is the set

    with stdout_to_stderr():  # solver banners must not pollute stdout
        found = run_with_interrupt(search, lambda _event: None)
    if args.json:
        print(json.dumps(near_optimal_report(found, name), allow_nan=False))
    else:
        print(_text(found))
    return 0


def near_optimal_report(found: NearOptimalSet, dataset: str) -> dict[str, Any]:
    """The ``--json`` object: :meth:`NearOptimalSet.to_dict` and the dataset's name.

    Parameters
    ----------
    found : NearOptimalSet
        The set.
    dataset : str
        The dataset's name.

    Returns
    -------
    dict
        ``{"dataset", "complete", "reason", "optimum", "lower_bound", "tolerance",
        "models", ...}`` (strict JSON).
    """
    return {"dataset": dataset, **found.to_dict()}


def _text(found: NearOptimalSet) -> str:
    spec = alternatives_of(found.family)
    lines = [found.describe(), ""]
    for a in found:
        d = a.distance
        rel = f"{100 * d.relative:.2f}%" if d.relative == d.relative else "-"
        fields = "; ".join(f"{k} {_value(v)}" for k, v in spec.describe_model(a.model).items())
        lines.append(f"{a.rank:>4}. +{d.absolute:.4g} ({rel})  {fields}")
    counts = ", ".join(f"{k} {v}" for k, v in found.feature_counts().items())
    lines += ["", f"features (models using them): {counts}", f"time {found.time:.1f} s"]
    return "\n".join(lines)


def _value(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {int(v):+d}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)
