"""Figures of the regional explorer (pure builders: data in, plain figure dicts or values out).

The district map is made of :mod:`.maps`' parts (the one map builder); here it gets
the explorer's statistics, and :func:`map_colours` returns exactly the values a
colour-only update patches in place.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from dashboard.core.text import (
    N_,
    district_word,
    format_count,
    format_small,
    ngettext,
    percent_suffix,
    percent_text,
    power_label,
    translate_marked,
)
from dashboard.core.text import gettext as _

from .maps import (
    COLORBAR_ROOM,
    FILLED_COLOUR,
    RECOLOUR_IN_PLACE,
    district_trace,
    map_layout,
    outline_trace,
    selected_props,
)
from .style import GRAPH_CONFIG as STYLE_GRAPH_CONFIG
from .style import (
    HIGHLIGHT,
    MUTED,
    QUALITATIVE,
    axis,
    base_layout,
    column,
    figure,
    labels,
    on_narrow,
    percent,
    separators,
    series_style,
    short_number,
    thinned_ticks,
    vline,
    wrap_title,
)

#: Outline of the district whose detail is open (orange stays visible on every Viridis colour).
SELECTED_COLOUR = HIGHLIGHT
MAP_HEIGHT = 580
#: The map's usual width in pixels (the explorer's main column), for framing a country.
MAP_WIDTH = 740
#: Trace order of the district map; patches address traces by these positions.
MAIN, FILLED, SELECTED = 0, 1, 2
#: A chart title's characters per line on a phone (a 390 px screen at the charts' 15 px title font).
NARROW_TITLE_CHARS = 30
#: Every explorer graph uses the shared config (PNG camera kept, no "send to cloud").
GRAPH_CONFIG = STYLE_GRAPH_CONFIG
#: The CDF readouts: "x % of people have an anonymity set below k".
READOUT_KS: tuple[int, ...] = (5, 20, 100)
FEMALE, MALE = QUALITATIVE[1], QUALITATIVE[0]


class StatInfo(NamedTuple):
    """How a district statistic is named and coloured."""

    column: str
    label: str       # for titles, hovers and the colour bar
    log: bool        # log colour scale (CAS statistics) or linear 0–100 % (the share)


STAT_INFO: dict[str, StatInfo] = {
    "person_mean": StatInfo("person_mean", N_("person mean CAS"), True),
    "cell_mean": StatInfo("cell_mean", N_("cell mean CAS"), True),
    "min": StatInfo("min_cas", N_("minimum non-zero CAS"), True),
    "max": StatInfo("max_cas", N_("maximum CAS"), True),
    "share_below": StatInfo("share_below", N_("share with CAS below k"), False),
}


# --------------------------------------------------------------------------- numbers as text


def format_cas(x) -> str:
    """A CAS as shown everywhere: whole people rounded down; below one person, two significant digits."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "–"
    return format_small(x) if 0 < x < 1 else format_count(x)  # format_count says "–" for NaN and ±inf


def stat_label(stat: str, k: float) -> str:
    """``person mean CAS`` or ``share with CAS below 5``, in the page's language."""
    info = STAT_INFO[stat]
    return _("share with CAS below {k}").format(k=f"{k:g}") if stat == "share_below" else translate_marked(info.label)


def log_ticks(lo: float, hi: float, max_ticks: int = 8) -> tuple[list[float], list[str]]:
    """Readable ticks (in log10 space) for values from ``lo`` to ``hi``, however many decades.

    1-2-5 steps when the range is narrow, powers of ten otherwise, and every n-th
    power of ten when even those would crowd (a minimum CAS can reach 1e-15).
    Unlike :func:`.style.log_ticks` it does not stop at 0.001.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= 0 or hi <= 0:
        return [], []
    if hi < lo:
        lo, hi = hi, lo
    e0, e1 = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    for mantissas in ((1, 2, 5), (1, 3), (1,)):
        vals = [m * 10.0**e for e in range(e0, e1 + 1) for m in mantissas if lo * (1 - 1e-9) <= m * 10.0**e <= hi * (1 + 1e-9)]
        if 2 <= len(vals) <= max_ticks:
            break
    else:
        step = max(1, math.ceil((e1 - e0 + 1) / max_ticks))
        vals = [10.0**e for e in range(e0, e1 + 1) if (e - e0) % step == 0 and lo * (1 - 1e-9) <= 10.0**e <= hi * (1 + 1e-9)]
    if not vals:  # the whole range lies between two ticks
        vals = [lo, hi] if hi > lo else [lo]
    return [round(math.log10(v), 6) for v in vals], [tick_label(v) for v in vals]


def tick_label(v: float) -> str:
    """``10⁻⁶``, ``0.01``, ``5``, ``20k``, ``3M`` (never ``1e-6``)."""
    if v < 1e-3:
        return power_label(v)
    return short_number(float(f"{v:.3g}"))


# --------------------------------------------------------------------------- the district map


class MapColours(NamedTuple):
    """What a colour-only update of the district map replaces (all JSON-ready).

    ``z`` is log10 of the value for CAS statistics (rounded: colours need no more)
    or the share in percent; ``text`` the value as shown in the hover, whose
    ``hovertemplate`` carries the statistic's name once instead of per district.
    """

    z: np.ndarray      # float, NaN where a district has no value
    text: np.ndarray   # strings
    hovertemplate: str
    zmin: float
    zmax: float
    colorbar: dict
    title: str
    n_missing: int


def map_colours(df: pd.DataFrame, stat: str, k: float, *, country_name: str = "", district_label: str = "district") -> MapColours:
    """Colours, hover values, colour bar and title of ``stat`` for a district-statistics frame."""
    info = STAT_INFO[stat]
    values = df[info.column].to_numpy(dtype=float)
    label = stat_label(stat, k)
    if info.log:
        ok = np.isfinite(values) & (values > 0)
        z = np.full(values.shape, np.nan)
        z[ok] = np.round(np.log10(values[ok]), 4)
        text = labels([format_cas(v) if good else "–" for v, good in zip(values, ok)])
        if ok.any():
            lo, hi = float(values[ok].min()), float(values[ok].max())
            if hi <= lo * 1.0001:
                lo, hi = lo / 2, hi * 2
            tickvals, ticktext = log_ticks(lo, hi)
            zmin, zmax = math.log10(lo), math.log10(hi)
        else:
            tickvals, ticktext, zmin, zmax = [], [], 0.0, 1.0
        colorbar = dict(title=dict(text=_("{statistic}<br>(people, log scale)").format(statistic=label), side="right"),
                        tickvals=tickvals, ticktext=ticktext, ticksuffix="")
    else:
        ok = np.isfinite(values)
        z = np.where(ok, np.round(100.0 * values, 3), np.nan)
        text = labels([percent(v) if good else "–" for v, good in zip(values, ok)])
        zmin, zmax = 0.0, 100.0
        colorbar = dict(title=dict(text=_("people with CAS<br>below {k} (%, linear)").format(k=f"{k:g}"), side="right"),
                        tickvals=[0, 20, 40, 60, 80, 100], ticktext=["0", "20", "40", "60", "80", percent_text("100")],
                        ticksuffix="")
    colorbar.update(thickness=14, len=0.85, x=1.0, xanchor="left")
    name = translate_marked(info.label) if stat != "share_below" else _("share of people with CAS below {k}").format(k=f"{k:g}")
    if district_label:  # short enough for a phone; the scale is in the colour bar
        name = _("{statistic} by {district}").format(statistic=name, district=district_word(district_label))
    title = f"{country_name}: {name}"
    template = f"<b>%{{customdata}}</b><br>%{{hovertext}}<br>{label}: <b>%{{text}}</b><extra></extra>"
    return MapColours(z, text, template, round(zmin, 4), round(zmax, 4), colorbar, title.lstrip(": "),
                      int((~ok).sum()))


def hover_people(df: pd.DataFrame, ages_label: str, region_label: str = "") -> np.ndarray:
    """The hover line with each district's population (and whether it was filled)."""
    out = []
    regions = df["region_name"].astype(str).to_numpy() if "region_name" in df else [""] * len(df)
    for pop, filled, region in zip(df["population"].to_numpy(dtype=float), df["filled"].to_numpy(dtype=bool), regions):
        line = ngettext("{count} person aged {ages}", "{count} people aged {ages}", _whole(pop)).format(
            count=format_count(pop), ages=ages_label)
        if region and region not in ("<NA>", "nan"):
            line = f"{region} · {line}"
        if filled:
            line += "<br><i>" + _("filled: estimated from the region's remainder") + "</i>"
        out.append(line)
    return labels(out)


def _whole(x) -> int:
    """A count of people as the whole number a plural rule reads (0 for NaN)."""
    return int(x) if math.isfinite(x) else 0


def district_map(
    geo_url: str,
    df: pd.DataFrame,
    stat: str,
    k: float,
    *,
    ages_label: str,
    view: dict | None = None,
    selected: str | None = None,
    country_name: str = "",
    district_label: str = "district",
    height: int = MAP_HEIGHT,
    colours: MapColours | None = None,
    hover: np.ndarray | None = None,
) -> dict:
    """The full district map of one country: colours of ``stat``, filled districts and the selection outlined.

    Sent once per country; afterwards the page patches ``z``, ``text``, colour
    bar and title (:func:`map_colours`) and the selected outline
    (:func:`selected_props`).  The districts trace is marked
    :data:`.maps.RECOLOUR_IN_PLACE`, so the browser recolours it without re-tiling.  Districts without a value stay white.  A caller
    that memoises :func:`map_colours` and :func:`hover_people` passes them in.
    """
    if colours is None:
        colours = map_colours(df, stat, k, country_name=country_name, district_label=district_label)
    ids = labels(df["district_id"])
    main = district_trace(geo_url, ids, colours.z, names=df["district_name"],
                          hover=hover_people(df, ages_label) if hover is None else hover, colorbar=colours.colorbar,
                          zmin=colours.zmin, zmax=colours.zmax, text=colours.text,
                          hovertemplate=colours.hovertemplate, meta=RECOLOUR_IN_PLACE)
    filled = df.loc[df["filled"].to_numpy(dtype=bool), "district_id"].astype(str).tolist()
    selected_outline = outline_trace(geo_url, [], SELECTED_COLOUR, 3.5, _("selected district"))
    selected_outline.update(selected_props(selected if selected in set(ids.tolist()) else None))
    annotations = []
    if filled:
        annotations.append(dict(
            text=f"<span style='color:{FILLED_COLOUR}'>━</span> " + _(
                "magenta outline: {n} filled (estimated) {districts}").format(
                n=len(filled), districts=district_word(district_label, plural=True)),
            x=0.01, y=0.01, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
            showarrow=False, bgcolor="rgba(255,255,255,0.85)", font=dict(size=12)))
    layout = map_layout(view, height=height, title=colours.title, title_font=dict(size=15), annotations=annotations,
                        uirevision=f"map-{df.attrs.get('country', '')}", n_districts=len(ids))
    layout["separators"] = separators()
    # the colour bar's fixed room (maps.COLORBAR_ROOM); plotly.js still widens it for a bar that needs more (presenter)
    layout["margin"]["r"] = COLORBAR_ROOM
    traces = [main, outline_trace(geo_url, filled, FILLED_COLOUR, 2.2, _("filled (estimated) district")), selected_outline]
    for trace in traces[1:]:  # unchanged outlines are left as drawn, too
        trace["meta"] = RECOLOUR_IN_PLACE
    return figure(traces, layout)


# --------------------------------------------------------------------------- distributions


#: The CDF chart's height in pixels, whatever the number of countries: its legend is a list below the chart
#: (:func:`cdf_key`, drawn by the page), so twelve countries never squeeze the plot.
CDF_HEIGHT = 470
#: Up to this many countries the covered shares are labelled in the plot (the key below always lists them).
MAX_END_LABELS = 4
#: The covered-shares box's size as shares of the plot's width (per character of its longest line) and height (per
#: line), for a projector's 1.4× type on a 1280 px screen (the widest text for the plot's size we show).
END_BOX_CHAR, END_BOX_LINE = 0.0125, 0.075


class CdfKey(NamedTuple):
    """One country in the CDF chart's key: its name, line colour and dash, and where its people curve ends."""

    code: str
    name: str
    colour: str
    dash: str
    end: float  # the share of everyone the model covers (NaN when it covers everyone)


def cdf_key(cdfs: dict, names: dict[str, str]) -> list[CdfKey]:
    """The key of :func:`cdf_figure`: one entry per country, in the chart's order and colours."""
    out = []
    for i, (code, c) in enumerate(cdfs.items()):
        colour, dash = series_style(i)
        share = float(c.covered_share)
        out.append(CdfKey(code, names.get(code, code), colour, dash,
                          share if math.isfinite(share) else float("nan")))
    return out


#: Labels of k closer than this (in decades of the log axis) go on different rows: on a 390 px phone the axis has
#: about 35 px per decade, and "k = 5" beside "20" (0.6 decades apart) read "k = 520".
K_LABEL_DECADES = 1.2
#: Height of one row of k labels (px).
K_LABEL_ROW = 16


def k_label_rows(ks) -> list[int]:
    """The row (0 = lowest) of each k's label: the lowest row whose labels are all far enough away."""
    placed: list[tuple[float, int]] = []
    rows = []
    for k in ks:
        x = math.log10(k)
        row = 0
        while any(r == row and abs(x - px) < K_LABEL_DECADES for px, r in placed):
            row += 1
        placed.append((x, row))
        rows.append(row)
    return rows


def cdf_figure(cdfs: dict, names: dict[str, str], ks=READOUT_KS) -> dict:
    """Person-weighted (solid) and cell-weighted (dotted) CDFs of CAS, one colour per country, log x axis.

    Shares of people are of the people the model covers (SPEC §1.8), so both curves
    end at 100 %.  Twelve countries get twelve distinct colours (then dash patterns,
    :func:`.style.series_style`); the key is a list under the chart (:func:`cdf_key`,
    with each country's covered share), so the plot keeps its height; with a few
    countries the covered shares are also labelled in the plot, one line each.
    """
    traces, annotations, shapes = [], [], []
    top = 1e-3
    key = cdf_key(cdfs, names)
    people_tip = _("{share} of people have CAS ≤ {x}").format(share="%{y:.2f}" + percent_suffix(), x="%{x:,.3~r}")
    cells_tip = _("{share} of combinations have CAS ≤ {x}").format(share="%{y:.2f}" + percent_suffix(), x="%{x:,.3~r}")
    for entry, c in zip(key, cdfs.values()):
        x = column(c.x)
        person = 100.0 * column(c.person)
        cells = 100.0 * column(c.cells)
        name = entry.name
        end = float(np.nanmax(person, initial=0))  # shares of the covered people (SPEC §1.8): 100 %
        done = np.flatnonzero((person >= end - 1e-3) & (cells >= 100.0 - 1e-3))
        top = max(top, float(x[done[0]]) if done.size else float(x[-1]))
        traces.append(dict(
            type="scatter", x=x, y=person, mode="lines", line=dict(color=entry.colour, width=3, dash=entry.dash),
            name=_("{name}: people").format(name=name), legendgroup=entry.code,
            hovertemplate=f"{name}<br>{people_tip}<extra></extra>"))
        traces.append(dict(
            type="scatter", x=x, y=cells, mode="lines", line=dict(color=entry.colour, width=2, dash="dot"),
            name=_("{name}: combinations").format(name=name), legendgroup=entry.code,
            hovertemplate=f"{name}<br>{cells_tip}<extra></extra>"))
    hi = min(top * 5, 1e8)
    ends = [e for e in key if math.isfinite(e.end)]
    if 0 < len(ends) <= MAX_END_LABELS:
        annotations += end_box(ends, [(column(c.x), 100.0 * column(c.person), 100.0 * column(c.cells))
                                       for c in cdfs.values()], (-3.0, math.log10(hi)))
    own_labels = len(annotations)
    rows = k_label_rows(ks)
    for i, k in enumerate(ks):
        shapes.append(vline(k, dict(color=MUTED, width=1, dash="dash")))
        annotations.append(dict(x=math.log10(k), y=1.0, yref="paper", text=f"k = {k:g}" if i == 0 else f"{k:g}",
                                showarrow=False, yanchor="bottom", yshift=K_LABEL_ROW * rows[i],
                                font=dict(size=12, color="#4a5562")))
    tickvals = [10.0**e for e in range(-3, 9) if 10.0**e <= hi * 1.01]
    ticktext = [tick_label(v) for v in tickvals]
    layout = base_layout(
        margin=dict(l=10, r=20, t=30 + K_LABEL_ROW * max(rows, default=0), b=10),
        height=CDF_HEIGHT,
        xaxis=axis(_("anonymity set size x<br>(CAS, people; log scale)"), type="log", range=[-3, math.log10(hi)],
                   tickvals=tickvals, ticktext=ticktext),
        yaxis=axis(_("share with CAS ≤ x (%)"), range=[0, 102], ticksuffix=percent_suffix(), ticklabelstandoff=8),
        separators=separators(),
        showlegend=False,
        hovermode="closest",
        shapes=shapes,
        annotations=annotations,
    )
    # a phone: every other power of ten (eight labels tilted into each other), and no covered-shares box (its
    # corner holds curves at 390 px; the key under the chart lists the same shares)
    return figure(traces, on_narrow(layout, xaxis=thinned_ticks(tickvals, ticktext),
                                    annotations=annotations[own_labels:]))


def end_box(ends: list[CdfKey], curves: list[tuple], x_range: tuple[float, float]) -> list[dict]:
    """The covered shares in one box (so its lines never overlap), in the plot's top-left corner when no curve
    reaches into it there, else its bottom-right corner, else nowhere (the key under the chart lists the shares).

    Each curve is (x, people %, combinations %); the box's size is :data:`END_BOX_CHAR` per character of its
    longest line and :data:`END_BOX_LINE` per line, as shares of the plot (four boxed labels 13 % apart overlapped
    each other at a projector's type, and the lowest one met a curve on a phone)."""
    head = _("shares of the covered:")
    lines = [head] + [f"{e.name}: {percent(e.end)}" for e in ends]
    width = END_BOX_CHAR * max(len(t) + 3 * (i > 0) for i, t in enumerate(lines)) + 0.02  # "━━ " before a country
    height = END_BOX_LINE * len(lines) + 0.02
    lo, hi = x_range
    left_cut, right_cut = 10.0 ** (lo + width * (hi - lo)), 10.0 ** (hi - width * (hi - lo))

    def highest_left() -> float:
        return max((float(np.nanmax(y[x <= left_cut], initial=0.0)) for x, *ys in curves for y in ys), default=0.0)

    def lowest_right() -> float:
        return min((float(np.nanmin(y[x >= right_cut], initial=100.0)) for x, *ys in curves for y in ys), default=100.0)

    if highest_left() < 100.0 * (1 - height) - 2:
        corner = dict(x=0, xanchor="left", y=1, yanchor="top", xshift=4, yshift=-4)
    elif lowest_right() > 100.0 * height + 2:
        corner = dict(x=1, xanchor="right", y=0, yanchor="bottom", xshift=-4, yshift=4)
    else:
        return []
    swatch = lambda e: f'<span style="color:{e.colour}">━━</span> '  # noqa: E731 - the curve's colour, as in the key
    text = "<br>".join([head] + [swatch(e) + line for e, line in zip(ends, lines[1:])])
    return [dict(xref="paper", yref="paper", align="left", showarrow=False, text=text,
                 font=dict(size=12, color="#1b1f24"), bgcolor="rgba(255,255,255,0.9)", bordercolor=MUTED,
                 borderwidth=1, borderpad=4, **corner)]


def distribution_figure(distribution: pd.DataFrame, title: str = "") -> dict:
    """A district's people by sex and age group (grouped bars, hover in whole people)."""
    traces = []
    for sex, colour in (("female", FEMALE), ("male", MALE)):
        word = translate_marked(sex)  # the catalogue's "female", "male" (the personal page marks them)
        part = distribution[distribution["sex"].astype(str) == sex]
        if part.empty:
            continue
        people = column(part["people"])
        traces.append(dict(
            type="bar", x=part["age"].astype(str).tolist(), y=people, name=word, marker=dict(color=colour),
            customdata=[ngettext("{count} person", "{count} people", _whole(p)).format(count=format_count(p))
                        for p in people],
            hovertemplate=f"{word}, %{{x}}: %{{customdata}}<extra></extra>"))
    n_ages = distribution["age"].nunique()
    layout = base_layout(
        margin=dict(l=10, r=10, t=70 if title else 30, b=10),
        title=dict(text=title, x=0.01, y=0.98, yanchor="top", font=dict(size=15)),
        height=360,
        barmode="group",
        bargap=0.15,
        xaxis=axis(_("age group"), tickangle=-60 if n_ages > 6 else 0, tickfont=dict(size=12)),
        yaxis=axis(_("people"), tickformat=",", rangemode="tozero"),  # never "200m" people
        separators=separators(),
        legend=dict(orientation="h", y=1.0, x=0, xanchor="left", yanchor="bottom"),
    )
    # a phone: the title in lines of a phone's width ("Berlin: Menschen nach Geschlecht und Altersgruppe" left it)
    short, lines = wrap_title(title, NARROW_TITLE_CHARS)
    if title and lines > 1:
        extra = 19 * (lines - 1) + 8
        title_lines = {**layout["title"], "text": short, "y": 1, "yref": "container", "pad": {"t": 18}}  # as the maps
        layout = on_narrow(layout, title=title_lines, height=layout["height"] + extra,
                           margin={**layout["margin"], "t": layout["margin"]["t"] + extra})
    return figure(traces, layout)
