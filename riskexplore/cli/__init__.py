"""The command line: ``python -m riskexplore COMMAND ...`` (also ``riskexplore COMMAND``).

One module per command (:data:`COMMANDS`): ``fit`` (a risk score), ``checklist``,
``near-optimal`` (every model within a tolerance of the optimum), ``datasets`` and
``dashboard``. A command module has ``DESCRIPTION``,
``add_arguments(parser)`` and ``run(args) -> exit code`` (``dashboard`` parses its own
arguments: ``main(argv)``); only the command that runs is imported, so ``datasets`` and
``--help`` start fast. A family's command (``fit``, ``checklist``) is named by the family
(:attr:`~riskexplore.core.registry.PlugIns.command`; the built-in ones are listed without
importing the families); another command is a new module here and a line in
:data:`COMMANDS`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from riskexplore import __version__
from riskexplore.cli.common import EXIT_USAGE, Parser, one_line, user_errors
from riskexplore.core.registry import BUILTIN_COMMANDS, family_commands, load_plugin

__all__ = ["COMMANDS", "build_parser", "commands", "main"]

#: Command -> (module, one-line help): the built-in families' commands, then the others.
COMMANDS: dict[str, tuple[str, str]] = {
    **{c.name: (c.plugin, c.help) for c in BUILTIN_COMMANDS.values()},
    "near-optimal": (
        "riskexplore.cli.near_optimal",
        "every model within a tolerance of the optimum, certified complete",
    ),
    "dashboard": (
        "riskexplore.cli.dashboard.command",
        "serve the Voila dashboards (see: dashboard --help)",
    ),
    "datasets": ("riskexplore.cli.datasets", "list the bundled datasets"),
}

#: Commands that parse their own arguments (``main(argv)``).
_OWN_PARSER = ("dashboard",)


def commands() -> dict[str, tuple[str, str]]:
    """Every command: :data:`COMMANDS` and those of families registered at run time.

    Returns
    -------
    dict
        Command -> (module or dotted path, one-line help).
    """
    return {**COMMANDS, **{c.name: (c.plugin, c.help) for c in family_commands().values()}}


def build_parser(command: str | None = None) -> Parser:
    """The parser of the command line, with the arguments of ``command`` (the others are
    listed for ``--help``).

    Parameters
    ----------
    command : str, optional
        The command about to run.

    Returns
    -------
    Parser
        The parser; a chosen command's ``handler`` is its module's ``run``.
    """
    parser = Parser(
        prog="riskexplore",
        description="Certifiably optimal risk scores (RiskSLIM) and predictive checklists "
        "from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"riskexplore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (path, help_text) in commands().items():
        if name == command and name not in _OWN_PARSER:
            module = load_plugin(path)
            p = sub.add_parser(name, help=help_text, description=module.DESCRIPTION)
            module.add_arguments(p)
            p.set_defaults(handler=module.run)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0, 2 for bad input (one ``error:`` line on stderr), 130 after a
        second Ctrl-C.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None
    if command in _OWN_PARSER:
        return load_plugin(COMMANDS[command][0]).main(argv[1:])
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except user_errors() as exc:
        sys.stderr.write(f"error: {one_line(exc)}\n")
        return EXIT_USAGE
