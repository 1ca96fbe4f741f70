"""The widgets in JupyterLab, in a real browser (headless Debian Chromium driven by
Playwright, see ``_browser.py``; JupyterLab serves notebooks written by the fixture).

A notebook with a plot updated by the very cell that displayed it, while that cell is still
running: the plot is drawn and redrawn during the cell (plotly.js travels with the widget
state, not by a request the busy kernel could not answer).

A notebook that displays an ``Explorer`` on the bundled mammography data, run and clicked
through like a user:

* Solve: the monitor's bound line grows *while* the solve runs, then the reliability
  diagram (train and test) is drawn;
* the AUC / CAL tab, hidden at load, is drawn at full width with the ROC curves;
* Add a constraint, Solve constrained: the second monitor and the Compare figure are drawn;
* Compute path on the Size path tab fills the figure size by size, and clicking a point of
  the path in the browser shows that size's model (the click travels page → kernel).

The starter notebook, ``notebooks/00_explore.ipynb``, run top to bottom like a user with
"Run All": every live plot it draws grows while its search runs (the Explorer's two
monitors and its size path, the SolveMonitors around ``fit_risk_score`` and
``fit_checklist``, the ParetoView), and the Explorer opened from the saved study shows its
monitors and size path drawn at once.

Nothing may be loaded from outside localhost, and the page may raise no error.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest
from _browser import explorer_cell, watched_page

from riskexplore.cli.dashboard.server import free_port, stop_process, wait_listening

LOAD_TIMEOUT_MS = 240_000
STARTER = Path(__file__).resolve().parents[2] / "notebooks" / "00_explore.ipynb"
NOTEBOOKS = {
    "explorer.ipynb": """\
from riskexplore.widgets import Explorer

ex = Explorer("mammo", max_size=3, time_limit=6)
ex""",
    "busy_cell.ipynb": """\
import time

import plotly.graph_objects as go
from IPython.display import display

from riskexplore.widgets import PlotView

view = PlotView(go.Figure(go.Scatter(x=[0], y=[0]), layout={"title": "busy cell"}))
display(view)
for i in range(1, 41):  # about 12 s during which the kernel answers no request
    with view.batch_update():
        view.data[0].x = list(range(i + 1))
        view.data[0].y = [j * j for j in range(i + 1)]
    time.sleep(0.3)""",
}

#: Every plot on the page: its layout title, width and the number of points per trace.
PLOTS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => {
  const title = g.layout && g.layout.title;
  return {
    title: (title && (title.text !== undefined ? title.text : title)) || '',
    width: g.offsetWidth,
    points: (g._fullData || []).map(t => (t.x && t.x.length) || 0),
  };
})"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free localhost port, serving a folder with the test notebooks;
    yields the URL prefix of a notebook (append its file name)."""
    root = tmp_path_factory.mktemp("lab")
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for name, code in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = kernelspec
        nb.cells = [nbformat.v4.new_code_cell(code)]
        nbformat.write(nb, root / name)
    shutil.copy(STARTER, root / STARTER.name)
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: run cells by command
        f"--ServerApp.root_dir={root}",
        "--MappingKernelManager.cull_idle_timeout=0",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    env = {
        **os.environ,
        # a fresh Lab: no user settings or saved workspace that would open other tabs
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
        "PYTHONUNBUFFERED": "1",
    }
    log = open(root / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_listening("127.0.0.1", port, proc, 120)
        yield f"http://127.0.0.1:{port}/lab/tree/"
    finally:
        stop_process(proc)
        log.close()


def plots(page) -> list[dict]:
    return page.evaluate(PLOTS_JS)


def plot(page, prefix: str) -> dict:
    """The plot whose title starts with ``prefix`` (``{"title": "", "width": 0, "points":
    [0]}`` while there is none)."""
    found = [p for p in plots(page) if p["title"].startswith(prefix)]
    assert len(found) <= 1, f"several plots titled {prefix!r}"
    return found[0] if found else {"title": "", "width": 0, "points": [0]}


def wait_for(predicate, what: str, timeout: float = 120.0, interval: float = 0.5):
    """Poll ``predicate`` until it returns a true value; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


def click(page, text: str) -> None:
    page.locator("button", has_text=text).first.click()


def open_tab(page, title: str) -> None:
    page.locator(".lm-TabBar-tab", has_text=title).first.click()


def watch_solve(page, prefix: str) -> list[int]:
    """Bound-line lengths of monitor ``prefix`` sampled until its solve has ended."""
    samples = []

    def ended() -> bool:
        p = plot(page, prefix)
        samples.append(p["points"][0])
        return "—" in p["title"] and ("optimal" in p["title"] or "limit" in p["title"])

    wait_for(ended, f"the end of {prefix!r}", timeout=180, interval=0.3)
    return samples


@contextmanager
def notebook_page(browser, url: str, screenshot: str, look_after: tuple[int, str] | None = None):
    """A fresh page with the notebook at ``url`` open and all its cells started; on exit
    a screenshot, then no page error and no request outside localhost may have happened.

    ``look_after=(i, title)`` runs cells ``0..i`` first and waits until a plot titled
    ``title`` is on the page before it starts the rest, as a user who looks at what cell
    ``i`` displayed before running on (with "Run All", the next cell's search may end
    before the browser has rendered a large widget, and then there is no growth to see).
    """
    context, page, errors, outside = watched_page(browser, 1500, 2600)
    try:
        page.goto(url + "?reset", timeout=LOAD_TIMEOUT_MS)  # a fresh workspace: one tab
        name = url.rsplit("/", 1)[-1]
        # run the notebook once it is the current tab and its kernel is ready
        page.wait_for_function(
            """name => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                 const k = w && w.context && w.context.path.endsWith(name) && w.sessionContext
                   && w.sessionContext.session && w.sessionContext.session.kernel;
                 return k && k.status === 'idle'; }""",
            arg=name,
            timeout=LOAD_TIMEOUT_MS,
        )
        # started, not awaited: the command's promise settles only when the cells are done
        if look_after is None:
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        else:
            last, title = look_after
            run_from = """([i, command]) => { const w = window.jupyterapp.shell.currentWidget;
                              w.content.activeCellIndex = i;
                              window.jupyterapp.commands.execute(command); }"""
            page.evaluate(run_from, [last + 1, "notebook:run-all-above"])
            wait_for(
                lambda: any(p["title"].startswith(title) for p in plots(page)),
                f"the plot {title!r} displayed by cell {last}",
                timeout=LOAD_TIMEOUT_MS / 1000,
            )
            page.evaluate(run_from, [last + 1, "notebook:run-all-below"])
        yield page
    finally:
        Path("artifacts").mkdir(exist_ok=True)
        page.screenshot(path=f"artifacts/{screenshot}", full_page=True)
        context.close()
    assert not errors, errors
    assert not outside, f"requests outside localhost: {json.dumps(outside[:5])}"


def cell_running(page) -> bool:
    """Whether the notebook's (first) cell is still running: its prompt shows ``[*]``."""
    return "*" in page.locator(".jp-InputPrompt").first.inner_text()


def test_plot_draws_while_its_cell_is_still_running(browser, lab):
    with notebook_page(browser, lab + "busy_cell.ipynb", "busy_cell_jupyterlab.png") as page:
        seen = []

        def three_states_while_busy() -> bool:
            p = plot(page, "busy cell")
            if p["points"][0] and cell_running(page):
                seen.append(p["points"][0])
            return len(set(seen)) >= 3

        wait_for(three_states_while_busy, "three redraws while the cell runs", 60, 0.2)
        assert seen == sorted(seen), seen
        wait_for(lambda: plot(page, "busy cell")["points"][0] == 41, "the final state", 60)


def test_explorer_views_draw_and_stay_live_in_jupyterlab(browser, lab):
    with notebook_page(browser, lab + "explorer.ipynb", "explorer_jupyterlab.png") as page:
        # six plots of the Explorer's own, four of its Alternatives tab (metrics,
        # reliability, feature frequency, feature prices), two of its By group tab (forest
        # plot, reliability by group)
        wait_for(lambda: len(plots(page)) == 12, "the Explorer's twelve plots", timeout=180)
        assert plot(page, "Unconstrained solve")["points"][0] == 0

        # 1. the monitor is live during the solve; reliability drawn after it
        click(page, "Solve unconstrained")
        growth = watch_solve(page, "Unconstrained solve")
        live = sorted({n for n in growth if n > 0})
        # two states seen while it runs: mammo certifies in about a second since the fixed
        # scale runs the support screen (issue 18)
        assert len(live) >= 2, f"the bound line did not grow during the solve: {growth}"
        reliability = wait_for(
            lambda: sum((p := plot(page, "Reliability diagram"))["points"][1:]) >= 4 and p,
            "the reliability diagram's train and test points",
        )
        assert reliability["width"] > 300

        # 2. a tab hidden at load: drawn at full width once shown
        assert plot(page, "Performance")["width"] == 0
        open_tab(page, "AUC / CAL")
        # the panel is filled just after the solve's end: wait for the ROC curves too
        performance = wait_for(
            lambda: (p := plot(page, "Performance"))["width"] > 300 and max(p["points"]) >= 3 and p,
            "AUC / CAL shown with its ROC curves",
        )
        assert max(performance["points"]) >= 3, performance  # ROC curves

        # 3. constrained run and comparison
        click(page, "Add")  # the builder's default rule: use at most k features
        click(page, "Solve constrained")
        watch_solve(page, "Constrained solve")
        assert max(plot(page, "Constrained solve")["points"]) > 0
        open_tab(page, "Compare")
        compare = wait_for(
            lambda: (p := plot(page, "unconstrained vs constrained"))["width"] > 300 and p,
            "the comparison figure",
        )
        assert sum(compare["points"]) > 0, compare

        # 4. size path, filled progressively; a click on a point shows that size's model
        open_tab(page, "Size path")
        click(page, "Compute path")
        wait_for(
            lambda: max(plot(page, "Model size path")["points"]) >= 3,
            "path of 3 sizes",
            timeout=180,
        )
        point = page.evaluate(
            """() => {
                  const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
                    .find(d => (d.layout.title.text || '').startsWith('Model size path'));
                  const t = g._fullData[0];
                  const xa = g._fullLayout['xaxis' + t.xaxis.slice(1)];
                  const ya = g._fullLayout['yaxis' + t.yaxis.slice(1)];
                  const drag = g.querySelector(`.nsewdrag[data-subplot="${t.xaxis}${t.yaxis}"]`);
                  const r = drag.getBoundingClientRect();
                  const i = t.x.length - 2;  // the second largest size
                  return {x: r.left + xa.l2p(t.x[i]), y: r.top + ya.l2p(t.y[i]), size: t.x[i]};
                }"""
        )
        page.mouse.move(point["x"], point["y"])
        page.mouse.click(point["x"], point["y"])
        size = int(point["size"])
        cards = page.locator(".widget-html", has_text=f"Best model with size ≤ {size}")
        wait_for(lambda: cards.count() > 0, f"the card of size {size} after the click", 30)
        selected = page.evaluate(  # the path marks the chosen size (its last trace)
            """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
                     .find(d => (d.layout.title.text || '').startsWith('Model size path'))
                     ._fullData.slice(-1)[0].x"""
        )
        assert list(selected) == [size]


#: Every plot on the page, in page order: its title without the status a monitor appends
#: after " — ", and its number of points (all traces).
SAMPLE_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => {
  const t = g.layout && g.layout.title;
  const text = (t && (t.text !== undefined ? t.text : t)) || '';
  const points = (g._fullData || []).reduce((n, d) => n + ((d.x && d.x.length) || 0), 0);
  return [text.split(' — ')[0], points];
})"""

#: The starter's live plots, as (title, occurrence on the page): what draws them.
STARTER_LIVE = {
    ("My fit_checklist: at most 7 items", 0): "a SolveMonitor around fit_checklist",
    ("mammo: the best risk score of each size", 0): "ParetoView.start",
}
#: The starter's single mammo searches are not among them: the fixed scale certifies
#: mammo in about 0.2 s since the lattice search (issue 18), often between two samples of
#: the page; their plots must still be drawn (below). Nor is the Explorer's size path
#: (``ex.compute_path(wait=True)``): on an idle machine it once went from 0 to its 21
#: points between two samples (a full run of 7 December 2026). A risk score's live growth
#: is still watched here on the ParetoView, and in a longer search on the dashboards
#: (tests/browser/test_dashboards.py).
STARTER_DRAWN = (
    ("Unconstrained solve", 0),
    ("Constrained solve", 0),
    ("My fit_risk_score: at most 5 features", 0),
    ("Model size path", 0),
)
#: The plots of the Explorer opened from the saved study: drawn, without a search.
STARTER_RESTORED = (("Unconstrained solve", 1), ("Constrained solve", 1), ("Model size path", 1))
STARTER_END = "the same study: True"  # the last cell's output


def test_starter_notebook_runs_and_its_live_plots_grow(browser, lab):
    look = (explorer_cell(STARTER), "Unconstrained solve")
    with notebook_page(browser, lab + STARTER.name, "starter_jupyterlab.png", look) as page:
        history: dict[tuple[str, int], list[int]] = {}

        def sample() -> bool:
            seen: Counter = Counter()
            for title, points in page.evaluate(SAMPLE_JS):
                key = (title, seen[title])
                seen[title] += 1
                states = history.setdefault(key, [])
                if not states or states[-1] != points:
                    states.append(points)
            text = page.evaluate("() => document.body.textContent")
            assert "Traceback (most recent call last)" not in text, text[-3000:]
            return STARTER_END in text

        wait_for(sample, "the starter notebook's last cell", timeout=900, interval=0.2)

        def restored_drawn() -> bool:  # the reopened Explorer may draw just after that cell
            sample()
            return all(history.get(key, [0])[-1] > 0 for key in STARTER_RESTORED)

        for _ in range(60):  # (then the assertions below say what is missing)
            if restored_drawn():
                break
            time.sleep(0.5)
        print(
            "plots and the point counts seen:", json.dumps({f"{k}": v for k, v in history.items()})
        )
        for key, what in STARTER_LIVE.items():
            drawn = [n for n in history.get(key, []) if n > 0]
            assert len(drawn) >= 2, f"{what}: plot {key} did not grow: {history.get(key)}"
        for key in STARTER_DRAWN:
            assert history.get(key, [0])[-1] > 0, f"{key} not drawn after its solve: {history}"
        for key in STARTER_RESTORED:
            assert history.get(key, [0])[-1] > 0, f"{key} not drawn from the study: {history}"
        for title, name in (
            ("My fit_risk_score", "starter_jupyterlab_risk_monitor.png"),
            ("My fit_checklist", "starter_jupyterlab_checklist_monitor.png"),
            ("mammo: the best risk score of each size", "starter_jupyterlab_path.png"),
        ):  # a closer look at the cells of the monitors and the path
            cell = page.locator(".jp-Cell").filter(has_text=title).last
            cell.scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            cell.screenshot(path=f"artifacts/{name}")
