/* District maps recoloured in place (issue 26): a colour change must not re-tile the geometry.

   plotly.js has no cheaper path for a choroplethmap whose z changes: every update rebuilds the trace's
   GeoJSON with per-feature colours (centroids and hover polygons included) and calls MapLibre's
   setData, which re-tiles every polygon in the worker and re-uploads every vertex (2–4 s for Italy's
   7,901 municipalities in software WebGL); with several such traces it also removes and re-adds their
   layers on every update.  For traces that opt in (`meta` is RECOLOUR_META, set by
   dashboard.figures.explorer.district_map) this file does it instead:
   * as a trace is drawn, its fill layer is set to read each feature's colour from MapLibre's feature state
     when it has one (the tiles are being built anyway);
   * an update that changes only colours sets the changed features' state: MapLibre rewrites the colour
     attribute of the tiles it has, nothing else.  Plotly still does the rest (calc, hover data, colour
     bar, title); the geometry it prepared on the last full update is handed to the new calcdata, so
     hover and clicks keep working.  A district that loses its value is drawn transparent (plotly.js
     would drop it: the same picture on the white background);
   * a trace hidden before and after (an empty outline) is left alone.
   The fast path is taken only when it is equivalent: the same geometry URL, the same locations in the
   same order, every district with a value already drawn, the same border and opacity, feature ids
   MapLibre keeps (integers, unique), and this file's colour scale reproducing plotly.js's own colours for
   every district of the last full update.  Anything else goes to plotly.js's own update.
   gd.__anonsetRecolour counts both ({fast, full}) for the browser tests. */
(function () {
  "use strict";

  var RECOLOUR_META = "anonset:recolour-in-place";
  var HIDDEN = "rgba(0, 0, 0, 0)";

  /* (plotly.js fills in a hidden trace's attributes only in its input) */
  function optedIn(trace) { return !!trace && (trace.meta || (trace._input || {}).meta) === RECOLOUR_META; }
  function geometryOf(trace) { return trace.geojson || (trace._input || {}).geojson; }

  /* The id MapLibre gives a GeoJSON feature (its GeoJSON wrapper keeps integers only: a string id is
     parseInt'ed, anything else dropped); null when it would not be a usable integer. */
  function maplibreId(id) {
    var n = typeof id === "string" ? parseInt(id, 10) : (typeof id === "number" ? id : NaN);
    return Number.isSafeInteger(n) ? n : null;
  }

  function parseColour(c) {
    var m;
    if (typeof c !== "string") return null;
    c = c.trim().toLowerCase();
    if ((m = /^#([0-9a-f]{6})$/.exec(c))) {
      var v = parseInt(m[1], 16);
      return [(v >> 16) & 255, (v >> 8) & 255, v & 255, 1];
    }
    if ((m = /^#([0-9a-f]{3})$/.exec(c))) {
      return [0, 1, 2].map(function (i) { return parseInt(m[1][i] + m[1][i], 16); }).concat([1]);
    }
    if ((m = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$/.exec(c))) {
      return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
    }
    return null;
  }

  /* Plotly's colour of a value (components/colorscale makeColorScaleFunc: a clamped piecewise-linear
     d3 scale over the stops between zmin and zmax, written by tinycolor's toRgbString); null when the
     trace's colour scale is not a plain list of stops. */
  function colourScale(trace) {
    var scl = trace.colorscale, lo = trace.zmin, hi = trace.zmax;
    if (!Array.isArray(scl) || scl.length < 2 || !Number.isFinite(lo) || !Number.isFinite(hi)) return null;
    if (trace.reversescale) {
      scl = scl.map(function (s) { return [1 - s[0], s[1]]; }).reverse();
    }
    var domain = [], range = [];
    for (var i = 0; i < scl.length; i++) {
      var rgba = parseColour(scl[i][1]);
      if (!rgba || !Number.isFinite(scl[i][0])) return null;
      domain.push(lo + scl[i][0] * (hi - lo));
      range.push(rgba);
    }
    if (domain[domain.length - 1] < domain[0]) { domain.reverse(); range.reverse(); }
    var k = domain.length - 1;
    function channel(x) {  /* tinycolor's bound01(x, 255) * 255 */
      x = Math.min(255, Math.max(0, x));
      return Math.abs(x - 255) < 0.000001 ? 255 : (x % 255) / 255 * 255;
    }
    return function (v) {
      var lo2 = 1, hi2 = k;
      while (lo2 < hi2) { var mid = (lo2 + hi2) >>> 1; if (v < domain[mid]) hi2 = mid; else lo2 = mid + 1; }
      var j = lo2 - 1, a = domain[j], span = (domain[j + 1] - a) || 1 / (domain[j + 1] - a);
      var t = Math.max(0, Math.min(1, (v - a) / span));
      var c = [0, 1, 2, 3].map(function (n) { return range[j][n] * (1 - t) + range[j + 1][n] * t; });
      var r = channel(c[0]), g = channel(c[1]), b = channel(c[2]);
      var alpha = Math.max(0, Math.min(1, c[3]));
      return alpha === 1
        ? "rgb(" + Math.round(r) + ", " + Math.round(g) + ", " + Math.round(b) + ")"
        : "rgba(" + Math.round(r) + ", " + Math.round(g) + ", " + Math.round(b) + ", " + Math.round(100 * alpha) / 100 + ")";
    };
  }

  function lineKey(trace) {
    var line = (trace.marker && trace.marker.line) || {};
    return JSON.stringify([line.width, line.color, trace.marker && trace.marker.opacity]);
  }

  function sameLocations(a, b) {
    if (!a || !b || a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) { if (a[i] !== b[i]) return false; }
    return true;
  }

  function count(obj, calcTrace, kind) {  /* opted-in traces only */
    var gd = obj.subplot && obj.subplot.gd;
    if (!gd || !optedIn(calcTrace[0].trace)) return;
    var c = gd.__anonsetRecolour = gd.__anonsetRecolour || {fast: 0, full: 0};
    c[kind] += 1;
  }

  /* After plotly.js's own update: what the source now holds, so the next colour-only update can reuse it. */
  function remember(obj, calcTrace) {
    obj.__recolour = null;
    var trace = calcTrace[0].trace;
    if (!optedIn(trace) || trace.visible !== true || trace.selectedpoints) return;
    var scale = colourScale(trace), geo = (window.PlotlyGeoAssets || {})[trace.geojson];
    if (!scale || !geo || !Array.isArray(geo.features) || (trace.featureidkey && trace.featureidkey !== "id")) return;
    var inFile = new Set(geo.features.map(function (f) { return String(f.id); }));
    var n = calcTrace.length, ids = new Array(n), seen = new Set(), kept = new Array(n), unmapped = new Array(n);
    for (var i = 0; i < n; i++) {
      var cdi = calcTrace[i];
      unmapped[i] = !inFile.has(String(trace.locations[i]));  /* no polygon at all: never drawn */
      if (!cdi.fOut) continue;
      var id = maplibreId(cdi.fOut.id);
      if (id === null || seen.has(id) || scale(cdi.z) !== cdi.fOut.properties.fc) return;
      seen.add(id);
      ids[i] = id;
      kept[i] = {fIn: cdi.fIn, fOut: cdi.fOut, ct: cdi.ct, polygons: cdi._polygons, colour: cdi.fOut.properties.fc};
    }
    obj.__recolour = {
      url: trace.geojson, locations: Array.prototype.slice.call(trace.locations), line: lineKey(trace),
      below: obj.below, ids: ids, kept: kept, unmapped: unmapped, opts: trace._opts, inState: false
    };
    return true;
  }

  /* Why a colour-only update cannot go through feature state (a short reason), or "" when it can. */
  function obstacle(obj, calcTrace) {
    var st = obj.__recolour, trace = calcTrace[0].trace, map = obj.subplot && obj.subplot.map;
    if (!st) return "nothing remembered";
    if (!map || !optedIn(trace) || trace.visible !== true || trace.selectedpoints) return "trace";
    if (trace.geojson !== st.url) return "geometry";
    if (lineKey(trace) !== st.line) return "border";
    if ((obj.subplot.belowLookup || {})["trace-" + obj.uid] !== st.below) return "layer order";
    if (calcTrace.length !== st.ids.length || !sameLocations(trace.locations, st.locations)) return "locations";
    if (!map.getSource(obj.sourceId) || !map.getLayer(obj.layerList[0][1])) return "layers";
    for (var i = 0; i < calcTrace.length; i++) {
      var drawnNow = calcTrace[i].loc !== null && calcTrace[i].loc !== undefined;
      if (drawnNow && st.ids[i] === undefined && !st.unmapped[i]) return "new district";
    }
    return colourScale(trace) ? "" : "colour scale";
  }

  /* The fill layer reads each feature's colour from its feature state, falling back to the colour plotly.js put
     in the source.  No state is set here: a tile that loads with states gets its colours rewritten a second
     time, so states are set only for colours that change.  Done as a trace is drawn (its tiles are being built
     anyway); otherwise at the first colour change (MapLibre then rebuilds the tiles' buffers once). */
  function arm(obj) {
    obj.subplot.map.setPaintProperty(obj.layerList[0][1], "fill-color",
                                     ["to-color", ["coalesce", ["feature-state", "fc"], ["get", "fc"]]]);
    obj.__recolour.inState = true;
  }

  /* A colour-only update through feature state (obstacle() said it applies).  Colours that did not change
     are left alone: an outline trace, or the districts when only the selection moved, costs nothing. */
  function recolour(obj, calcTrace) {
    var st = obj.__recolour, trace = calcTrace[0].trace, map = obj.subplot.map, scale = colourScale(trace);
    var changed = [], i;
    for (i = 0; i < calcTrace.length; i++) {
      if (st.ids[i] === undefined) continue;  /* not in the source: no polygon, or no value since the full update */
      var cdi = calcTrace[i], kept = st.kept[i];
      var shown = cdi.loc !== null && cdi.loc !== undefined;
      var colour = shown ? scale(cdi.z) : HIDDEN;
      if (shown) {
        cdi.fIn = kept.fIn; cdi.fOut = kept.fOut; cdi.ct = kept.ct; cdi._polygons = kept.polygons;
        kept.fOut.properties.fc = colour;
      }
      if (colour !== kept.colour) { kept.colour = colour; changed.push(i); }
    }
    if (changed.length && !st.inState) arm(obj);
    changed.forEach(function (j) {
      map.setFeatureState({source: obj.sourceId, id: st.ids[j]}, {fc: st.kept[j].colour});
    });
    trace._opts = st.opts;
    trace._glTrace = obj;
  }

  function patchPrototype(proto) {
    if (!proto || proto.__anonsetRecolour || typeof proto.update !== "function") return;
    var plotlyUpdate = proto.update;
    proto.update = function (calcTrace) {
      var why, trace = calcTrace[0].trace;
      if (optedIn(trace) && trace.visible !== true && this.__hiddenDrawn === geometryOf(trace)) {
        /* hidden before and still hidden (an empty outline): plotly.js would blank its source and re-add its
           layers again, and MapLibre would rebuild the districts' tiles for the new layer order */
        trace._glTrace = this;
        return;
      }
      this.__hiddenDrawn = null;
      try {
        why = obstacle(this, calcTrace);
        if (!why) { recolour(this, calcTrace); count(this, calcTrace, "fast"); return; }
      } catch (err) {
        why = "error: " + err;  /* never worse than plotly.js: its own update redraws everything below */
      }
      this.__recolourWhy = why;
      if (this.__recolour && this.__recolour.inState && this.subplot && this.subplot.map) {
        try { this.subplot.map.removeFeatureState({source: this.sourceId}); } catch (err) { /* source gone */ }
      }
      plotlyUpdate.call(this, calcTrace);
      runHooks(this, calcTrace);
      count(this, calcTrace, "full");
      if (optedIn(trace) && trace.visible !== true) this.__hiddenDrawn = geometryOf(trace);
      try {
        if (remember(this, calcTrace)) arm(this);
      } catch (err) { this.__recolour = null; }
    };
    proto.__anonsetRecolour = true;
  }

  /* True when MapLibre's map already has the size its container gives it: MapLibre's own test of a size change
     (its container against its camera's transform, as _shouldHandleInitialResize) and the canvas's pixels.  False
     when a field it reads is missing (another MapLibre version): the resize then runs as before. */
  function sameSize(map) {
    if (typeof map._containerDimensions !== "function" || typeof map._getClampedPixelRatio !== "function") return false;
    var tr = map._camera && map._camera.transform, canvas = map._canvas;
    if (!tr || !canvas || !canvas.style) return false;
    var d = map._containerDimensions(), ratio = map._getClampedPixelRatio(d[0], d[1]);
    return d[0] === tr.width && d[1] === tr.height
      && canvas.width === Math.floor(ratio * d[0]) && canvas.height === Math.floor(ratio * d[1])
      && canvas.style.width === d[0] + "px" && canvas.style.height === d[1] + "px";
  }

  /* plotly.js resizes its map on every update (a recolour too) and MapLibre's ResizeObserver once more after it.
     Resizing resets the canvas, which clears it, so each one cost a redraw of every district: a full frame of
     software WebGL (~0.5-1 s for Brazil's 5,564 municipalities in this machine's Chromium), twice per colour
     change.  A resize to the size the map already has is skipped; a real change of size resizes as before. */
  function guardResize(map) {
    if (!map || map.__anonsetResize || typeof map.resize !== "function") return;
    var resize = map.resize;
    map.resize = function () {
      if (sameSize(this)) { this.__anonsetResizesSkipped = (this.__anonsetResizesSkipped || 0) + 1; return this; }
      return resize.apply(this, arguments);
    };
    map.__anonsetResize = true;
  }

  /* The other assets' hooks on a map trace object as plotly.js creates it and after its own full update
     (assets/map_detail.js); one that fails leaves the trace as plotly.js drew it. */
  function runHooks(obj, calcTrace) {
    ((window.anonset || {}).mapTraceHooks || []).forEach(function (hook) {
      try { hook(obj, calcTrace); } catch (err) { /* the map stays as drawn */ }
    });
  }

  /* Each map trace object on a page: patch their shared prototype, and remember what a trace drew when
     plotly.js created it (its update is patched from then on). */
  function scan(gd) {
    (gd && gd.calcdata || []).forEach(function (cd) {
      var obj = cd && cd[0] && cd[0].trace && cd[0].trace._glTrace;
      if (!obj || obj.type !== "choroplethmap") return;
      guardResize(obj.subplot && obj.subplot.map);
      patchPrototype(Object.getPrototypeOf(obj));
      if (!obj.__recolour && obj.__recolourSeen !== cd) {
        obj.__recolourSeen = cd;
        runHooks(obj, cd);
        /* created before this file's hook (plotly.js drew the map before install ran: a busy machine): a hidden
           outline is remembered as hookCreation would have, or its next update redraws it in full */
        if (optedIn(cd[0].trace) && cd[0].trace.visible !== true) { obj.__hiddenDrawn = geometryOf(cd[0].trace); return; }
        try { remember(obj, cd); } catch (err) { obj.__recolour = null; }
      }
    });
  }

  /* A new map trace object: remember what it drew and arm it at once, before MapLibre builds its tiles. */
  function hookCreation(mod) {
    if (!mod || typeof mod.plot !== "function" || mod.plot.__anonsetRecolour) return;
    var create = mod.plot;
    mod.plot = function (subplot, calcTrace) {
      var obj = create.apply(this, arguments);
      runHooks(obj, calcTrace);
      try {
        guardResize(obj && obj.subplot && obj.subplot.map);
        patchPrototype(Object.getPrototypeOf(obj));
        obj.__recolourSeen = calcTrace;
        if (optedIn(calcTrace[0].trace) && calcTrace[0].trace.visible !== true) obj.__hiddenDrawn = geometryOf(calcTrace[0].trace);
        else if (remember(obj, calcTrace)) arm(obj);
      } catch (err) { if (obj) obj.__recolour = null; }
      return obj;
    };
    mod.plot.__anonsetRecolour = true;
  }

  /* plotly.js exposes no trace module before a graph has one: Plotly.react / newPlot (dcc.Graph draws each
     figure and Patch through them) are wrapped; their synchronous part has resolved the traces' modules, and a
     map's trace objects are created later (once MapLibre and the geometry have loaded), so the module's
     constructor is hooked in time.  After each draw the graph is scanned as well. */
  function install(Plotly) {
    if (!Plotly || typeof Plotly.react !== "function") return false;
    if (Plotly.__anonsetRecolour) return true;
    ["react", "newPlot"].forEach(function (name) {
      var draw = Plotly[name];
      if (typeof draw !== "function") return;
      Plotly[name] = function (gd) {
        var done = draw.apply(this, arguments);
        var el = typeof gd === "string" ? document.getElementById(gd) : gd;
        ((el && el._fullData) || []).forEach(function (t) {
          if (t.type === "choroplethmap") hookCreation(t._module);
        });
        Promise.resolve(done).then(function () { scan(el); }, function () { /* plotly.js reports it */ });
        return done;
      };
    });
    Plotly.__anonsetRecolour = true;
    /* graphs drawn before this ran: scan them now and after their next draw */
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      scan(gd);
      if (typeof gd.on === "function") gd.on("plotly_afterplot", function () { scan(gd); });
    });
    return true;
  }

  /* plotly.js arrives with the first graph (dcc.Graph loads it on demand): wait for it */
  (function wait(tries) {
    if (install(window.Plotly)) return;
    if (tries < 2400) setTimeout(function () { wait(tries + 1); }, 25);  /* up to a minute */
  })(0);

  window.anonset = window.anonset || {};
  window.anonset.mapRecolour = {META: RECOLOUR_META, colourScale: colourScale, maplibreId: maplibreId,
                                guardResize: guardResize};
})();
