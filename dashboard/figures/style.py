"""Shared look: colour-blind-safe palettes, fonts, number formatting for axes and hovers."""
from __future__ import annotations

import math

import numpy as np

#: Viridis is perceptually uniform and readable with the common colour-vision deficiencies.
SEQUENTIAL = "Viridis"
#: Okabe–Ito, a qualitative palette distinguishable with colour-vision deficiencies.
QUALITATIVE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
HIGHLIGHT = "#D55E00"
MUTED = "#9AA5B1"
FONT = dict(family="system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif", size=14, color="#1b1f24")

#: Plotly config for every graph: no plotly logo, PNG export at 2×, no external links.
GRAPH_CONFIG = {
    "displaylogo": False,
    "showSendToCloud": False,  # never offer to upload a figure (and what it shows) to Plotly's cloud
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["sendDataToCloud", "sendChartToCloud", "lasso2d", "select2d"],
    "responsive": True,
}


def base_layout(**extra) -> dict:
    layout = dict(
        font=FONT,
        margin=dict(l=10, r=10, t=40, b=10),
        paper_bgcolor="white",
        plot_bgcolor="white",
        hoverlabel=dict(font_size=14),
    )
    layout.update(extra)
    return layout


def percent(share) -> str:
    """A share (0–1) as a percentage with as many digits as a small share needs."""
    try:
        x = 100.0 * float(share)
    except (TypeError, ValueError):
        return "–"
    if not math.isfinite(x):
        return "–"
    if x == 0:
        return "0 %"
    if x < 1e-4:
        return f"{x:.1e} %"
    if x < 1:
        return f"{x:.2g} %"
    return f"{x:.1f} %"


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Tick positions (log10 space) and labels 1, 2, 5, 10, 20, 50 … between lo and hi."""
    lo = max(lo, 1e-3)
    hi = max(hi, lo * 10)
    vals, text = [], []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10.0**e
            if lo <= v <= hi:
                vals.append(math.log10(v))
                text.append(short_number(v))
    if len(vals) > 9:  # keep only the powers of ten when crowded
        keep = [i for i, t in enumerate(text) if t.startswith("1")]
        vals, text = [vals[i] for i in keep], [text[i] for i in keep]
    return vals, text


def short_number(v: float) -> str:
    """0.5, 20, 5k, 2M: compact labels for log axes."""
    if v >= 1e9:
        return f"{v / 1e9:g}B"
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def safe_log10(values) -> np.ndarray:
    """log10 with non-positive values as NaN (shown as 'no data', never as a wrong colour)."""
    arr = np.asarray(values, dtype=float)
    out = np.full(arr.shape, np.nan)
    pos = arr > 0
    out[pos] = np.log10(arr[pos])
    return out


def frozen_figure(fig) -> dict:
    """A figure as a plain dict whose long numeric lists are numpy arrays.

    For figures memoised and served many times: Dash re-serialises a ``go.Figure``
    on every response (a deep copy, then a walk over every number), whereas numpy
    arrays go out in one step as compact typed arrays that plotly.js reads.
    """

    def convert(value):
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            if len(value) > 32 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
                return np.asarray(value, dtype=float)
            return [convert(v) for v in value]
        return value

    return convert(fig.to_plotly_json())
