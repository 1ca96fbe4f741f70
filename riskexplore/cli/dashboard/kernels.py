"""The kernel manager of the dashboard server: a page's kernel ends soon after its page is gone.

Voila starts one kernel per page visit. Jupyter's own culler ends kernels that are *idle*,
which is the wrong test for a dashboard: a search runs in a background thread of the kernel
for minutes (the kernel looks idle but must live while its page is open), and a page closed
during a search keeps sending progress messages (the kernel looks active but nobody sees
it). :class:`PageKernelManager` ends kernels by a different rule, their **connections**:

* a kernel whose page was connected and whose last connection has been closed for
  :attr:`~PageKernelManager.page_gone_timeout` seconds (tab closed, navigated away, browser
  gone; a dropped network is noticed by the websocket pings, see
  ``riskexplore.cli.dashboard.server.TORNADO_SETTINGS``)
  is shut down, busy or not;
* a kernel handed to a page that never connected (the visitor left while the page was
  still loading) is shut down :attr:`~PageKernelManager.unclaimed_timeout` seconds after it
  finished running the notebook;
* a kernel with a connection is never ended, however long its search runs; nor is a
  pre-started kernel waiting in Voila's pool (``--preheat``) for its visitor.

It also keeps the pool's refills out of the way of pages being built: a kernel started to
refill Voila's pool (``--preheat``) waits until no page has been requested or connected for
:attr:`~PageKernelManager.refill_quiet` seconds and every page handed a kernel has
connected, and no search runs or waits for a core (at most
:attr:`~PageKernelManager.refill_max_wait` seconds); refills then start one at a time,
:attr:`~PageKernelManager.refill_spacing` seconds apart. So when many visitors arrive
together, the cores build their pages and run their searches first, and the pool fills up
after. The server's first fill, before any page was requested, starts at once (all of the
pool together: nothing else needs the cores yet). A
refill that a page has already taken (Voila hands a page the next kernel of the pool even
while it is still starting) starts at once.

The server's command line names it with
``--VoilaConfiguration.multi_kernel_manager_class=riskexplore.cli.dashboard.kernels.PageKernelManager``
(see :func:`riskexplore.cli.dashboard.server.voila_command`).
"""

from __future__ import annotations

import asyncio
import time

from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import PeriodicCallback
from traitlets import Float

from riskexplore.core.core_gate import CoreGate

__all__ = ["PageKernelManager"]


class PageKernelManager(AsyncMappingKernelManager):
    """Voila's kernel manager, ending the kernel of a page that is gone (module docstring)."""

    page_gone_timeout = Float(
        45.0,
        config=True,
        help="Seconds a kernel lives on after the last connection of its page closed.",
    )
    unclaimed_timeout = Float(
        60.0,
        config=True,
        help="Seconds a kernel that has run the notebook for a page waits for the page to connect.",
    )
    check_interval = Float(5.0, config=True, help="Seconds between two checks of the kernels.")
    refill_quiet = Float(
        15.0,
        config=True,
        help="Seconds without a page requested or connected before the pool refills.",
    )
    refill_max_wait = Float(
        300.0, config=True, help="Seconds a refill of the pool waits for quiet at most."
    )
    refill_spacing = Float(
        10.0, config=True, help="Seconds between the starts of two refills of the pool."
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._alone_since: dict[str, float] = {}  # kernel -> when it was last left alone
        self._ever_connected: set[str] = set()
        self._page_checker: PeriodicCallback | None = None
        self._last_page_activity = -float("inf")  # time.monotonic() of the last page event
        self._next_refill = -float("inf")  # refills start one at a time, spaced
        self._gate = CoreGate.from_environment()  # the searches of the server's pages

    # --- refills of the pool --------------------------------------------------------------
    async def start_kernel(self, *args, **kwargs) -> str:
        """Start a kernel; one that refills the pool first waits for the pages (module
        docstring)."""
        refill = str((kwargs.get("env") or {}).get("VOILA_PREHEAT", "")) == "True"
        if refill:
            await self._wait_for_quiet()
        else:
            self._last_page_activity = time.monotonic()
        return await ensure_async(super().start_kernel(*args, **kwargs))

    def pages_loading(self) -> int:
        """Kernels handed to a page whose page has not connected yet (a page being built:
        its kernel runs the notebook, or its browser loads the page).

        Returns
        -------
        int
            Their number.
        """
        waiting, _starting = self._pooled()
        return sum(1 for k in self._kernels if k not in self._ever_connected and k not in waiting)

    def quiet(self, now: float | None = None) -> bool:
        """Whether the pool may refill now: no page requested or connected for
        :attr:`refill_quiet` seconds, every page handed a kernel connected, and no search
        running or waiting for a core.

        Parameters
        ----------
        now : float, optional
            The time (``time.monotonic()``; default: now).

        Returns
        -------
        bool
            True when it may.
        """
        now = time.monotonic() if now is None else now
        if now - self._last_page_activity < self.refill_quiet or self.pages_loading():
            return False
        gate = self._gate
        return gate is None or (gate.running() == 0 and not gate.waiting())

    def _claimed(self, task: asyncio.Task | None) -> bool:
        """Whether pool task ``task`` has been taken by a page (it left the pool's list:
        Voila hands a page a kernel that is still starting when the pool has no ready one)."""
        if task is None:
            return True
        return not any(task in pool for pool in getattr(self, "_pools", {}).values())

    async def _wait_for_quiet(self) -> None:
        if self._last_page_activity == -float("inf"):
            # the server's first fill, before any page: nothing to make way for (this used
            # to count as page activity, so the first fill waited for quiet too and then
            # started one kernel every refill_spacing seconds: 115 s for a pool of 10)
            return
        # a refill follows a page taking a pooled kernel: that is page activity too
        self._last_page_activity = time.monotonic()
        task = asyncio.current_task()
        deadline = time.monotonic() + self.refill_max_wait
        while time.monotonic() < deadline:
            if self._claimed(task):  # a page waits for this kernel: start it now
                self._last_page_activity = time.monotonic()
                return
            now = time.monotonic()
            if now >= self._next_refill and self.quiet(now):
                break
            await asyncio.sleep(0.5)
        self._next_refill = time.monotonic() + self.refill_spacing

    # --- connections ------------------------------------------------------------------
    def notify_connect(self, kernel_id: str) -> None:
        """A page connected to ``kernel_id``: it lives while a connection is open."""
        super().notify_connect(kernel_id)
        self._ever_connected.add(kernel_id)
        self._last_page_activity = time.monotonic()
        self._alone_since.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id: str) -> None:
        """A connection to ``kernel_id`` closed: the count starts when it was the last."""
        super().notify_disconnect(kernel_id)
        if self._kernel_connections.get(kernel_id, 0) <= 0:
            self._alone_since[kernel_id] = time.monotonic()

    def initialize_culler(self) -> None:
        """Start Jupyter's culler (off unless configured) and the check of the pages."""
        super().initialize_culler()
        if self._page_checker is None:
            self._page_checker = PeriodicCallback(
                self.end_kernels_of_gone_pages, 1000 * self.check_interval
            )
            self._page_checker.start()

    # --- the check ----------------------------------------------------------------------
    def _pooled(self) -> tuple[set[str], bool]:
        """The kernels waiting in Voila's pool, and whether a pool kernel is still starting
        (its id is not known yet)."""
        waiting: set[str] = set()
        starting = False
        for pool in getattr(self, "_pools", {}).values():
            for task in pool:
                if not task.done():
                    starting = True
                elif task.exception() is None:
                    waiting.add(task.result().get("kernel_id"))
        return waiting, starting

    def kernels_to_end(self, now: float | None = None) -> list[str]:
        """The kernels whose page is gone, as of ``now`` (``time.monotonic()``).

        Parameters
        ----------
        now : float, optional
            The time (default: now).

        Returns
        -------
        list of str
            Their ids.
        """
        now = time.monotonic() if now is None else now
        waiting, starting = self._pooled()
        out = []
        for kernel_id in list(self._kernels):
            kernel = self._kernels[kernel_id]
            if getattr(kernel, "execution_state", None) == "dead":
                out.append(kernel_id)
                continue
            connected = self._kernel_connections.get(kernel_id, 0) > 0
            seen = kernel_id in self._ever_connected
            # a kernel not yet connected is still running the notebook for its page while busy
            loading = not seen and getattr(kernel, "execution_state", "idle") != "idle"
            if connected or loading or kernel_id in waiting or (starting and not seen):
                self._alone_since.pop(kernel_id, None)
                continue
            since = self._alone_since.setdefault(kernel_id, now)
            limit = self.page_gone_timeout if seen else self.unclaimed_timeout
            if now - since > limit:
                out.append(kernel_id)
        return out

    async def end_kernels_of_gone_pages(self) -> None:
        """Shut down the kernels of :meth:`kernels_to_end` (the periodic check)."""
        for kernel_id in self.kernels_to_end():
            seen = kernel_id in self._ever_connected
            self.log.info(
                "Ending kernel %s: its page is gone (%s)",
                kernel_id,
                "closed" if seen else "never connected",
            )
            try:
                await ensure_async(self.shutdown_kernel(kernel_id))
            except Exception as exc:  # already gone: nothing to end
                self.log.warning("Could not end kernel %s: %s", kernel_id, exc)
            self._alone_since.pop(kernel_id, None)
            self._ever_connected.discard(kernel_id)
