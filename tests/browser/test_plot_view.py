"""``PlotView`` (``riskexplore.widgets.plot_view``) in a real browser: Voila serves small
notebooks written by the fixture and headless Chromium (Debian ``chromium`` driven by
Playwright; no browser is downloaded, see ``conftest.py`` and ``_browser.py``) looks at them.

Checked, each against what plotly's own ``FigureWidget`` got wrong:

* six views on one page (five in a VBox, one in a Tab page not shown at load) all redraw
  after a button changes every figure in ``batch_update`` blocks, twice; the hidden one is
  not drawn while hidden, and is drawn at its page's width with the latest data once its
  tab is selected;
* ten updates made by a Python worker thread (about 4 per second) all reach the page;
* a click on a point in the browser runs the trace's Python ``on_click`` callback;
* plotly.js is fetched once per page from the server's static file, never over the
  websocket (no frame over 4 MB), and less than 8 MB arrive before the first figure is
  drawn;
* the page logs no error (console or uncaught exception).

Every page may load only localhost URLs; any other request is blocked and fails the test.
One Voila server serves the module's notebooks; every test opens its own page (and kernel).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import nbformat
import pytest
from _browser import block_outside
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from riskexplore.cli.dashboard.server import start_voila, stop_process

LOAD_TIMEOUT_MS = 180_000  # kernel start + plotly import + widget scripts on a busy machine
UPDATE_TIMEOUT_MS = 60_000  # a figure change in Python until it is drawn
BIG_FRAME = 4_000_000  # plotly.min.js is about 4.8 MB; no other message comes close
FIRST_DRAW_BUDGET = 8_000_000  # FigureWidget sent about 5 MB per figure

# --- the notebooks ----------------------------------------------------------------------

#: Six views: five in a VBox, the sixth on the second page of a Tab (not selected at load).
#: The button replaces the data of every figure (N0 + STEP * presses points) inside
#: ``batch_update``. Lines are not simplified, so a drawn path has one vertex per point.
SIX = """
import ipywidgets as W
import plotly.graph_objects as go
from riskexplore.widgets.plot_view import PlotView

N0, STEP = 5, 7

def points(n, shift):
    return list(range(n)), [(i * 37 + shift * 11) % 17 + i % 3 for i in range(n)]

def figure(k):
    x, y = points(N0, k)
    trace = go.Scatter(x=x, y=y, mode="lines", line={"simplify": False})
    margin = {"l": 40, "r": 10, "t": 10, "b": 30}
    return go.Figure(trace, layout={"height": 170, "margin": margin})

views = [PlotView(figure(k)) for k in range(6)]
for k, view in enumerate(views):
    view.add_class(f"rx-view-{k}")
presses = 0
status = W.Label(value="presses: 0")
status.add_class("rx-presses")

def change(_):
    global presses
    presses += 1
    n = N0 + STEP * presses
    for k, view in enumerate(views):
        with view.batch_update():
            x, y = points(n, k + presses)
            view.data[0].x = x
            view.data[0].y = y
            view.layout.yaxis.title = f"press {presses}"
    status.value = f"presses: {presses}"

button = W.Button(description="Change every figure")
button.on_click(change)
tabs = W.Tab(children=[W.HTML("Nothing here"), views[5]], titles=["Intro", "Hidden plot"])
tabs.selected_index = 0
W.VBox([button, status, W.VBox(views[:5]), tabs])
"""

#: A worker thread updates the figure ten times, four times a second.
THREAD = """
import threading
import time

import ipywidgets as W
import plotly.graph_objects as go
from riskexplore.widgets.plot_view import PlotView

view = PlotView(go.Figure(go.Scatter(x=[0], y=[0], mode="lines+markers"),
                          layout={"height": 300, "title": {"text": "update 0"}}))
view.add_class("rx-thread-view")
status = W.Label(value="idle")
status.add_class("rx-thread-status")

def work():
    for i in range(1, 11):
        with view.batch_update():
            view.data[0].x = list(range(i + 1))
            view.data[0].y = [v * v for v in range(i + 1)]
            view.layout.title.text = f"update {i}"
        time.sleep(0.25)
    status.value = f"thread done after {i} updates"

def start(_):
    status.value = "running"
    threading.Thread(target=work, daemon=True).start()

button = W.Button(description="Start updates")
button.on_click(start)
W.VBox([button, status, view])
"""

#: Five big markers; the trace's on_click callback writes what it got into an HTML widget.
CLICK = """
import ipywidgets as W
import plotly.graph_objects as go
from riskexplore.widgets.plot_view import PlotView

trace = go.Scatter(x=[1, 2, 3, 4, 5], y=[3, 1, 4, 1, 5], mode="markers",
                   marker={"size": 24}, name="pts")
view = PlotView(go.Figure(trace, layout={"height": 400}))
view.add_class("rx-click-view")
out = W.HTML(value="no click yet")
out.add_class("rx-click-out")

def clicked(trace, points, state):
    out.value = (f"clicked {trace.name}: index {points.point_inds}, "
                 f"x {points.xs}, y {points.ys}")

view.data[0].on_click(clicked)
W.VBox([view, out])
"""

NOTEBOOKS = {"six": SIX, "thread": THREAD, "click": CLICK}

#: Console errors that are not the page's fault. Each entry: (message regex, URL regex);
#: a console error is allowed when both match (the URL is where the error was logged).
ALLOWED_CONSOLE_ERRORS = [
    # browsers ask every server for /favicon.ico; Voila has none
    (r"Failed to load resource: the server responded with a status of 404", r"/favicon\.ico$"),
]

# --- fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory):
    """One Voila server for the module, serving ``NOTEBOOKS`` from a temporary directory;
    yields the base URL (a notebook ``name`` is at ``voila/render/<name>.ipynb``)."""
    root = tmp_path_factory.mktemp("plot_view_pages")
    notebooks = root / "notebooks"
    notebooks.mkdir()
    for name, source in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(source.strip())]
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(nb, notebooks / f"{name}.ipynb")
    log_path = root / "voila.log"
    print(f"voila log: {log_path}")
    with open(log_path, "w") as log:
        proc, url = start_voila(notebooks, log_file=log, timeout=120, show_tracebacks=True)
        try:
            yield url
        finally:
            stop_process(proc)


@dataclass
class Watched:
    """A page and what it did: requests blocked, console messages, uncaught errors, and
    websocket frames (received: ``(time, size)``; sent: payloads)."""

    page: Any
    outside: list[str]
    console: list[dict] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    received: list[tuple[float, int]] = field(default_factory=list)
    sent: list[str | bytes] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def bytes_received(self) -> int:
        return sum(size for _, size in self.received)

    def body(self) -> str:
        try:
            return self.page.locator("body").inner_text(timeout=10_000)[-3000:]
        except PlaywrightError as exc:  # pragma: no cover - only for failure messages
            return f"<no body: {exc}>"


@pytest.fixture
def open_page(browser, voila_url) -> Callable[[str], Watched]:
    """``open_page(name)``: a fresh browser context on notebook ``name``, watched from the
    first request on; closed at the end of the test."""
    contexts = []

    def opener(name: str) -> Watched:
        context = browser.new_context(viewport={"width": 1200, "height": 1000})
        context.set_default_timeout(UPDATE_TIMEOUT_MS)
        contexts.append(context)
        watched = Watched(page=context.new_page(), outside=block_outside(context))
        page = watched.page
        page.on(
            "console",
            lambda m: watched.console.append(
                {"type": m.type, "text": m.text, "url": m.location.get("url", "")}
            ),
        )
        page.on("pageerror", lambda exc: watched.page_errors.append(str(exc)))

        def on_websocket(ws):
            ws.on(
                "framereceived",
                lambda payload: watched.received.append((time.monotonic(), len(payload))),
            )
            ws.on("framesent", lambda payload: watched.sent.append(payload))

        page.on("websocket", on_websocket)
        page.on("request", lambda request: watched.requests.append(request.url))
        page.goto(f"{voila_url}voila/render/{name}.ipynb", timeout=LOAD_TIMEOUT_MS)
        return watched

    yield opener
    for context in contexts:
        context.close()


# --- reading the page -----------------------------------------------------------------------

#: State of the figure in the widget with CSS class ``cls``: what plotly was given (``n``
#: points in trace 0), what it drew (vertices of the first line path, markers), its size.
FIGURE_STATE = """(cls) => {
  const el = document.querySelector("." + cls);
  const gd = el && el.querySelector(".js-plotly-plot");
  if (!gd || !gd.data || !gd._fullLayout) return null;
  const line = gd.querySelector("path.js-line");
  const d = line ? line.getAttribute("d") || "" : "";
  const title = gd.querySelector(".gtitle");
  const ytitle = gd.querySelector(".g-ytitle");
  return {
    n: gd.data[0].x.length,
    drawn: (d.match(/[ML]/g) || []).length,
    markers: gd.querySelectorAll("path.point").length,
    width: gd.offsetWidth,
    height: gd.offsetHeight,
    laidOutWidth: gd._fullLayout.width,
    widgetWidth: el.clientWidth,
    title: title ? title.textContent : null,
    ytitle: ytitle ? ytitle.textContent : null,
  };
}"""


def figure_state(page, cls: str) -> dict | None:
    return page.evaluate(FIGURE_STATE, cls)


def wait_for_figures(page, want: dict[str, Callable[[dict], bool]], what: str, timeout_ms: int):
    """Poll until every figure ``cls`` satisfies ``want[cls](state)``; fail with the states
    seen last otherwise."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        states = {cls: figure_state(page, cls) for cls in want}
        bad = {cls: s for cls, s in states.items() if s is None or not want[cls](s)}
        if not bad:
            return states
        if time.monotonic() > deadline:
            pytest.fail(f"{what} not reached within {timeout_ms / 1000:.0f} s; wrong: {bad}")
        page.wait_for_timeout(200)


def drawn_with(n: int) -> Callable[[dict], bool]:
    """A figure given ``n`` points that also drew them (the path has ``n`` vertices)."""
    return lambda s: s["n"] == n and s["drawn"] == n and s["width"] > 0


def assert_only_local(watched: Watched) -> None:
    assert not watched.outside, f"requests outside localhost: {watched.outside}"


def wait_loaded(watched: Watched, cls: str) -> None:
    """Wait until the notebook's widgets are on the page and the figure of the widget with
    CSS class ``cls`` is drawn."""
    page = watched.page
    try:
        page.locator(f".{cls} .js-plotly-plot path").first.wait_for(
            state="attached", timeout=LOAD_TIMEOUT_MS
        )
    except PlaywrightError:
        pytest.fail(f"no figure drawn; page errors {watched.page_errors}; page:\n{watched.body()}")


# --- the tests --------------------------------------------------------------------------------

VISIBLE = [f"rx-view-{k}" for k in range(5)]
HIDDEN = "rx-view-5"


def test_six_views_all_redraw_after_batch_updates(open_page):
    watched = open_page("six")
    page = watched.page
    wait_loaded(watched, VISIBLE[0])
    wait_for_figures(page, {c: drawn_with(5) for c in VISIBLE}, "first draw", UPDATE_TIMEOUT_MS)
    # the view in the tab not shown is drawn when its tab opens, not while the page loads
    expect(page.locator(".js-plotly-plot")).to_have_count(5)
    button = page.locator("button", has_text="Change every figure")
    status = page.locator(".rx-presses")

    for presses in (1, 2):  # twice: not a one-off
        n = 5 + 7 * presses
        button.click()
        expect(status).to_have_text(f"presses: {presses}", timeout=UPDATE_TIMEOUT_MS)
        label = f"press {presses}"
        want = {c: lambda s, n=n, t=label: drawn_with(n)(s) and s["ytitle"] == t for c in VISIBLE}
        what = f"{n} points and y title after press {presses}"
        wait_for_figures(page, want, what, UPDATE_TIMEOUT_MS)

    assert figure_state(page, HIDDEN) is None, "the hidden tab's plot was drawn while hidden"
    page.locator(".lm-TabBar-tab", has_text="Hidden plot").click()

    def shown_full_width(s: dict) -> bool:
        return drawn_with(19)(s) and abs(s["laidOutWidth"] - s["widgetWidth"]) <= 30

    (state,) = wait_for_figures(
        page, {HIDDEN: shown_full_width}, "hidden figure shown at full width", UPDATE_TIMEOUT_MS
    ).values()
    assert state["width"] > 300, state
    assert_only_local(watched)


def test_views_follow_the_window_width_and_keep_their_height(open_page):
    watched = open_page("six")
    page = watched.page
    wait_loaded(watched, VISIBLE[0])
    page.locator("button", has_text="Change every figure").click()  # redrawn while shown
    wait_for_figures(page, {c: drawn_with(12) for c in VISIBLE}, "redraw", UPDATE_TIMEOUT_MS)
    before = {c: figure_state(page, c) for c in VISIBLE}
    size = page.viewport_size
    for width in (size["width"] - 300, size["width"] + 200):
        page.set_viewport_size({"width": width, "height": size["height"]})

        def fits(s: dict) -> bool:
            return abs(s["laidOutWidth"] - s["widgetWidth"]) <= 30 and s["height"] >= 170

        states = wait_for_figures(
            page,
            {c: fits for c in VISIBLE},
            f"laid out at window width {width}",
            UPDATE_TIMEOUT_MS,
        )
        for c, state in states.items():
            assert state["height"] == before[c]["height"], (c, state, before[c])
    assert_only_local(watched)


def test_updates_from_a_worker_thread_all_reach_the_page(open_page):
    watched = open_page("thread")
    page = watched.page
    wait_loaded(watched, "rx-thread-view")
    wait_for_figures(page, {"rx-thread-view": drawn_with(1)}, "first draw", UPDATE_TIMEOUT_MS)
    # every redraw: the number of points drawn
    page.evaluate(
        """() => {
          const gd = document.querySelector(".rx-thread-view .js-plotly-plot");
          window.__rxDrawn = [];
          gd.on("plotly_afterplot", () => window.__rxDrawn.push(gd.data[0].x.length));
        }"""
    )
    page.locator("button", has_text="Start updates").click()
    expect(page.locator(".rx-thread-status")).to_have_text(
        "thread done after 10 updates", timeout=UPDATE_TIMEOUT_MS
    )
    state = wait_for_figures(
        page,
        {"rx-thread-view": lambda s: drawn_with(11)(s) and s["title"] == "update 10"},
        "the last update from the thread",
        UPDATE_TIMEOUT_MS,
    )["rx-thread-view"]
    assert state["markers"] == 11, state
    drawn = page.evaluate("window.__rxDrawn")
    # the updates arrived while the thread ran, not only at the end
    assert drawn == sorted(drawn) and drawn[-1] == 11, drawn
    assert len(set(drawn)) >= 3, f"too few intermediate states drawn: {drawn}"
    assert_only_local(watched)


def test_click_in_browser_runs_python_on_click(open_page):
    watched = open_page("click")
    page = watched.page
    wait_loaded(watched, "rx-click-view")
    wait_for_figures(
        page, {"rx-click-view": lambda s: s["markers"] == 5}, "markers drawn", UPDATE_TIMEOUT_MS
    )
    out = page.locator(".rx-click-out")
    expect(out).to_have_text("no click yet")
    points = page.locator(".rx-click-view path.point")
    for index, x, y in [(3, 4, 1), (1, 2, 1)]:  # two clicks: the second one counts too
        box = points.nth(index).bounding_box(timeout=UPDATE_TIMEOUT_MS)
        assert box, f"marker {index} has no box"
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(cx, cy)  # plotly picks the clicked point from the hover
        page.wait_for_timeout(300)
        page.mouse.click(cx, cy)
        expect(out).to_have_text(
            f"clicked pts: index [{index}], x [{x}], y [{y}]", timeout=UPDATE_TIMEOUT_MS
        )
    assert_only_local(watched)


def test_plotly_js_is_sent_once_per_page(open_page):
    watched = open_page("six")
    page = watched.page
    wait_loaded(watched, VISIBLE[0])
    first_draw = watched.bytes_received()
    assert first_draw < FIRST_DRAW_BUDGET, f"{first_draw} bytes before the first figure"

    # everything on the page drawn, redrawn and the hidden view shown: still one copy
    wait_for_figures(page, {c: drawn_with(5) for c in VISIBLE}, "first draw", UPDATE_TIMEOUT_MS)
    page.locator("button", has_text="Change every figure").click()
    page.locator(".lm-TabBar-tab", has_text="Hidden plot").click()
    wait_for_figures(
        page, {c: drawn_with(12) for c in [*VISIBLE, HIDDEN]}, "redraw", UPDATE_TIMEOUT_MS
    )
    page.wait_for_timeout(1000)  # let any late message arrive
    # the dashboard server serves plotly.js as a file: fetched once, never on the websocket
    fetched = [url for url in watched.requests if "/voila/static/plotly-" in url]
    assert len(fetched) == 1, f"plotly.js fetched {fetched}"
    big = [size for _, size in watched.received if size > BIG_FRAME]
    assert big == [], f"frames over {BIG_FRAME} bytes: {big}"
    total = watched.bytes_received()
    assert total < FIRST_DRAW_BUDGET, f"{total} bytes received in all"
    print(f"received {first_draw} bytes before the first figure, {total} in all")
    assert_only_local(watched)


def _unexpected_console_errors(watched: Watched) -> list[dict]:
    return [
        m
        for m in watched.console
        if m["type"] == "error"
        and not any(
            re.search(text, m["text"]) and re.search(url, m["url"])
            for text, url in ALLOWED_CONSOLE_ERRORS
        )
    ]


def test_no_errors_in_the_browser(open_page):
    # the page with most going on: six views, updates, a hidden tab shown
    watched = open_page("six")
    page = watched.page
    wait_loaded(watched, VISIBLE[0])
    wait_for_figures(page, {c: drawn_with(5) for c in VISIBLE}, "first draw", UPDATE_TIMEOUT_MS)
    page.locator("button", has_text="Change every figure").click()
    wait_for_figures(page, {c: drawn_with(12) for c in VISIBLE}, "redraw", UPDATE_TIMEOUT_MS)
    page.locator(".lm-TabBar-tab", has_text="Hidden plot").click()
    wait_for_figures(page, {HIDDEN: drawn_with(12)}, "hidden view shown", UPDATE_TIMEOUT_MS)
    # and a click on a figure (no callback registered: nothing may go wrong either)
    box = page.locator(f".{VISIBLE[0]} .js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(1000)
    errors = [m for m in watched.console if m["type"] == "error"]
    print(f"console errors: {errors}")
    assert not watched.page_errors, f"uncaught errors in the page: {watched.page_errors}"
    unexpected = _unexpected_console_errors(watched)
    assert not unexpected, f"console errors: {unexpected}"
    assert_only_local(watched)
