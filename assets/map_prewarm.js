/* Start MapLibre's worker as soon as plotly.js arrives on a page with a map (issue 26, maps that stay fast).

   A map's first draw waits for MapLibre's worker (0.7-1.8 s to start in Chromium here) and the worker is
   started only when the first map is created, after the map's figure has come from the server.  The partial
   plotly.js bundle (assets/plotly/build.js) exposes MapLibre's own prewarm() as Plotly.prewarmMaps(); called
   here, the worker starts while the page still waits for the figure.  Pages without a map graph (ids end
   in "-map": explore-map, me-map, world-map, buckets-map) start none.
   A map box that names its geometry (data-geometry, the explorer's first country) has it fetched at once
   as well: /geo/ answers are cacheable, so plotly.js's own request, made only once the figure has come,
   is answered from the browser's cache (or joins this one). */
(function () {
  "use strict";
  function hasMap() { return !!document.querySelector('.dash-graph[id$="-map"], div[id$="-map"]'); }

  var fetched = {};
  function prefetchGeometry() {
    document.querySelectorAll("[data-geometry]").forEach(function (el) {
      var url = el.getAttribute("data-geometry");
      if (!url || url.charAt(0) !== "/" || url.charAt(1) === "/" || fetched[url]) return;  /* this origin only */
      fetched[url] = true;
      fetch(url, {credentials: "same-origin"}).then(function (r) { return r.arrayBuffer(); })
        .catch(function () { /* plotly.js fetches it again and reports a failure */ });
    });
  }
  (function geometry(tries) {
    prefetchGeometry();
    if (!Object.keys(fetched).length && tries < 400) setTimeout(function () { geometry(tries + 1); }, 25);
  })(0);

  (function wait(tries) {
    var P = window.Plotly;
    if (P && typeof P.prewarmMaps === "function") {
      if (hasMap()) P.prewarmMaps();
      else if (tries < 2400) setTimeout(function () { wait(tries + 1); }, 100);  /* a page with a map may come */
      return;
    }
    if (tries < 2400) setTimeout(function () { wait(tries + 1); }, 25);
  })(0);
})();
