"""``python -m riskexplore``: see :mod:`riskexplore.cli`."""

import sys

from riskexplore.cli import main

if __name__ == "__main__":
    sys.exit(main())
