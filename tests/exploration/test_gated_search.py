"""Searches of a dashboard share the cores: a monitor's search waits for a free core
(the page says how many searches are ahead), can be stopped while it waits, and runs once
the core is free; the gate comes from the environment the dashboard server sets."""

from __future__ import annotations

import threading
import time

from riskexplore.core.core_gate import CORES_VARIABLE, GATE_VARIABLE, CoreGate
from riskexplore.exploration.runner import SolveRunner
from riskexplore.widgets.monitor import SolveMonitor, waiting_text


def _solve(ran: list):
    def solve(*, callbacks=(), stop=None):
        ran.append(True)
        return None

    return solve


def _until(check, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_runner_takes_the_gate_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(GATE_VARIABLE, raising=False)
    assert SolveRunner(_solve([])).gate is None
    monkeypatch.setenv(GATE_VARIABLE, str(tmp_path))
    monkeypatch.setenv(CORES_VARIABLE, "2")
    gate = SolveRunner(_solve([])).gate
    assert gate.cores == 2 and gate.directory == tmp_path
    assert SolveRunner(_solve([]), gate=None).gate is None


def test_runner_waits_its_turn_then_runs(tmp_path):
    gate = CoreGate(tmp_path, cores=1, poll=0.01)
    ran: list = []
    with gate.slot():
        # another search is in line first, then ours
        other = threading.Thread(target=gate.run, args=(lambda: time.sleep(0.3),))
        other.start()
        assert _until(lambda: len(gate.waiting()) == 1)
        runner = SolveRunner(_solve(ran), gate=gate).start()
        assert _until(lambda: runner.waiting == 1)
        assert ran == [] and runner.running
    other.join(10)
    assert runner.join(10) and ran == [True]
    assert runner.waiting is None and not runner.stopped_waiting


def test_monitor_stopped_while_waiting(tmp_path, monkeypatch):
    monkeypatch.setenv(GATE_VARIABLE, str(tmp_path))
    monkeypatch.setenv(CORES_VARIABLE, "1")
    gate = CoreGate(tmp_path, cores=1, poll=0.01)
    ran: list = []
    monitor = SolveMonitor(_solve(ran), auto_refresh=False)
    with gate.slot():
        runner = monitor.start()
        assert runner.gate is not None
        assert _until(lambda: runner.waiting == 0)
        monitor.poll()
        assert "Waiting for a free processor core… (next in line)" in monitor.status_label.value
        monitor.stop()
        assert monitor.wait(10) == "stopped"
    assert ran == [] and runner.stopped_waiting and monitor.model is None
    assert "nothing was searched" in monitor.message.value
    assert monitor.solve_button.disabled is False


def test_waiting_text():
    assert waiting_text(0).endswith("(next in line)")
    assert waiting_text(1) == "Waiting for a free processor core… (1 search ahead)"
    assert waiting_text(3) == "Waiting for a free processor core… (3 searches ahead)"
