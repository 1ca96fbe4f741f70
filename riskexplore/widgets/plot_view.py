"""``PlotView``: a plotly figure as a notebook widget, any number of them on one page.

Why not plotly's own ``FigureWidget``: with plotly 7.1 and anywidget 0.11, a page with
several FigureWidgets redraws only some of them after load (which ones varies from load
to load; measured in Voila with headless Chromium, see ``tests/browser/test_plot_view.py``),
and every FigureWidget ships the whole 4.8 MB plotly.js bundle as its own ES module (three
figures put 15 MB on the websocket before the page shows anything).

A ``PlotView`` keeps a plain ``go.Figure`` on the Python side and sends the browser its
JSON; the browser draws it with ``Plotly.react`` (which keeps the user's zoom when the
layout carries a ``uirevision``). plotly.js, the copy bundled with the installed plotly
package, travels once per kernel in one shared, invisible library widget that every view
refers to; the first view drawn on a page evaluates it and later views reuse it. Since the
library arrives with the widget state, plots draw even while the cell that made them is
still running (a blocking ``solve(wait=True)``). Nothing is loaded from the internet.

Under the dashboard server the library carries only an address instead: the server serves
the same bundle as a static file (:mod:`riskexplore.widgets.plotly_bundle`), so the risk
page's widget state is 0.25 MB instead of 6.5 MB and the browser keeps the file. A page
that cannot load that address asks its kernel for the bundle itself.

Use it like a FigureWidget: ``view.data[0].x = ...``, ``view.update_layout(...)``,
``view.add_trace(...)``, ``with view.batch_update(): ...`` (one message for the whole
block), ``trace.on_click(callback)``. Any change is sent to the browser; inside
``batch_update`` they are sent together when the block ends.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import traitlets
from plotly.basedatatypes import BaseFigure, BasePlotlyType
from plotly.callbacks import InputDeviceState, Points

from riskexplore.widgets.plotly_bundle import PLOTLY_URL_VARIABLE, plotly_js_path

__all__ = [
    "PLOTLY_URL_VARIABLE",
    "PlotView",
    "PlotlyLibrary",
    "plotly_js_path",
    "plotly_library",
    "replace_figure",
]

#: The message a view sends its kernel when a point is clicked.
_CLICK = "click"

#: The view's JavaScript (an ES module for anywidget), shipped beside this file.
_ESM = (Path(__file__).with_name("plot_view.js")).read_text()


#: The message a page sends when it could not load the library from its address.
_SEND_SOURCE = "source"


class PlotlyLibrary(ipywidgets.Widget):
    """plotly.js for the page: an invisible widget shared by every :class:`PlotView` of the
    kernel (see :func:`plotly_library`), holding either the bundle (``source``) or the
    address where the server serves it (``url``; the bundle is then sent only if the page
    asks for it, having failed to load the address)."""

    source = traitlets.Bytes().tag(sync=True)
    url = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._on_message)

    def _on_message(self, _widget, content: Any, _buffers) -> None:
        if isinstance(content, dict) and content.get("type") == _SEND_SOURCE and not self.source:
            self.source = plotly_js_path().read_bytes()


_library: PlotlyLibrary | None = None
_library_lock = threading.Lock()


def plotly_library() -> PlotlyLibrary:
    """The kernel's one :class:`PlotlyLibrary` (made again if it was closed): the address
    in :data:`PLOTLY_URL_VARIABLE` when the dashboard server set it, else the bundle.

    Returns
    -------
    PlotlyLibrary
        The widget.
    """
    global _library
    with _library_lock:
        if _library is None or _library.comm is None:
            url = os.environ.get(PLOTLY_URL_VARIABLE, "")
            if url:
                _library = PlotlyLibrary(url=url)
            else:
                _library = PlotlyLibrary(source=plotly_js_path().read_bytes())
        return _library


def _decode_arrays(obj: Any) -> Any:
    """Undo plotly's JSON encoding of numpy arrays (``{"dtype", "bdata", "shape"}``)."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            values = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
            shape = obj.get("shape")
            if shape:
                dims = [int(d) for d in str(shape).split(",")] if isinstance(shape, str) else shape
                values = values.reshape(dims)
            return values
        return {k: _decode_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode_arrays(v) for v in obj]
    return obj


#: A trace's attributes that hold its points.
_POINTS = ("x", "y", "z", "values", "lat", "lon", "r", "cells")


def _has_points(trace: Any) -> bool:
    """Whether ``trace`` has something to draw (a trace of another kind always has)."""
    present = [name for name in _POINTS if name in trace]
    if not present:
        return True
    for name in present:
        value = trace[name]
        if value is None:
            continue
        try:
            if len(value):
                return True
        except TypeError:  # a scalar or a compound object (a table's cells)
            return True
    return False


def _plain(figure: Any) -> Any:
    """What ``go.Figure(...)`` accepts: a PlotView stands for its figure."""
    return figure.figure if isinstance(figure, PlotView) else figure


def _copy_figure(figure: Any, cls: type = go.Figure) -> go.Figure:
    """``cls(figure)``; a figure that plotly already validated is copied without validating
    it again, and the copy validates later edits as usual.

    Its layout is passed as a dict: plotly copies a ``Layout`` *object* with validation on,
    whatever ``_validate`` says, and with it the whole template (about 10 ms a figure, a
    tenth of a dashboard kernel's start for the page's 18 views); the subplot grid is
    carried over as ``cls(figure)`` does."""
    figure = _plain(figure)
    if not isinstance(figure, go.Figure):
        return cls(figure)
    copy = cls(
        data=figure.data,
        layout=figure.layout.to_plotly_json(),
        frames=figure.frames,
        _validate=False,
    )
    copy._grid_ref, copy._grid_str = figure._grid_ref, figure._grid_str
    _validate_again(copy)
    return copy


def _default_template() -> Any:
    """Plotly's default template object (None when there is none)."""
    default = pio.templates.default
    if default is None or isinstance(default, BasePlotlyType):
        return default
    return pio.templates[default]


def _layout_to_assign(figure: go.Figure) -> Any:
    """``figure``'s layout, to assign to another figure: a dict without the template when
    that is plotly's default (assigning a layout validates its template again, about 10 ms;
    a figure given a layout without one gets the default without validating it)."""
    layout = figure.layout
    if layout.template != _default_template():
        return layout
    plain = layout.to_plotly_json()
    plain.pop("template", None)
    return plain


def _validate_again(obj: Any) -> None:
    """Turn validation back on for ``obj`` and the plotly objects it holds."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseFigure):
            item._validate = True
            stack.append(item._layout_obj)
            stack.extend(item._data_objs)
        elif isinstance(item, BasePlotlyType):
            item._validate = True
            stack.extend(item._compound_props.values())
            for children in item._compound_array_props.values():
                stack.extend(children or ())


class _ObservedFigure(go.Figure):
    """A ``go.Figure`` that reports every change: plotly calls these ``_send_*`` hooks
    (no-ops in ``go.Figure``) for each edit, and once per ``batch_update`` block."""

    def _changed(self) -> None:
        listener = self.__dict__.get("_rx_listener")
        if listener is not None:
            listener()

    def _send_addTraces_msg(self, *args, **kwargs):
        self._changed()

    def _send_moveTraces_msg(self, *args, **kwargs):
        self._changed()

    def _send_deleteTraces_msg(self, *args, **kwargs):
        self._changed()

    def _send_restyle_msg(self, *args, **kwargs):
        self._changed()

    def _send_relayout_msg(self, *args, **kwargs):
        self._changed()

    def _send_update_msg(self, *args, **kwargs):
        self._changed()

    def _send_animate_msg(self, *args, **kwargs):
        self._changed()


class PlotView(anywidget.AnyWidget):
    """A plotly figure shown as a widget and kept in sync with the browser.

    Parameters
    ----------
    figure : plotly Figure, dict or None
        The initial figure (copied).

    Attributes
    ----------
    figure : plotly.graph_objects.Figure
        The Python-side figure; edits to it (directly or through the view's delegated
        ``data``, ``layout``, ``update_layout``, ``add_trace``, ...) are sent to the page.
    messages_sent : int
        How many figure states have been sent (for tests and benchmarks).
    placeholder : str
        A text shown instead of the figure while it has no data (default ``""``: the
        empty axes are drawn); until the first data the page needs no plotly.js.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from riskexplore.widgets import PlotView
    >>> view = PlotView(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))
    >>> view  # doctest: +SKIP
    >>> with view.batch_update():  # one message to the page for both edits
    ...     view.data[0].x = [0, 1, 2]
    ...     view.data[0].y = [0, 1, 4]
    >>> view.to_figure().data[0].y
    (0, 1, 4)
    """

    _esm = _ESM
    _library = traitlets.Instance(PlotlyLibrary).tag(sync=True, **ipywidgets.widget_serialization)
    # the figure as plotly's JSON text: encoded once here, parsed once in the page
    _spec = traitlets.Unicode("{}").tag(sync=True)
    # not plotly's "responsive": it sizes the plot to a parent that has no height here (0 px
    # after a window resize); the view's ResizeObserver follows the width instead
    _config = traitlets.Dict({"displaylogo": False, "responsive": False}).tag(sync=True)
    # whether a trace has points (an empty figure with a placeholder is not drawn)
    _has_data = traitlets.Bool(False).tag(sync=True)
    #: Shown, in a box of the figure's height under its title, while the figure has no
    #: data ("" : the empty axes are drawn). Until then the page needs no plotly.js.
    placeholder = traitlets.Unicode("").tag(sync=True)

    def __init__(self, figure: Any = None, **kwargs: Any) -> None:
        super().__init__(_library=plotly_library(), **kwargs)
        self._hold = 0
        self._dirty = False
        self._lock = threading.RLock()
        self.messages_sent = 0
        self.figure = _copy_figure(figure, _ObservedFigure)
        self.figure.__dict__["_rx_listener"] = self._on_figure_change
        self.on_msg(self._on_message)
        self._send_figure()

    # --- the figure ------------------------------------------------------------------
    @property
    def data(self):
        """The figure's traces (assigning them replaces every trace)."""
        return self.figure.data

    @data.setter
    def data(self, value) -> None:
        self.figure.data = value

    @property
    def layout(self):
        return self.figure.layout

    @layout.setter
    def layout(self, value) -> None:
        self.figure.layout = value

    def __getattr__(self, name: str) -> Any:
        # Figure methods (update_layout, add_traces, update_xaxes, ...) act on the figure.
        if name.startswith("_") or "figure" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.__dict__["figure"], name)

    @contextmanager
    def batch_update(self) -> Iterator[PlotView]:
        """Edit the figure; the browser gets the result in one message at the end."""
        with self._lock:
            self._hold += 1
            try:
                with self.figure.batch_update():
                    yield self
            finally:
                self._hold -= 1
                if self._hold == 0 and self._dirty:
                    self._send_figure()

    def update(self, figure: Any) -> None:
        """Replace the whole figure (traces and layout) by ``figure``; one message."""
        new = _copy_figure(figure)
        with self.batch_update():
            self.figure.data = []
            self.figure.add_traces(list(new.data))
            self.figure.layout = _layout_to_assign(new)

    def to_figure(self) -> go.Figure:
        """A static copy of the figure (for saving or for a paper)."""
        return go.Figure(self.figure)

    def sent_figure(self) -> go.Figure:
        """The figure as last sent to the page (decoded from its JSON)."""
        return go.Figure(_decode_arrays(json.loads(self._spec)), skip_invalid=True)

    # --- sending ---------------------------------------------------------------------
    def _on_figure_change(self) -> None:
        with self._lock:
            if self._hold:
                self._dirty = True
            else:
                self._send_figure()

    def _send_figure(self) -> None:
        # plotly's encoder turns numpy arrays, dates and NaN into plain JSON.
        self._dirty = False
        self._spec = pio.to_json(self.figure, validate=False, remove_uids=False)
        self._has_data = any(_has_points(trace) for trace in self.figure.data)
        self.messages_sent += 1

    # --- messages from the page ----------------------------------------------------------
    def _on_message(self, _widget, content: Any, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if content.get("type") == _CLICK:
            self.dispatch_click(content.get("points") or [], content)

    def dispatch_click(self, points: list[dict], device: dict | None = None) -> None:
        """Run the traces' ``on_click`` callbacks for clicked ``points`` (each a dict with
        ``trace`` and ``index``, optionally ``x``/``y``), as the page does on a click."""
        device = device or {}
        state = InputDeviceState(
            ctrl=bool(device.get("ctrl")),
            alt=bool(device.get("alt")),
            shift=bool(device.get("shift")),
            meta=bool(device.get("meta")),
            button=int(device.get("button", 0)),
            buttons=1,
        )
        traces = self.figure.data
        by_trace: dict[int, list[dict]] = {}
        for point in points:
            t = point.get("trace")
            if isinstance(t, int) and 0 <= t < len(traces) and point.get("index") is not None:
                by_trace.setdefault(t, []).append(point)
        for t, hits in by_trace.items():
            trace = traces[t]
            selected = Points(
                point_inds=[int(p["index"]) for p in hits],
                xs=[p.get("x") for p in hits],
                ys=[p.get("y") for p in hits],
                trace_name=trace.name,
                trace_index=t,
            )
            trace._dispatch_on_click(selected, state)


def replace_figure(target, fig) -> None:
    """Replace the traces and layout of ``target`` (a :class:`PlotView`) by those of
    ``fig`` in one update (for views whose set of traces changes).

    Parameters
    ----------
    target : PlotView
        The view.
    fig : plotly.graph_objects.Figure
        The new figure.
    """
    target.update(fig)
