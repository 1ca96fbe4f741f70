"""``riskexplore datasets``: list the bundled datasets."""

from __future__ import annotations

import argparse
import json

from riskexplore.datasets import dataset_info, list_datasets

__all__ = ["DESCRIPTION", "add_arguments", "run"]

#: The command's description in ``--help``.
DESCRIPTION = "List the bundled datasets."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """List the bundled datasets (``--json``: as JSON); the exit code.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.

    Returns
    -------
    int
        The exit code, 0.
    """
    infos = [dataset_info(name) for name in list_datasets()]
    if args.json:
        keys = ("name", "n_rows", "n_features", "n_positive", "outcome_column", "outcome")
        print(json.dumps([{k: info[k] for k in keys} for info in infos]))
        return 0
    width = max(len(info["name"]) for info in infos)
    for info in infos:
        print(
            f"{info['name']:<{width}}  {info['n_rows']:>6} rows  {info['n_features']:>3} features"
            f"  outcome {info['outcome_column']}: {info['outcome']}"
        )
    return 0
