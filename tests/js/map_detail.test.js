// Unit tests of assets/map_detail.js under node, run through assets/map_recolour.js's creation hook as on the page:
// a map of very many districts (its layout's meta names the zoom) gets its districts' border layer from that zoom;
// other traces and maps are left as plotly.js made them.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const ASSETS = path.join(__dirname, "..", "..", "assets");
const KEY = "anonset_borders_from_zoom";

/** The page's two files in their order (Dash loads assets alphabetically) and a stand-in plotly.js module. */
function page() {
  const calls = [];
  function ChoroplethMap(subplot, uid) {
    this.type = "choroplethmap";
    this.subplot = subplot;
    this.layerList = [["fill", `fill-${uid}`], ["line", `line-${uid}`]];
  }
  ChoroplethMap.prototype.update = function () {};
  const module = { plot: (subplot, calcTrace) => new ChoroplethMap(subplot, calcTrace[0].trace.uid) };
  const Plotly = { react(gd) { return Promise.resolve(gd); }, newPlot(gd) { return Promise.resolve(gd); } };
  const context = { window: { Plotly }, document: { querySelectorAll: () => [], getElementById: () => null },
    setTimeout, Promise, Number, Math, JSON, Set, Array, Object, String, parseInt };
  vm.createContext(context);
  for (const file of ["map_detail.js", "map_recolour.js"]) {
    vm.runInContext(fs.readFileSync(path.join(ASSETS, file), "utf8"), context, { filename: file });
  }
  return { context, module, calls, Plotly };
}

/** A graph with ``n`` traces on one map; ``meta`` is its layout's; the map records what it is told. */
function graph(module, meta, n) {
  const calls = [];
  const map = {
    getLayer: () => ({}),
    setLayerZoomRange: (id, min, max) => calls.push(["zoom", id, min, max]),
    setPaintProperty: (id, name, value) => calls.push(["paint", id, name, value]),
  };
  const gd = { _fullLayout: { meta }, _fullData: [] };
  const subplot = { map, gd };
  gd._fullData = Array.from({ length: n }, (_, i) => ({ type: "choroplethmap", index: i, uid: `t${i}`, _module: module }));
  return { gd, subplot, calls };
}

test("a map of very many districts draws its districts' borders from the zoom its figure names", () => {
  const { context, module } = page();
  const { gd, subplot, calls } = graph(module, { [KEY]: 5.51 }, 3);
  context.window.Plotly.react(gd);  // wraps the trace module's constructor
  gd._fullData.forEach((trace) => module.plot(subplot, [{ trace }]));
  assert.deepEqual(calls, [["zoom", "line-t0", 5.51, 24]],
    "only trace 0 (the districts): the outlines of the filled and the selected districts are drawn at every zoom");
});

test("a map without the zoom in its meta, or with none, is left as plotly.js made it", () => {
  const { context, module } = page();
  for (const meta of [{ anonset_fit_bounds: [0, 0, 1, 1] }, undefined, { [KEY]: "5" }]) {
    const { gd, subplot, calls } = graph(module, meta, 1);
    context.window.Plotly.react(gd);
    module.plot(subplot, [{ trace: gd._fullData[0] }]);
    assert.deepEqual(calls, [], `meta ${JSON.stringify(meta)}`);
  }
});

test("after plotly.js's own full update (which may add the layers anew) the zoom is set again", () => {
  const { context, module } = page();
  const { gd, subplot, calls } = graph(module, { [KEY]: 4.1 }, 1);
  context.window.Plotly.react(gd);
  const obj = module.plot(subplot, [{ trace: gd._fullData[0] }]);
  calls.length = 0;
  obj.update([{ trace: gd._fullData[0] }]);  // not opted in to the recolour: plotly.js's own update
  assert.deepEqual(calls, [["zoom", "line-t0", 4.1, 24]]);
});
