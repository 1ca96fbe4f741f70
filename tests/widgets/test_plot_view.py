"""PlotView, the figure widget every view uses: edits reach the page (the synced JSON),
batches are one message, clicks from the page run trace callbacks, plotly.js is served
once on request. The browser side is checked in ``tests/browser/test_plot_view.py``."""

from __future__ import annotations

import json
import threading

import numpy as np
import plotly.graph_objects as go
import pytest

from riskexplore.figures.export import save_figure
from riskexplore.widgets import plot_view
from riskexplore.widgets.plot_view import PlotlyLibrary, PlotView, plotly_js_path
from riskexplore.widgets.plotly_bundle import PLOTLY_URL_VARIABLE, plotly_module


def scatter_view() -> PlotView:
    return PlotView(go.Figure(go.Scatter(x=[0.0], y=[0.0], name="a", mode="markers")))


def test_initial_figure_is_sent():
    view = scatter_view()
    sent = view.sent_figure()
    assert view.messages_sent == 1
    assert sent.data[0].name == "a" and list(sent.data[0].x) == [0.0]


def test_every_kind_of_edit_reaches_the_page():
    view = scatter_view()
    view.data[0].x = np.arange(4.0)
    assert list(view.sent_figure().data[0].x) == [0, 1, 2, 3]
    view.update_layout(title="t1")
    assert view.sent_figure().layout.title.text == "t1"
    view.add_trace(go.Bar(x=[1], y=[2], name="b"))
    assert [t.name for t in view.sent_figure().data] == ["a", "b"]
    view.layout = go.Layout(title="t2")
    assert view.sent_figure().layout.title.text == "t2"
    view.data = [view.data[1]]
    assert [t.name for t in view.sent_figure().data] == ["b"]
    view.figure.data[0].y = [5]  # edits of the figure itself are sent too
    assert list(view.sent_figure().data[0].y) == [5]


def test_batch_update_sends_one_message():
    view = scatter_view()
    before = view.messages_sent
    with view.batch_update():
        view.data[0].x = np.arange(10.0)
        view.data[0].y = np.arange(10.0) ** 2
        view.update_layout(title="batched")
        view.add_trace(go.Scatter(y=[1, 2]))
        with view.batch_update():  # nested blocks still make one message
            view.data[0].name = "renamed"
        assert view.messages_sent == before
    assert view.messages_sent == before + 1
    sent = view.sent_figure()
    np.testing.assert_allclose(sent.data[0].y, np.arange(10.0) ** 2)
    assert sent.data[0].name == "renamed" and len(sent.data) == 2
    assert sent.layout.title.text == "batched"


def test_batch_sends_even_when_the_block_raises():
    view = scatter_view()
    with pytest.raises(RuntimeError), view.batch_update():
        view.data[0].x = [7.0]
        raise RuntimeError("boom")
    assert list(view.sent_figure().data[0].x) == [7.0]


def test_update_replaces_traces_and_layout_in_one_message():
    view = scatter_view()
    before = view.messages_sent
    view.update(go.Figure([go.Bar(y=[1]), go.Bar(y=[2])], layout={"title": "new"}))
    assert view.messages_sent == before + 1
    sent = view.sent_figure()
    assert [t.type for t in sent.data] == ["bar", "bar"] and sent.layout.title.text == "new"
    assert PlotView(view).sent_figure().layout.title.text == "new"  # a view copies a view


def test_click_from_the_page_runs_trace_callbacks():
    view = PlotView(go.Figure([go.Scatter(x=[1, 2, 3], y=[4, 5, 6]), go.Scatter(y=[0])]))
    clicks = []
    view.data[0].on_click(lambda trace, points, state: clicks.append((points, state)))
    view._on_message(
        view,
        {"type": "click", "points": [{"trace": 0, "index": 2, "x": 3, "y": 6}], "shift": True},
        [],
    )
    ((points, state),) = clicks
    assert points.point_inds == [2] and points.xs == [3] and points.trace_index == 0
    assert state.shift and not state.ctrl
    # points on other traces, unknown traces or without an index run nothing here
    view._on_message(view, {"type": "click", "points": [{"trace": 1, "index": 0}]}, [])
    view._on_message(view, {"type": "click", "points": [{"trace": 9, "index": 0}]}, [])
    view._on_message(view, {"type": "click", "points": [{"trace": 0}]}, [])
    view._on_message(view, "not a dict", [])
    assert len(clicks) == 1


def test_plotly_js_travels_in_one_shared_library_widget():
    first, second = scatter_view(), scatter_view()
    library = first._library
    assert isinstance(library, PlotlyLibrary) and second._library is library
    assert library.source == plotly_js_path().read_bytes()
    assert b"plotly.js" in library.source[:200]
    # the view's state names the library by widget reference, so the page can find it
    assert first.get_state()["_library"] == f"IPY_MODEL_{library.model_id}"
    library.close()  # e.g. Widget.close_all(): the next view gets a new library
    third = scatter_view()
    assert third._library is not library and third._library.comm is not None


def test_under_the_dashboard_server_the_library_sends_an_address(monkeypatch):
    monkeypatch.setattr(plot_view, "_library", None)
    monkeypatch.setenv(PLOTLY_URL_VARIABLE, "/voila/static/plotly-abc.js?v=abc")
    library = scatter_view()._library
    assert library.url == "/voila/static/plotly-abc.js?v=abc" and library.source == b""
    assert len(json.dumps(library.get_state(), default=str)) < 1000  # not the 4.8 MB bundle
    # a page that could not load the address asks for the bundle
    library._on_message(library, {"type": "source"}, [])
    assert library.source == plotly_js_path().read_bytes()
    library.close()


def test_the_served_module_is_the_bundle_made_an_es_module():
    digest, content = plotly_module()
    source = plotly_js_path().read_bytes()
    assert len(digest) == 12 and source in content
    assert content.startswith(b"const module") and content.rstrip().endswith(
        b"export default module.exports;"
    )


def test_edits_from_threads_are_all_sent():
    view = scatter_view()

    def work(k):
        for i in range(50):
            with view.batch_update():
                view.data[0].x = np.full(k + 1, float(i + 1))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert view.messages_sent == 1 + 200
    assert list(view.sent_figure().data[0].x) == list(view.data[0].x)


def test_static_copy_and_saving(tmp_path):
    view = scatter_view()
    static = view.to_figure()
    assert type(static) is go.Figure
    static.data[0].x = [9]
    assert list(view.data[0].x) == [0.0]  # a copy
    assert save_figure(view, tmp_path / "v.html").stat().st_size > 100_000
    assert save_figure(view, tmp_path / "v.json").read_text().startswith("{")


def test_unknown_attributes_raise_attribute_error():
    view = scatter_view()
    with pytest.raises(AttributeError):
        view.no_such_method  # noqa: B018
    with pytest.raises(AttributeError):
        view._private_thing  # noqa: B018


def test_the_page_knows_whether_there_is_anything_to_draw():
    # an empty figure with a placeholder is shown as that text (no plotly.js needed)
    # until its first point
    view = PlotView(
        go.Figure([go.Scatter(x=[], y=[]), go.Scatter()]), placeholder="drawn when it runs"
    )
    assert view.get_state()["placeholder"] == "drawn when it runs"
    assert view.get_state()["_has_data"] is False
    view.data[1].x, view.data[1].y = np.arange(3), np.arange(3)
    assert view._has_data is True
    with view.batch_update():
        view.data[1].x, view.data[1].y = [], []
    assert view._has_data is False
    # traces without x / y (a table, a pie) count as something to draw
    assert PlotView(go.Figure(go.Table(cells={"values": [[1]]})))._has_data
    assert PlotView(go.Figure(go.Pie(values=[1, 2])))._has_data
    assert not PlotView()._has_data and PlotView().placeholder == ""


def test_copies_skip_revalidating_the_template_but_keep_the_figure():
    # the view copies figures without validating their template again (kernel start-up);
    # the figure sent, the subplot grid, other templates and later validation are unchanged
    from plotly.subplots import make_subplots

    grid = make_subplots(rows=1, cols=2)
    grid.update_layout(title="grid", xaxis2_title="right")
    view = PlotView(grid)
    assert view.sent_figure().to_plotly_json() == go.Figure(grid).to_plotly_json()
    view.add_trace(go.Scatter(x=[1], y=[2]), row=1, col=2)
    assert view.sent_figure().data[0].xaxis == "x2"
    with pytest.raises(ValueError):
        view.figure.layout.xaxis.not_a_property = 1
    dark = go.Figure(layout={"template": "plotly_dark", "title": "dark"})
    view.update(dark)
    assert view.sent_figure().layout.template == dark.layout.template
    plain = go.Figure(go.Bar(x=[1], y=[2]), layout={"title": "plain"})
    view.update(plain)
    assert view.sent_figure().to_plotly_json() == plain.to_plotly_json()
