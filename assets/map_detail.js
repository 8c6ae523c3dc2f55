/* A map of very many districts draws its districts' borders only once zoomed in (issue 26, maps that stay fast).

   The figure names the zoom in its layout's meta (dashboard.figures.maps.BORDERS_FROM_ZOOM_KEY, set for trace 0, the
   districts, of a map of more than MANY_DISTRICTS).  For that trace, as plotly.js creates it and after each of its
   own full updates (which may add its layers anew), its line layer (the white borders) gets that zoom as its
   minimum: below it MapLibre's worker builds no border geometry and no frame draws it.  The fill keeps MapLibre's
   antialiasing outline: without it a municipality narrower than a pixel is not drawn at all, and the whole-country
   view is speckled with the white page.
   assets/map_recolour.js calls the hooks in window.anonset.mapTraceHooks (it wraps plotly.js's map traces). */
(function () {
  "use strict";

  var KEY = "anonset_borders_from_zoom";

  function bordersFromZoom(obj, calcTrace) {
    var subplot = obj && obj.subplot, map = subplot && subplot.map, gd = subplot && subplot.gd;
    var meta = gd && gd._fullLayout && gd._fullLayout.meta, zoom = meta && meta[KEY];
    if (!map || !Number.isFinite(zoom) || !calcTrace || calcTrace[0].trace.index !== 0) return;
    (obj.layerList || []).forEach(function (item) {
      if (item[0] === "line" && map.getLayer(item[1])) map.setLayerZoomRange(item[1], zoom, 24);
    });
  }

  window.anonset = window.anonset || {};
  (window.anonset.mapTraceHooks = window.anonset.mapTraceHooks || []).push(bordersFromZoom);
})();
