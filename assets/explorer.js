/* Regional explorer (/explore): clientside helpers, added to the `anonset` clientside namespace. */
(function () {
  var ns = window.dash_clientside = window.dash_clientside || {};
  ns.anonset = Object.assign(ns.anonset || {}, {
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
