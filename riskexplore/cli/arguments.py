"""What every command of the command line shares: argument checks, reading the data,
progress lines, Ctrl-C handling, printing the model, and one-line errors.

Errors the user can cause print one line ``error: ...`` on stderr and exit with code 2.
Ctrl-C during a solve asks the solver to stop and prints the best model found so far;
a second Ctrl-C aborts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from riskexplore.core.parallel import resolve_n_jobs
from riskexplore.data.tables import read_csv_table
from riskexplore.data.validation import split_outcome
from riskexplore.datasets import list_datasets, load_dataset
from riskexplore.errors import InputError, RiskExploreError
from riskexplore.evaluation.audit.run import AuditResult, audit, check_by

__all__ = [
    "EXIT_USAGE",
    "add_audit",
    "audit_report",
    "check_audit",
    "load_audit_data",
    "audit_json",
    "print_audits",
    "add_time_limit",
    "CLIError",
    "Parser",
    "ProgressPrinter",
    "finite",
    "load_table",
    "nonnegative_float",
    "nonnegative_int",
    "one_line",
    "positive_float",
    "positive_int",
    "print_model",
    "rate",
    "run_solve",
    "run_with_interrupt",
    "stdout_to_stderr",
    "user_errors",
]

EXIT_USAGE = 2


class CLIError(Exception):
    """A problem with the command line or its inputs (exit code 2)."""


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


class ProgressPrinter:
    """Listener printing at most one progress line per ``interval`` seconds."""

    def __init__(self, stream=None, interval: float = 1.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self._last = -math.inf

    def __call__(self, event) -> None:
        now = time.monotonic()
        if event.kind != "final" and now - self._last < self.interval:
            return
        self._last = now
        best = f"{event.upper_bound:.6f}" if math.isfinite(event.upper_bound) else "-"
        gap = f"{100 * event.gap:.2f}%" if math.isfinite(event.gap) else "-"
        self.stream.write(
            f"[{event.time:7.1f}s] {event.phase:<14} nodes {event.nodes:>8}  "
            f"cuts {event.cuts:>6}  best {best}  bound {event.lower_bound:.6f}  gap {gap}\n"
        )
        self.stream.flush()


def run_with_interrupt(start: Callable[[threading.Event], Any], consume: Callable[[Any], None]):
    """Run a solve whose first Ctrl-C sets a stop event instead of killing the process.

    ``start(stop)`` returns a generator of events whose return value is the result;
    ``consume`` is called with each event. Returns the generator's return value.

    Parameters
    ----------
    start : callable
        ``start(stop) -> generator of events``.
    consume : callable
        Called with each event.

    Returns
    -------
    Any
        The generator's return value (the fitted model).
    """
    stop = threading.Event()
    previous = None
    in_main = threading.current_thread() is threading.main_thread()

    def on_interrupt(signum, frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        sys.stderr.write("stopping: finishing with the best model so far (Ctrl-C again to abort)\n")
        sys.stderr.flush()

    if in_main:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        events = start(stop)
        while True:
            try:
                event = next(events)
            except StopIteration as done:
                return done.value
            consume(event)
    finally:
        stop.set()  # a solve still running (after an error or abort) ends promptly
        if in_main:
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def stdout_to_stderr():
    """Send everything written to file descriptor 1 (also by C code) to stderr meanwhile."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (AttributeError, OSError, ValueError):  # no real stdout: nothing to protect
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_solve(
    start: Callable[[threading.Event], Any], progress: ProgressPrinter | None, client=None
) -> Any:
    """Run a solve with Ctrl-C handling, its stdout kept off ours.

    Parameters
    ----------
    start : callable
        ``start(stop)`` returns the event generator of the solve (see
        :func:`run_with_interrupt`).
    progress : ProgressPrinter or None
        Shown the events, if given.
    client : distributed.Client or None
        The solve's Dask client (:func:`dask_client`), closed when the solve ends,
        however it ends.

    Returns
    -------
    Any
        The fitted model.
    """
    try:
        with stdout_to_stderr():  # solver libraries' banners must not pollute stdout
            consume = progress if progress is not None else (lambda e: None)
            return run_with_interrupt(start, consume)
    finally:
        if client is not None:
            client.close()


def print_model(model: Any, report: dict[str, Any] | None, **text_options: Any) -> int:
    """Print the ``--json`` report, or the model's text and summary.

    Parameters
    ----------
    model : RiskScore or Checklist
        The fitted model.
    report : dict or None
        The ``--json`` object, when ``--json`` was given.
    **text_options
        Arguments of ``model.to_text`` (``ascii=`` of a checklist).

    Returns
    -------
    int
        The exit code, 0.
    """
    if report is not None:
        print(json.dumps(report, allow_nan=False))
    else:
        print(model.to_text(**text_options))
        print()
        print(model.summary())
    return 0


def user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions a user can cause (one ``error:`` line, exit code 2).

    Returns
    -------
    tuple of exception types
        CLI, riskexplore, file, CSV and value errors.
    """
    return (
        CLIError,
        RiskExploreError,
        OSError,
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        UnicodeDecodeError,
        ValueError,
    )


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (``no such file: ...`` for a missing file).

    Parameters
    ----------
    exc : BaseException
        The exception.

    Returns
    -------
    str
        The message.
    """
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"no such file: {exc.filename}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


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


def finite(value):
    """``value`` as a float, or None when it is None or not finite (for strict JSON).

    Parameters
    ----------
    value : float or None
        The value.

    Returns
    -------
    float or None
        The float, or None.
    """
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


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


def dask_client(address: str | None):
    """A Dask client connected to ``address`` (None without one).

    Parameters
    ----------
    address : str or None
        The scheduler's address (``tcp://host:8786``).

    Returns
    -------
    distributed.Client or None
        The client; :func:`run_solve` closes it.

    Raises
    ------
    CLIError
        When Dask is not installed or the scheduler cannot be reached.
    """
    if address is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise CLIError("--scheduler needs Dask: pip install 'riskexplore[grid]'") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise CLIError(f"cannot reach the Dask scheduler at {address}: {one_line(exc)}") from None


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
    args: argparse.Namespace, X: pd.DataFrame, y: pd.Series
) -> tuple[pd.DataFrame, pd.Series] | None:
    """Check ``--audit`` and ``--audit-data`` against the data before the fit.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    X : DataFrame
        The features.
    y : Series
        The outcome (its name is the outcome column ``--audit-data`` must have).

    Returns
    -------
    (DataFrame, Series) or None
        The rows of ``--audit-data`` (the training data's columns, in their order, and the
        outcome), or None without it.

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
    if path is None:
        return None
    return load_audit_data(path, X, y)


def load_audit_data(path: str, X: pd.DataFrame, y: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    """The rows of ``--audit-data``: the training data's columns and the outcome.

    Parameters
    ----------
    path : str
        A CSV file.
    X : DataFrame
        The training features (the columns the file must have).
    y : Series
        The training outcome (its name: the outcome column the file must have).

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
        raise CLIError(f"--audit-data {path}: no such file")
    frame = read_csv_table(file, path)
    if frame.shape[0] == 0:
        raise CLIError(f"--audit-data {path} has no rows")
    outcome = str(y.name)
    frame.columns = [str(c) for c in frame.columns]
    wanted = [outcome] + [str(c) for c in X.columns]
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise CLIError(
            f"--audit-data {path} lacks the column{'s' if len(missing) > 1 else ''} "
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
    model : RiskScore or Checklist
        The fitted model.
    X, y
        The training data.
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
