"""Figures of the bucket advisor (pure builders: plain figure dicts).

* :func:`front_figure` — information kept (bits) against the share of people
  protected (CAS ≥ k), every configuration of the ladder as a grey dot, the Pareto
  front as a line, the recommendation highlighted, the coverage target as a line;
* :func:`shortfall_map` — each district's own share protected under the
  recommended buckets, the districts below the target outlined (made of
  :mod:`.maps`' parts, geometry referenced by URL as on the explorer).
"""
from __future__ import annotations

import numpy as np

from dashboard.core.text import plural

from .maps import district_trace, map_layout, outline_trace
from .style import HIGHLIGHT, MUTED, QUALITATIVE, axis, base_layout, figure, labels

FRONT_HEIGHT = 500
MAP_HEIGHT = 520
MAP_WIDTH = 740
#: Outline of the districts where the recommendation falls short.
SHORT_COLOUR = HIGHLIGHT


def describe(e: dict, district_label: str = "district", region_label: str = "region") -> str:
    """``age 10-year · height 5 cm · weight 1 kg · district`` from an exported configuration."""
    age = {"census": "census groups", "withheld": "withheld"}.get(e["age_group_years"], f"{e['age_group_years']}-year")
    h = "withheld" if e["height_cm"] == "withheld" else f"{e['height_cm']} cm"
    w = "withheld" if e["weight_kg"] == "withheld" else f"{e['weight_kg']} kg"
    area = {"district": district_label, "region": region_label, "withheld": "no place",
            "district_or_region": f"{district_label} ({region_label} where short)"}[e["area"]]
    return f"age {age} · height {h} · weight {w} · {area}"


def front_figure(points: list[dict], front: list[dict], recommended: dict | None, q: float, k: float, *,
                 district_label: str = "district", region_label: str = "region", title: str = "") -> dict:
    """Bits against coverage: the ladder (grey), its Pareto front (line) and the recommendation (orange)."""
    desc = lambda e: describe(e, district_label, region_label)

    def xy(items):
        return (np.array([100.0 * e["coverage"] for e in items], dtype=float),
                np.array([e["bits"] for e in items], dtype=float))

    hover = "%{hovertext}<br>%{x:.2f} % protected · %{y:.2f} bits<extra></extra>"
    x, y = xy(points)
    traces = [dict(type="scatter", mode="markers", x=x, y=y, name="every configuration on the ladder",
                   marker=dict(size=5, color=MUTED, opacity=0.55), hovertext=labels([desc(e) for e in points]),
                   hovertemplate=hover)]
    fx_, fy = xy(front)
    traces.append(dict(type="scatter", mode="lines+markers", x=fx_, y=fy, name="Pareto front",
                       line=dict(color=QUALITATIVE[0], width=2, shape="hv"), marker=dict(size=7, color=QUALITATIVE[0]),
                       hovertext=labels([desc(e) for e in front]), hovertemplate=hover))
    if recommended is not None:
        rx, ry = xy([recommended])
        traces.append(dict(type="scatter", mode="markers", x=rx, y=ry, name="recommended",
                           marker=dict(size=16, color=HIGHLIGHT, symbol="star", line=dict(width=1, color="#000")),
                           hovertext=labels([desc(recommended)]), hovertemplate=hover))
    lo = float(np.nanmin(x)) if x.size else 0.0
    layout = base_layout(
        title=dict(text=title, x=0.01, font=dict(size=15)),
        height=FRONT_HEIGHT,
        margin=dict(l=64, r=16, t=48 if title else 28, b=56),
        xaxis=axis(f"people with CAS ≥ {k:g} (%)", range=[max(0.0, lo - 2.0), 100.5]),
        yaxis=axis("information kept<br>(bits per person)"),  # one line left a projector's chart at 1280 × 720
        # below the axis title, never on the dots (at 390 px an in-plot legend covered the lower half of the front)
        legend=dict(orientation="h", yanchor="top", y=-0.22, yref="paper", x=0, xanchor="left"),
        shapes=[dict(type="line", xref="x", yref="paper", x0=100 * q, x1=100 * q, y0=0, y1=1,
                     line=dict(color=HIGHLIGHT, width=1.5, dash="dash"))],
        annotations=[dict(text=f"target {100 * q:g} %", x=100 * q, xref="x", y=1, yref="paper", yanchor="bottom",
                          xanchor="right", showarrow=False, font=dict(size=12, color=HIGHLIGHT))],
    )
    return figure(traces, layout)


def _word(n: int, label: str) -> str:
    """``1 Kreis``, ``151 Kreise``: the district word in the number's grammatical number, never "Kreis(s)"."""
    return label if n == 1 else plural(label)


def shortfall_map(geo_url: str, district_ids, district_names, coverage, short_ids, q: float, k: float, *,
                  view: dict | None, district_label: str = "district", title: str = "",
                  height: int = MAP_HEIGHT) -> dict:
    """Each district's share protected (0–100 %, linear), the districts below ``q`` outlined in orange —
    or, when they are more than half, the others outlined in black."""
    cov = 100.0 * np.asarray(coverage, dtype=float)
    hover = [f"{c:.1f} % of its people have CAS ≥ {k:g}" + (" — below the target" if c < 100 * q else "")
             if np.isfinite(c) else "nobody in the study range" for c in cov]
    main = district_trace(geo_url, labels(district_ids), cov, names=labels(district_names), hover=labels(hover),
                          colorbar=dict(title=dict(text=f"% with CAS ≥ {k:g}", side="right"), thickness=14, len=0.8,
                                        ticksuffix=" %"),
                          zmin=0.0, zmax=100.0)
    short = [str(i) for i in short_ids]
    ids = [str(i) for i in district_ids]
    if 2 * len(short) > len(ids):  # outlining nearly everything says nothing: outline the others instead
        short_set = set(short)
        outlined, colour = [i for i in ids if i not in short_set], "#000000"
        legend = f"{len(outlined)} {_word(len(outlined), district_label)} at or above {100 * q:g} %; all others below"
    else:
        outlined, colour = short, SHORT_COLOUR
        legend = f"{len(short)} {_word(len(short), district_label)} below {100 * q:g} %"
    layout = map_layout(view, height=height, title=title, title_font=dict(size=15),
                        uirevision=f"buckets-{geo_url}",
                        annotations=[dict(
                            text=f"<span style='color:{colour}'>━</span> {legend}", x=0.01, y=0.01, xref="paper",
                            yref="paper", xanchor="left", yanchor="bottom", showarrow=False,
                            bgcolor="rgba(255,255,255,0.85)", font=dict(size=12))])
    return figure([main, outline_trace(geo_url, outlined, colour, 2.4, f"outlined {plural(district_label)}")], layout)
