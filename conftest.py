"""Test-session setup shared by ``tests/`` and the notebooks (``pytest tests notebooks``).

The processes the tests start — nbval's and JupyterLab's kernels, Voila and its kernels,
``python -c`` checks — import ``riskexplore`` from this checkout: its folder goes first on
their ``PYTHONPATH``. In CI's fresh ``.venv`` (an editable install of this very checkout)
that changes nothing; in a second work tree that shares another checkout's ``.venv`` it
keeps the tests on the code under test rather than on the code the editable install names.
(``tests/test_fresh_install.py`` clears ``PYTHONPATH``: its new environments use only what
they install.)
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent)
_paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != ROOT]
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, *_paths])
