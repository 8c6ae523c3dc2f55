"""Figures of the attack lab (pure builders: measured shares in, plain figure dicts out).

Shares are on a linear 0–100 % axis; gallery sizes on a log axis over the measured range.
The forecast chart is the scaling page's (:func:`dashboard.figures.scaling.forecast_figure`),
so measured and typed-in correctness look the same.
"""
from __future__ import annotations

import math

import numpy as np

from .scaling import forecast_figure  # noqa: F401  (re-exported: the attack page's forecast chart)
from .style import QUALITATIVE, axis, base_layout, column, figure, short_number

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
    return axis("gallery size n (users, log scale)", type="log",
                range=[math.log10(lo) - 0.06, math.log10(hi) + 0.06], tickvals=ticks,
                ticktext=[short_number(v) for v in ticks], zeroline=False, showline=True, linecolor=AXIS_LINE)


#: Room under the x axis for its tick labels and title, then the legend (at the figure's bottom edge: a legend
#: placed under the plot in plot coordinates sat on the axis title on a phone).
LEGEND_ROOM = 130


def _layout(height: int, y: dict, x: dict, title: str) -> dict:
    return base_layout(
        height=height + LEGEND_ROOM - 40, xaxis=x, yaxis=y, hovermode="x unified",
        title=dict(text=title, x=0, xanchor="left", font=dict(size=15)),
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0, xanchor="left"),
        margin=dict(l=10, r=10, t=64, b=LEGEND_ROOM),
    )


def _share_traces(x, rows: list[dict], hover_x: str, sd: bool = True) -> list[dict]:
    data = []
    for key, label in (("kappa", "identified"), ("no_match", "no match"), ("wrong", "wrong")):
        y = column([r[key] for r in rows])
        trace = dict(type="scatter", x=column(x), y=y, mode="lines+markers", name=label,
                     line=dict(color=SHARE_COLOURS[label], dash=SHARE_DASH[label], width=3 if key == "kappa" else 2),
                     marker=dict(size=7), hovertemplate=f"{label}: %{{y:.1%}}<extra></extra>")
        if key == "kappa" and sd and any(r.get("kappa_sd", 0) for r in rows):
            trace["error_y"] = dict(type="data", array=column([r.get("kappa_sd", 0.0) for r in rows]),
                                    visible=True, thickness=1.2, width=4, color=SHARE_COLOURS[label])
        data.append(trace)
    return data


def shares_vs_n_figure(measured: list[dict], known: int) -> dict:
    """Identified / no match / wrong against the gallery size (error bars: SD between repetitions)."""
    ns = [r["n"] for r in measured]
    title = f"Identification against gallery size<br><sup>m = {known} known ratings per target</sup>"
    return figure(_share_traces(ns, measured, "n"), _layout(360, _share_axis("share of targets"), _n_axis(ns), title))


def shares_vs_m_figure(rows: list[dict], n: int) -> dict:
    """Identified / no match / wrong against the number m of known ratings, at one gallery size."""
    ms = [r["known"] for r in rows]
    x = axis("known ratings m", range=[min(ms) - 0.5, max(ms) + 0.5], tickvals=ms, zeroline=False, showline=True,
             linecolor=AXIS_LINE)
    title = f"Identification against known ratings<br><sup>galleries of {n:,} users</sup>"
    return figure(_share_traces(ms, rows, "m"), _layout(360, _share_axis("share of targets"), x, title))


def entropy_figure(measured: list[dict]) -> dict:
    """Candidate-set entropy H(Π), the target's −log₂ Π(r), and the prior log₂ n, in bits, against n."""
    ns = [r["n"] for r in measured]
    series = (
        ("entropy", "H(Π): entropy of the candidate set", QUALITATIVE[0], "solid"),
        ("target_bits", "−log₂ Π(target): bits still needed", QUALITATIVE[2], "dash"),
        ("prior_bits", "log₂ n: before any knowledge", "#8a96a3", "dot"),
    )
    data = [dict(type="scatter", x=column(ns), y=column([r[key] for r in measured]), mode="lines+markers",
                 name=name, line=dict(color=colour, dash=dash, width=2.5), marker=dict(size=6),
                 hovertemplate=f"{name.split(':')[0]}: %{{y:.3f}} bits<extra></extra>")
            for key, name, colour, dash in series]
    top = max([r["prior_bits"] for r in measured] + [1.0])
    y = axis("bits", range=[-0.2, top * 1.08], zeroline=False, showline=True, linecolor=AXIS_LINE)
    title = "Entropy of the candidate set<br><sup>bits, mean over the targets</sup>"
    return figure(data, _layout(360, y, _n_axis(ns), title))


def forecast_points(measured: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """The measured (n, κ̂) as arrays, for :func:`forecast_figure`."""
    return column([r["n"] for r in measured]), column([r["kappa"] for r in measured])
