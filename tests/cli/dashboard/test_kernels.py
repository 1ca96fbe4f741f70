"""The rule of ``PageKernelManager`` on its own (the browser test
``tests/browser/test_kernel_lifecycle.py`` checks it on a served page): kernels are ended by their
connections, not by their activity."""

from __future__ import annotations

import asyncio
import json
import os
import time
from types import SimpleNamespace

from riskexplore.cli.dashboard.kernels import PageKernelManager
from riskexplore.cli.dashboard.server import PAGE_KERNELS, TORNADO_SETTINGS, voila_command


def _manager(**states) -> PageKernelManager:
    km = PageKernelManager(page_gone_timeout=45, unclaimed_timeout=60)
    for kernel_id, state in states.items():
        km._kernels[kernel_id] = SimpleNamespace(execution_state=state)
        km._kernel_connections[kernel_id] = 0
    return km


def test_connected_kernels_live_whatever_their_activity():
    km = _manager(a="busy", b="idle")
    for k in "ab":
        km.notify_connect(k)
    assert km.kernels_to_end(now=0.0) == []
    assert km.kernels_to_end(now=10_000.0) == []  # hours later, still connected


def test_a_closed_page_ends_its_kernel_after_the_grace_even_when_busy():
    km = _manager(a="busy")
    km.notify_connect("a")
    km.notify_disconnect("a")
    since = km._alone_since["a"]
    assert km.kernels_to_end(now=since + 44) == []
    assert km.kernels_to_end(now=since + 46) == ["a"]
    km.notify_connect("a")  # the page came back (a network blip): it lives again
    assert km.kernels_to_end(now=since + 1000) == []


def test_two_tabs_of_one_kernel_count_until_the_last_closes():
    km = _manager(a="idle")
    km.notify_connect("a")
    km.notify_connect("a")
    km.notify_disconnect("a")
    assert "a" not in km._alone_since
    assert km.kernels_to_end(now=1e9) == []


def test_a_page_that_never_connects_ends_after_loading():
    km = _manager(a="busy")  # still running the notebook for its page
    assert km.kernels_to_end(now=0.0) == []
    assert km.kernels_to_end(now=1000.0) == []
    km._kernels["a"].execution_state = "idle"  # rendered; the page never connected
    assert km.kernels_to_end(now=1000.0) == []
    assert km.kernels_to_end(now=1059.0) == []
    assert km.kernels_to_end(now=1061.0) == ["a"]


def test_dead_kernels_end_and_pooled_kernels_wait():
    km = _manager(dead="dead", pooled="idle", starting="idle")
    loop = asyncio.new_event_loop()
    try:
        ready = loop.create_future()
        ready.set_result({"kernel_id": "pooled"})
        km._pools = {"nb.ipynb": [ready]}
        assert km.kernels_to_end(now=0.0) == ["dead"]
        assert km.kernels_to_end(now=1e6) == ["dead", "starting"]
        km._pools["nb.ipynb"].append(loop.create_future())  # a pool kernel still starting
        km._alone_since.clear()
        assert km.kernels_to_end(now=1e6) == ["dead"]
        assert km.kernels_to_end(now=2e6) == ["dead"]
    finally:
        loop.close()


def test_the_launcher_serves_with_this_manager():
    cmd, _url = voila_command("risk", 8125)
    assert f"--VoilaConfiguration.multi_kernel_manager_class={PAGE_KERNELS}" in cmd
    assert "--MappingKernelManager.cull_idle_timeout=0" not in cmd
    settings = next(a for a in cmd if a.startswith("--Voila.tornado_settings="))
    assert json.loads(settings.split("=", 1)[1]) == TORNADO_SETTINGS
    assert TORNADO_SETTINGS["ws_ping_timeout"] / 1000 + 45 + 5 < 120  # a dropped page too


def test_an_extra_option_replaces_the_launchers_own():
    fast = {"ws_ping_interval": 1000, "ws_ping_timeout": 3000}
    extra = [f"--Voila.tornado_settings={json.dumps(fast)}", "--PageKernelManager.check_interval=1"]
    cmd, _url = voila_command("risk", 8125, extra=extra)
    settings = [a for a in cmd if a.startswith("--Voila.tornado_settings=")]
    assert [json.loads(a.split("=", 1)[1]) for a in settings] == [fast]  # given once
    assert cmd[-2:] == extra
    default, _url = voila_command("risk", 8125)
    assert set(default) - set(cmd) == {f"--Voila.tornado_settings={json.dumps(TORNADO_SETTINGS)}"}


def test_the_pool_refills_when_pages_are_quiet():
    km = _manager()
    km.refill_quiet = 10
    assert km.quiet(now=0.0)  # a server nobody visited yet fills its pool at once
    km._last_page_activity = 100.0
    km._kernels["p"] = SimpleNamespace(execution_state="busy")
    # "p": handed to a page (not in the pool) that has not connected yet
    assert km.pages_loading() == 1
    assert not km.quiet(now=105.0) and not km.quiet(now=200.0)
    km.notify_connect("p")  # its page connected: built
    assert km.pages_loading() == 0
    connected = km._last_page_activity
    assert not km.quiet(now=connected + 9) and km.quiet(now=connected + 11)


def test_a_refill_waits_for_quiet_and_a_page_kernel_does_not(monkeypatch):
    km = _manager()
    km.refill_quiet, km.refill_max_wait = 0.5, 5.0
    started = []

    async def start(self, *args, **kwargs):
        started.append(kwargs["env"]["VOILA_PREHEAT"])
        return f"k{len(started)}"

    monkeypatch.setattr(PageKernelManager.__mro__[1], "start_kernel", start)
    loop = asyncio.new_event_loop()
    try:
        t0 = time.monotonic()
        loop.run_until_complete(km.start_kernel(env={"VOILA_PREHEAT": "False"}))
        assert time.monotonic() - t0 < 0.3  # a page: at once
        km._pools = {"nb": []}

        async def refill():
            task = asyncio.ensure_future(km.start_kernel(env={"VOILA_PREHEAT": "True"}))
            km._pools["nb"].append(task)  # in the pool, not taken by a page
            await task

        t0 = time.monotonic()
        loop.run_until_complete(refill())
        assert time.monotonic() - t0 >= 0.5  # waited
    finally:
        loop.close()
    assert started == ["False", "True"]


def test_a_refill_a_page_has_taken_starts_at_once(monkeypatch):
    km = _manager()
    km.refill_quiet, km.refill_max_wait = 30.0, 60.0
    km._pools = {"nb": []}
    km._last_page_activity = time.monotonic()  # a page came (the first fill does not wait)

    async def start(self, *args, **kwargs):
        return "k"

    monkeypatch.setattr(PageKernelManager.__mro__[1], "start_kernel", start)

    async def scenario():
        task = asyncio.ensure_future(km.start_kernel(env={"VOILA_PREHEAT": "True"}))
        km._pools["nb"].append(task)
        await asyncio.sleep(0.5)
        assert not task.done()  # waiting for quiet
        km._pools["nb"].remove(task)  # a page took it
        t0 = time.monotonic()
        await task
        return time.monotonic() - t0

    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(scenario()) < 1.0
    finally:
        loop.close()


def test_no_refill_while_searches_run_or_wait(tmp_path):
    from riskexplore.core.core_gate import CoreGate

    km = _manager()
    km.refill_quiet = 0
    km._gate = CoreGate(tmp_path, cores=1)
    assert km.quiet()
    with km._gate.slot():  # a page's search runs
        assert not km.quiet()
    assert km.quiet()


def _filling(monkeypatch, spacing: float, at_once: int) -> PageKernelManager:
    """A manager whose kernels start at once (no process), for its pool's fill."""
    km = _manager()
    km.refill_quiet, km.refill_max_wait, km.refill_spacing = 30.0, 60.0, spacing
    km.first_fill_at_once = at_once
    km._pools = {"nb": []}

    async def start(self, *args, **kwargs):
        return "k"

    monkeypatch.setattr(PageKernelManager.__mro__[1], "start_kernel", start)
    return km


def test_the_first_fill_starts_at_once_and_later_refills_wait(monkeypatch):
    km = _filling(monkeypatch, spacing=30.0, at_once=3)

    async def fill(n):
        tasks = [
            asyncio.ensure_future(km.start_kernel(env={"VOILA_PREHEAT": "True"})) for _ in range(n)
        ]
        km._pools["nb"].extend(tasks)
        await asyncio.sleep(0.5)
        return [t.done() for t in tasks]

    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(fill(3)) == [True] * 3  # before any page: at once
        loop.run_until_complete(km.start_kernel(env={"VOILA_PREHEAT": "False"}))  # a page
        assert loop.run_until_complete(fill(1)) == [False]  # now a refill waits for quiet
        for task in km._pools["nb"]:
            task.cancel()
    finally:
        loop.close()


# --- the pool follows demand (Voila's own pooling manager around PageKernelManager) ----------


def _voila_pool(tmp_path, monkeypatch, pool_size=2, **traits):
    """Voila's pooling manager made from PageKernelManager as Voila makes it, serving one
    notebook; kernels "start" at once (a fake start and page rendering)."""
    from traitlets import Unicode
    from traitlets.config import Configurable
    from voila.voila_kernel_manager import voila_kernel_manager_factory

    (tmp_path / "nb.ipynb").write_text("{}")

    class App(Configurable):  # the parts of Voila's app the manager reads
        root_dir = Unicode(str(tmp_path))
        notebook_path = Unicode(str(tmp_path / "nb.ipynb"))
        base_url = Unicode("/")
        server_url = Unicode("/")
        port = 8866

    started = []

    async def start(self, *args, **kwargs):
        started.append(kwargs["env"]["VOILA_PREHEAT"])
        return f"k{len(started)}"

    async def initialize(self, notebook_path, kernel_id=None, **kwargs):
        kernel_id = await self.start_kernel(**kwargs)
        done = asyncio.get_running_loop().create_future()
        done.set_result(([], None))
        page = SimpleNamespace(stop_generator=False, rendered_cache=[])
        return {"task": done, "renderer": page, "kernel_id": kernel_id}

    monkeypatch.setattr(PageKernelManager.__mro__[1], "start_kernel", start)
    cls = voila_kernel_manager_factory(PageKernelManager, True, pool_size)
    monkeypatch.setattr(cls, "_initialize", initialize)
    km = cls(parent=App(), fill_delay=0, refill_quiet=0.0, refill_spacing=0.0, **traits)
    return km, started


def _pool_sizes(km) -> tuple[int, int]:
    """(kernels in the pool, of them started)."""
    pool = km._pools["nb.ipynb"]
    return len(pool), sum(t.done() for t in pool)


def test_each_kernel_taken_grows_the_pool_by_a_spare(tmp_path, monkeypatch):
    async def scenario():
        km, started = _voila_pool(tmp_path, monkeypatch, pool_limit=5)
        await asyncio.sleep(0.1)
        assert _pool_sizes(km) == (2, 2) and started == ["True", "True"]  # the first fill
        for _ in range(6):  # six visitors, one after another
            await km.get_rendered_notebook("nb.ipynb")
            await asyncio.sleep(0.1)
        # each take started its refill and one spare more, up to the limit of 5
        assert _pool_sizes(km) == (5, 5)
        assert km.kernel_pools_config["nb.ipynb"]["pool_size"] == 5
        assert km.largest_pool("nb.ipynb") == 5
        return len(started)

    assert asyncio.run(scenario()) == 2 + 6 + 3  # 6 refills, 3 spares (2 -> 5)


def test_the_grown_pool_is_bounded_by_cores_and_memory(tmp_path, monkeypatch):
    from riskexplore.cli.dashboard import kernels

    async def scenario():
        km, _started = _voila_pool(tmp_path, monkeypatch, spares_per_core=5)
        await asyncio.sleep(0.1)
        monkeypatch.setattr(kernels.os, "cpu_count", lambda: 2)
        monkeypatch.setattr(kernels, "available_memory_mb", lambda: 100_000.0)
        assert km.largest_pool("nb.ipynb") == 10  # 5 a core
        # 1,500 MB free: half of it holds 2 kernels of 300 MB beside the 2 started
        monkeypatch.setattr(kernels, "available_memory_mb", lambda: 1500.0)
        assert km.largest_pool("nb.ipynb") == 4
        monkeypatch.setattr(kernels, "available_memory_mb", lambda: 0.0)
        assert km.largest_pool("nb.ipynb") == 2  # never below the configured pool
        await km.get_rendered_notebook("nb.ipynb")
        await asyncio.sleep(0.1)
        assert _pool_sizes(km) == (2, 2)  # no memory: the refill only

    asyncio.run(scenario())


def test_the_pool_shrinks_back_when_nobody_comes(tmp_path, monkeypatch):
    async def scenario():
        km, _started = _voila_pool(tmp_path, monkeypatch, pool_limit=4, pool_shrink_after=60)
        ended = []

        async def shutdown(kernel_id, *args, **kwargs):
            pool = km._pools["nb.ipynb"]
            pool[:] = [t for t in pool if t.result()["kernel_id"] != kernel_id]
            ended.append(kernel_id)

        km.shutdown_kernel = shutdown
        await asyncio.sleep(0.1)
        for _ in range(3):
            await km.get_rendered_notebook("nb.ipynb")
            await asyncio.sleep(0.1)
        assert _pool_sizes(km) == (4, 4)
        await km.shrink_pools(now=km._last_take + 59)
        assert ended == [] and _pool_sizes(km) == (4, 4)
        await km.shrink_pools(now=km._last_take + 61)
        assert len(ended) == 2 and _pool_sizes(km) == (2, 2)
        assert km.kernel_pools_config == {"default": km.kernel_pools_config["default"]}
        await km.get_rendered_notebook("nb.ipynb")  # a visitor again: it grows again
        await asyncio.sleep(0.1)
        assert _pool_sizes(km) == (3, 3)

    asyncio.run(scenario())


def test_spares_and_refills_after_a_take_wait_for_quiet(tmp_path, monkeypatch):
    async def scenario():
        km, started = _voila_pool(tmp_path, monkeypatch, pool_limit=4)
        km.refill_quiet = 0.3
        await asyncio.sleep(0.1)
        await km.get_rendered_notebook("nb.ipynb")  # a page is being built
        await asyncio.sleep(0.1)
        assert _pool_sizes(km) == (3, 1)  # its refill and a spare wait for quiet
        await asyncio.sleep(0.5)
        assert _pool_sizes(km) == (3, 3)
        return started

    assert asyncio.run(scenario()) == ["True"] * 4


def test_spares_held_back_never_start_once_the_pool_shrinks(tmp_path, monkeypatch):
    async def scenario():
        km, started = _voila_pool(tmp_path, monkeypatch, pool_limit=4, pool_shrink_after=60)
        ended = []

        async def shutdown(kernel_id, *args, **kwargs):
            ended.append(kernel_id)

        km.shutdown_kernel = shutdown
        km.refill_quiet = 1000.0  # pages keep coming: the refill and the spare wait
        await asyncio.sleep(0.1)
        await km.get_rendered_notebook("nb.ipynb")
        await asyncio.sleep(0.1)
        assert _pool_sizes(km) == (3, 1)
        await km.shrink_pools(now=km._last_take + 61)
        await asyncio.sleep(0.1)
        # one of the two waiting is dropped before it starts; the ready kernel stays
        assert _pool_sizes(km) == (2, 1) and ended == []
        km.refill_quiet = 0.0
        await asyncio.sleep(0.7)
        assert _pool_sizes(km) == (2, 2)
        return started

    assert asyncio.run(scenario()) == ["True"] * 3  # the first fill and one refill


def test_a_large_first_fill_starts_a_core_s_worth_then_one_at_a_time(monkeypatch):
    # ten kernels starting together on 2 cores kept the launcher's first page waiting about
    # 45 s for the first of them: the rest of a large pool start like refills
    km = _filling(monkeypatch, spacing=0.6, at_once=2)

    async def pooled():  # a task of Voila's pool: a refill, and then the kernel's entry
        return {"kernel_id": await km.start_kernel(env={"VOILA_PREHEAT": "True"})}

    async def fill(n):
        tasks = [asyncio.ensure_future(pooled()) for _ in range(n)]
        km._pools["nb"].extend(tasks)
        await asyncio.sleep(0.3)
        first = [t.done() for t in tasks]
        await asyncio.wait_for(asyncio.gather(*tasks), 10)  # the others follow, spaced
        return first

    loop = asyncio.new_event_loop()
    try:
        t0 = time.monotonic()
        assert loop.run_until_complete(fill(4)) == [True, True, False, False]
        assert time.monotonic() - t0 >= 2 * km.refill_spacing  # one at a time
    finally:
        loop.close()
    km.first_fill_at_once = 0  # the default: one per core
    assert km._first_fill_quota() == (os.cpu_count() or 1)
