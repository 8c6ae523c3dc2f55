"""District choropleths drawn by MapLibre on a blank style: no tiles, no token, no CDN."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import SEQUENTIAL, base_layout, log_ticks, safe_log10

#: The blank MapLibre style needs no external resource (checked by the browser tests).
MAP_STYLE = "white-bg"


def geojson_url(code: str) -> str:
    """Where the app serves a data set's district polygons (``dashboard.app.district_geojson``).

    Traces reference the URL, so the browser fetches each country's geometry once
    (and caches it) while figures and patches stay small; ``locations`` picks the
    features a trace draws.
    """
    return f"/geo/{code}.geojson"


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
    log_scale: bool = True,
    filled_ids: list[str] | None = None,
    selected_id: str | None = None,
    height: int = 560,
) -> go.Figure:
    """A choropleth of one value per district; ``geojson`` is :func:`geojson_url` of the data set.

    With ``log_scale`` the colour is log10(value) with ticks labelled in people
    (1, 2, 5, 10 …).  Districts whose counts were filled (SPEC §1.4) get a dashed
    magenta outline and say so on hover; ``selected_id`` is outlined in black.
    """
    values = np.asarray(values, dtype=float)
    z = safe_log10(values) if log_scale else values
    finite = values[np.isfinite(z)]
    colorbar = dict(title=dict(text=colorbar_title, side="right"), thickness=14, len=0.8)
    if log_scale and finite.size:
        tickvals, ticktext = log_ticks(float(finite.min()), float(finite.max()))
        colorbar.update(tickvals=tickvals, ticktext=ticktext)
    hover = hover_lines or [""] * len(district_ids)
    fig = go.Figure(
        go.Choroplethmap(
            geojson=geojson,
            locations=list(district_ids),
            z=z,
            colorscale=SEQUENTIAL,
            marker=dict(line=dict(width=0.4, color="#ffffff"), opacity=0.95),
            colorbar=colorbar,
            customdata=np.column_stack([names, hover]) if len(names) else None,
            hovertemplate="<b>%{customdata[0]}</b><br>%{customdata[1]}<extra></extra>",
            name="districts",
        )
    )
    if filled_ids:
        fig.add_trace(_outline(geojson, filled_ids, "#CC79A7", 2.0, "filled (estimated) district"))
    if selected_id:
        fig.add_trace(_outline(geojson, [selected_id], "#000000", 3.0, "selected district"))
    view = view or {"center": {"lon": 0, "lat": 20}, "zoom": 1}
    fig.update_layout(
        **base_layout(margin=dict(l=0, r=0, t=40 if title else 0, b=0)),
        title=dict(text=title, x=0.01),
        map=dict(style=MAP_STYLE, center=view["center"], zoom=view["zoom"]),
        height=height,
        showlegend=False,
        uirevision="map",
    )
    return fig


def _outline(geojson: str, ids: list[str], colour: str, width: float, label: str) -> go.Choroplethmap:
    """An outline trace: the same (browser-cached) geometry URL, drawing only ``ids``."""
    return go.Choroplethmap(
        geojson=geojson,
        locations=list(ids),
        z=[0] * len(ids),
        colorscale=[[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]],
        showscale=False,
        marker=dict(line=dict(width=width, color=colour)),
        hoverinfo="skip",
        name=label,
    )
