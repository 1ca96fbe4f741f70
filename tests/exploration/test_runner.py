"""The Jupyter-free core of the widgets: SolveRunner, ProgressSeries, static figures."""

from __future__ import annotations

import math
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from riskexplore.core.certificate import Certificate
from riskexplore.core.events import SolveEvent, Trace
from riskexplore.core.progress import ProgressSeries
from riskexplore.errors import InfeasibleError, RiskExploreError
from riskexplore.exploration.runner import SolveRunner, describe_error, solve_function
from riskexplore.risk_score.model import RiskScore


def fake_solve(n_events: int = 20, dt: float = 0.01, fail: BaseException | None = None):
    """A solve function emitting synthetic events; honours stop; returns a RiskScore."""

    def solve(*, callbacks=(), stop=None):
        ub, lb = math.inf, 0.0
        status = "optimal"
        for i in range(n_events):
            if stop is not None and stop.is_set():
                status = "stopped"
                break
            incumbent = None
            if i % 5 == 1:
                ub = 1.0 / (1 + i)
                incumbent = {"intercept": -i, "points": {"a": 1, "b": -i % 3 - 1}}
            lb = min(ub, lb + 0.01)
            event = SolveEvent(
                time=i * dt,
                phase="search" if i else "setup",
                upper_bound=ub,
                lower_bound=lb,
                gap=(ub - lb) / ub if math.isfinite(ub) else math.inf,
                nodes=10 * i,
                cuts=3 * i,
                incumbent=incumbent,
                kind="incumbent" if incumbent else "progress",
            )
            for cb in callbacks:
                cb(event)
            if fail is not None and i == 2:
                raise fail
            time.sleep(dt)
        cert = Certificate.from_bounds(status, 0.5, 0.4)
        return RiskScore(["a", "b"], {"a": 1, "b": -1}, -2, cert, {"time": 0.1})

    return solve


def test_runner_collects_events_and_result():
    runner = SolveRunner(fake_solve(12))
    assert runner.state == "idle" and not runner.started
    runner.start()
    events = []
    deadline = time.time() + 10
    while not runner.done:
        events += runner.drain(timeout=0.05)
        assert time.time() < deadline
    assert len(events) == 12 == runner.n_events
    assert runner.state == "finished" and runner.status == "optimal"
    assert isinstance(runner.result, RiskScore) and runner.error is None
    assert runner.elapsed > 0
    with pytest.raises(RuntimeError):
        runner.start()


def test_runner_stop_and_error_capture():
    runner = SolveRunner(fake_solve(10_000, dt=0.005)).start()
    time.sleep(0.1)
    runner.stop()
    assert runner.join(2.0)
    assert runner.status == "stopped" and runner.stop_requested
    assert runner.drain()  # events are kept until drained

    failing = SolveRunner(fake_solve(10, fail=InfeasibleError("A conflicts with B"))).start()
    assert failing.join(2.0)
    assert failing.state == "error" and isinstance(failing.error, InfeasibleError)
    assert describe_error(failing.error) == "A conflicts with B"
    assert describe_error(KeyError("x")).startswith("KeyError")
    with pytest.raises(TypeError):
        SolveRunner(42)


def test_progress_series_arrays_and_incumbents():
    events = []
    fake_solve(23, dt=0)(callbacks=[events.append])
    series = ProgressSeries(capacity=4)  # forces growth
    series.extend(events[:10])
    series.extend(events[10:])
    assert len(series) == 23
    np.testing.assert_allclose(series.time, [e.time for e in events])
    np.testing.assert_allclose(series.nodes, [e.nodes for e in events])
    assert math.isinf(series.upper[0])
    assert series.phase == "search" and series.last is events[-1]
    assert len(series.incumbent_time) == len(series.incumbents) == 5
    assert series.incumbent == events[21].incumbent
    a = series.arrays(finite=True)
    assert np.isnan(a["upper"][0]) and np.isnan(a["gap"][0])
    thin = series.arrays(max_points=5)
    assert len(thin["time"]) == 5 and thin["time"][-1] == events[-1].time
    with pytest.raises(ValueError):
        series.time[0] = 1.0  # read-only views
    assert "search" in series.summary() and "nodes" in series.summary()
    assert ProgressSeries().summary() == "no progress yet"
    trace = Trace()
    for e in events:
        trace(e)
    assert len(ProgressSeries.from_trace(trace)) == 23


def _small_data(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, d)) < 0.4).astype(int), columns=[f"x{j}" for j in range(d)])
    z = X.to_numpy() @ np.array([1.5, -1.0, 0.8, 0.0, 0.3])[:d] - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    return X, y


def test_solve_function_with_real_fit_and_live_constraints():
    from riskexplore.risk_score.constraints import Exclude, MaxFeatures

    X, y = _small_data()
    current = [MaxFeatures(2)]
    solve = solve_function("risk_score", X, y, constraints=lambda: current, time_limit=20)
    runner = SolveRunner(solve).start()
    assert runner.join(30)
    assert runner.status == "optimal", runner.error
    assert runner.result.size <= 2 and runner.drain()
    current = [Exclude("x0"), Exclude("x1"), Exclude("x2"), Exclude("x3"), Exclude("x4")]
    runner = SolveRunner(solve).start()
    assert runner.join(30)
    assert runner.result.size == 0
    with pytest.raises(ValueError):
        solve_function("forest", X, y)


def test_bounds_figure_static():
    pytest.importorskip("plotly")
    from riskexplore.figures.progress import BOUNDS_TRACES, bounds_figure, incumbent_text

    empty = bounds_figure(None)
    assert [t.name for t in empty.data] == list(BOUNDS_TRACES)
    assert len(empty.data[0].x) == 0
    events = []
    fake_solve(23, dt=0.01)(callbacks=[events.append])
    fig = bounds_figure(events, log_time=True, title="demo")
    assert fig.layout.title.text == "demo"
    # the legend sits at the bottom of the figure, clear of the title at the top
    legend = fig.layout.legend
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")
    assert len(fig.data[0].x) == 23 and len(fig.data[2].x) == 5
    assert fig.layout.xaxis.type == "log"
    assert fig.data[2].hovertext[0].startswith("intercept -1")
    assert np.nanmax(fig.data[3].y) <= 100.0
    assert incumbent_text({"items": ["a", "b"], "M": 1}) == "M = 1 of 2: a, b"
    # a fitted model's trace works as input too
    model = RiskScore(["a"], {"a": 1}, 0, trace=Trace())
    assert len(bounds_figure(model).data[0].x) == 0


def test_card_figure_and_saving(tmp_path):
    pytest.importorskip("plotly")
    from riskexplore.checklist.model import Checklist
    from riskexplore.figures.cards import card_figure
    from riskexplore.figures.export import image_export_available, save_figure

    cert = Certificate.from_bounds("optimal", 0.5, 0.5)
    score = RiskScore(["age>60", "male"], {"age>60": 2, "male": 1}, -3, cert, {"time": 1.0})
    fig = card_figure(score)
    assert list(fig.data[0].cells.values[0]) == ["age>60", "male"]
    assert "certified optimal" in fig.layout.title.text
    checklist = Checklist(["a ≥ 1", "b = 2"], 1, outcome="disease", certificate=cert)
    cfig = card_figure(checklist)
    assert list(cfig.data[0].cells.values[1]) == ["a ≥ 1", "b = 2"]
    out = save_figure(fig, tmp_path / "card.html")
    text = out.read_text()
    assert "Plotly.newPlot" in text and "male" in text
    assert len(text) > 1_000_000  # plotly.js is inlined: the page works offline
    save_figure(fig, tmp_path / "card.json")
    if not image_export_available():
        with pytest.raises(RiskExploreError, match="kaleido"):
            save_figure(fig, tmp_path / "card.png")
    with pytest.raises(RiskExploreError, match="unknown figure format"):
        save_figure(fig, tmp_path / "card.xyz")


def test_import_stays_light():
    code = (
        "import sys, riskexplore, riskexplore.widgets, riskexplore.exploration.runner, "
        "riskexplore.exploration.explorer, riskexplore.exploration.study.document;"
        "bad = [m for m in ('plotly', 'ipywidgets', 'nbformat', 'jsonschema') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
