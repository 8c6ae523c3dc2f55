/* Regional explorer (/explore): clientside helpers, added to the `anonset` namespace of anonset.js. */
(function () {
  var ns = window.dash_clientside = window.dash_clientside || {};
  ns.anonset = Object.assign(ns.anonset || {}, {
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
      if (window.location.pathname.indexOf("/explore") === 0 && window.location.search !== search) {
        window.history.replaceState(null, "", window.location.pathname + search + window.location.hash);
      }
      return window.location.origin + window.location.pathname + search;
    }
  });
})();
