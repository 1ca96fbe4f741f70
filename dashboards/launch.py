"""Serve the dashboards with Voila and print the URL.

    python dashboards/launch.py [risk|checklist|all] [--port P] [--no-browser] [--preheat]

Same as ``python -m riskexplore dashboard ...``; see ``dashboards/README.md``.
"""

import sys
from pathlib import Path

try:
    from riskexplore.cli.dashboard.command import main
except ImportError:  # run from a checkout without installing: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from riskexplore.cli.dashboard.command import main

if __name__ == "__main__":
    sys.exit(main())
