"""Periodic redraws of a live view, wherever the view lives.

In a kernel, widget updates belong on the kernel's thread: when an asyncio loop is running
there (ipykernel), the step runs as a task on it. Without a running loop (plain Python,
tests, scripts) it runs in a daemon thread instead.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

__all__ = ["Refresher"]


class Refresher:
    """Call ``step()`` until it returns False, sleeping ``delay()`` seconds between calls.

    ``step`` handles its own errors (a refresh must not die silently); :meth:`ensure_running`
    starts the loop if it is not running already.
    """

    def __init__(self, step: Callable[[], bool], delay: Callable[[], float], name: str) -> None:
        self.step = step
        self.delay = delay
        self.name = name
        self.task: asyncio.Task | None = None
        self.thread: threading.Thread | None = None

    def ensure_running(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            if self.task is None or self.task.done():
                self.task = loop.create_task(self._loop())
            return
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self.thread.start()

    async def _loop(self) -> None:
        while self.step():
            await asyncio.sleep(self.delay())

    def _run(self) -> None:
        while self.step():
            time.sleep(self.delay())
