/* The scaling page's interface synchronisation, answered in the browser (no request to the server):
 * slider ↔ number box (h, γ, the cursor and its presets) and the address bar's ?… for the current view
 * (written by window.anonset.syncUrl, assets/url_sync.js, the one URL sync of every page).
 * The census and forecast views' parts of the link come from their server callbacks (which validate
 * them anyway); the explore view's part is four numbers checked here against the page's limits
 * (the "scaling-config" store: the same limits as dashboard/views/scaling.py).
 */
(function () {
  var NO = function () { return window.dash_clientside.no_update; };

  function trigger() {
    var ctx = window.dash_clientside.callback_context;
    var t = ctx && ctx.triggered && ctx.triggered[0];
    return t ? String(t.prop_id).split(".")[0] : null;
  }

  function finite(v) {
    if (v === null || v === undefined || v === "" || typeof v === "boolean") { return null; }
    var x = typeof v === "number" ? v : Number(String(v).trim().replace(",", "."));
    return isFinite(x) ? x : null;
  }

  function within(v, lim) {
    var x = finite(v);
    return x !== null && x >= lim[0] && x <= lim[1] ? x : null;
  }

  /* Python's f"{x:g}" for the numbers of a link (6 significant digits) */
  function fmtG(x) { return String(Number(x.toPrecision(6))); }

  /* dashboard.views.scaling._num_arg: 1000, 2.5, 1e6, 8e9 */
  function numArg(x) {
    if (x >= 1e6 && Number(x.toPrecision(3)) === x) {
      return Number(x.toPrecision(3)).toExponential().replace("e+", "e");
    }
    return Number.isInteger(x) ? x.toFixed(0) : fmtG(x);
  }

  var api = {
    /* slider ↔ number box: the slider sets the box; a box value clamps the slider (the box keeps it) */
    scalingSync: function (slider, value, lo, hi) {
      var t = trigger();
      if (t && t.indexOf("slider") >= 0) { return [NO(), slider]; }
      var x = finite(value);
      if (x === null || typeof value !== "number") { return [NO(), NO()]; }
      return [Math.min(Math.max(x, lo), hi), NO()];
    },

    /* the cursor's slider (log10 n), its number box and the presets move together */
    scalingCursor: function (logN, n, _a, _b, _c, country, config) {
      var t = trigger() || "";
      var presets = (config && config.presets) || {};
      var nLim = (config && config.n) || [1, 8e9];
      if (/cursor-slider$/.test(t)) {
        return logN === null || logN === undefined ? [NO(), NO()] : [NO(), Math.round(Math.pow(10, logN))];
      }
      if (/cursor-input$/.test(t)) {
        var v = within(n, nLim);
        return v === null ? [NO(), NO()] : [Math.log10(v), NO()];
      }
      for (var key in presets) {
        if (t === "scaling-preset-" + key) { return [Math.log10(presets[key]), presets[key]]; }
      }
      if (/preset-country$/.test(t) && country) {
        var pop = ((config && config.populations) || {})[country];
        if (pop) { return [Math.log10(pop), pop]; }
      }
      return [NO(), NO()];
    },

    /* the address bar's ?… for the current view (only settings that parse); "" when nothing changed */
    scalingQuery: function (view, h, gamma, k, n, censusQuery, forecastQuery, config) {
      var q = null;
      if (view === "census") {
        q = censusQuery || null;
      } else if (view === "forecast") {
        q = forecastQuery || null;
      } else {
        var hh = within(h, config.h), gg = within(gamma, config.gamma), kk = within(k, config.k),
            nn = within(n, config.n);
        if (hh !== null && gg !== null && kk !== null && Number.isInteger(kk) && nn !== null) {
          q = "?view=explore&h=" + encodeURIComponent(fmtG(hh)) + "&gamma=" + encodeURIComponent(fmtG(gg)) +
              "&k=" + kk + "&n=" + encodeURIComponent(numArg(nn));
        }
      }
      if (!q) { return NO(); }
      if (window.anonset && window.anonset.syncUrl) { window.anonset.syncUrl({ search: q, path: "/scaling" }); }
      return q;
    }
  };
  window.dash_clientside = Object.assign({}, window.dash_clientside);
  window.dash_clientside.anonset = Object.assign({}, window.dash_clientside.anonset, api);
})();
