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
