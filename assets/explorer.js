/* Regional explorer (/explore): clientside helpers, added to the `anonset` clientside namespace. */
(function () {
  var ns = window.dash_clientside = window.dash_clientside || {};

  /* How long the sections below the map wait for it at most (no WebGL, a map that failed): then they come anyway. */
  var MAP_WAIT_MS = 6000;

  /* True once MapLibre has drawn the graph's districts: its style loaded, its sources there and loaded, with their
     tiles (the test of benchmarks/bench_map_draw.py, without counting features). */
  function mapDrawn(gd) {
    var sub = gd && gd._fullLayout && gd._fullLayout.map && gd._fullLayout.map._subplot, m = sub && sub.map;
    if (!m || !m.loaded() || !m.areTilesLoaded()) return false;
    var style = m.getStyle(), sources = Object.keys((style && style.sources) || {});
    return sources.length > 0 && sources.every(function (id) { return m.isSourceLoaded(id); });
  }

  ns.anonset = Object.assign(ns.anonset || {}, {
    /* The sections below the map (distributions, country tables) wait for the map's first draw (issue 26): on the
       browser's one main thread their chart and table delayed the map by about half a second.  Resolved once per
       page: "drawn" when MapLibre has drawn the districts, "no map" when the data set has none (its box is hidden),
       "waited" after MAP_WAIT_MS in any case; later scenarios find it set and change nothing. */
    explorerWhenMapDrawn: function (scenario, drawn, mapId, boxId) {
      if (drawn) { return window.dash_clientside.no_update; }
      var start = Date.now();
      return new Promise(function (resolve) {
        (function poll() {
          var box = document.getElementById(boxId), graph = document.getElementById(mapId);
          if (box && box.style.display === "none") { resolve("no map"); return; }
          if (mapDrawn(graph && graph.querySelector(".js-plotly-plot"))) { resolve("drawn"); return; }
          if (Date.now() - start > MAP_WAIT_MS) { resolve("waited"); return; }
          setTimeout(poll, 50);
        })();
      });
    },

    /* A click on the map or a table row selects its district; a new first country clears the selection
       (interface state only, so it runs here: no request for it). */
    explorerSelect: function (click, activeCell, scenario, selected) {
      var NU = window.dash_clientside.no_update;
      var trig = (((window.dash_clientside.callback_context || {}).triggered || [])[0] || {}).prop_id || "";
      var code = scenario && scenario.country ? String(scenario.country).split(",")[0] : "";
      if (!code) { return NU; }
      var district = null;
      if (trig.indexOf("explore-map.") === 0 && click) {
        var point = (click.points || [])[0];
        if (!point || point.location === undefined || point.location === null) { return NU; }
        district = String(point.location);
      } else if (trig.indexOf("explore-district-table.") === 0 && activeCell &&
                 activeCell.row_id !== undefined && activeCell.row_id !== null) {
        district = String(activeCell.row_id);
      }
      if (district !== null) {
        if (selected && selected.country === code && selected.district === district) { return NU; }
        return { country: code, district: district };
      }
      if (selected && selected.country !== code) { return null; }
      return NU;
    },

    /* Keep the address bar equal to the view (scenario, selected district, table ages) without a reload;
       return the absolute link for the "link to this view" box. Commas and colons stay readable. */
    explorerSyncQuery: function (scenario, selected, tableAges, cdfQuery) {
      var q = Object.assign({}, scenario || {});
      var first = String(q.country || "").split(",")[0];
      if (selected && selected.district && selected.country === first) { q.district = selected.district; }
      if (tableAges && typeof tableAges === "object") { Object.assign(q, tableAges); }
      else if (tableAges) { q.table_ages = tableAges; }
      if (cdfQuery && typeof cdfQuery === "object") { Object.assign(q, cdfQuery); }
      var parts = Object.keys(q).map(function (k) {
        return encodeURIComponent(k) + "=" +
          encodeURIComponent(String(q[k])).replace(/%2C/g, ",").replace(/%3A/g, ":");
      });
      var search = parts.length ? "?" + parts.join("&") : "";
      window.anonset.syncUrl({ search: search, path: "/explore" });  // assets/url_sync.js
      return window.location.origin + window.location.pathname + search;
    }
  });
})();
