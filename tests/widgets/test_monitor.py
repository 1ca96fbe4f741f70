"""SolveMonitor driven from tests: buttons pressed programmatically, short solves, Stop."""

from __future__ import annotations

import asyncio
import math
import time

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore.core.certificate import Certificate  # noqa: E402
from riskexplore.core.events import SolveEvent  # noqa: E402
from riskexplore.exploration.runner import solve_function  # noqa: E402
from riskexplore.risk_score.constraints import AtLeastKOf, Include, MaxFeatures  # noqa: E402
from riskexplore.risk_score.model import RiskScore  # noqa: E402
from riskexplore.widgets.monitor import SolveMonitor  # noqa: E402


def binary_data(n, d, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, d)) < 0.35).astype(int), columns=[f"x{j}" for j in range(d)])
    w = rng.normal(0, 1, d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(scale * X.to_numpy() @ w - 0.8)))).astype(int)
    return X, y


def fake_solve(n_events=30, dt=0.03):
    """Synthetic events every ``dt`` seconds; honours stop; returns a RiskScore."""

    def solve(*, callbacks=(), stop=None):
        ub, status = math.inf, "optimal"
        for i in range(n_events):
            if stop is not None and stop.is_set():
                status = "stopped"
                break
            inc = None
            if i % 10 == 1:
                ub = 1.0 / (1 + i)
                inc = {"intercept": -1, "points": {"a": 1 + i % 3}}
            e = SolveEvent(i * dt + 0.01, "search", ub, ub / 2, 0.5, i, 2 * i, inc)
            for cb in callbacks:
                cb(e)
            time.sleep(dt)
        cert = Certificate.from_bounds(status, 0.5, 0.25)
        return RiskScore(["a", "b"], {"a": 2}, -1, cert, {"time": n_events * dt})

    return solve


def poll_until_done(monitor, timeout=60.0, interval=0.05, on_poll=None):
    deadline = time.perf_counter() + timeout
    sizes = []
    while monitor.poll():
        sizes.append(len(monitor.figure.data[0].x))
        if on_poll is not None and on_poll(monitor):
            break
        assert time.perf_counter() < deadline, "solve did not finish in time"
        time.sleep(interval)
    return sizes


def test_risk_score_solve_via_buttons(tmp_path):
    X, y = binary_data(400, 6)
    monitor = SolveMonitor.for_data(
        "risk_score", X, y, max_size=3, time_limit=30, monitor_kw={"auto_refresh": False}
    )
    fig = monitor.figure
    assert type(fig).__name__ == "PlotView"
    assert len(fig.data) == 6 and len(fig.data[0].x) == 0
    assert fig.layout.title.text == "Solve monitor"
    assert "ready" in monitor.status_label.value
    assert monitor.stop_button.disabled

    monitor.solve_button.click()
    assert monitor.running and monitor.solve_button.disabled and not monitor.stop_button.disabled
    sizes = poll_until_done(monitor, timeout=40)
    assert monitor.status == "optimal", monitor.message.value
    assert monitor.first_point_latency is not None and monitor.first_point_latency < 1.0
    n = len(fig.data[0].x)
    assert n > 1 and n == len(monitor.series) and max(sizes + [n]) == n
    assert len(fig.data[2].x) >= 1  # incumbent markers
    assert fig.data[2].hovertext[-1].startswith("intercept")
    assert np.all(np.diff(np.asarray(fig.data[5].y)) >= 0)  # cuts accumulate
    assert "certified optimal" in fig.layout.title.text
    sent = fig.sent_figure()  # what the page received is the final state
    assert len(sent.data[0].x) == n and "certified optimal" in sent.layout.title.text
    assert "certified optimal" in monitor.status_label.value
    assert "rx-card" in monitor.card.html.value and "Certificate" in monitor.card.html.value
    assert monitor.message.value == ""
    assert not monitor.solve_button.disabled and monitor.stop_button.disabled
    assert monitor.model.certificate.is_optimal and monitor.model.size <= 3

    static = monitor.static_figure()
    assert type(static).__name__ == "Figure" and len(static.data[0].x) == n
    assert monitor.save(tmp_path / "monitor.html").stat().st_size > 100_000
    assert monitor.card.figure().data  # the score card as a static figure too


def test_stop_ends_long_solve_and_keeps_best_model():
    X, y = binary_data(20_000, 30, seed=1, scale=0.7)
    monitor = SolveMonitor.for_data(
        "risk_score", X, y, max_size=10, time_limit=60, monitor_kw={"auto_refresh": False}
    )
    monitor.start()
    poll_until_done(monitor, timeout=30, on_poll=lambda m: len(m.series.incumbents) > 0)
    assert monitor.running, "the long solve ended before it could be stopped"
    assert "Best model so far" in monitor.card.html.value
    shown_before = len(monitor.figure.data[0].x)

    pressed = time.perf_counter()
    monitor.stop_button.click()
    assert monitor.status == "stopping" and monitor.stop_button.disabled
    poll_until_done(monitor, timeout=10, interval=0.02)
    took = time.perf_counter() - pressed
    assert took < 2.0, f"stop took {took:.2f} s"

    assert monitor.status == "stopped"
    assert "stopped" in monitor.figure.layout.title.text
    model = monitor.model
    assert model is not None and model.certificate.status == "stopped"
    assert math.isfinite(model.certificate.upper_bound)
    assert model.certificate.lower_bound <= model.certificate.upper_bound
    assert "stopped on request" in monitor.card.html.value
    assert len(monitor.figure.data[0].x) >= shown_before


def test_checklist_solve():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        (rng.random((200, 6)) < 0.4).astype(int), columns=[f"item{j}" for j in range(6)]
    )
    y = ((X.iloc[:, :3].sum(axis=1) + (rng.random(200) < 0.2)) >= 2).astype(int)
    monitor = SolveMonitor.for_data(
        "checklist",
        X,
        y,
        binarize=None,
        max_items=3,
        time_limit=10,
        monitor_kw={"auto_refresh": False, "title": "Checklist"},
    )
    monitor.solve_button.click()
    poll_until_done(monitor, timeout=40)
    assert monitor.status == "optimal", monitor.message.value
    assert len(monitor.figure.data[0].x) >= 1
    assert monitor.figure.data[2].hovertext[-1].startswith("M = ")
    assert monitor.figure.layout.title.text == "Checklist — certified optimal"
    assert "rx-checklist" in monitor.card.html.value
    assert "Certificate" in monitor.card.html.value


def test_errors_are_messages_and_previous_results_stay():
    X, y = binary_data(300, 5)
    monitor = SolveMonitor(fake_solve(12, 0.005), auto_refresh=False)
    monitor.start()
    poll_until_done(monitor)
    assert monitor.status == "optimal"
    x_before = tuple(monitor.figure.data[0].x)
    card_before = monitor.card.html.value
    model_before = monitor.model

    infeasible = solve_function(
        "risk_score", X, y, constraints=[AtLeastKOf(["x0", "x1", "x2"], 3), MaxFeatures(2)]
    )
    monitor.start(infeasible)
    poll_until_done(monitor)
    assert monitor.status == "error"
    text = monitor.message.value
    assert "infeasible" in text and "Use at least 3 of" in text
    assert "Traceback" not in text and "rx-error" in text
    assert "failed" in monitor.status_label.value
    assert tuple(monitor.figure.data[0].x) == x_before
    assert monitor.card.html.value == card_before and monitor.model is model_before
    assert not monitor.solve_button.disabled

    monitor.start(solve_function("risk_score", X, y, constraints=[Include("x99")]))
    poll_until_done(monitor)
    assert "unknown feature" in monitor.message.value and "x99" in monitor.message.value
    assert monitor.model is model_before

    # a good solve clears the message again
    monitor.start(fake_solve(5, 0.001))
    poll_until_done(monitor)
    assert monitor.message.value == "" and monitor.status == "optimal"


def test_second_start_is_refused_and_log_time_switch():
    monitor = SolveMonitor(fake_solve(200, 0.01), auto_refresh=False)
    runner = monitor.start()
    assert monitor.start() is runner
    assert "already running" in monitor.message.value
    monitor.poll()
    monitor.log_time_box.value = True
    assert monitor.figure.layout.xaxis.type == "log"
    assert monitor.figure.layout.xaxis3.type == "log"
    monitor.log_time_box.value = False
    assert monitor.figure.layout.xaxis.type == "linear"
    monitor.stop()
    poll_until_done(monitor, timeout=5)
    assert monitor.status == "stopped"
    assert monitor.poll() is False  # nothing left to do


def test_refresh_thread_without_event_loop():
    monitor = SolveMonitor(fake_solve(40, 0.03), refresh_interval=0.25)
    monitor.start()
    assert monitor._thread is not None and monitor._task is None
    deadline = time.perf_counter() + 20
    while monitor.running:
        assert time.perf_counter() < deadline
        time.sleep(0.05)
    assert monitor.status == "optimal"
    assert len(monitor.figure.data[0].x) == 40
    # ~1.2 s of solving at 4 refreshes a second
    assert 3 <= monitor.n_refreshes <= 12


def test_refresh_task_on_running_loop():
    async def main():
        monitor = SolveMonitor(fake_solve(30, 0.02), refresh_interval=0.25)
        monitor.start()  # as from a button handler inside the kernel's loop
        assert monitor._task is not None and monitor._thread is None
        for _ in range(200):
            if not monitor.running:
                break
            await asyncio.sleep(0.05)
        return monitor

    monitor = asyncio.run(main())
    assert monitor.status == "optimal"
    assert len(monitor.figure.data[0].x) == 30
    assert monitor.n_refreshes >= 2


def test_refresh_task_in_a_real_kernel():
    """In ipykernel the Solve button's handler starts an asyncio task on the kernel loop."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    setup = (
        "import asyncio, math, time\n"
        "from riskexplore.core.certificate import Certificate\n"
        "from riskexplore.risk_score.model import RiskScore\n"
        "from riskexplore.core.events import SolveEvent\n"
        "from riskexplore.widgets import SolveMonitor\n"
        "def solve(*, callbacks=(), stop=None):\n"
        "    for i in range(40):\n"
        "        if stop.is_set():\n"
        "            break\n"
        "        e = SolveEvent(i * 0.02, 'search', 1.0, 0.5, 0.5, i, i,\n"
        "                       {'intercept': 0, 'points': {'a': 1}} if i == 3 else None)\n"
        "        for cb in callbacks:\n"
        "            cb(e)\n"
        "        time.sleep(0.02)\n"
        "    return RiskScore(['a'], {'a': 1}, 0, Certificate.from_bounds('optimal', 1, 1))\n"
        "monitor = SolveMonitor(solve, refresh_interval=0.25)\n"
        "monitor.solve_button.click()\n"
        "print('task' if monitor._task is not None and monitor._thread is None else 'no task')"
    )
    wait = (
        "for _ in range(200):\n"
        "    if not monitor.running:\n"
        "        break\n"
        "    await asyncio.sleep(0.05)\n"
        "print(monitor.status, len(monitor.figure.data[0].x), monitor.n_refreshes >= 2,\n"
        "      monitor.first_point_latency < 1.0)"
    )
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell(wait)]
    )
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    outputs = ["".join(o.get("text", "") for o in cell.outputs) for cell in nb.cells]
    assert outputs[0].strip() == "task"
    assert outputs[1].strip() == "optimal 40 True True"
