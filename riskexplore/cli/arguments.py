"""The arguments the commands share: a parser whose errors are one line, the checks of
typed values (argparse ``type=``), the data (``DATA``, ``--target``) and how it is read,
``--time-limit``, and the search's workers (``--n-jobs``, ``--scheduler``).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from riskexplore.cli.errors import EXIT_USAGE, CLIError
from riskexplore.core.parallel import resolve_n_jobs
from riskexplore.data.tables import read_csv_table
from riskexplore.data.validation import split_outcome
from riskexplore.datasets import list_datasets, load_dataset
from riskexplore.errors import InputError

__all__ = [
    "Parser",
    "add_data",
    "add_parallel",
    "add_time_limit",
    "load_table",
    "n_jobs_argument",
    "nonnegative_float",
    "nonnegative_int",
    "positive_finite_float",
    "positive_float",
    "positive_int",
    "rate",
]


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {message}\n")
        sys.exit(EXIT_USAGE)


def _argument(
    text: str, convert: Callable[[str], Any], noun: str, ok: Callable[[Any], bool], wanted: str
) -> Any:
    """Parse a command-line value and check its range (argparse ``type=`` helper).

    Parameters
    ----------
    text : str
        The value as typed.
    convert : callable
        ``int`` or ``float``.
    noun : str
        What ``convert`` accepts (``"a number"``), for the message.
    ok : callable
        Whether the parsed value is in range.
    wanted : str
        What is in range (``"a positive number"``), for the message.

    Returns
    -------
    Any
        The parsed value.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` does not parse or the value is out of range.
    """
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A positive number (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    float
        The number.
    """
    return _argument(text, float, "a number", lambda v: v > 0, "a positive number")


def positive_finite_float(text: str) -> float:
    """A finite number > 0 (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    float
        The number.
    """
    return _argument(
        text, float, "a number", lambda v: v > 0 and math.isfinite(v), "a positive number"
    )


def nonnegative_float(text: str) -> float:
    """A finite number >= 0 (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    float
        The number.
    """
    return _argument(
        text,
        float,
        "a number",
        lambda v: v >= 0 and math.isfinite(v),
        "a non-negative number",
    )


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    int
        The integer.
    """
    return _argument(text, int, "an integer", lambda v: v >= 0, "a non-negative integer")


def positive_int(text: str) -> int:
    """An integer >= 1 (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    int
        The integer.
    """
    return _argument(text, int, "an integer", lambda v: v >= 1, "a positive integer")


def rate(text: str) -> float:
    """A number in [0, 1] (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    float
        The rate.
    """
    return _argument(text, float, "a number", lambda v: 0 <= v <= 1, "a rate between 0 and 1")


def n_jobs_argument(text: str) -> int:
    """Cores to use: a positive integer, or -1 for every core (an argparse ``type=``).

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    int
        The number of workers.
    """
    value = _argument(text, int, "an integer", lambda v: v != 0, "a non-zero integer")
    try:
        return resolve_n_jobs(value)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_data(parser: argparse.ArgumentParser) -> None:
    """``DATA`` (a CSV file or a bundled dataset name) and ``--target COL``, read by
    :func:`load_table`.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    """
    parser.add_argument("data", metavar="DATA", help="CSV file, or a bundled dataset name")
    parser.add_argument(
        "--target",
        metavar="COL",
        help="outcome column (default: the first column; a bundled dataset's own outcome)",
    )


def add_survival_outcome(parser: argparse.ArgumentParser, *, one_horizon: bool = False) -> None:
    """``--time COL``, ``--event COL`` and ``--horizon H [H ...]``: a survival outcome (a
    survival score is fitted instead of a risk score).

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    one_horizon : bool
        A single ``--horizon H`` (default: the model's first), for a command that reads a
        saved survival score rather than fitting one.
    """
    title = "a survival score" if one_horizon else "fits a survival score"
    group = parser.add_argument_group(f"survival outcome ({title})")
    group.add_argument("--time", metavar="COL", help="follow-up time column (>= 0)")
    group.add_argument(
        "--event", metavar="COL", help="event column: 1 if the event happened, 0 if censored"
    )
    if one_horizon:
        horizon = {
            "help": "the time of the predicted risks, in the unit of --time (default: the "
            "model's first horizon)"
        }
    else:
        horizon = {
            "nargs": "+",
            "help": "time(s) at which the card reads the risk of the event, in the unit of --time",
        }
    group.add_argument("--horizon", type=positive_finite_float, metavar="H", **horizon)


def load_table(data: str, target: str | None):
    """``(X, y, dataset name)`` from a CSV path or a bundled dataset name.

    Parameters
    ----------
    data : str
        A CSV path or a bundled dataset name.
    target : str or None
        The outcome column (default: the first column).

    Returns
    -------
    tuple
        ``(X, y, name)``.

    Raises
    ------
    CLIError
        For a directory, an unknown name or an empty table.
    """
    path = Path(data)
    if path.is_file():
        frame = read_csv_table(path, data)
        name = path.stem
    elif path.is_dir():
        raise CLIError(f"{data} is a directory, not a CSV file")
    elif data.strip().lower() in list_datasets():
        dataset = load_dataset(data)
        frame = dataset.frame
        name = dataset.name
    else:
        raise CLIError(
            f"no such file or bundled dataset: {data!r} (bundled: {', '.join(list_datasets())})"
        )
    if frame.shape[0] == 0:
        raise CLIError(f"{data} has no rows")
    X, y = split_outcome(frame, target)
    return X, y, name


def add_time_limit(parser: argparse.ArgumentParser, found: str) -> None:
    """``--time-limit S`` (positive seconds, default none).

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    found : str
        What is returned when the limit is reached (``"model"``, ``"checklist"``).
    """
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        default=math.inf,
        metavar="S",
        help=f"seconds before returning the best {found} found (default: none)",
    )


def add_parallel(
    parser: argparse.ArgumentParser,
    search: str = "the exact search",
    cluster: str = "run the exact search",
) -> None:
    """``--n-jobs N`` and ``--scheduler ADDRESS`` (the search's workers).

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    search : str
        What the cores run, for the help.
    cluster : str
        What the Dask cluster does, for the help.
    """
    parser.add_argument(
        "--n-jobs",
        type=n_jobs_argument,
        default=None,
        metavar="N",
        help=f"cores of {search} (default: every core; -1 likewise)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"{cluster} on this Dask cluster (e.g. tcp://10.0.0.5:8786)",
    )
