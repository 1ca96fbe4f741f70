"""The errors of the command line: those a user can cause (a bad argument, a missing
file, an unreadable CSV) print one line ``error: ...`` on stderr and exit with code 2
(:data:`EXIT_USAGE`); a warning (e.g. a column left out of the items) prints one line
``warning: ...`` (:func:`plain_warnings`).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator

import pandas as pd

from riskexplore.errors import RiskExploreError

__all__ = [
    "EXIT_USAGE",
    "CLIError",
    "one_line",
    "plain_warnings",
    "user_errors",
]

#: The exit code of a bad command line or input.
EXIT_USAGE = 2


class CLIError(Exception):
    """A problem with the command line or its inputs (exit code 2)."""


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


@contextlib.contextmanager
def plain_warnings() -> Iterator[None]:
    """Within the block, a warning prints one line ``warning: ...`` on stderr, without
    Python's file and line (the warnings shown and their filters are unchanged).

    Yields
    ------
    None
    """

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        (file or sys.stderr).write(f"warning: {one_line(message)}\n")

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield
