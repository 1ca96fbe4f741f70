"""Compile the searches' numba kernels once, before the dashboard server takes visitors.

The risk-score search (``risk_score.support.kernel`` and ``.lattice``, used by both scales) and the
checklist search (``checklist.search``) are numba functions compiled with ``cache=True``:
the first process that runs them compiles them (several seconds of a core) and writes the
machine code to numba's cache, and every later process loads it from there. Without a
warm-up the first searches of a freshly installed server, often several pages' at once, all
compile the same code at the same moment, each on its own core, while other pages are being
built. :func:`warm_up_here` runs one tiny search of each family (its
:attr:`~riskexplore.core.registry.ModelFamily.warm_up`); the launcher runs it in a child
process (:func:`riskexplore.cli.dashboard.server.warm_up`, so that the launcher stays small)
before the server starts.

``python -m riskexplore.cli.dashboard.warm_up`` does the same and prints the seconds it took.
"""

from __future__ import annotations

import json
import sys
import time

from riskexplore.core.registry import families

__all__ = ["main", "warm_up_here"]


def warm_up_here() -> dict[str, float]:
    """Run a tiny search of each family in this process (compiles or loads the kernels).

    Returns
    -------
    dict
        Seconds per family (``"risk_score"``, ``"checklist"``).
    """
    seconds = {}
    for family in families():
        if family.warm_up is not None:
            start = time.perf_counter()
            family.warm_up()
            seconds[family.name] = time.perf_counter() - start
    return seconds


def main() -> int:
    """Warm up in this process and print the seconds per family as JSON.

    Returns
    -------
    int
        0.
    """
    print(json.dumps({k: round(v, 2) for k, v in warm_up_here().items()}), flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
