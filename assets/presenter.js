/* Presenter mode (large type, high contrast) for projectors: the navbar toggle, ?presenter=1|0, localStorage. */
(function () {
  var KEY = "shell-presenter-store"; // dcc.Store(storage_type="local") keeps its data under its id, as JSON
  try {
    var q = new URLSearchParams(window.location.search);
    var on = q.get("presenter") === "1" || (q.get("presenter") !== "0" && JSON.parse(window.localStorage.getItem(KEY)) === true);
    if (on) {
      // before Dash renders, so a projector never flashes the small layout
      document.documentElement.classList.add("presenter");
      document.addEventListener("DOMContentLoaded", function () { document.body.classList.add("presenter"); });
    }
  } catch (e) { /* localStorage may be unavailable (private mode); the callbacks below still work */ }
})();

window.dash_clientside = Object.assign({}, window.dash_clientside, {
  anonsetShell: {
    /* the toggle flips the mode; ?presenter=1 or ?presenter=0 in a link sets it; otherwise keep the stored choice */
    choosePresenter: function (nClicks, search, stored) {
      var trig = ((window.dash_clientside.callback_context || {}).triggered || [])[0] || {};
      if (trig.prop_id && trig.prop_id.indexOf("presenter-toggle") >= 0 && nClicks) {
        return !stored;
      }
      var q = new URLSearchParams(search || "");
      if (q.get("presenter") === "1") return true;
      if (q.get("presenter") === "0") return false;
      return stored === true ? window.dash_clientside.no_update : false;
    },

    /* apply the mode to <body> and tell assistive technology whether the toggle is pressed */
    applyPresenter: function (on) {
      document.body.classList.toggle("presenter", on === true);
      document.documentElement.classList.toggle("presenter", on === true);
      return on === true ? "true" : "false";
    }
  }
});

/* Presenter mode enlarges chart type too.  Every figure reaches plotly.js through Plotly.react or
   Plotly.newPlot (dcc.Graph calls them on each new figure or Patch); while <body> has class "presenter"
   these get a copy of the figure whose font sizes are PRESENTER_SCALE times larger (the page's own
   figure is left as it is), and switching the mode redraws every chart on the page. */
(function () {
  var PRESENTER_SCALE = 1.4;
  var FONT_KEYS = {font: 1, tickfont: 1, textfont: 1, insidetextfont: 1, outsidetextfont: 1};

  function presenterOn() { return document.body && document.body.classList.contains("presenter"); }

  function scaleFonts(node, f, depth) {  /* a copy of node with every font's size times f (arrays of numbers kept) */
    if (depth > 8 || node === null || typeof node !== "object" || ArrayBuffer.isView(node)) return node;
    if (Array.isArray(node)) {
      return node.length && typeof node[0] === "object" ? node.map(function (v) { return scaleFonts(v, f, depth + 1); }) : node;
    }
    var out = {};
    for (var k in node) {
      if (!Object.prototype.hasOwnProperty.call(node, k)) continue;
      var v = node[k];
      if (FONT_KEYS[k] && v && typeof v === "object" && !Array.isArray(v)) {
        out[k] = Object.assign({}, scaleFonts(v, f, depth + 1));
        if (typeof v.size === "number") out[k].size = Math.round(v.size * f * 10) / 10;
      } else if (k === "x" || k === "y" || k === "z" || k === "locations" || k === "customdata" || k === "text"
                 || k === "hovertext" || k === "geojson") {
        out[k] = v;  /* data columns: never walked or copied */
      } else {
        out[k] = scaleFonts(v, f, depth + 1);
      }
    }
    return out;
  }

  function presenterFigure(data, layout) {
    var f = PRESENTER_SCALE;
    var lay = scaleFonts(layout || {}, f, 0);
    lay.font = Object.assign({}, lay.font || {});
    if (!(layout && layout.font && typeof layout.font.size === "number")) lay.font.size = Math.round(12 * f);
    var traces = (data || []).map(function (t) {
      var c = Object.assign({}, t);
      ["textfont", "colorbar", "hoverlabel", "marker"].forEach(function (k) {
        if (t[k] && typeof t[k] === "object") c[k] = scaleFonts(t[k], f, 1);
      });
      if (t.textfont) c.textfont = Object.assign({}, t.textfont, {size: (t.textfont.size || 12) * f});
      return c;
    });
    return {data: traces, layout: lay};
  }

  /* A district map's frame (layout.meta.anonset_fit_bounds, dashboard/figures/maps.py) is fitted to the map's
     real width here: the server frames it for a desktop-sized map, which a 390 px phone cut off at the left.
     The same web-mercator fit as maps.view_of, for the plot area beside the colour bar. */
  var FIT_BOUNDS = "anonset_fit_bounds", COLORBAR_ROOM = "anonset_colorbar_room", PHONE_MAX_PX = 600;
  function merc(lat) { lat = Math.max(Math.min(lat, 85), -85); return Math.log(Math.tan(Math.PI / 4 + lat * Math.PI / 360)); }
  function fitMap(fig, el) {
    var lay = fig.layout, b = lay && lay.meta && lay.meta[FIT_BOUNDS];
    if (!b || !lay.map || !el) return fig;
    var width = el.getBoundingClientRect().width, m = lay.margin || {};
    /* phones only: a desktop map keeps the server's frame, so a recolour stays a colour-only update
       (assets/map_recolour.js; a refitted desktop map was redrawn in full on a statistic change) */
    if (!width || width >= PHONE_MAX_PX) return fig;
    /* the colour bar's room (layout.meta.anonset_colorbar_room, figures.maps.COLORBAR_ROOM) is in the right margin
       when the figure keeps it there (the explorer), beside the plot area otherwise: it is counted once */
    var room = +lay.meta[COLORBAR_ROOM] || 0;
    var w = width - (m.l || 0) - Math.max(m.r || 0, room), h = (lay.height || 450) - (m.t || 0) - (m.b || 0);
    if (w < 50 || h < 50) return fig;
    var dx = Math.max(b[2] - b[0], 1e-6) / 360, dy = Math.max(merc(b[3]) - merc(b[1]), 1e-6) / (2 * Math.PI);
    var zoom = Math.min(Math.log2(w * 0.94 / 512 / dx), Math.log2(h * 0.94 / 512 / dy));
    zoom = Math.round(Math.max(Math.min(zoom, 11), 0.5) * 100) / 100;
    var map = Object.assign({}, lay.map, {zoom: zoom});
    return Object.assign({}, fig, {layout: Object.assign({}, lay, {map: map})});
  }

  /* A chart narrower than a phone's 600 px gets the changes its figure lists under layout.meta.anonset_narrow
     (dashboard/figures/style.py on_narrow): fewer tick labels (eleven stood on end at 390 px), no in-plot box
     where a phone has no free corner.  An axis is merged into the layout's axis, any other key replaced. */
  var NARROW = "anonset_narrow";
  function isNarrow(el) { var w = el ? el.getBoundingClientRect().width : 0; return w > 0 && w < PHONE_MAX_PX; }
  function narrowFigure(fig, el) {
    var lay = fig.layout, changes = lay && lay.meta && lay.meta[NARROW];
    if (el) el.__anonsetNarrow = isNarrow(el);
    if (!changes || !el || !el.__anonsetNarrow) return fig;
    var out = Object.assign({}, lay);
    Object.keys(changes).forEach(function (k) {
      var v = changes[k];
      out[k] = /^[xy]axis\d*$/.test(k) && lay[k] ? Object.assign({}, lay[k], v) : v;
    });
    return Object.assign({}, fig, {layout: out});
  }

  function wrap(P) {
    if (!P || P.__anonsetPresenter) return P;
    ["react", "newPlot"].forEach(function (name) {
      var orig = P[name];
      if (typeof orig !== "function") return;
      P[name] = function (gd, data, layout, config) {
        var fig = (data && !Array.isArray(data) && typeof data === "object")
          ? data : {data: data, layout: layout, config: config};
        var el = typeof gd === "string" ? document.getElementById(gd) : gd;
        if (el) el.__anonsetFigure = fig;  /* the unscaled figure, for redrawing when the mode changes */
        fig = narrowFigure(fitMap(fig, el), el);
        var own = fig.layout && fig.layout.meta && fig.layout.meta.anonset_presenter_fonts;  /* sized by its page */
        if (!presenterOn() || own) return orig.call(P, gd, fig);
        var big = presenterFigure(fig.data, fig.layout);
        return orig.call(P, gd, Object.assign({}, fig, {data: big.data, layout: big.layout}));
      };
    });
    P.__anonsetPresenter = true;
    return P;
  }

  if (window.Plotly) {
    wrap(window.Plotly);
  } else {
    var current;
    Object.defineProperty(window, "Plotly", {
      configurable: true, enumerable: true,
      get: function () { return current; },
      set: function (v) { current = wrap(v); }
    });
  }

  function redrawAll() {
    if (!window.Plotly) return;
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (gd.__anonsetFigure) window.Plotly.react(gd, gd.__anonsetFigure);
    });
  }
  /* a chart or district map that crosses the phone width (a turned phone, a resized window) is drawn again for it */
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      if (!window.Plotly) return;
      document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
        var fig = gd.__anonsetFigure, meta = fig && fig.layout && fig.layout.meta;
        if (meta && (meta[NARROW] || meta[FIT_BOUNDS]) && isNarrow(gd) !== gd.__anonsetNarrow) window.Plotly.react(gd, fig);
      });
    }, 200);
  });

  function watch() {
    var last = presenterOn();
    new MutationObserver(function () {
      var on = presenterOn();
      if (on !== last) { last = on; redrawAll(); }
    }).observe(document.body, {attributes: true, attributeFilter: ["class"]});
  }
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch);
})();

/* Presenter mode collapses each page's introduction (<details class="intro">, open for a reader): a speaker
   shows the answer first and opens the introduction on demand.  Each one is closed once, when it appears
   or when the mode is switched on; a person who opens it again keeps it open. */
(function () {
  function presenterOn() { return document.body && document.body.classList.contains("presenter"); }
  function collapse() {
    if (!presenterOn()) return;
    document.querySelectorAll("details.intro[open]:not([data-presenter-collapsed])").forEach(function (d) {
      d.setAttribute("data-presenter-collapsed", "");
      d.open = false;
    });
  }
  function watch() {
    new MutationObserver(collapse).observe(document.body, {childList: true, subtree: true, attributes: true,
                                                           attributeFilter: ["class"]});
    collapse();
  }
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch);
})();
