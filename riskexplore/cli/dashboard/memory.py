"""How much memory the dashboard server may give kernels (no Jupyter import: the launcher
sizes its pool with it before Voila is known to be installed)."""

from __future__ import annotations

import os

__all__ = ["KERNEL_MB", "available_memory_mb"]

#: Memory of a page's kernel once its page is built (MB; about 290 measured with ten ready).
KERNEL_MB = 300.0


def available_memory_mb() -> float | None:
    """Memory the machine can still give processes, in MB (Linux's ``MemAvailable``; else
    the free pages); None when it cannot tell.

    Returns
    -------
    float or None
        Megabytes.
    """
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (AttributeError, OSError, ValueError):
        return None
