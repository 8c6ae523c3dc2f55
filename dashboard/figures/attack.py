"""Figures of the attack lab (pure builders: measured shares in, plain figure dicts out).

Shares are on a linear 0–100 % axis; gallery sizes on a log axis over the measured range.
The forecast chart is the scaling page's (:func:`dashboard.figures.scaling.forecast_figure`),
so measured and typed-in correctness look the same.
"""
from __future__ import annotations

import math

import numpy as np

from dashboard.core.text import N_, format_count, ngettext, translate_marked
from dashboard.core.text import gettext as _

from .scaling import forecast_figure  # noqa: F401  (re-exported: the attack page's forecast chart)
from .style import QUALITATIVE, axis, base_layout, column, figure, on_narrow, separators, short_number, wrap_title

SHARE_COLOURS = {"identified": QUALITATIVE[0], "no match": QUALITATIVE[1], "wrong": QUALITATIVE[5]}
SHARE_DASH = {"identified": "solid", "no match": "dash", "wrong": "dot"}
AXIS_LINE = "#8a96a3"


def _share_axis(title: str) -> dict:
    return axis(title, range=[-0.02, 1.02], tickformat=".0%", tickvals=[0, 0.25, 0.5, 0.75, 1],
                zeroline=False, showline=True, linecolor=AXIS_LINE)


def _n_axis(ns) -> dict:
    lo, hi = float(min(ns)), float(max(ns))
    ticks = sorted({float(v) for v in ns})
    if len(ticks) > 8:
        ticks = [v for v in ticks[:: math.ceil(len(ticks) / 8)]]
    return axis(_("gallery size n (users, log scale)"), type="log",
                range=[math.log10(lo) - 0.06, math.log10(hi) + 0.06], tickvals=ticks,
                ticktext=[short_number(v) for v in ticks], zeroline=False, showline=True, linecolor=AXIS_LINE)


#: Room under the x axis for its tick labels and title, then the legend (at the figure's bottom edge: a legend
#: placed under the plot in plot coordinates sat on the axis title on a phone).
LEGEND_ROOM = 130


#: Characters per line of a chart's title and axis title on a phone (a 390 px chart holds about 40 at 14–15 px).
PHONE_CHARS = 36


def _layout(height: int, y: dict, x: dict, title: str) -> dict:
    """The layout of every chart of the page; on a phone a long title or x axis title (French, Italian) is broken
    into lines, the title's room above the plot grown to match."""
    margin = dict(l=10, r=10, t=64, b=LEGEND_ROOM)
    layout = base_layout(
        height=height + LEGEND_ROOM - 40, xaxis=x, yaxis=y, hovermode="x unified",
        title=dict(text=title, x=0, xanchor="left", font=dict(size=15)),
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0, xanchor="left"),
        margin=margin, separators=separators(),
    )
    narrow = {}
    head, sep, sub = title.partition("<br>")
    wrapped, lines = wrap_title(head, PHONE_CHARS)
    if lines > 1:
        narrow["title"] = {**layout["title"], "text": wrapped + sep + sub}
        narrow["margin"] = {**margin, "t": margin["t"] + 20 * (lines - 1)}
    x_title, x_lines = wrap_title(x.get("title", {}).get("text", ""), PHONE_CHARS)
    if x_lines > 1:
        narrow["xaxis"] = {"title": {**x["title"], "text": x_title}}
    return on_narrow(layout, **narrow) if narrow else layout


def _share_traces(x, rows: list[dict], hover_x: str, sd: bool = True) -> list[dict]:
    data = []
    for key, label in (("kappa", N_("identified")), ("no_match", N_("no match")), ("wrong", N_("wrong"))):
        y = column([r[key] for r in rows])
        name = translate_marked(label)
        trace = dict(type="scatter", x=column(x), y=y, mode="lines+markers", name=name,
                     line=dict(color=SHARE_COLOURS[label], dash=SHARE_DASH[label], width=3 if key == "kappa" else 2),
                     marker=dict(size=7), hovertemplate=f"{name}: %{{y:.1%}}<extra></extra>")
        if key == "kappa" and sd and any(r.get("kappa_sd", 0) for r in rows):
            trace["error_y"] = dict(type="data", array=column([r.get("kappa_sd", 0.0) for r in rows]),
                                    visible=True, thickness=1.2, width=4, color=SHARE_COLOURS[label])
        data.append(trace)
    return data


def shares_vs_n_figure(measured: list[dict], known: int) -> dict:
    """Identified / no match / wrong against the gallery size (error bars: SD between repetitions)."""
    ns = [r["n"] for r in measured]
    title = (_("Identification against gallery size") + "<br><sup>"
             + ngettext("m = {count} known rating per target", "m = {count} known ratings per target", known).format(
                 count=known) + "</sup>")
    return figure(_share_traces(ns, measured, "n"), _layout(360, _share_axis(_("share of targets")), _n_axis(ns),
                                                           title))


def shares_vs_m_figure(rows: list[dict], n: int) -> dict:
    """Identified / no match / wrong against the number m of known ratings, at one gallery size."""
    ms = [r["known"] for r in rows]
    x = axis(_("known ratings m"), range=[min(ms) - 0.5, max(ms) + 0.5], tickvals=ms, zeroline=False, showline=True,
             linecolor=AXIS_LINE)
    title = (_("Identification against known ratings") + "<br><sup>"
             + _("galleries of {count} users").format(count=format_count(n)) + "</sup>")
    return figure(_share_traces(ms, rows, "m"), _layout(360, _share_axis(_("share of targets")), x, title))


def entropy_figure(measured: list[dict]) -> dict:
    """Candidate-set entropy H(Π), the target's −log₂ Π(r), and the prior log₂ n, in bits, against n."""
    ns = [r["n"] for r in measured]
    series = (
        ("entropy", "H(Π)", _("entropy of the candidate set"), QUALITATIVE[0], "solid"),
        ("target_bits", "−log₂ Π(target)", _("bits still needed"), QUALITATIVE[2], "dash"),
        ("prior_bits", "log₂ n", _("before any knowledge"), "#8a96a3", "dot"),
    )
    data = [dict(type="scatter", x=column(ns), y=column([r[key] for r in measured]), mode="lines+markers",
                 name=f"{symbol}: {words}", line=dict(color=colour, dash=dash, width=2.5), marker=dict(size=6),
                 hovertemplate=_("{symbol}: {value} bits").format(symbol=symbol, value="%{y:.3f}")
                 + "<extra></extra>")
            for key, symbol, words, colour, dash in series]
    top = max([r["prior_bits"] for r in measured] + [1.0])
    y = axis(_("bits"), range=[-0.2, top * 1.08], zeroline=False, showline=True, linecolor=AXIS_LINE)
    title = _("Entropy of the candidate set") + "<br><sup>" + _("bits, mean over the targets") + "</sup>"
    return figure(data, _layout(360, y, _n_axis(ns), title))


def forecast_points(measured: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """The measured (n, κ̂) as arrays, for :func:`forecast_figure`."""
    return column([r["n"] for r in measured]), column([r["kappa"] for r in measured])
