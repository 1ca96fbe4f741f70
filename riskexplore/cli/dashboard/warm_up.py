"""Compile the searches' numba kernels once, before the dashboard server takes visitors.

The risk-score search (``risk_score.support.kernel`` and ``.lattice``, used by both scales) and the
checklist search (``checklist.search``) are numba functions compiled with ``cache=True``:
the first process that runs them compiles them (several seconds of a core) and writes the
machine code to numba's cache, and every later process loads it from there. Without a
warm-up the first searches of a freshly installed server, often several pages' at once, all
compile the same code at the same moment, each on its own core, while other pages are being
built. :func:`warm_up_here` runs one tiny search of each family; the launcher runs it in a child
process (:func:`riskexplore.cli.dashboard.command.warm_up`, so that the launcher stays small)
before the server starts.

``python -m riskexplore.cli.dashboard.warm_up`` does the same and prints the seconds it took.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import pandas as pd

from riskexplore.checklist.search.solve import warm_up as warm_checklist
from riskexplore.risk_score.fit import fit_risk_score

__all__ = ["main", "warm_up_here"]


def warm_up_here() -> dict[str, float]:
    """Run a tiny search of each family in this process (compiles or loads the kernels).

    Returns
    -------
    dict
        Seconds per family (``"risk_score"``, ``"checklist"``).
    """
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(40, 3)), columns=["a", "b", "c"])
    y = (X["a"] + rng.random(40) > 0.8).astype(int)
    seconds = {}
    start = time.perf_counter()
    fit_risk_score(X, y, max_size=2, time_limit=30)
    fit_risk_score(X, y, max_size=2, time_limit=30, scale="learned")  # the support kernel
    seconds["risk_score"] = time.perf_counter() - start
    start = time.perf_counter()
    warm_checklist()
    seconds["checklist"] = time.perf_counter() - start
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
