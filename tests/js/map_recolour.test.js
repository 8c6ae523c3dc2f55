// Unit tests of assets/map_recolour.js under node, with stand-ins for plotly.js's map trace objects: a map that
// plotly.js drew before the file's hook was installed (the hook polls for plotly.js; a busy machine draws first).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const SOURCE = fs.readFileSync(path.join(__dirname, "..", "..", "assets", "map_recolour.js"), "utf8");
const META = "anonset:recolour-in-place";

/** A page whose map (one hidden outline trace, drawn by plotly.js already) exists when the file runs. */
function pageWithDrawnMap() {
  const updates = [];
  function ChoroplethMap() { this.type = "choroplethmap"; }
  ChoroplethMap.prototype.update = function (calcTrace) { updates.push(calcTrace); };  // plotly.js's own update
  const outline = { meta: META, visible: false, geojson: "/geo/DE.geojson", locations: [] };
  const obj = new ChoroplethMap();
  obj.subplot = { gd: null };
  const cd = [{ trace: Object.assign({ _glTrace: obj }, outline) }];
  const gd = { calcdata: [cd], _fullData: [], on() {} };
  obj.subplot.gd = gd;
  const window = { Plotly: { react() {}, newPlot() {} } };
  const context = { window, document: { querySelectorAll: () => [gd], getElementById: () => null }, setTimeout,
    Promise, Number, Math, JSON, Set, Array, Object, String, parseInt };
  vm.createContext(context);
  vm.runInContext(SOURCE, context, { filename: "map_recolour.js" });
  return { gd, obj, cd, updates };
}

test("a hidden outline drawn before the hook is left alone on the next colour change, as one drawn after it", () => {
  const { gd, obj, cd, updates } = pageWithDrawnMap();
  const again = [{ trace: Object.assign({}, cd[0].trace) }];  // the next update: still hidden, same geometry
  obj.update(again);
  assert.equal(updates.length, 0, `plotly.js redrew a hidden outline (why: ${obj.__recolourWhy})`);
  assert.equal((gd.__anonsetRecolour || { full: 0 }).full, 0);
  // shown at last (a district selected): plotly.js draws it
  obj.update([{ trace: Object.assign({}, cd[0].trace, { visible: true, locations: ["11000"] }) }]);
  assert.equal(updates.length, 1);
});

/** A stand-in for MapLibre's map (the fields guardResize reads, as MapLibre 5 has them) in a container of w × h px. */
function fakeMap(w, h) {
  const map = {
    container: { clientWidth: w, clientHeight: h },
    _camera: { transform: { width: w, height: h } },
    _canvas: { width: w, height: h, style: { width: `${w}px`, height: `${h}px` } },
    resized: 0,
    _containerDimensions() { return [this.container.clientWidth, this.container.clientHeight]; },
    _getClampedPixelRatio() { return 1; },
    resize() {  // MapLibre: the canvas and the camera take the container's size (resetting the canvas clears it)
      const [cw, ch] = this._containerDimensions(), ratio = this._getClampedPixelRatio(cw, ch);
      Object.assign(this._canvas, { width: Math.floor(ratio * cw), height: Math.floor(ratio * ch) });
      Object.assign(this._canvas.style, { width: `${cw}px`, height: `${ch}px` });
      Object.assign(this._camera.transform, { width: cw, height: ch });
      this.resized += 1;
      return this;
    },
  };
  return map;
}

test("a resize to the size the map already has is skipped; a change of size, or an unknown MapLibre, resizes", () => {
  const { window } = (() => {
    const context = { window: { Plotly: { react() {}, newPlot() {} } }, document: { querySelectorAll: () => [], getElementById: () => null },
      setTimeout, Promise, Number, Math, JSON, Set, Array, Object, String, parseInt };
    vm.createContext(context);
    vm.runInContext(SOURCE, context, { filename: "map_recolour.js" });
    return context;
  })();
  const { guardResize } = window.anonset.mapRecolour;
  const map = fakeMap(777, 508);
  guardResize(map);
  guardResize(map);  // a second guard (a later scan) does not wrap it twice
  assert.equal(map.resize(), map, "a skipped resize still returns the map (MapLibre's chaining: resize()._update())");
  assert.equal(map.resized, 0, "same size: the canvas is neither reset nor redrawn");
  assert.equal(map.__anonsetResizesSkipped, 1);
  map.container.clientWidth = 772;  // the container narrowed by 5 px: a real resize
  map.resize();
  assert.equal(map.resized, 1);
  assert.deepEqual([map._canvas.width, map._camera.transform.width], [772, 772]);
  map.resize();  // and now the same size again
  assert.equal(map.resized, 1);
  map._getClampedPixelRatio = () => 2;  // a zoomed page (device pixel ratio 2): the canvas needs twice the pixels
  map.resize();
  assert.equal(map.resized, 2, "the pixel ratio changed: resized");
  assert.equal(map._canvas.width, 1544);
  const other = fakeMap(300, 200);
  delete other._camera;  // another MapLibre version (no camera): never skipped
  other.resize = function () { this.resized += 1; return this; };
  guardResize(other);
  other.resize();
  assert.equal(other.resized, 1);
});
