"""Command line: ``python -m riskexplore fit DATA ...``, ``checklist DATA ...`` and ``datasets``.

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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

EXIT_USAGE = 2


class CLIError(Exception):
    """A problem with the command line or its inputs (exit code 2)."""


class _Parser(argparse.ArgumentParser):
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


def _positive_float(text: str) -> float:
    return _argument(text, float, "a number", lambda v: v > 0, "a positive number")


def _nonnegative_float(text: str) -> float:
    return _argument(
        text,
        float,
        "a number",
        lambda v: v >= 0 and math.isfinite(v),
        "a non-negative number",
    )


def _nonnegative_int(text: str) -> int:
    return _argument(text, int, "an integer", lambda v: v >= 0, "a non-negative integer")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="riskexplore",
        description="Certifiably optimal risk scores (RiskSLIM) and predictive checklists "
        "from the command line.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    fit = sub.add_parser(
        "fit",
        help="fit a risk score to a CSV file or a bundled dataset",
        description="Fit a certifiably optimal risk score and print its score card.",
    )
    fit.add_argument("data", metavar="DATA", help="CSV file, or a bundled dataset name")
    fit.add_argument("--target", metavar="COL", help="outcome column (default: the first column)")
    fit.add_argument(
        "--max-size", type=_nonnegative_int, metavar="R", help="most features with points"
    )
    fit.add_argument("--coef-min", type=int, default=-5, metavar="A", help="least points")
    fit.add_argument("--coef-max", type=int, default=5, metavar="B", help="most points")
    fit.add_argument("--intercept-min", type=int, default=-100, metavar="A0")
    fit.add_argument("--intercept-max", type=int, default=100, metavar="B0")
    fit.add_argument(
        "--c0", type=_nonnegative_float, default=1e-6, metavar="C", help="penalty per feature"
    )
    fit.add_argument(
        "--time-limit",
        type=_positive_float,
        default=math.inf,
        metavar="S",
        help="seconds before returning the best model found (default: none)",
    )
    fit.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the card"
    )
    fit.set_defaults(handler=_cmd_fit)

    _add_checklist_parser(sub)

    # listed for --help; main() hands "dashboard ..." to riskexplore.dashboard_cli
    sub.add_parser("dashboard", help="serve the Voila dashboards (see: dashboard --help)")

    datasets = sub.add_parser("datasets", help="list the bundled datasets")
    datasets.add_argument("--json", action="store_true", help="print JSON")
    datasets.set_defaults(handler=_cmd_datasets)
    return parser


# --- fit -----------------------------------------------------------------------------
def load_table(data: str, target: str | None):
    """``(X, y, dataset name)`` from a CSV path or a bundled dataset name."""
    from riskexplore.data.tables import read_csv_table
    from riskexplore.data.validation import split_outcome
    from riskexplore.datasets import list_datasets, load_dataset

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


def _solve(start: Callable[[threading.Event], Any], progress: ProgressPrinter | None) -> Any:
    """Run a solve with Ctrl-C handling, its stdout kept off ours.

    Parameters
    ----------
    start : callable
        ``start(stop)`` returns the event generator of the solve (see
        :func:`run_with_interrupt`).
    progress : ProgressPrinter or None
        Shown the events, if given.

    Returns
    -------
    Any
        The fitted model.
    """
    with stdout_to_stderr():  # solver libraries' banners must not pollute stdout
        return run_with_interrupt(start, progress if progress is not None else (lambda e: None))


def _print_model(model: Any, report: dict[str, Any] | None, **text_options: Any) -> int:
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


def _cmd_fit(args: argparse.Namespace) -> int:
    from riskexplore.risk_score.fit import iter_fit_risk_score

    for low, high, what in (
        (args.coef_min, args.coef_max, "coef"),
        (args.intercept_min, args.intercept_max, "intercept"),
    ):
        if low > high:
            raise CLIError(f"--{what}-min {low} exceeds --{what}-max {high}")
    X, y, name = load_table(args.data, args.target)
    progress = None if args.json else ProgressPrinter()

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
        )

    model = _solve(start, progress)
    return _print_model(model, fit_report(model, name, len(y)) if args.json else None)


def fit_report(model, dataset: str, n_samples: int) -> dict[str, Any]:
    """The ``--json`` object of ``fit``: certificate, model and solve statistics."""
    cert = model.certificate
    stats = model.stats
    return {
        "dataset": dataset,
        "status": cert.status,
        "objective": _finite(stats.get("objective", cert.upper_bound)),
        "loss": _finite(stats.get("loss")),
        "lower_bound": _finite(cert.lower_bound),
        "upper_bound": _finite(cert.upper_bound),
        "gap": _finite(cert.gap),
        "intercept": model.intercept,
        "coefficients": model.points,
        "size": model.size,
        "nodes": stats.get("nodes"),
        "cuts": stats.get("cuts"),
        "time": stats.get("time"),
        "n_samples": int(stats.get("n_samples", n_samples)),
    }


def _finite(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


# --- checklist -----------------------------------------------------------------------
def _positive_int(text: str) -> int:
    return _argument(text, int, "an integer", lambda v: v >= 1, "a positive integer")


def _rate(text: str) -> float:
    return _argument(text, float, "a number", lambda v: 0 <= v <= 1, "a rate between 0 and 1")


def _add_checklist_parser(sub) -> None:
    p = sub.add_parser(
        "checklist",
        help="fit a predictive checklist (M-of-N rule) to a CSV file or a bundled dataset",
        description="Fit a certifiably optimal predictive checklist and print it.",
    )
    p.add_argument("data", metavar="DATA", help="CSV file, or a bundled dataset name")
    p.add_argument(
        "--target",
        metavar="COL",
        help="outcome column (default: the first column; a bundled dataset's own outcome)",
    )
    p.add_argument("--max-items", type=_positive_int, metavar="N", help="most items on the list")
    p.add_argument("--min-m", type=_positive_int, default=1, metavar="M", help="least threshold M")
    p.add_argument("--max-m", type=_positive_int, metavar="M", help="largest threshold M")
    p.add_argument(
        "--binarize",
        choices=("adaptive", "fixed", "none"),
        default="adaptive",
        help="how raw columns become items (none: the columns are 0/1 items already)",
    )
    p.add_argument(
        "--fnr-max", type=_rate, metavar="G", help="largest training false negative rate"
    )
    p.add_argument(
        "--fpr-max", type=_rate, metavar="G", help="largest training false positive rate"
    )
    p.add_argument(
        "--fp-weight",
        type=_positive_float,
        default=1.0,
        metavar="W",
        help="cost of a false positive relative to a false negative (default 1)",
    )
    p.add_argument(
        "--time-limit",
        type=_positive_float,
        default=math.inf,
        metavar="S",
        help="seconds before returning the best checklist found (default: none)",
    )
    p.add_argument(
        "--method",
        choices=("exact", "mip"),
        default="exact",
        help="exact search over item subsets (default) or the HiGHS integer program",
    )
    p.add_argument("--ascii", action="store_true", help="print boxes as [ ] and >= for ≥")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the checklist"
    )
    p.set_defaults(handler=_cmd_checklist)


def _short_outcome(text: str | None) -> str | None:
    """``"heart disease (target = 1 ...)"`` -> ``"heart disease"`` for the title."""
    if not text:
        return text
    short = text.split(" (", 1)[0].strip()
    return short or text


def load_checklist_table(data: str, target: str | None):
    """``(X, y, name, outcome, categorical)``: like :func:`load_table`, plus the outcome
    wording and categorical columns of a bundled dataset."""
    from riskexplore.datasets import dataset_info, list_datasets

    X, y, name = load_table(data, target)
    outcome, categorical = None, "auto"
    if not Path(data).is_file() and data.strip().lower() in list_datasets():
        info = dataset_info(name)
        if target is None or str(target) == info["outcome_column"]:
            outcome = _short_outcome(info["outcome"])
        listed = [c for c in info.get("categorical") or () if c in X.columns]
        if listed:
            categorical = listed
    if outcome is None:
        outcome = f"{y.name} = 1" if getattr(y, "name", None) is not None else None
    return X, y, name, outcome, categorical


def _cmd_checklist(args: argparse.Namespace) -> int:
    from riskexplore.checklist.fit import iter_fit_checklist

    if args.max_m is not None and args.min_m > args.max_m:
        raise CLIError(f"--min-m {args.min_m} exceeds --max-m {args.max_m}")
    if args.max_items is not None and args.min_m > args.max_items:
        raise CLIError(f"--min-m {args.min_m} exceeds --max-items {args.max_items}")
    X, y, name, outcome, categorical = load_checklist_table(args.data, args.target)
    binarize = None if args.binarize == "none" else args.binarize
    progress = None if args.json else ProgressPrinter()
    options: dict[str, Any] = {}
    if binarize is not None:
        options["categorical"] = categorical

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
            **options,
        )

    model = _solve(start, progress)
    report = checklist_report(model, name, len(y)) if args.json else None
    return _print_model(model, report, ascii=args.ascii)


def checklist_report(model, dataset: str, n_samples: int) -> dict[str, Any]:
    """The ``--json`` object of ``checklist``: certificate, checklist and statistics."""
    cert = model.certificate
    stats = model.stats
    return {
        "dataset": dataset,
        "status": cert.status,
        "objective": _finite(stats.get("objective", cert.upper_bound)),
        "lower_bound": _finite(cert.lower_bound),
        "upper_bound": _finite(cert.upper_bound),
        "gap": _finite(cert.gap),
        "M": model.M,
        "N": model.N,
        "items": list(model.items),
        "train_errors": stats.get("train_errors"),
        "train_error": _finite(stats.get("train_error")),
        "fp": stats.get("fp"),
        "fn": stats.get("fn"),
        "fnr": _finite(stats.get("fnr")),
        "fpr": _finite(stats.get("fpr")),
        "nodes": stats.get("nodes"),
        "time": stats.get("time"),
        "n_items": stats.get("n_items"),
        "n_samples": int(stats.get("n_samples", n_samples)),
    }


# --- datasets ------------------------------------------------------------------------
def _cmd_datasets(args: argparse.Namespace) -> int:
    from riskexplore.datasets import dataset_info, list_datasets

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


# --- entry point ---------------------------------------------------------------------
def _user_errors() -> tuple[type[BaseException], ...]:
    import pandas as pd

    from riskexplore.errors import RiskExploreError

    return (
        CLIError,
        RiskExploreError,
        OSError,
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        UnicodeDecodeError,
        ValueError,
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["dashboard"]:
        from riskexplore.dashboard_cli import main as dashboard_main

        return dashboard_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except _user_errors() as exc:
        sys.stderr.write(f"error: {_one_line(exc)}\n")
        return EXIT_USAGE


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"no such file: {exc.filename}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
