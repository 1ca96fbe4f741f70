"""The command-line reference, generated from the parsers themselves.

For each command of :data:`riskexplore.cli.COMMANDS` the page shows the ``--help`` text
that ``python -m riskexplore COMMAND --help`` prints (argparse's own text, so a new option
appears in the docs when it appears in the code), after the main ``--help``.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from sphinx.application import Sphinx


def help_text(argv: list[str]) -> str:
    """What ``python -m riskexplore ARGV`` prints (argparse's help exits with 0)."""
    from riskexplore.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(argv)
        except SystemExit:
            pass
    return out.getvalue().rstrip()


def _block(text: str) -> list[str]:
    return [".. code-block:: text", ""] + [f"   {line}".rstrip() for line in text.splitlines()]


def page() -> str:
    """The reST of the command-line reference."""
    from riskexplore.cli import COMMANDS

    title = "Command-line reference"
    lines = [title, "=" * len(title), ""]
    lines += [
        "Generated from the parsers at every build: each block is what "
        "``python -m riskexplore ... --help`` prints. The tasks they serve are in "
        ":doc:`/guide/cli`.",
        "",
    ]
    lines += _block("$ python -m riskexplore --help\n" + help_text(["--help"])) + [""]
    for name, (_module, summary) in COMMANDS.items():
        lines += [f"``{name}``", "-" * (len(name) + 4), "", summary[:1].upper() + summary[1:]]
        lines += [""]
        lines += _block(f"$ python -m riskexplore {name} --help\n" + help_text([name, "--help"]))
        lines += [""]
    return "\n".join(lines) + "\n"


def _generate(app: Sphinx) -> None:
    path = Path(app.srcdir) / "reference" / "cli.rst"
    path.parent.mkdir(exist_ok=True)
    text = page()
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
