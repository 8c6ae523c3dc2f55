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

from dashboard.core.text import district_word, local_number, percent_suffix, percent_text
from dashboard.core.text import gettext as _

from .maps import district_trace, map_layout, outline_trace
from .style import HIGHLIGHT, MUTED, QUALITATIVE, axis, base_layout, figure, labels, separators, wrap_title

FRONT_HEIGHT = 500
MAP_HEIGHT = 520
MAP_WIDTH = 740
#: The map legend's characters per line (a 390 px phone at its 12 px font).
LEGEND_CHARS = 40
#: Outline of the districts where the recommendation falls short.
SHORT_COLOUR = HIGHLIGHT


def describe(e: dict, district_label: str = "district", region_label: str = "region") -> str:
    """``age 10-year · height 5 cm · weight 1 kg · district`` from an exported configuration (the page's language)."""
    withheld = _("withheld")
    years = e["age_group_years"]
    age = _("census groups") if years == "census" else withheld if years == "withheld" else _("{n}-year").format(n=years)
    h = withheld if e["height_cm"] == "withheld" else f"{local_number(str(e['height_cm']))} cm"
    w = withheld if e["weight_kg"] == "withheld" else f"{local_number(str(e['weight_kg']))} kg"
    dl, rl = district_word(district_label), district_word(region_label)
    area = {"district": dl, "region": rl, "withheld": _("no place"),
            "district_or_region": _("{district} ({region} where short)").format(district=dl, region=rl)}[e["area"]]
    return _("age {age} · height {height} · weight {weight} · {area}").format(age=age, height=h, weight=w, area=area)


def front_figure(points: list[dict], front: list[dict], recommended: dict | None, q: float, k: float, *,
                 district_label: str = "district", region_label: str = "region", title: str = "") -> dict:
    """Bits against coverage: the ladder (grey), its Pareto front (line) and the recommendation (orange)."""
    desc = lambda e: describe(e, district_label, region_label)

    def xy(items):
        return (np.array([100.0 * e["coverage"] for e in items], dtype=float),
                np.array([e["bits"] for e in items], dtype=float))

    hover = "%{hovertext}<br>" + _("{share} protected · {bits} bits").format(
        share="%{x:.2f}" + percent_suffix(), bits="%{y:.2f}") + "<extra></extra>"
    x, y = xy(points)
    traces = [dict(type="scatter", mode="markers", x=x, y=y, name=_("every configuration on the ladder"),
                   marker=dict(size=5, color=MUTED, opacity=0.55), hovertext=labels([desc(e) for e in points]),
                   hovertemplate=hover)]
    fx_, fy = xy(front)
    traces.append(dict(type="scatter", mode="lines+markers", x=fx_, y=fy, name=_("Pareto front"),
                       line=dict(color=QUALITATIVE[0], width=2, shape="hv"), marker=dict(size=7, color=QUALITATIVE[0]),
                       hovertext=labels([desc(e) for e in front]), hovertemplate=hover))
    if recommended is not None:
        rx, ry = xy([recommended])
        traces.append(dict(type="scatter", mode="markers", x=rx, y=ry, name=_("recommended"),
                           marker=dict(size=16, color=HIGHLIGHT, symbol="star", line=dict(width=1, color="#000")),
                           hovertext=labels([desc(recommended)]), hovertemplate=hover))
    lo = float(np.nanmin(x)) if x.size else 0.0
    layout = base_layout(
        title=dict(text=title, x=0.01, font=dict(size=15)),
        height=FRONT_HEIGHT,
        margin=dict(l=64, r=16, t=48 if title else 28, b=56),
        xaxis=axis(_("people with CAS ≥ {k} (%)").format(k=local_number(f"{k:g}")), range=[max(0.0, lo - 2.0), 100.5]),
        yaxis=axis(_("information kept<br>(bits per person)")),
        separators=separators(),  # one line left a projector's chart at 1280 × 720
        # below the axis title, never on the dots (at 390 px an in-plot legend covered the lower half of the front)
        legend=dict(orientation="h", yanchor="top", y=-0.22, yref="paper", x=0, xanchor="left"),
        shapes=[dict(type="line", xref="x", yref="paper", x0=100 * q, x1=100 * q, y0=0, y1=1,
                     line=dict(color=HIGHLIGHT, width=1.5, dash="dash"))],
        annotations=[dict(text=_("target {share}").format(share=percent_text(f"{100 * q:g}")), x=100 * q, xref="x", y=1, yref="paper", yanchor="bottom",
                          xanchor="right", showarrow=False, font=dict(size=12, color=HIGHLIGHT))],
    )
    return figure(traces, layout)


def _word(n: int, label: str) -> str:
    """``1 Kreis``, ``151 Kreise``: the district word in the number's grammatical number, never "Kreis(s)"."""
    return district_word(label, plural=n != 1)


def shortfall_map(geo_url: str, district_ids, district_names, coverage, short_ids, q: float, k: float, *,
                  view: dict | None, district_label: str = "district", title: str = "",
                  height: int = MAP_HEIGHT) -> dict:
    """Each district's share protected (0–100 %, linear), the districts below ``q`` outlined in orange —
    or, when they are more than half, the others outlined in black."""
    cov = 100.0 * np.asarray(coverage, dtype=float)
    below, nobody = " — " + _("below the target"), _("nobody in the study range")
    hover = [_("{share} of its people have CAS ≥ {k}").format(share=percent_text(f"{c:.1f}"), k=local_number(f"{k:g}"))
             + (below if c < 100 * q else "") if np.isfinite(c) else nobody for c in cov]
    main = district_trace(geo_url, labels(district_ids), cov, names=labels(district_names), hover=labels(hover),
                          colorbar=dict(title=dict(text=_("% with CAS ≥ {k}").format(k=local_number(f"{k:g}")),
                                                           side="right"), thickness=14, len=0.8,
                                        ticksuffix=percent_suffix()),
                          zmin=0.0, zmax=100.0)
    short = [str(i) for i in short_ids]
    ids = [str(i) for i in district_ids]
    if 2 * len(short) > len(ids):  # outlining nearly everything says nothing: outline the others instead
        short_set = set(short)
        outlined, colour = [i for i in ids if i not in short_set], "#000000"
        legend = _("{n} {districts} at or above {share}; all others below").format(
            n=len(outlined), districts=_word(len(outlined), district_label), share=percent_text(f"{100 * q:g}"))
    else:
        outlined, colour = short, SHORT_COLOUR
        legend = _("{n} {districts} below {share}").format(n=len(short), districts=_word(len(short), district_label),
                                                           share=percent_text(f"{100 * q:g}"))
    legend, _lines = wrap_title(legend, LEGEND_CHARS)  # a phone's width (German, Spanish … are longer)
    layout = map_layout(view, height=height, title=title, title_font=dict(size=15),
                        uirevision=f"buckets-{geo_url}", n_districts=len(ids),
                        annotations=[dict(
                            text=f"<span style='color:{colour}'>━</span> {legend}", x=0.01, y=0.01, xref="paper",
                            yref="paper", xanchor="left", yanchor="bottom", showarrow=False,
                            bgcolor="rgba(255,255,255,0.85)", font=dict(size=12))])
    layout["separators"] = separators()
    return figure([main, outline_trace(geo_url, outlined, colour, 2.4,
                                       _("outlined {districts}").format(districts=district_word(district_label, plural=True)))],
                  layout)
