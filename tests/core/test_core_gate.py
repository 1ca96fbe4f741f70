"""The core gate: first come first served, released on errors, stoppable while waiting,
and never blocked by a process that died holding a core or a place in line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from riskexplore.core.core_gate import (
    CORES_VARIABLE,
    GATE_VARIABLE,
    SEARCH_NICENESS,
    CoreGate,
    run_gated,
)
from riskexplore.errors import InputError


def _until(check, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _waiter(gate, order, name, stop=None, reports=None):
    def work():
        order.append(name)
        return name

    def on_wait(ahead):
        if reports is not None:
            reports.append(ahead)

    thread = threading.Thread(target=lambda: gate.run(work, stop=stop, on_wait=on_wait))
    thread.start()
    return thread


def test_searches_run_in_the_order_they_asked(tmp_path):
    gate = CoreGate(tmp_path, cores=1, poll=0.01)
    order: list[str] = []
    reports: dict[str, list[int]] = {}
    with gate.slot() as held:
        assert held and gate.running() == 1
        threads = []
        for i, name in enumerate("abcd"):
            reports[name] = []
            threads.append(_waiter(gate, order, name, reports=reports[name]))
            assert _until(lambda i=i: len(gate.waiting()) == i + 1)
        assert order == []  # nobody runs while the only core is held
    for t in threads:
        t.join(10)
    assert order == list("abcd")
    assert reports["a"] == [0] and reports["d"][0] == 3  # searches ahead, as they change
    assert reports["d"] == sorted(reports["d"], reverse=True)
    assert gate.waiting() == [] and gate.running() == 0


def test_two_cores_two_at_once(tmp_path):
    gate = CoreGate(tmp_path, cores=2, poll=0.01)
    inside, most = [0], [0]
    lock = threading.Lock()

    def work():
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.05)
        with lock:
            inside[0] -= 1

    threads = [threading.Thread(target=gate.run, args=(work,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert most[0] == 2


def test_released_when_the_search_raises(tmp_path):
    gate = CoreGate(tmp_path, cores=1, poll=0.01)

    def fails():
        raise ValueError("bad search")

    with pytest.raises(ValueError, match="bad search"):
        gate.run(fails)
    assert gate.running() == 0
    assert gate.run(lambda: "next") == "next"


def test_stop_while_waiting(tmp_path):
    gate = CoreGate(tmp_path, cores=1, poll=0.05)
    order: list[str] = []
    stop = threading.Event()
    with gate.slot():
        thread = _waiter(gate, order, "stopped", stop=stop)
        assert _until(lambda: len(gate.waiting()) == 1)
        start = time.monotonic()
        stop.set()
        thread.join(5)
        assert not thread.is_alive() and time.monotonic() - start < 1.0
        assert gate.waiting() == []  # it left the line
    assert order == []  # and never ran
    with gate.slot(stop=stop) as held:  # a stop set before asking: no core
        assert not held


def test_run_gated_without_gate_runs_at_once():
    assert run_gated(lambda: 7, None) == 7


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="thread niceness is Linux only")
def test_search_runs_at_lower_priority_in_its_thread(tmp_path):
    gate = CoreGate(tmp_path, cores=1)
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen = {}

    def search():
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    thread = threading.Thread(target=lambda: seen.setdefault("nice", gate.run(search)))
    thread.start()
    thread.join(10)
    assert seen["nice"] >= SEARCH_NICENESS
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


_HOLDER = """
import sys, time
from riskexplore.core.core_gate import CoreGate
gate = CoreGate(sys.argv[1], cores=1, poll=0.01)
with gate.slot() as held:
    print("held" if held else "stopped", flush=True)
    time.sleep(600)
"""


def _holder(tmp_path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )


def test_a_killed_process_frees_its_core(tmp_path):
    gate = CoreGate(tmp_path, cores=1, poll=0.01)
    proc = _holder(tmp_path)
    assert proc.stdout.readline().strip() == "held"
    assert gate.running() == 1
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert gate.running() == 0
    assert gate.run(lambda: "after") == "after"


def test_a_killed_waiter_leaves_the_line(tmp_path):
    gate = CoreGate(tmp_path, cores=1, poll=0.01)
    order: list[str] = []
    with gate.slot():
        proc = _holder(tmp_path)  # waits in line behind us
        try:
            assert _until(lambda: len(gate.waiting()) == 1)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            tickets = list(tmp_path.glob("ticket-*"))
            assert len(tickets) == 1  # left behind, unlocked
            thread = _waiter(gate, order, "mine")
            assert _until(lambda: not tickets[0].exists())  # the dead ticket is removed
            assert gate.waiting() and len(gate.waiting()) == 1
        finally:
            if proc.poll() is None:
                proc.kill()
    thread.join(10)
    assert order == ["mine"]


def test_processes_share_the_cores(tmp_path):
    """Two processes on one core: never both inside."""
    script = """
import sys, time, os
from riskexplore.core.core_gate import CoreGate
gate = CoreGate(sys.argv[1], cores=1, poll=0.01)
def work():
    a = time.monotonic(); time.sleep(0.3); b = time.monotonic()
    print(a, b, flush=True)
for _ in range(3):
    gate.run(work)
"""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    spans = []
    for p in procs:
        out, _ = p.communicate(timeout=60)
        spans += [tuple(map(float, line.split())) for line in out.splitlines()]
    spans.sort()
    assert len(spans) == 6
    assert all(b1 <= a2 for (_a1, b1), (a2, _b2) in zip(spans, spans[1:], strict=False))


def test_from_environment(tmp_path):
    assert CoreGate.from_environment({}) is None
    gate = CoreGate.from_environment({GATE_VARIABLE: str(tmp_path), CORES_VARIABLE: "3"})
    assert gate.cores == 3 and gate.directory == tmp_path
    default = CoreGate.from_environment({GATE_VARIABLE: str(tmp_path)})
    assert default.cores == (os.cpu_count() or 1)
    with pytest.raises(InputError, match=CORES_VARIABLE):
        CoreGate.from_environment({GATE_VARIABLE: str(tmp_path), CORES_VARIABLE: "many"})


@pytest.mark.parametrize("cores", [0, -1, 1.5, True, "2"])
def test_bad_cores_refused(tmp_path, cores):
    with pytest.raises(InputError, match="cores"):
        CoreGate(tmp_path, cores=cores)
