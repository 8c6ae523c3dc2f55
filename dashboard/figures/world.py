"""The world choropleth: one value per country, drawn by MapLibre on the app's blank offline style.

Made of the same parts as the district maps (:mod:`dashboard.figures.maps`): a main trace that references
the served outline file by URL (``/geo/world.geojson``, feature id = ISO alpha-2), an outline trace that
marks the countries with district statistics, and the blank-style layout.  The person-mean set is coloured
on a log scale (it spans 7 to 10⁶ people), the share below k on a linear percentage scale; both use the
colour-blind-safe sequential scale every map of the app uses.
"""
from __future__ import annotations

import numpy as np

from dashboard.core.text import district_word, format_count, format_percent, local_number, ngettext, percent_suffix
from dashboard.core.text import gettext as _

from .maps import district_trace, log_colorbar, map_layout, outline_trace
from .style import figure, safe_log10, separators, wrap_title

#: Where the app serves every country's outline (``dashboard.server.routes.world_geojson``).
WORLD_GEOJSON_URL = "/geo/world.geojson"
#: The whole world, a little north of the equator (most land and people lie north); at zoom 1.05 the world is
#: 1,060 px wide, about the map's width on a desktop.
WORLD_FRAME = {"center": {"lon": 12, "lat": 28}, "zoom": 1.05}
#: Countries with district statistics get this outline (black: visible on every colour of the scale).
DISTRICTS_OUTLINE = "#000000"
HOVER = "<b>%{customdata}</b><br>%{hovertext}<extra></extra>"
#: A colour bar title's line, at most (it stays within a phone's map).
COLORBAR_TITLE_CHARS = 34
#: The colour bar lies under the map, so on a phone the map keeps the whole width.
HORIZONTAL_BAR = dict(orientation="h", x=0.5, xanchor="center", y=0, yanchor="top", len=0.7, thickness=12,
                      ypad=4)


def stat_text(stat: str, value: float, k: float) -> str:
    """A country's value as its hover and table say it."""
    if stat == "share_below":
        return _("{percent} of people in a set below {k}").format(percent=format_percent(value),
                                                                  k=local_number(f"{k:g}"))
    return ngettext("person-mean set: {count} person", "person-mean set: {count} people", int(value)).format(
        count=format_count(value))


def share_colorbar(title: str) -> dict:
    """A colour bar for shares drawn as percentages 0–100."""
    return dict(title=dict(text=title, side="top"), ticksuffix=percent_suffix())


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
        + (f"{local_number(f'{d:,}')} {district_word(grain, plural=d != 1)} · {year}" if not national
           else _("national only (UN estimate {year}), no districts").format(year=year))
        + "<br>" + _("click: open {code} in the explorer").format(code=code)
        for v, k, d, grain, national, year, code in zip(
            values, rows["k"], rows["districts"], rows["grain"], rows["national_model"], rows["reference_year"],
            rows["code"])
    ]
    colorbar.update(HORIZONTAL_BAR)
    # a phone's map is ~370 px wide: a long title (German, French) is broken into lines under the bar's width
    colorbar["title"]["text"], title_lines = wrap_title(colorbar["title"]["text"], COLORBAR_TITLE_CHARS)
    countries = list(rows["country"])
    main = district_trace(WORLD_GEOJSON_URL, countries, z, names=list(rows["name"]), hover=hover,
                          colorbar=colorbar, hovertemplate=HOVER)
    main["name"] = "countries"
    main["marker"] = dict(line=dict(width=0.3, color="#ffffff"), opacity=0.95)
    with_districts = [c for c, national in zip(countries, rows["national_model"]) if not national]
    outline = outline_trace(WORLD_GEOJSON_URL, with_districts, DISTRICTS_OUTLINE, 1.2, "countries with districts")
    # no ``map.bounds``: with MapLibre's maxBounds set, Plotly 3 draws nothing (seen in Chromium)
    layout = map_layout(WORLD_FRAME, height=height, uirevision="world")
    layout["margin"] = dict(l=0, r=0, t=0, b=64 + 16 * (title_lines - 1))  # room for the colour bar and its title
    layout["separators"] = separators()
    return figure([main, outline], layout)
