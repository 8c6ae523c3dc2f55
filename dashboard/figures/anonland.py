"""Figures of the AnonLand page and the tables that stand in for them (pure: results in, figures/rows out).

Each chart has a ``*_rows`` twin giving the same numbers as a table, so the page
can offer a table alternative that cannot drift from the picture.  Inputs are the
per-citizen table and the summary of :mod:`dashboard.core.anonland` (a fresh run
or :func:`~dashboard.core.anonland.load_result`), so the shipped result and a
rerun are drawn by the same code.

Figures are plain dicts with numeric columns as float arrays (see the note in
:mod:`dashboard.figures.style`): the divergence chart alone has 5,000 points per
census, and a ``go.Figure`` or lists of lists would cost more than the run.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from dashboard.core.anonland import DIVERGENCE_THRESHOLD, box_frame, class_label
from dashboard.core.ras_ranges import ras_range_label, ras_range_masks
from dashboard.core.text import format_small, local_number, ngettext, percent_suffix
from dashboard.core.text import gettext as _

from .style import (
    MUTED,
    QUALITATIVE,
    axis,
    base_layout,
    column,
    figure,
    hline,
    hrect,
    labels,
    log_ticks,
    on_narrow,
    separators,
    thinned_ticks,
    vline,
    wrap_title,
)

#: Which census a chart shows: the plain one, the Laplace-noised one, or both.
CENSUSES = ("plain", "noisy", "both")
#: Divergences above this are drawn on the chart's top edge (as triangles) so the ±25 % band stays visible.
DIVERGENCE_CAP = 2.0
BAND_COLOUR = "#009E73"
#: An axis title's line, at most (longer ones are broken: German's ran past a phone's chart).
AXIS_TITLE_CHARS = 32
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _check_census(census: str) -> str:
    if census not in CENSUSES:
        raise ValueError(f"census must be one of {CENSUSES}, not {census!r}")
    return census


def class_colours(citizens: pd.DataFrame) -> dict[str, str]:
    """One Okabe–Ito colour per district class, in the classes' own order (biggest districts first)."""
    col = citizens["district_class"]
    names = list(col.cat.categories) if isinstance(col.dtype, pd.CategoricalDtype) else list(dict.fromkeys(col))
    return {str(n): QUALITATIVE[i % len(QUALITATIVE)] for i, n in enumerate(names)}


def percent(x: float | None, digits: int = 1) -> str:
    """−61.8 %, +3.0 %, 0 %: signed, with the language's decimal mark and percent sign (English: " %")."""
    if x is None or not math.isfinite(x):
        return "–"
    v = x * 100
    if v == 0:
        return "0" + percent_suffix()
    sign = "+" if v > 0 else "−"
    if abs(v) < 10 ** -digits:  # −0.02 %, not −0.0 %
        return sign + local_number(f"{abs(v):.1g}") + percent_suffix()
    return sign + local_number(f"{abs(v):.{digits}f}") + percent_suffix()


def share(x: float | None, digits: int = 1) -> str:
    """An unsigned share: 81.7 % (81,7 % in German)."""
    if x is None or not math.isfinite(x):
        return "–"
    return local_number(f"{x * 100:.{digits}f}") + percent_suffix()


def number(x: float | None, digits: int = 3) -> str:
    """A CAS or a difference in people, to ``digits`` significant figures (1,234 stays whole), the language's way."""
    if x is None or not math.isfinite(x):
        return "–"
    if abs(x) >= 10 ** digits:
        return local_number(f"{x:,.0f}")
    return local_number(f"{x:,.{digits}g}") if abs(x) >= 1e-4 or x == 0 else format_small(x, 2)


def threshold_percent(t: float) -> str:
    """25 % of a threshold, the language's way, kept on one line (a no-break space before % in English)."""
    return local_number(f"{t * 100:g}") + percent_suffix().replace(" ", "\u00a0")


def plain_percent(t: float) -> str:
    """25 % of a share, the language's way (a chart's note, a column heading)."""
    return local_number(f"{t * 100:g}") + percent_suffix()


def threshold_label(t: float) -> str:
    """|divergence| > 25 % (a column heading)."""
    return _("|divergence| > {percent}").format(percent=threshold_percent(t))


def power_of_ten(e: int) -> str:
    """10⁻³ for -3; plain 1, 10, 100 for small non-negative powers."""
    if 0 <= e <= 3:
        return local_number(f"{10 ** e:,}")
    return "10" + str(e).translate(_SUPERSCRIPT)


def _count(n: int) -> str:
    """A whole number of citizens with the language's thousands separator."""
    return local_number(f"{int(n):,}")


def range_label(label: str) -> str:
    """A RAS range's label ("100–999", "≥1000") with the language's digits ("≥1.000" in German)."""
    return re.sub(r"\d+", lambda m: local_number(m.group()), label)


def census_label(key: str) -> str:
    """"CAS, plain census" / "CAS, noisy census" (the box plot's legend)."""
    return {"cas": _("CAS, plain census"), "cas_noisy": _("CAS, noisy census")}[key]


# --------------------------------------------------------------------------- divergence against RAS


def _layout(height: int, **extra) -> dict:
    """The shared look plus what plotly's default template gave these charts (plain dicts carry no template)."""
    return base_layout(margin=dict(l=10, r=10, t=30, b=10), height=height, separators=separators(),
                       hoverlabel=dict(font=dict(size=14), align="left"), **extra)


def divergence_figure(citizens: pd.DataFrame, census: str = "plain", *, cap: float = DIVERGENCE_CAP,
                      threshold: float = DIVERGENCE_THRESHOLD) -> dict:
    """(CAS − RAS)/RAS per test citizen against RAS on a log axis, the ±``threshold`` band shaded.

    Points are coloured by district class (class = crowd size, so the colours also
    guide the eye along the x axis).  With ``census="both"`` the noisy census is
    overlaid as open black circles.  Divergences above ``cap`` are drawn at the cap
    as triangles (their true value in the hover) so a few outliers at +500 % do not
    squash the band that matters.  ``customdata`` is numeric only (CAS, divergence in
    %): a class trace names its class in the hover template, the all-class overlay
    in ``text``, so the columns go out as float arrays, not lists of lists.
    """
    census = _check_census(census)
    colours = class_colours(citizens)
    ras = citizens["ras"].to_numpy(float)
    classes = labels(citizens["district_class"])  # a string array: the overlay's text goes out in one step
    shown_classes = np.asarray([class_label(c) for c in classes.tolist()], dtype=str)
    data = []
    hover = ("<br>RAS %{x:,}<br>CAS %{customdata[0]:,.3g}<br>"
             + _("divergence {value}").format(value="%{customdata[1]:+.1f}" + percent_suffix()))

    def add(div_col: str, cas_col: str, name: str, mask: np.ndarray, marker: dict, legendgroup: str,
            label: str | None):
        """``label``: the class shown in every hover of the trace; None = each point's own class (``text``)."""
        div = citizens[div_col].to_numpy(float)
        cas = citizens[cas_col].to_numpy(float)
        first = "%{text}" if label is None else label
        # one trace for the points in range, one (same legend entry) for those drawn at the cap
        for part, clipped in ((mask & ~(div > cap), False), (mask & (div > cap), True)):
            if not part.any() and clipped:
                continue
            trace = dict(
                type="scatter", x=column(ras[part]), y=column(np.minimum(div[part], cap)), mode="markers", name=name,
                legendgroup=legendgroup, showlegend=not clipped,
                marker={**marker, **({"symbol": "triangle-up", "size": 9} if clipped else {})},
                customdata=column(np.column_stack([cas[part], div[part] * 100])),
                hovertemplate=first + hover + "<extra>" + name + "</extra>",
            )
            if label is None:
                trace["text"] = shown_classes[part]
            data.append(trace)

    main_div, main_cas = ("divergence_noisy", "cas_noisy") if census == "noisy" else ("divergence", "cas")
    for name, colour in colours.items():
        mask = classes == name
        if mask.any():
            shown = class_label(name)
            trace_name = _("{district_class} (noisy census)").format(district_class=shown) if census == "noisy" else shown
            add(main_div, main_cas, trace_name, mask, dict(color=colour, size=6, opacity=0.55,
                                                           line=dict(width=0)), name, shown)
    if census == "both":
        add("divergence_noisy", "cas_noisy", _("noisy census (all classes)"), np.ones(len(citizens), bool),
            dict(color="#000000", size=7, opacity=0.5, symbol="circle-open", line=dict(width=1)), "noisy", None)

    shapes = [hrect(-threshold, threshold, fillcolor=BAND_COLOUR, opacity=0.14, layer="below"),
              hline(0, dict(color="#1b1f24", width=1))]
    annotations = [dict(xref="paper", x=0.995, y=threshold, yref="y", text=_("±{percent} band").format(percent=plain_percent(threshold)),
                        showarrow=False, xanchor="right", yanchor="bottom", font=dict(size=12, color="#0b5e45"))]
    lo_x, hi_x = (float(ras.min()), float(ras.max())) if ras.size else (1.0, 10.0)
    all_div = citizens[[main_div] + (["divergence_noisy"] if census == "both" else [])].to_numpy(float)
    lo_y = float(np.nanmin(all_div)) if all_div.size else -1.0
    hi_y = float(np.nanmax(all_div)) if all_div.size else 1.0
    top = min(max(hi_y, threshold), cap)
    n_clipped = int(np.count_nonzero(all_div > cap))
    if n_clipped:
        annotations.append(dict(
            xref="paper", x=0.995, y=cap, yref="y", xanchor="right", yanchor="bottom", showarrow=False,
            text="▲ " + ngettext("{count} point above {percent}, drawn at the edge",
                                 "{count} points above {percent}, drawn at the edge", n_clipped).format(
                count=local_number(f"{n_clipped:,}"), percent="+" + plain_percent(cap)),
            font=dict(size=12, color=MUTED)))
    x_lo, x_hi = max(lo_x, 1) * 0.8, max(hi_x, 10) * 1.25
    tickvals, ticktext = log_ticks(max(lo_x, 1), x_hi)
    y_lo = min(lo_y, -threshold) - 0.08
    y_ticks = [t / 2 for t in range(math.floor(y_lo * 2), math.floor(top * 2) + 1)]
    legend = dict(title=dict(text=_("district class")), orientation="h", yanchor="bottom", y=1.01, x=0,
                  itemsizing="constant")
    layout = _layout(
        460,
        xaxis=axis(_("real anonymity set RAS<br>(log scale)"), type="log", range=[math.log10(x_lo), math.log10(x_hi)],
                   tickvals=[10 ** v for v in tickvals], ticktext=ticktext),
        yaxis=axis(_("divergence (CAS − RAS) / RAS"), zeroline=False, range=[y_lo, top + (0.18 if n_clipped else 0.08)],
                   tickvals=y_ticks, ticktext=[percent(t, 0) if t else "0" for t in y_ticks]),
        legend=legend, shapes=shapes, annotations=annotations,
    )
    # a phone: the legend's title above its entries (beside them, a longer title pushed the entries past the edge)
    return figure(data, on_narrow(layout, legend={**legend, "title": {**legend["title"], "side": "top"}}))


def divergence_rows(citizens: pd.DataFrame, census: str = "plain",
                    threshold: float = DIVERGENCE_THRESHOLD) -> list[dict]:
    """The divergence chart as a table: per RAS range, citizens, median, 10th/90th percentile, share outside the band."""
    census = _check_census(census)
    ras = citizens["ras"].to_numpy()
    div = citizens["divergence_noisy" if census == "noisy" else "divergence"].to_numpy(float)
    rows = []
    for lo, hi, m in ras_range_masks(ras):
        d = div[m]
        q10, med, q90 = np.quantile(d, [0.1, 0.5, 0.9]) if d.size else (None, None, None)
        rows.append({
            "RAS": range_label(ras_range_label(lo, hi)), _("citizens"): int(m.sum()), _("median"): percent(med),
            _("10th percentile"): percent(q10), _("90th percentile"): percent(q90),
            threshold_label(threshold): share(float(np.mean(np.abs(d) > threshold))) if d.size else "–",
        })
    return rows


# --------------------------------------------------------------------------- CAS per RAS below 25


def box_figure(summary: dict, census: str = "plain") -> dict:
    """Box plot of CAS per RAS value (RAS < 25) from the summary's box statistics, with the ideal CAS = RAS.

    Boxes are the middle half of the estimates, whiskers reach 1.5 box lengths
    (Tukey), the dotted mark is the mean; ``census="both"`` puts the noisy-census
    box beside the plain one.
    """
    census = _check_census(census)
    which = {"plain": ["cas"], "noisy": ["cas_noisy"], "both": ["cas", "cas_noisy"]}[census]
    colours = {"cas": QUALITATIVE[0], "cas_noisy": QUALITATIVE[1]}
    data = []
    top, max_ras = 1.0, 1
    for key in which:
        df = box_frame(summary, key)
        if df.empty:
            continue
        data.append(dict(
            type="box", x=column(df["ras"]), q1=column(df["q1"]), median=column(df["median"]), q3=column(df["q3"]),
            lowerfence=column(df["whisker_lo"]), upperfence=column(df["whisker_hi"]), mean=column(df["mean"]),
            name=census_label(key), marker=dict(color=colours[key]), boxpoints=False, offsetgroup=key,
            customdata=column(df["n"]),
        ))
        top = max(top, float(df["whisker_hi"].max()))
        max_ras = max(max_ras, int(df["ras"].max()))
    limit = max(max_ras, 2)
    data.append(dict(type="scatter", x=[0.5, limit + 0.5], y=[0.5, limit + 0.5], mode="lines", name=_("ideal: CAS = RAS"),
                     line=dict(color="#1b1f24", dash="dash", width=1.5), hoverinfo="skip"))
    return figure(data, _layout(
        400,
        boxmode="group" if len(which) > 1 else "overlay",
        xaxis=axis(wrap_title(_("real anonymity set RAS (people)"), AXIS_TITLE_CHARS)[0], range=[0.4, limit + 0.6], dtick=2 if limit > 12 else 1,
                   zeroline=False),
        yaxis=axis(_("estimated anonymity set CAS"), rangemode="tozero", range=[0, max(top, limit + 0.5) * 1.05]),
        legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0),
    ))


def box_rows(summary: dict, census: str = "plain") -> list[dict]:
    """The box plot as a table: per RAS value, citizens and the CAS quartiles, extremes and mean."""
    key = "cas_noisy" if _check_census(census) == "noisy" else "cas"
    df = box_frame(summary, key)
    return [
        {"RAS": int(r.ras), _("citizens"): int(r.n), _("lowest CAS"): number(r["min"]),
         plain_percent(0.25): number(r.q1), _("median CAS"): number(r["median"]),
         plain_percent(0.75): number(r.q3), _("highest CAS"): number(r["max"]), _("mean CAS"): number(r["mean"])}
        for _row, r in df.iterrows()
    ]


# --------------------------------------------------------------------------- noisy against plain


def _difference_values(citizens: pd.DataFrame) -> np.ndarray:
    if "cas_noisy" in citizens and "cas" in citizens:
        return np.abs(citizens["cas_noisy"].to_numpy(float) - citizens["cas"].to_numpy(float))
    return citizens["noisy_minus_plain"].to_numpy(float)


def difference_figure(citizens: pd.DataFrame, bins: int = 40) -> dict:
    """Histogram of |CAS_noisy − CAS_plain| per test citizen on a log axis (the differences span decades).

    Binned in log10 space here (a plotly histogram on a log axis bins linearly);
    the median and the largest difference are marked.  Exact zeros cannot sit on
    a log axis and are counted in a note instead.
    """
    diff = _difference_values(citizens)
    positive = diff[diff > 0]
    data, shapes, annotations = [], [], []
    peak = 0
    if positive.size:
        logs = np.log10(positive)
        lo, hi = math.floor(logs.min() * 4) / 4, math.ceil(logs.max() * 4) / 4
        hi = max(hi, lo + 0.25)
        counts, edges = np.histogram(logs, np.linspace(lo, hi, max(int(bins), 1) + 1))
        centres = (edges[:-1] + edges[1:]) / 2
        peak = int(counts.max())
        hover = [ngettext("{low}–{high} people: {count} citizen", "{low}–{high} people: {count} citizens", int(c)).format(
            low=number(10 ** a), high=number(10 ** b), count=_count(int(c))) for a, b, c in zip(edges[:-1], edges[1:], counts)]
        data.append(dict(type="bar", x=column(centres), y=column(counts), width=float(edges[1] - edges[0]),
                         marker=dict(color=QUALITATIVE[0], line=dict(width=0.5, color="white")), hovertext=hover,
                         hoverinfo="text", name=_("test citizens")))
        ticks = list(range(math.ceil(lo), math.floor(hi) + 1))
        med, top = float(np.median(diff)), float(diff.max())
        marks = ((med, _("median {value}").format(value=number(med)), "right"),
                 (top, _("largest {value}").format(value=number(top)), "right"))
        for row, (value, label, anchor) in enumerate(marks):
            if value > 0:
                shapes.append(vline(math.log10(value), dict(color="#D55E00", width=2, dash="dot")))
                # one row each: on a phone the two lines are a few pixels apart and the labels overlapped
                annotations.append(dict(x=math.log10(value), y=1, yref="paper", text=label, showarrow=False,
                                        xanchor=anchor, yanchor="top", xshift=-4, yshift=-18 * row,
                                        font=dict(size=12, color="#8a3300"), bgcolor="rgba(255,255,255,0.8)"))
        xaxis = axis(_("|CAS noisy − CAS plain|<br>(people, log scale)"), tickvals=ticks,
                     ticktext=[power_of_ten(t) for t in ticks], range=[lo - 0.1, hi + 0.1])
    else:
        xaxis = axis(_("|CAS noisy − CAS plain| (people)"), visible=True)
        annotations.append(dict(text=_("no test citizen's estimate changed"), xref="paper", yref="paper", x=0.5, y=0.5,
                                showarrow=False))
    zeros = int(np.count_nonzero(diff == 0))
    if zeros:
        annotations.append(dict(text=ngettext("{count} citizen with no difference at all (not drawn)",
                                              "{count} citizens with no difference at all (not drawn)", zeros).format(
                                     count=_count(zeros)), xref="paper",
                                yref="paper", x=0, y=1.08, showarrow=False, xanchor="left",
                                font=dict(size=12, color=MUTED)))
    yaxis = axis(_("test citizens"), rangemode="tozero")
    if peak:
        yaxis["range"] = [0, peak * 1.2]  # headroom for the median/largest labels
    layout = _layout(340, bargap=0, xaxis=xaxis, yaxis=yaxis, showlegend=False, shapes=shapes, annotations=annotations)
    if xaxis.get("tickvals"):  # a phone: every other power of ten (ten labels stood on end at 390 px)
        layout = on_narrow(layout, xaxis=thinned_ticks(xaxis["tickvals"], xaxis["ticktext"]))
    return figure(data, layout)


def difference_rows(citizens: pd.DataFrame) -> list[dict]:
    """The histogram as a table: citizens per decade of |CAS_noisy − CAS_plain| (exact zeros in their own row)."""
    diff = _difference_values(citizens)
    rows = []
    zeros = int(np.count_nonzero(diff == 0))
    if zeros:
        rows.append({_("difference (people)"): "0", _("citizens"): zeros})
    positive = diff[diff > 0]
    if positive.size:
        decades = np.floor(np.log10(positive)).astype(int)
        for e in range(int(decades.min()), int(decades.max()) + 1):
            n = int(np.count_nonzero(decades == e))
            rows.append({_("difference (people)"): _("{low} to {high}").format(low=power_of_ten(e), high=power_of_ten(e + 1)),
                         _("citizens"): n})
    return rows


# --------------------------------------------------------------------------- summary tables


def summary_rows(summary: dict) -> list[dict]:
    """The SPEC §4 table: per RAS range, citizens, share outside ±25 % and the median divergence, both censuses."""
    t = summary.get("divergence_threshold", DIVERGENCE_THRESHOLD)
    return [
        {"RAS": range_label(r["range"]), _("citizens"): r["n"],
         _("{heading}, plain").format(heading=threshold_label(t)): share(r["share_diverging"]),
         _("{heading}, noisy").format(heading=threshold_label(t)): share(r["share_diverging_noisy"]),
         _("median divergence, plain"): percent(r["median_divergence"]),
         _("median divergence, noisy"): percent(r["median_divergence_noisy"])}
        for r in summary.get("by_ras_range", [])
    ]


def class_rows(summary: dict) -> list[dict]:
    """Headline numbers per district class (crowd size grows with the district)."""
    t = summary.get("divergence_threshold", DIVERGENCE_THRESHOLD)
    return [
        {_("district class"): class_label(c["district_class"]), _("citizens"): c["n"],
         _("median RAS"): number(c["median_ras"]), _("median CAS"): number(c["median_cas"]),
         threshold_label(t): share(c["share_diverging"]),
         _("median divergence, RAS > {count}").format(count=local_number("25")):
             percent(c["median_divergence_large_ras"], 2),
         _("largest |noisy − plain|"): number(c["max_noisy_minus_plain"])}
        for c in summary.get("by_class", [])
    ]
