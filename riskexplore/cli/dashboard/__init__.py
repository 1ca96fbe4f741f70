"""The ``dashboard`` command and the Voila server it runs.

* :mod:`~riskexplore.cli.dashboard.command` -- the command: its arguments, the checks
  before serving, the addresses it prints.
* :mod:`~riskexplore.cli.dashboard.server` -- the Voila server as a process: its command
  line, the offline page template, starting, waiting for and stopping it.
* :mod:`~riskexplore.cli.dashboard.access` -- who may open the pages (address, token,
  links).
* :mod:`~riskexplore.cli.dashboard.files` -- where the dashboards' notebooks are found.
* :mod:`~riskexplore.cli.dashboard.kernels` -- the server's kernel manager (the kernels of
  pages that are gone end, a pool of warm kernels).
* :mod:`~riskexplore.cli.dashboard.kernel_check` -- a kernel Voila finds, with the
  dashboards' imports in it.
* :mod:`~riskexplore.cli.dashboard.login` -- the login page under the URL prefix.
* :mod:`~riskexplore.cli.dashboard.warm_up` -- the searches' compiled code, built before
  serving.
"""

from __future__ import annotations

from riskexplore.cli.dashboard.command import build_parser, main

__all__ = ["build_parser", "main"]
