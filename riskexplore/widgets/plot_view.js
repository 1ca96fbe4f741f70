// One plotly.js per page, shared by every PlotView: window-level because anywidget
// evaluates this module once per widget.
const KEY = "__riskexplorePlotly";

// The module's text from the library's bytes (plotly.min.js is a UMD bundle: give it a
// `module` to fill and re-export it, as the served file does), imported from a blob.
async function importSource(source) {
  const blob = new Blob(
    ["const module = { exports: {} };\n", source, "\nexport default module.exports;\n"],
    { type: "text/javascript" });
  const url = URL.createObjectURL(blob);
  try {
    return (await import(/* webpackIgnore: true */ url)).default;
  } finally {
    URL.revokeObjectURL(url);
  }
}

// The bundle in the library's state; a library that holds only an address sends it when
// asked (the page could not load that address).
function librarySource(library) {
  if (library.get("source")?.byteLength) return Promise.resolve(library.get("source"));
  return new Promise((resolve) => {
    const arrived = () => {
      library.off("change:source", arrived);
      resolve(library.get("source"));
    };
    library.on("change:source", arrived);
    library.send({ type: "source" });
  });
}

function loadPlotly(model) {
  if (!window[KEY]) {
    window[KEY] = (async () => {
      // "_library" is a reference to the kernel's PlotlyLibrary widget ("IPY_MODEL_<id>").
      const library = await model.widget_manager.get_model(model.get("_library").slice(10));
      const address = library.get("url");
      if (address) {
        // served by the dashboard server, cached by the browser (an absolute address:
        // this module itself comes from a blob, which relative addresses cannot follow)
        try {
          const url = new URL(address, document.baseURI).href;
          return (await import(/* webpackIgnore: true */ url)).default;
        } catch (error) {
          console.warn("plotly.js not loaded from its address; asking the kernel", error);
        }
      }
      return importSource(await librarySource(library));
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

// folded (visibility: hidden) or not rendered at all (display: none here or above)
const hidden = (el) => getComputedStyle(el).visibility === "hidden" ||
  el.getClientRects().length === 0;

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

const MOVES = ["pointermove", "pointerdown", "keydown", "wheel", "touchstart", "scroll"];

function preloadOnFirstMove(model) {
  if (window[KEY] || window[KEY + "Armed"]) return;
  window[KEY + "Armed"] = true;
  const start = () => {
    for (const type of MOVES) document.removeEventListener(type, start, true);
    loadPlotly(model).catch(() => {});
  };
  for (const type of MOVES) {
    document.addEventListener(type, start, { capture: true, passive: true });
  }
}

// A figure without data, with a placeholder text: that text in a box of the figure's
// height, under its title, until data arrive (no plotly.js needed for it).
function placeholder(model, div) {
  const spec = JSON.parse(model.get("_spec") || "{}");
  const layout = spec.layout || {};
  const title = (layout.title && layout.title.text) || "";
  const box = document.createElement("div");
  box.className = "rx-plot-placeholder";
  box.style.cssText = `height:${layout.height || 450}px;box-sizing:border-box;` +
    "padding:12px 16px;font-family:system-ui,sans-serif;color:#777;font-size:13px";
  const heading = document.createElement("div");
  heading.style.cssText = "color:#444;font-size:17px;margin:0 0 8px 28px";
  heading.textContent = title.replace(/<[^>]*>/g, "");
  const note = document.createElement("div");
  note.style.cssText = "margin:0 0 0 28px;padding:24px;border:1px dashed #ccc;border-radius:4px";
  note.textContent = model.get("placeholder");
  box.append(heading, note);
  div.appendChild(box);
  return box;
}

async function render({ model, el }) {
  const div = document.createElement("div");
  div.className = "rx-plot";
  el.appendChild(div);
  // A plot inside a folded block (a result not there yet: hidden, no height) is drawn when
  // the block opens, not while the page loads: a page opens with most of its plots folded,
  // and drawing them all would cost the browser seconds of a core. An empty figure with a
  // placeholder shows that text until its first data. plotly.js (4.8 MB) is evaluated
  // when a plot is really drawn or, with a placeholder, at the visitor's first move on
  // the page: a page shows its controls before it parses it.
  const waiting = () => !model.get("_has_data") && model.get("placeholder");
  if (waiting()) {
    const box = placeholder(model, div);
    // parse plotly.js at the visitor's first move on the page (the mouse, a key, a scroll:
    // before a search can start), so that the first search's plot does not hold the page
    // up while that search runs, and the page has shown everything before it parses it
    preloadOnFirstMove(model);
    await new Promise((resolve) => {
      const check = () => {
        if (!waiting()) {
          model.off("change:_has_data", check);
          model.off("change:placeholder", check);
          resolve();
        }
      };
      model.on("change:_has_data", check);
      model.on("change:placeholder", check);
    });
    box.remove();
  }
  await whenShown(el);
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
