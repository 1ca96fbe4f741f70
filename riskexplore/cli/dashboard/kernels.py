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
after. The server's first fill, before any page was requested, starts
:attr:`~PageKernelManager.first_fill_at_once` kernels at once (one per core: the launcher's
own browser page takes the first of them); the rest of a large pool start like refills,
one at a time, so that a page opened meanwhile is built first. A
refill that a page has already taken (Voila hands a page the next kernel of the pool even
while it is still starting) starts at once.

The pool follows demand: each time a page takes a kernel from a notebook's pool, that pool
grows by one spare (besides the refill of the kernel taken), up to
:meth:`~PageKernelManager.largest_pool` kernels: :attr:`~PageKernelManager.spares_per_core`
per core, and no more than half the memory available holds at
:attr:`~PageKernelManager.kernel_mb` a kernel (or :attr:`~PageKernelManager.pool_limit`).
The spares start by the refill rule above, so after a burst of visitors the pool fills up
to meet the next burst; once no page has taken a kernel for
:attr:`~PageKernelManager.pool_shrink_after` seconds, the pool goes back to its size on the
command line and its surplus spares end (those still waiting to start never start).

The server's command line names it with
``--VoilaConfiguration.multi_kernel_manager_class=riskexplore.cli.dashboard.kernels.PageKernelManager``
(see :func:`riskexplore.cli.dashboard.server.voila_command`).
"""

from __future__ import annotations

import asyncio
import functools
import os
import time

from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import PeriodicCallback
from traitlets import Float, Int

from riskexplore.cli.dashboard.memory import KERNEL_MB, available_memory_mb
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
    spares_per_core = Int(
        5, config=True, help="Largest pool per notebook, per core, when it grows with demand."
    )
    kernel_mb = Float(
        KERNEL_MB, config=True, help="Memory of a page's kernel (MB), to size the grown pool."
    )
    pool_limit = Int(
        0,
        config=True,
        help="Largest pool per notebook when it grows with demand (0: from cores and memory).",
    )
    first_fill_at_once = Int(
        0,
        config=True,
        help="Kernels of the server's first fill started at once (0: one per core); the "
        "others start like refills.",
    )
    pool_shrink_after = Float(
        1800.0,
        config=True,
        help="Seconds without a page taking a kernel before the pool shrinks back to its size.",
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._alone_since: dict[str, float] = {}  # kernel -> when it was last left alone
        self._ever_connected: set[str] = set()
        self._page_checker: PeriodicCallback | None = None
        self._last_page_activity = -float("inf")  # time.monotonic() of the last page event
        self._next_refill = -float("inf")  # refills start one at a time, spaced
        self._gate = CoreGate.from_environment()  # the searches of the server's pages
        self._last_take = -float("inf")  # time.monotonic() a page last took a pooled kernel
        self._configured_pools: dict | None = None  # Voila's pool settings before any growth
        self._held: set[asyncio.Task] = set()  # pool refills waiting for quiet, not started
        self._first_fill_started = 0  # kernels of the first fill started at once

    def __init_subclass__(cls, **kwargs):
        # Voila makes its pooling manager a subclass of this one (voila_kernel_manager_factory):
        # its get_rendered_notebook hands a page the next kernel of a pool, then refills it;
        # the pool's size is raised first, so that the refill also starts a spare
        super().__init_subclass__(**kwargs)
        take = cls.__dict__.get("get_rendered_notebook")
        if take is None:
            return

        @functools.wraps(take)
        async def get_rendered_notebook(self, notebook_name=None, *args, **kw):
            self.page_took_kernel(notebook_name)
            return await take(self, notebook_name, *args, **kw)

        cls.get_rendered_notebook = get_rendered_notebook

    # --- the pool's size ------------------------------------------------------------------
    def _pool_config(self, notebook_name: str) -> tuple[dict, int]:
        """Voila's pool settings of ``notebook_name`` now, and the pool's size as configured
        (the command line's ``--pool_size``, or the notebook's own setting)."""
        configs = getattr(self, "kernel_pools_config", {}) or {}
        configured = self._configured_pools if self._configured_pools is not None else configs
        default = configured.get("default", {})
        base = configured.get(notebook_name, default).get("pool_size", 0)
        return configs.get(notebook_name, configs.get("default", {})), int(base)

    def largest_pool(self, notebook_name: str) -> int:
        """The most kernels the pool of ``notebook_name`` may hold when it grows with demand:
        :attr:`pool_limit`, else :attr:`spares_per_core` per core and no more than half the
        memory available holds (at :attr:`kernel_mb` a kernel, beside those already
        started); never less than its size on the command line.

        Parameters
        ----------
        notebook_name : str
            The notebook.

        Returns
        -------
        int
            The number of kernels.
        """
        _config, base = self._pool_config(notebook_name)
        if self.pool_limit > 0:
            return max(base, self.pool_limit)
        limit = self.spares_per_core * (os.cpu_count() or 1)
        free = available_memory_mb()
        if free is not None:
            pool = getattr(self, "_pools", {}).get(notebook_name, [])
            started = sum(1 for task in pool if task.done())  # their memory is taken already
            limit = min(limit, started + int(0.5 * free // self.kernel_mb))
        return max(base, limit)

    def page_took_kernel(self, notebook_name: str | None) -> None:
        """A page takes a kernel from the pool of ``notebook_name``: the pool grows by one
        (up to :meth:`largest_pool`), so that its refill starts a spare besides the
        kernel taken.

        Parameters
        ----------
        notebook_name : str or None
            The notebook.
        """
        # a page being built: refills and spares wait for quiet (a burst served from the pool
        # calls no other hook before the pages connect, so the refills started at once)
        self._last_take = self._last_page_activity = time.monotonic()
        if notebook_name is None or not hasattr(self, "kernel_pools_config"):
            return
        config, base = self._pool_config(notebook_name)
        size = min(int(config.get("pool_size", base)) + 1, self.largest_pool(notebook_name))
        if size != config.get("pool_size"):
            if self._configured_pools is None:  # what shrink_pools goes back to
                self._configured_pools = dict(self.kernel_pools_config)
            self.kernel_pools_config = {
                **self.kernel_pools_config,
                notebook_name: {**config, "pool_size": size},
            }
            self.log.info("Pool of %s grows to %d kernels", notebook_name, size)

    async def shrink_pools(self, now: float | None = None) -> None:
        """Once no page has taken a kernel for :attr:`pool_shrink_after` seconds, every pool
        goes back to its size on the command line: its surplus spares that wait for quiet
        never start, then its surplus ready kernels end (a surplus kernel still starting
        ends at a later check).

        Parameters
        ----------
        now : float, optional
            The time (``time.monotonic()``; default: now).
        """
        now = time.monotonic() if now is None else now
        if self._configured_pools is None or now - self._last_take < self.pool_shrink_after:
            return
        if self.kernel_pools_config != self._configured_pools:
            self.log.info(
                "Pools back to their size: no page took a kernel for %.0f s", now - self._last_take
            )
            self.kernel_pools_config = self._configured_pools
        for notebook_name, pool in list(getattr(self, "_pools", {}).items()):
            _config, base = self._pool_config(notebook_name)
            held = [t for t in pool if t in self._held][: max(0, len(pool) - base)]
            for task in held:  # out of the pool first, so that no page takes it
                pool.remove(task)
                task.cancel()
            ready = [t for t in pool if t.done() and not t.cancelled() and t.exception() is None]
            for task in ready[: max(0, len(pool) - base)]:
                kernel_id = task.result().get("kernel_id")
                self.log.info("Ending spare kernel %s of %s: no visitor", kernel_id, notebook_name)
                try:  # Voila's shutdown_kernel also takes it out of the pool
                    await ensure_async(self.shutdown_kernel(kernel_id))
                except Exception as exc:  # already gone
                    self.log.warning("Could not end kernel %s: %s", kernel_id, exc)

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
        first_fill = self._last_page_activity == -float("inf")
        if first_fill and self._first_fill_started < self._first_fill_quota():
            # the server's first fill, before any page: nothing to make way for (this used
            # to count as page activity, so the first fill waited for quiet too). A core's
            # worth start at once; with the whole of a large pool (10) starting together,
            # the launcher's first page waited 37-46 s on 2 cores for its button (10-15 s now)
            self._first_fill_started += 1
            self._next_refill = time.monotonic() + self.refill_spacing
            return
        if not first_fill:
            # a refill follows a page taking a pooled kernel: that is page activity too
            self._last_page_activity = time.monotonic()
        task = asyncio.current_task()
        deadline = time.monotonic() + self.refill_max_wait
        self._held.add(task)  # a spare held back may be cancelled when the pool shrinks
        try:
            while time.monotonic() < deadline:
                if self._claimed(task):  # a page waits for this kernel: start it now
                    self._last_page_activity = time.monotonic()
                    return
                now = time.monotonic()
                if now >= self._next_refill and self.quiet(now):
                    break
                await asyncio.sleep(0.5)
        finally:
            self._held.discard(task)
        self._next_refill = time.monotonic() + self.refill_spacing

    def _first_fill_quota(self) -> int:
        """Kernels of the first fill that start at once (:attr:`first_fill_at_once`)."""
        return self.first_fill_at_once if self.first_fill_at_once > 0 else os.cpu_count() or 1

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
        """Shut down the kernels of :meth:`kernels_to_end` and shrink a pool grown for
        visitors who are gone (:meth:`shrink_pools`): the periodic check."""
        await self.shrink_pools()
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
