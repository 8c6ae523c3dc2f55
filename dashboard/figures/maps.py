"""District choropleths drawn by MapLibre on a blank style: no tiles, no token, no CDN.

The one map builder of the app: the personal page's small map (:func:`choropleth`)
and the explorer's district map (:func:`.explorer.district_map`) are made of the
same parts — a main trace that references the served geometry by URL
(:func:`district_trace`), transparent outline traces (:func:`outline_trace`) and
a blank-style layout (:func:`map_layout`).  Figures are plain dicts whose long
columns are numpy arrays, so a map is serialised in one step.
"""
from __future__ import annotations

import math

import numpy as np

from .style import SEQUENTIAL, base_layout, figure, labels, log_ticks, safe_log10, wrap_title

#: The blank MapLibre style needs no external resource (checked by the browser tests).
MAP_STYLE = "white-bg"
#: A colour scale that draws nothing: outline traces show only their borders.
TRANSPARENT = [[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]]
#: Districts whose counts were filled from their region's remainder (SPEC §1.4): magenta outline.
FILLED_COLOUR = "#CC79A7"
#: What a district's hover says: its name, a line about it, and (optionally) the value.
HOVER = "<b>%{customdata}</b><br>%{hovertext}<extra></extra>"
WORLD_VIEW = {"center": {"lon": 0, "lat": 20}, "zoom": 1}
#: The layout ``meta`` key holding a map's frame [lon0, lat0, lon1, lat1] (same string in assets/presenter.js).
FIT_BOUNDS = "anonset_fit_bounds"
#: The room in pixels a map's colour bar takes at the right (each statistic's bar needs 100-114 px at the app's font).
#: The explorer keeps it as the map's right margin whatever the statistic: a margin that followed the labels gave the
#: map a new width at every change of statistic, and MapLibre then cleared and redrew its whole canvas instead of only
#: the districts' colours (issue 26).  A phone's refit (assets/presenter.js) reads it from the layout's ``meta``
#: under :data:`COLORBAR_ROOM_KEY` and counts it once, so the number lives here alone.
COLORBAR_ROOM = 120
COLORBAR_ROOM_KEY = "anonset_colorbar_room"
#: A trace's ``meta`` that lets ``assets/map_recolour.js`` apply a colour-only update through MapLibre's
#: feature state instead of plotly.js re-tiling the whole geometry (same string in that file).
RECOLOUR_IN_PLACE = "anonset:recolour-in-place"


def view_of(frame: dict | None, width: float, height: float) -> dict:
    """Centre and zoom that fit a data set's frame (``census_loaders.geometry.frame``) in a map of
    ``width`` × ``height`` pixels (web-mercator, as MapLibre draws it)."""
    if not frame:
        return WORLD_VIEW
    lon0, lat0, lon1, lat1 = frame["bounds"]

    def merc(lat):
        lat = max(min(lat, 85.0), -85.0)
        return math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))

    dx = max(lon1 - lon0, 1e-6) / 360.0
    dy = max(merc(lat1) - merc(lat0), 1e-6) / (2 * math.pi)
    zoom = float(min(math.log2(width * 0.94 / 512 / dx), math.log2(height * 0.94 / 512 / dy)))
    centre_lat = math.degrees(2 * math.atan(math.exp((merc(lat0) + merc(lat1)) / 2)) - math.pi / 2)
    return {"center": {"lon": round(float(lon0 + lon1) / 2, 4), "lat": round(float(centre_lat), 4)},
            "zoom": round(max(min(zoom, 11.0), 0.5), 2), "bounds": [float(v) for v in (lon0, lat0, lon1, lat1)]}


def geojson_url(code: str) -> str:
    """Where the app serves a data set's district polygons (``dashboard.server.district_geojson``).

    Traces reference the URL, so the browser fetches each country's geometry once
    (and caches it) while figures and patches stay small; ``locations`` picks the
    features a trace draws.
    """
    return f"/geo/{code}.geojson"


#: Above this many districts (Italy's 7,901 municipalities) the white borders are drawn thin and faint:
#: opaque, they cover most of a small district's colour when the whole country is in view.
MANY_DISTRICTS = 5000


#: The layout ``meta`` key holding the zoom from which a map of very many districts draws its districts' borders
#: (trace 0's line layer; assets/map_detail.js, same string there).  Below it MapLibre neither builds nor draws them:
#: in this machine's software WebGL they were almost half of every frame of Brazil's 5,564 municipalities (a frame
#: took 220 ms, 120 without), drawn at the first draw and again at each colour change, for hairlines that at the
#: whole-country view only wash out the colours of the smallest districts.
BORDERS_FROM_ZOOM_KEY = "anonset_borders_from_zoom"
#: How far past the desktop's whole-country view a map of very many districts is zoomed when its borders appear:
#: one step, each district twice as wide.  The zoom is absolute, so on a phone, whose map opens further out, the
#: borders appear at the same size of a district on the screen.
BORDER_ZOOM_STEP = 1.0


def borders_from_zoom(n_districts: int, view: dict | None) -> float | None:
    """The zoom from which a map of ``n_districts`` framed at ``view`` draws its borders; ``None``: from the start."""
    if n_districts <= MANY_DISTRICTS or not view or "zoom" not in view:
        return None
    return round(float(view["zoom"]) + BORDER_ZOOM_STEP, 2)


def border(n_districts: int) -> dict:
    """White district borders; faint and thin for a map of very many small districts."""
    if n_districts <= MANY_DISTRICTS:
        return dict(width=0.4, color="#ffffff")
    return dict(width=0.2, color="rgba(255,255,255,0.35)")


def district_trace(geo_url: str, ids, z, *, names, hover, colorbar: dict, hovertemplate: str = HOVER,
                   **props) -> dict:
    """The coloured districts: ``z`` per district (NaN stays white), ``names`` and ``hover`` lines for the hover."""
    ids = labels(ids)
    return dict(type="choroplethmap", geojson=geo_url, locations=ids, z=np.asarray(z, dtype=float),
                colorscale=SEQUENTIAL, colorbar=colorbar,
                marker=dict(line=border(len(ids)), opacity=0.95),
                customdata=labels(names), hovertext=labels(hover), hovertemplate=hovertemplate, name="districts",
                **props)


def outline_trace(geo_url: str, ids, colour: str, width: float, name: str) -> dict:
    """A transparent trace that only draws the borders of ``ids`` (hidden when there are none).

    It references the same browser-cached geometry URL as the main trace; ``locations``
    picks the features it draws, so no geometry travels with the figure.
    """
    ids = [str(i) for i in ids]
    return dict(type="choroplethmap", geojson=geo_url, locations=ids, z=[0] * len(ids), colorscale=TRANSPARENT,
                showscale=False, marker=dict(line=dict(width=width, color=colour)), hoverinfo="skip", name=name,
                visible=bool(ids))


def selected_props(district_id: str | None) -> dict:
    """The selected-outline trace's properties for ``district_id`` (or none): ids only, never geometry."""
    ids = [str(district_id)] if district_id else []
    return {"locations": ids, "z": [0] * len(ids), "visible": bool(ids)}


def map_layout(view: dict | None, *, height: int, title: str = "", title_font: dict | None = None,
               annotations: list | None = None, uirevision: str = "map", n_districts: int = 0) -> dict:
    """A map on the blank style framed at ``view`` (``center`` and ``zoom``), no legend; ``n_districts``, trace 0's
    count, sets when its borders appear (:func:`borders_from_zoom`)."""
    view = view or WORLD_VIEW
    title, lines = wrap_title(title)
    title_dict = dict(text=title, x=0.01)
    if title_font:
        title_dict["font"] = title_font
    if lines > 1:  # from the top edge down, whatever the number of lines
        title_dict.update(y=1, yref="container", yanchor="top", pad=dict(t=18))
    top = (46 if title_font else 40) + 26 * (lines - 1) if title else 0
    layout = base_layout(
        margin=dict(l=0, r=0, t=top, b=0),
        title=title_dict,
        map=dict(style=MAP_STYLE, center=view["center"], zoom=view["zoom"]),
        height=height,
        showlegend=False,
        uirevision=uirevision,
    )
    if annotations:
        layout["annotations"] = annotations
    meta = {}
    if "bounds" in view:  # assets/presenter.js refits this frame to the map's width in the browser (a phone's 390 px)
        meta.update({FIT_BOUNDS: view["bounds"], COLORBAR_ROOM_KEY: COLORBAR_ROOM})
    if (zoom := borders_from_zoom(n_districts, view)) is not None:
        meta[BORDERS_FROM_ZOOM_KEY] = zoom
    if meta:
        layout["meta"] = meta
    return layout


def log_colorbar(values, title: str) -> dict:
    """A colour bar for log10 colours, ticks labelled in people (1, 2, 5, 10 …)."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values) & (values > 0)]
    colorbar = dict(title=dict(text=title, side="right"), thickness=14, len=0.8)
    if finite.size:
        colorbar["tickvals"], colorbar["ticktext"] = log_ticks(float(finite.min()), float(finite.max()))
    return colorbar


def choropleth(
    geojson: str,
    district_ids: list[str],
    values,
    *,
    names: list[str],
    hover_lines: list[str] | None = None,
    title: str = "",
    colorbar_title: str = "",
    view: dict | None = None,
    filled_ids: list[str] | None = None,
    selected_id: str | None = None,
    height: int = 560,
) -> dict:
    """A choropleth of one count per district on a log colour scale; ``geojson`` is :func:`geojson_url`.

    Districts whose counts were filled (SPEC §1.4) get a magenta outline;
    ``selected_id`` is outlined in black.  Trace 0 is the districts (pages patch
    its ``z``, ``hovertext`` and colour bar).
    """
    values = np.asarray(values, dtype=float)
    hover = hover_lines if hover_lines is not None else [""] * len(district_ids)
    traces = [district_trace(geojson, district_ids, safe_log10(values), names=names, hover=hover,
                             colorbar=log_colorbar(values, colorbar_title))]
    if filled_ids:
        traces.append(outline_trace(geojson, filled_ids, FILLED_COLOUR, 2.0, "filled (estimated) district"))
    if selected_id:
        traces.append(outline_trace(geojson, [selected_id], "#000000", 3.0, "selected district"))
    return figure(traces, map_layout(view, height=height, title=title, n_districts=len(district_ids)))
