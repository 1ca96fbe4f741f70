// One plotly.js per page, shared by every PlotView: window-level because anywidget
// evaluates this module once per widget.
const KEY = "__riskexplorePlotly";

function loadPlotly(model) {
  if (!window[KEY]) {
    window[KEY] = (async () => {
      // "_library" is a reference to the kernel's PlotlyLibrary widget ("IPY_MODEL_<id>").
      const library = await model.widget_manager.get_model(model.get("_library").slice(10));
      const source = library.get("source");
      // plotly.min.js is a UMD bundle: give it a `module` to fill and re-export it.
      const blob = new Blob(
        ["const module = { exports: {} };\n", source, "\nexport default module.exports;\n"],
        { type: "text/javascript" });
      const url = URL.createObjectURL(blob);
      try {
        return (await import(/* webpackIgnore: true */ url)).default;
      } finally {
        URL.revokeObjectURL(url);
      }
    })();
    window[KEY].catch(() => { window[KEY] = null; });  // let the next view try again
  }
  return window[KEY];
}

function clickMessage(event) {
  const points = (event.points || []).map((p) => ({
    trace: p.curveNumber, index: p.pointNumber ?? p.pointIndex ?? null,
    x: p.x ?? null, y: p.y ?? null,
  }));
  const e = event.event || {};
  return { type: "click", points, ctrl: !!e.ctrlKey, alt: !!e.altKey,
           shift: !!e.shiftKey, meta: !!e.metaKey, button: e.button ?? 0 };
}

const hidden = (el) => getComputedStyle(el).visibility === "hidden";

async function whenShown(el) {
  // the view is put in the page after it is rendered: wait (briefly) for that
  for (let i = 0; i < 100 && !el.isConnected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // In a JupyterLab notebook the cells out of view are hidden by the notebook itself
  // (windowing), not folded: there a plot draws at once, as any output does.
  if (!el.isConnected || !hidden(el) || el.closest(".jp-WindowedPanel-outer")) return;
  await new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!hidden(el)) {
        observer.disconnect();
        resolve();
      }
    });
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      observer.observe(a, { attributes: true, attributeFilter: ["style", "class"] });
    }
  });
}

async function render({ model, el }) {
  const div = document.createElement("div");
  div.className = "rx-plot";
  el.appendChild(div);
  const Plotly = await loadPlotly(model);
  const react = () => {
    const spec = JSON.parse(model.get("_spec") || "{}");
    return Plotly.react(div, spec.data || [], spec.layout || {}, model.get("_config") || {});
  };
  let queued = false;
  const draw = () => {  // at most one redraw per animation frame
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; react(); });
  };
  // A plot inside a folded block (a result not there yet: hidden, no height) is drawn when
  // the block opens, not while the page loads: a page opens with most of its plots folded,
  // and drawing them all would cost the browser seconds of a core.
  await whenShown(el);
  await react();  // also gives the div plotly's event methods (div.on)
  model.on("change:_spec", draw);
  model.on("change:_config", draw);
  div.on("plotly_click", (event) => model.send(clickMessage(event)));
  // Views created in a hidden tab have no width yet: resize once they are shown.
  const observer = new ResizeObserver(() => {
    if (div.offsetWidth > 0 && div.data) Plotly.Plots.resize(div);
  });
  observer.observe(el);
  return () => { observer.disconnect(); Plotly.purge(div); };
}

export default { render };
