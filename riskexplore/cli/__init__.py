"""The command line: ``python -m riskexplore COMMAND ...`` (also ``riskexplore COMMAND``).

The commands (verbs), one module each, listed in :data:`COMMANDS`:

* :mod:`~riskexplore.cli.fit` -- ``fit``, a risk score;
* :mod:`~riskexplore.cli.checklist` -- ``checklist``, a predictive checklist;
* :mod:`~riskexplore.cli.near_optimal` -- ``near-optimal``, every model within a tolerance
  of the optimum;
* :mod:`~riskexplore.cli.datasets` -- ``datasets``, the bundled datasets;
* :mod:`~riskexplore.cli.validate` -- ``validate``, a saved model on other patients (and
  its HTML report);
* :mod:`riskexplore.cli.dashboard` -- ``dashboard``, a subpackage: the command
  (:mod:`~riskexplore.cli.dashboard.command`) and the Voila server it runs (the process,
  access, kernels, login page, notebooks, warm-up).

What the commands share, one concern a module:

* :mod:`~riskexplore.cli.errors` -- errors a user can cause: one ``error:`` line, exit code 2
  (and warnings as one ``warning:`` line);
* :mod:`~riskexplore.cli.arguments` -- the parser, checks of typed values, the data
  (``DATA``, ``--target``) and how it is read, ``--time-limit``, ``--n-jobs``,
  ``--scheduler``;
* :mod:`~riskexplore.cli.solving` -- running a solve: Ctrl-C keeps the best model so far,
  solver output off stdout, the Dask client;
* :mod:`~riskexplore.cli.output` -- progress lines, the printed model or ``--json`` report;
* :mod:`~riskexplore.cli.binarization` -- raw columns to items (``--cuts``, ``--linear``,
  ``--no-binarize``, ``--any-items-per-variable``) and the summary printed with the model;
* :mod:`~riskexplore.cli.audit` -- ``--audit``, ``--audit-min-size``, ``--audit-data``;
* :mod:`~riskexplore.cli.reporting` -- ``--validate-data`` and ``--report`` of ``fit`` and
  ``checklist``.

A command module has ``DESCRIPTION``, ``add_arguments(parser)`` and
``run(args) -> exit code`` (``dashboard`` parses its own arguments: ``main(argv)``); only
the command that runs is imported, so ``datasets`` and ``--help`` start fast. A family's command
(``fit``, ``checklist``) is named by the family
(:attr:`~riskexplore.core.registry.PlugIns.command`; the built-in ones are listed without
importing the families); another command is a new module here and a line in
:data:`COMMANDS`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from riskexplore import __version__
from riskexplore.cli.arguments import Parser
from riskexplore.cli.errors import EXIT_USAGE, one_line, plain_warnings, user_errors
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
    "validate": (
        "riskexplore.cli.validate",
        "a saved model on other patients: AUC, calibration, net benefit, HTML report",
    ),
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
        with plain_warnings():
            return args.handler(args)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except user_errors() as exc:
        sys.stderr.write(f"error: {one_line(exc)}\n")
        return EXIT_USAGE
