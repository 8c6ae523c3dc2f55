/* Only in a static copy of AnonSet (`anonset export-static DIR`, dashboard/server/static_site.py).
 *
 * Dash's renderer asks the server for /_dash-layout and /_dash-dependencies; a static host serves files by
 * their name and types them by their extension, so the copy holds them as JSON files, and this script (loaded
 * before the renderer) points those two requests at them:
 *   /_dash-dependencies → /_dash-dependencies.json  (the app's own, its clientside callbacks only)
 *   /_dash-layout       → /_layout/<country>.json    (the app's own page for ?country=<country>)
 * A country the copy does not hold opens the default country's page, with a line saying so.
 * Nothing else is changed: every other request goes out as the page made it.
 */
(function () {
  "use strict";

  var me = document.currentScript;
  var DEFAULT = me.getAttribute("data-default-country");
  var DEFAULT_NAME = me.getAttribute("data-default-name") || DEFAULT;
  var nativeFetch = window.fetch.bind(window);
  var asked = (new URLSearchParams(window.location.search).get("country") || "").trim();

  function layoutUrl(code) { return "/_layout/" + encodeURIComponent(code) + ".json"; }

  /** The layout's component with this id (a depth-first walk of the JSON tree). */
  function find(node, id) {
    if (!node || typeof node !== "object") return null;
    if (Array.isArray(node)) {
      for (var i = 0; i < node.length; i++) { var hit = find(node[i], id); if (hit) return hit; }
      return null;
    }
    if (node.props && node.props.id === id) return node;
    return node.props ? find(node.props.children, id) : null;
  }

  function withNotice(resp) {
    return resp.json().then(function (layout) {
      var box = find(layout, "me-notice");
      if (box) {
        var children = Array.isArray(box.props.children) ? box.props.children : [];
        box.props.children = children.concat([{ type: "Div", namespace: "dash_html_components", props: {
          className: "warning", role: "status",
          children: "\u201c" + asked.slice(0, 20) + "\u201d is not in this static copy of AnonSet; showing " +
            DEFAULT_NAME + " instead." } }]);
      }
      return new Response(JSON.stringify(layout), { status: 200, headers: { "Content-Type": "application/json" } });
    });
  }

  function pageLayout(init) {
    if (!asked) return nativeFetch(layoutUrl(DEFAULT), init);
    // data set codes are upper case (DE, US-ZCTA); a link may spell them in any case, as the server allows
    return nativeFetch(layoutUrl(asked.toUpperCase()), init).then(function (resp) {
      return resp.ok ? resp : nativeFetch(layoutUrl(DEFAULT), init).then(withNotice);
    });
  }

  window.fetch = function (input, init) {
    var url = typeof input === "string" ? input : (input && input.url) || "";
    var path = new URL(url, window.location.href).pathname;
    if (path === "/_dash-dependencies") return nativeFetch("/_dash-dependencies.json", init);
    if (path === "/_dash-layout") return pageLayout(init);
    return nativeFetch(input, init);
  };
})();
