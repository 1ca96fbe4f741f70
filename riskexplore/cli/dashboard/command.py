"""Serve the dashboards (``dashboards/*.ipynb``) as web apps with Voila.

``python -m riskexplore dashboard [risk|checklist|all] [--port P] [--no-browser]``
(or ``python dashboards/launch.py ...``) starts Voila on localhost with the code hidden
(``--strip_sources=True``), tracebacks hidden, the light theme, and prints the URL:

* ``risk``: the risk score builder at ``http://127.0.0.1:P/``
* ``checklist``: the checklist builder at ``http://127.0.0.1:P/``
* ``all``: a page listing both (Voila serving the ``dashboards/`` directory), each at
  ``http://127.0.0.1:P/voila/render/<notebook>.ipynb``

Everything is served from the local installation (widget and plotly scripts included);
nothing is loaded from the internet. The server process itself (its command line, the
offline template, starting and stopping it) is :mod:`riskexplore.cli.dashboard.server`.

Before it prints a URL, the launcher checks that Voila will find a Python kernel and that
the dashboard's imports work in that kernel
(:func:`~riskexplore.cli.dashboard.kernel_check.kernel_problem`); if not, it prints one ``error:``
line naming what is missing and the command that installs it, and exits 2,
instead of serving a page that would answer "500: Internal Server Error". SIGTERM stops
the launcher and its Voila server, like Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import sys
import webbrowser

from riskexplore.cli.dashboard.access import (
    TOKEN_VARIABLE,
    access_token,
    base_url_path,
    display_url,
    is_local,
)
from riskexplore.cli.dashboard.files import DASHBOARDS, install_command
from riskexplore.cli.dashboard.kernel_check import kernel_problem
from riskexplore.cli.dashboard.memory import KERNEL_MB, available_memory_mb
from riskexplore.cli.dashboard.server import (
    free_port,
    port_free,
    start_voila,
    stop_process,
    warm_up,
)

__all__ = ["build_parser", "default_pool", "main"]


@contextlib.contextmanager
def _sigterm_interrupts():
    """SIGTERM raises KeyboardInterrupt (as Ctrl-C does), so that ``kill`` of the launcher
    also stops its Voila server."""
    try:
        previous = signal.signal(signal.SIGTERM, _interrupt)
    except ValueError:  # not the main thread: signals stay as they are
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _open_browser(url: str) -> None:
    try:
        webbrowser.open(url)
    except Exception:  # no browser here: the printed URL is enough
        pass


#: Visitors who may open a dashboard at the same moment (a clinic's meeting): the default
#: pool keeps a kernel ready for each where memory allows.
BURST = 10


def default_pool(notebooks: int = 1) -> int:
    """Kernels the launcher keeps ready per dashboard by default: one for each of
    :data:`BURST` visitors where a quarter of the available memory holds them (at
    ``KERNEL_MB`` a kernel, shared by the notebooks served), never fewer than one per core
    (at most 4).

    Ten pages opened together on 2 cores (the browsers on the same cores) showed their
    slowest search button after 22-40 s with ten kernels ready (four runs), and after 79 s
    with two (``benchmarks/dashboard_load.py``).

    Parameters
    ----------
    notebooks : int
        Dashboards served (2 for ``all``).

    Returns
    -------
    int
        The pool size.
    """
    floor = min(4, os.cpu_count() or 1)
    free = available_memory_mb()
    if free is None:
        return floor
    fits = int(0.25 * free // (KERNEL_MB * max(1, notebooks)))
    return max(floor, min(BURST, fits))


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``riskexplore dashboard [risk|checklist|all] [--port P] [--no-browser]``.

    Returns
    -------
    ArgumentParser
        The parser.
    """
    p = argparse.ArgumentParser(
        prog="python -m riskexplore dashboard",
        description="Serve the risk score and checklist builders with Voila.",
    )
    p.add_argument(
        "which",
        nargs="?",
        default="risk",
        choices=["risk", "checklist", "all"],
        help="risk score builder, checklist builder, or both (default: risk)",
    )
    p.add_argument("--port", type=int, default=8866, help="port (default 8866; next free if busy)")
    p.add_argument(
        "--ip",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; any other address "
        "requires a token, see --token and --no-auth)",
    )
    p.add_argument(
        "--token",
        default=None,
        help=f"the token every page requires (default: ${TOKEN_VARIABLE}, else none on "
        "127.0.0.1 and a new random one, printed in the URL, on any other address)",
    )
    p.add_argument(
        "--no-auth",
        action="store_true",
        help="serve on --ip without any access control: anyone who reaches the address "
        "opens the dashboards",
    )
    p.add_argument(
        "--base-url",
        default="/",
        help="serve every page under this prefix (behind a reverse proxy; default /)",
    )
    p.add_argument("--no-browser", action="store_true", help="only print the URL")
    p.add_argument("--theme", default="light", choices=["light", "dark"])
    p.add_argument(
        "--pool",
        type=int,
        default=None,
        metavar="N",
        help="kernels kept ready per dashboard, each with the page already built, so that "
        f"visitors do not wait for a kernel to start (default: {BURST} where a quarter of "
        "the free memory holds them, else fewer but at least one per core up to 4; about "
        "300 MB each; 0: none)",
    )
    p.add_argument("--preheat", action="store_true", help="the same as --pool 1 (at least)")
    p.add_argument(
        "--cores",
        type=int,
        default=None,
        metavar="N",
        help="searches that run at once (default: one per core of the machine); the others "
        "wait for a free core, first come first served, and their pages say so",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Serve the dashboards until Ctrl-C or SIGTERM (``riskexplore dashboard ...``).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``dashboard`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0, or 2 when the kernel cannot run the dashboards.
    """
    args = build_parser().parse_args(argv)
    with _sigterm_interrupts():
        try:
            return _serve(args)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: Voila has been stopped
            return 0


def _pool(args: argparse.Namespace) -> int:
    """The pool size asked for, else the default for the dashboards served."""
    if args.pool is not None:
        return args.pool
    return default_pool(2 if args.which == "all" else 1)


def _serve(args: argparse.Namespace) -> int:
    """Check that the pages can be served, start the server, print its addresses and wait
    until it stops; the exit code (2 after one ``error:`` line)."""
    if importlib.util.find_spec("voila") is None:
        print(f"error: voila is not installed; run: {install_command()}", file=sys.stderr)
        return 2
    try:
        token = access_token(args.ip, args.token, args.no_auth)
        base_url = base_url_path(args.base_url)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problem = kernel_problem(args.which)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    warm_up()  # every kernel then loads the searches' compiled code from numba's cache
    port = args.port
    if not port_free(port, args.ip):
        port = free_port(args.ip)
    try:
        proc, _url = start_voila(
            args.which,
            port,
            host=args.ip,
            theme=args.theme,
            preheat=max(_pool(args), int(args.preheat)),
            token=token,
            base_url=base_url,
            timeout=120,
            cores=args.cores,
        )
    except (RuntimeError, TimeoutError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        url = _print_addresses(args.which, args.ip, port, base_url, token)
        if not args.no_browser:
            _open_browser(url)
        return proc.wait() or 0
    finally:
        stop_process(proc, 10)  # nothing to do when Voila has exited by itself


def _print_addresses(which: str, ip: str, port: int, base_url: str, token: str | None) -> str:
    """Print the address of each page served (and who may open them, off this machine).

    Parameters
    ----------
    which : {"risk", "checklist", "all"}
        The dashboard served.
    ip : str
        The address the server listens on.
    port : int
        Its port.
    base_url : str
        The prefix of every page.
    token : str or None
        The token every page requires.

    Returns
    -------
    str
        The address of the first page (to open in a browser).
    """
    names = {"risk": "Risk score builder", "checklist": "Checklist builder"}
    url = display_url(ip, port, base_url, token=token)
    if which == "all":
        print(f"Dashboards: {url}", flush=True)
        for key, nb in DASHBOARDS.items():
            page = display_url(ip, port, base_url, f"voila/render/{nb}", token)
            print(f"  {names[key]}: {page}", flush=True)
    else:
        print(f"{names[which]}: {url}", flush=True)
    if not is_local(ip):
        print(
            "Anyone who can reach this address "
            + ("and has the token opens the pages." if token else "opens the pages (--no-auth)."),
            flush=True,
        )
    print("Press Ctrl-C to stop.", flush=True)
    return url


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
