"""District maps a report can draw from a file on disk.

The app draws maps with MapLibre (WebGL), whose worker Chrome refuses to start from a ``file://``
page (a blob worker of the opaque origin ``null``): opened from disk, the map would stay blank.  A
report therefore redraws the same traces as plotly's SVG ``choropleth`` on a hidden geo subplot,
with the geometry inline.  Two details make that offline and correct: plotly.js would fetch its
world topojson from its CDN for any geo subplot, so the document provides an empty one
(:data:`GEO_ASSETS`, read by plotly.js before fetching); and d3-geo reads a polygon whose exterior
ring runs counter-clockwise (GeoJSON's order) as the whole sphere minus the polygon, so the rings
are rewound clockwise (:func:`rewind_for_d3`).
"""
from __future__ import annotations

#: Read by plotly.js instead of fetching ``world_110m.json`` (nothing of the world map is drawn: geo.visible false).
GEO_ASSETS = ('<script>window.PlotlyGeoAssets = {topojson: {"world_110m": {"type": "Topology", "objects": {}, '
              '"arcs": []}}};</script>')


def _area(ring) -> float:
    """Twice the signed planar area (lon/lat): positive when the ring runs counter-clockwise."""
    s = 0.0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        s += x0 * y1 - x1 * y0
    return s


def _polygon(rings: list) -> list:
    out = []
    for i, ring in enumerate(rings):
        ring = [list(p[:2]) for p in ring]
        ccw = _area(ring) > 0
        # d3-geo: exterior clockwise, holes counter-clockwise
        out.append(ring[::-1] if (ccw if i == 0 else not ccw) else ring)
    return out


def rewind_for_d3(geojson: dict) -> dict:
    """A copy of a FeatureCollection whose polygons wind as d3-geo (plotly's SVG maps) expects."""
    features = []
    for f in geojson.get("features", ()):
        g = f.get("geometry") or {}
        if g.get("type") == "Polygon":
            g = {"type": "Polygon", "coordinates": _polygon(g["coordinates"])}
        elif g.get("type") == "MultiPolygon":
            g = {"type": "MultiPolygon", "coordinates": [_polygon(p) for p in g["coordinates"]]}
        features.append({**f, "geometry": g})
    return {**geojson, "features": features}


def svg_map(fig: dict, geo_url: str, geojson: dict) -> dict:
    """The app's MapLibre district map as an SVG choropleth with ``geojson`` inline in place of ``geo_url``."""
    geo = rewind_for_d3(geojson)
    data = []
    for t in fig["data"]:
        t = {k: v for k, v in t.items() if k not in ("below", "meta")}
        if t.get("type") == "choroplethmap":
            t["type"] = "choropleth"
            if t.get("geojson") == geo_url:
                t["geojson"] = geo
        data.append(t)
    layout = {k: v for k, v in fig["layout"].items() if k != "map"}
    layout["geo"] = {"fitbounds": "locations", "visible": False, "bgcolor": "rgba(0,0,0,0)",
                     "projection": {"type": "mercator"}}
    layout["dragmode"] = "pan"
    return {**fig, "data": data, "layout": layout}
