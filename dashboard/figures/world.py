"""The world choropleth: one value per country, drawn by MapLibre on the app's blank offline style.

Made of the same parts as the district maps (:mod:`dashboard.figures.maps`): a main trace that references
the served outline file by URL (``/geo/world.geojson``, feature id = ISO alpha-2), an outline trace that
marks the countries with district statistics, and the blank-style layout.  The person-mean set is coloured
on a log scale (it spans 7 to 10⁶ people), the share below k on a linear percentage scale; both use the
colour-blind-safe sequential scale every map of the app uses.
"""
from __future__ import annotations

import numpy as np

from dashboard.core.text import format_count, format_percent, plural

from .maps import district_trace, log_colorbar, map_layout, outline_trace
from .style import figure, safe_log10

#: Where the app serves every country's outline (``dashboard.server.routes.world_geojson``).
WORLD_GEOJSON_URL = "/geo/world.geojson"
#: The whole world, a little north of the equator (most land and people lie north); at zoom 1.05 the world is
#: 1,060 px wide, about the map's width on a desktop.
WORLD_FRAME = {"center": {"lon": 12, "lat": 28}, "zoom": 1.05}
#: Countries with district statistics get this outline (black: visible on every colour of the scale).
DISTRICTS_OUTLINE = "#000000"
HOVER = "<b>%{customdata}</b><br>%{hovertext}<extra></extra>"
#: The colour bar lies under the map, so on a phone the map keeps the whole width.
HORIZONTAL_BAR = dict(orientation="h", x=0.5, xanchor="center", y=0, yanchor="top", len=0.7, thickness=12,
                      ypad=4)


def stat_text(stat: str, value: float, k: float) -> str:
    """A country's value as its hover and table say it."""
    if stat == "share_below":
        return f"{format_percent(value)} of people in a set below {k:g}"
    return f"person-mean set: {format_count(value)} people"


def share_colorbar(title: str) -> dict:
    """A colour bar for shares drawn as percentages 0–100."""
    return dict(title=dict(text=title, side="top"), ticksuffix=" %")


def world_map(rows, stat: str, *, colorbar_title: str, height: int = 520) -> dict:
    """The choropleth of ``rows`` (the map's data sets: ``country``, ``name``, ``person_mean``, ``share_below``,
    ``k``, ``grain``, ``districts``, ``national_model``, ``reference_year``, ``code``) coloured by ``stat``.

    Trace 0 holds the countries (``customdata`` = name, ``locations`` = ISO2); trace 1 outlines those with
    district statistics.  Every country's hover says its value, grain and year, and that a click opens it.
    """
    values = np.asarray(rows[stat], dtype=float)
    if stat == "share_below":
        z, colorbar = 100.0 * values, share_colorbar(colorbar_title)
    else:
        z, colorbar = safe_log10(values), log_colorbar(values, colorbar_title)
        colorbar["title"]["side"] = "top"
    hover = [
        f"{stat_text(stat, v, k)}<br>"
        + (f"{d:,} {plural(grain) if d != 1 else grain} · {year}" if not national
           else f"national only (UN estimate {year}), no districts")
        + f"<br>click: open {code} in the explorer"
        for v, k, d, grain, national, year, code in zip(
            values, rows["k"], rows["districts"], rows["grain"], rows["national_model"], rows["reference_year"],
            rows["code"])
    ]
    colorbar.update(HORIZONTAL_BAR)
    countries = list(rows["country"])
    main = district_trace(WORLD_GEOJSON_URL, countries, z, names=list(rows["name"]), hover=hover,
                          colorbar=colorbar, hovertemplate=HOVER)
    main["name"] = "countries"
    main["marker"] = dict(line=dict(width=0.3, color="#ffffff"), opacity=0.95)
    with_districts = [c for c, national in zip(countries, rows["national_model"]) if not national]
    outline = outline_trace(WORLD_GEOJSON_URL, with_districts, DISTRICTS_OUTLINE, 1.2, "countries with districts")
    # no ``map.bounds``: with MapLibre's maxBounds set, Plotly 3 draws nothing (seen in Chromium)
    layout = map_layout(WORLD_FRAME, height=height, uirevision="world")
    layout["margin"] = dict(l=0, r=0, t=0, b=64)  # room for the colour bar and its title
    return figure([main, outline], layout)
