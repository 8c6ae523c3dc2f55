"""Figures of the personal page: the funnel and the per-attribute what-ifs (pure builders).

They return plain figure dicts rather than ``go.Figure``: the page redraws six of
them on every answer, and plotly's validation cost ten times the computation.
"""
from __future__ import annotations

import numpy as np

from dashboard.core.cas import CasResult, WhatIf
from dashboard.core.formatting import format_count

from .style import HIGHLIGHT, MUTED, QUALITATIVE, base_layout, log_ticks

STEP_NAMES = {
    "country": "Country",
    "district": "District",
    "sex": "Sex",
    "age": "Age",
    "height": "Height",
    "weight": "Weight",
    "auxiliary": "Also known",
}


def funnel_figure(result: CasResult) -> dict:
    """Each line the previous one narrowed by one attribute, on a log axis (counts can span 10⁸ → 1).

    The axis labels are the short step names so the chart fits a phone; the values
    are in the hover and in the text list beside the chart.
    """
    lines = list(result.funnel)
    labels = [STEP_NAMES.get(l.step, l.step) if l.step != "auxiliary" else _short(l.value) for l in lines]
    counts = np.array([max(l.count, 1e-3) for l in lines])
    text = [format_count(l.count) for l in lines]
    hover = [f"{STEP_NAMES.get(l.step, l.step)}: {l.value}<br><b>{t}</b> people" for l, t in zip(lines, text)]
    colours = [QUALITATIVE[0]] * len(lines)
    if lines:
        colours[-1] = HIGHLIGHT
    bar = dict(type="bar", x=counts.tolist(), y=labels, orientation="h", marker=dict(color=colours), text=text,
               textposition="outside", cliponaxis=False, hovertext=hover, hoverinfo="text")
    lo, hi = float(counts.min()), float(counts.max())
    layout = base_layout(
        margin=dict(l=10, r=60, t=10, b=40),
        height=70 + 40 * len(lines),
        xaxis=dict(type="log", title=dict(text="people (log scale)"), dtick=1, tickformat="~s",
                   range=[float(np.log10(lo)) - 0.3, float(np.log10(hi)) + 1.0], gridcolor="#e5e9ee"),
        yaxis=dict(autorange="reversed", automargin=True),
        showlegend=False,
    )
    return {"data": [bar], "layout": layout}


def _short(text: str, n: int = 16) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def what_if_figure(what_if: WhatIf, title: str, *, max_bars: int | None = None, unit: str = "") -> dict:
    """The final CAS for every value of one attribute, the chosen one highlighted.

    Implausible combinations (BMI outside the range) are drawn hatched and grey;
    for districts (ranked by CAS) only the highest and lowest ``max_bars`` and the
    chosen one are drawn, so a country of 3,000 counties stays readable.
    """
    idx = np.arange(len(what_if.cas))
    if max_bars is not None and len(idx) > 2 * max_bars + 1:
        keep = set(range(max_bars)) | set(range(len(idx) - max_bars, len(idx))) | set(np.flatnonzero(what_if.chosen))
        idx = np.array(sorted(keep))
    cas = what_if.cas[idx]
    labels = [str(l) for l in what_if.labels[idx]]
    chosen = what_if.chosen[idx]
    plausible = np.ones(len(idx), bool) if what_if.plausible is None else what_if.plausible[idx]
    colours = [HIGHLIGHT if c else (QUALITATIVE[0] if p else MUTED) for c, p in zip(chosen, plausible)]
    patterns = ["" if p else "/" for p in plausible]
    hover = [
        f"{l}{unit}<br><b>{format_count(v)}</b> people"
        + ("" if p else "<br>implausible BMI")
        + (" — your value" if c else "")
        for l, v, p, c in zip(labels, cas, plausible, chosen)
    ]
    bar = dict(type="bar", x=labels, y=np.maximum(cas, 1e-3),
               marker=dict(color=colours, pattern=dict(shape=patterns)), hovertext=hover, hoverinfo="text")
    positive = cas[cas > 0]
    lo = float(positive.min()) if positive.size else 1.0
    hi = float(positive.max()) if positive.size else 10.0
    tickvals, ticktext = log_ticks(lo, hi)
    layout = base_layout(
        margin=dict(l=10, r=10, t=40, b=10),
        title=dict(text=title, x=0.01, font=dict(size=15)),
        height=300,
        bargap=0.08 if len(idx) < 80 else 0,
        yaxis=dict(type="log", title=dict(text="people like you"), tickvals=[10**v for v in tickvals],
                   ticktext=ticktext, gridcolor="#e5e9ee"),
        xaxis=dict(type="category", tickangle=-45 if len(idx) > 12 else 0, automargin=True,
                   showticklabels=len(idx) <= 25,
                   title=dict(text="" if len(idx) <= 25 else "ranked, largest first (hover a bar for its name)")),
        showlegend=False,
    )
    if what_if.chosen.any() and not chosen.any():
        layout["annotations"] = [dict(text="your value is outside the range shown", xref="paper", yref="paper",
                                      x=1, y=1.08, showarrow=False, font=dict(size=12, color=MUTED))]
    return {"data": [bar], "layout": layout}
