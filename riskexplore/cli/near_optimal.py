"""``riskexplore near-optimal DATA``: every model within a tolerance of the optimum, with a
certificate that none is missing.

Takes the options of ``fit`` (risk scores), of ``checklist`` (``--family checklist``) or
of ``survival`` (``--family survival_score --time T --event E``); an option of another
family only is refused (families may share one: ``--max-size``). A family's options, their
checks and how its data are read come from its command
(:attr:`~riskexplore.core.registry.PlugIns.command`): ``add_near_optimal_arguments(parser)
-> names`` and ``near_optimal_problem(args, settings) -> (X, y, name)``. Prints the set as
a list (rank, distance to the best model, the model), or with ``--json`` one object
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
    positive_int,
)
from riskexplore.cli.errors import CLIError
from riskexplore.cli.solving import run_with_interrupt, stdout_to_stderr
from riskexplore.core.registry import (
    DEFAULT_FAMILY,
    ModelFamily,
    families,
    get_family,
    load_plugin,
)
from riskexplore.evaluation.near_optimal import NearOptimalSet, alternatives_of, near_optimal_models

__all__ = ["DESCRIPTION", "add_arguments", "check_range", "near_optimal_report", "run"]

#: The command's description in ``--help``.
DESCRIPTION = (
    "List every model within a tolerance of the optimum (relative for risk and survival "
    "scores, in weighted mistakes for checklists), best first, with a certificate that the list is "
    "complete unless --max-models or the time limit cut it short."
)


def _offered() -> list[ModelFamily]:
    """The families with near-optimal sets."""
    return [f for f in families() if f.alternatives is not None]


def _command(family: ModelFamily):
    """The family's command module (its near-optimal options), or None."""
    command = family.plugins.command
    return None if command is None else load_plugin(command.plugin)


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
        choices=[f.name for f in _offered()],
        default=DEFAULT_FAMILY,
        help=f"the kind of model (default {DEFAULT_FAMILY})",
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
    options = {}  # each family's options (as ``args`` attributes)
    for family in _offered():
        add = getattr(_command(family), "add_near_optimal_arguments", None)
        options[family.name] = () if add is None else tuple(add(parser))
    parser.set_defaults(family_options=options)


def check_range(settings: dict[str, Any], low: str, high: str, what: str) -> None:
    """Refuse a range whose two ends were given the wrong way round.

    Parameters
    ----------
    settings : dict
        The settings given.
    low, high : str
        The two ends' settings (``"coef_min"``, ``"coef_max"``).
    what : str
        The options' middle word (``--coef-min``: ``"coef"``).

    Raises
    ------
    CLIError
        When both are given and ``low`` exceeds ``high``.
    """
    if low in settings and high in settings and settings[low] > settings[high]:
        raise CLIError(f"--{what}-min {settings[low]} exceeds --{what}-max {settings[high]}")


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The family's settings that were given; an option of another family only (not of
    this one too) is an error."""
    own = args.family_options[args.family]
    for family, options in args.family_options.items():
        if family == args.family:
            continue
        for option in options:
            if option not in own and getattr(args, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise CLIError(f"{flag} is an option of --family {family}, not {args.family}")
    return {k: getattr(args, k) for k in own if getattr(args, k) is not None}


def _problem(args: argparse.Namespace, settings: dict[str, Any]):
    """``(X, y, name)``: the data, read (and the settings checked and completed) by the
    family's command, else as a plain table."""
    find = getattr(_command(get_family(args.family)), "near_optimal_problem", None)
    return load_table(args.data, args.target) if find is None else find(args, settings)


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
    X, y, name = _problem(args, settings)
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
