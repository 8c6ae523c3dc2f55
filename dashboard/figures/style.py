"""Shared look: colour-blind-safe palettes, fonts, number formatting for axes and hovers."""
from __future__ import annotations

import math

import numpy as np

from dashboard.core.text import (  # noqa: F401 - log_ticks, short_number: part of this module's interface
    below_percent_floor,
    current_language,
    log_ticks,
    number_marks,
    percent_floor_text,
    percent_text,
    short_number,
)

#: Viridis is perceptually uniform and readable with the common colour-vision deficiencies.
SEQUENTIAL = "Viridis"
#: Okabe–Ito, a qualitative palette distinguishable with colour-vision deficiencies.
QUALITATIVE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
#: Twelve distinct colours for charts with one line per country: Okabe–Ito, then Paul Tol's wine, olive and
#: indigo and a grey (each distinguishable from the others with the common colour-vision deficiencies);
#: yellow last (weak on white).  Beyond twelve, lines repeat a colour with another dash pattern (:func:`series_style`).
QUALITATIVE_WIDE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#882255",
                    "#999933", "#332288", "#777777", "#F0E442"]
#: Dash patterns of the solid line of series 13–24, 25–36, …
SERIES_DASHES = ["solid", "longdash", "dashdot", "dash"]
HIGHLIGHT = "#D55E00"
GRID = "#e5e9ee"
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


#: plotly.js's locale of each language (its dictionaries ship in assets/plotly_locales/; English is built in).
PLOTLY_LOCALES = {"en": "en", "de": "de", "fr": "fr", "it": "it", "es": "es", "pt": "pt-BR"}


def graph_config(**extra) -> dict:
    """:data:`GRAPH_CONFIG` in the request's language: plotly.js's own words (toolbar, months) and its decimal and
    thousands separators (``config.locale``)."""
    return {**GRAPH_CONFIG, "locale": PLOTLY_LOCALES.get(current_language(), "en"), **extra}


def separators() -> str:
    """plotly's ``layout.separators`` (decimal, then thousands) in the request's language: ".," in English, ",." in
    German, ", " (a narrow no-break space) in French — Babel's CLDR symbols, as the browser's Intl writes them."""
    return "".join(number_marks())


def series_style(i: int) -> tuple[str, str]:
    """Colour and dash pattern of the ``i``-th series: distinct colours first, then dash patterns."""
    return QUALITATIVE_WIDE[i % len(QUALITATIVE_WIDE)], SERIES_DASHES[(i // len(QUALITATIVE_WIDE)) % len(SERIES_DASHES)]


#: The layout ``meta`` key holding what a chart narrower than a phone's :data:`NARROW_PX` changes (same strings in
#: assets/presenter.js, which applies it where the chart's real width is known): fewer tick labels (eleven n ticks
#: stood on end at 390 px), no in-plot label where a phone has no free corner for it.
NARROW = "anonset_narrow"
NARROW_PX = 600


def on_narrow(layout: dict, **changes) -> dict:
    """``layout`` with ``changes`` to apply when its chart is narrower than :data:`NARROW_PX`: each value replaces
    the layout's, an axis dict is merged into the layout's axis (``xaxis={"tickvals": …}`` keeps its title)."""
    meta = dict(layout.get("meta") or {})
    meta[NARROW] = {**meta.get(NARROW, {}), **changes}
    return {**layout, "meta": meta}


def thinned_ticks(tickvals, ticktext, every: int = 2) -> dict:
    """Every ``every``-th tick of an axis (the last one kept: the world's 8B ends the n axes), horizontal."""
    keep = list(range(0, len(tickvals), every))
    last = len(tickvals) - 1
    if keep and keep[-1] != last:  # the last tick replaces a kept one closer to it than ``every`` ticks
        keep[-1 if len(keep) > 1 and last - keep[-1] < every else len(keep):] = [last]
    return {"tickvals": [tickvals[i] for i in keep], "ticktext": [ticktext[i] for i in keep], "tickangle": 0}


def base_layout(**extra) -> dict:
    layout = dict(
        font=FONT,
        margin=dict(l=10, r=10, t=40, b=10),
        paper_bgcolor="white",
        plot_bgcolor="white",
        hoverlabel=dict(font=dict(size=14)),
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
        return percent_text("0")
    if below_percent_floor(x):
        return percent_floor_text()  # never "1.7e-06 %"
    if x < 1:
        return percent_text(f"{x:.2g}")  # in the page's language: "0,5 %" (English: unchanged, "0.5 %")
    return percent_text(f"{x:.1f}")


def safe_log10(values) -> np.ndarray:
    """log10 with non-positive values as NaN (shown as 'no data', never as a wrong colour)."""
    arr = np.asarray(values, dtype=float)
    out = np.full(arr.shape, np.nan)
    pos = arr > 0
    out[pos] = np.log10(arr[pos])
    return out


# --------------------------------------------------------------------------- plain figure dicts
#
# Every builder returns a plain figure dict ({"data": [...], "layout": {...}}), never a
# ``go.Figure``: plotly.py's validation, its default template (sent with every figure)
# and the element-by-element JSON walk of Python lists cost ten times the computation
# under load.  Long numeric columns are numpy arrays (:func:`column`), long string columns
# numpy string arrays (:func:`labels`); Dash serialises either in one step.  Tests check the dicts with ``go.Figure(fig)``.


def figure(data: list, layout: dict) -> dict:
    """A plain plotly figure."""
    return {"data": data, "layout": layout}


def column(values) -> np.ndarray:
    """A numeric trace column (x, y, z, customdata) as a float array: serialised in one step, NaN as a gap."""
    return np.asarray(values, dtype=float)


def labels(values) -> np.ndarray:
    """Per-point strings (locations, hover text) as a numpy string array, serialised in one step too."""
    if isinstance(values, np.ndarray):  # already strings (returned as is), or numbers
        return values if values.dtype.kind == "U" else values.astype(str)
    to_numpy = getattr(values, "to_numpy", None)  # a pandas column: converted without a Python loop
    if to_numpy is not None:
        return to_numpy(dtype=str)
    return np.asarray([str(v) for v in values], dtype=str)


def axis(title: str = "", **props) -> dict:
    """An axis with the look every chart shares: light grid, room for tick labels, a title."""
    out = dict(gridcolor=GRID, zerolinecolor=GRID, automargin=True)
    if title:
        out["title"] = dict(text=title, standoff=12)
    out.update(props)
    return out


def vline(x: float, line: dict) -> dict:
    """A vertical line at data ``x`` across the whole plot height (what ``add_vline`` makes)."""
    return dict(type="line", xref="x", x0=x, x1=x, yref="y domain", y0=0, y1=1, line=line)


def hline(y: float, line: dict) -> dict:
    """A horizontal line at data ``y`` across the whole plot width."""
    return dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=y, y1=y, line=line)


def hrect(y0: float, y1: float, **props) -> dict:
    """A band between data ``y0`` and ``y1`` across the whole plot width (``fillcolor``, ``opacity``, ``layer``)."""
    return dict(type="rect", xref="x domain", x0=0, x1=1, yref="y", y0=y0, y1=y1, line=dict(width=0), **props)


def message_figure(text: str, height: int = 300) -> dict:
    """An empty chart that says why it is empty ("Computing…", "No data for this choice")."""
    return figure([], base_layout(
        height=height, xaxis=dict(visible=False), yaxis=dict(visible=False),
        annotations=[dict(text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                          font=dict(size=15, color="#5b6672"))]))


#: Characters per line of a chart title that must fit a 390 px phone (plotly never wraps a title).
TITLE_CHARS = 40


def wrap_title(text: str, per_line: int = TITLE_CHARS) -> tuple[str, int]:
    """``text`` broken at spaces into lines of at most ``per_line`` characters (joined by ``<br>``), and the number
    of lines; a title already broken by the caller is kept as it is."""
    if not text or "<br>" in text:
        return text, 1 + text.count("<br>") if text else 1
    lines = [""]
    for word in text.split(" "):
        if lines[-1] and len(lines[-1]) + 1 + len(word) > per_line:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}" if lines[-1] else word
    return "<br>".join(lines), len(lines)


#: Characters per line of an axis or chart title on a phone (German and French titles ran off a 390 px chart).
NARROW_TITLE_CHARS = 30


def narrow_titles(layout: dict, title: str | None = None, **axes: str) -> dict:
    """``layout`` whose chart ``title`` and axes' titles (``xaxis="…"``) are broken into lines of at most
    :data:`NARROW_TITLE_CHARS` on a chart narrower than a phone's (:func:`on_narrow`; a title of 37 characters in
    the charts' 17 px type ran off a 390 px phone); the top margin grows by the title's extra lines."""
    changes = {key: {"title": {"text": wrap_title(text, NARROW_TITLE_CHARS)[0], "standoff": 12}, "automargin": True}
               for key, text in axes.items()}  # automargin: room for a title of two lines below the tick labels
    if title:
        text, lines = wrap_title(title, NARROW_TITLE_CHARS)
        if lines > 1:
            changes["title"] = {**layout.get("title", {}), "text": text}
            margin = dict(layout.get("margin") or {})
            margin["t"] = margin.get("t", 40) + 18 * (lines - 1)
            changes["margin"] = margin
    return on_narrow(layout, **changes)
